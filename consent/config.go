package consent

import (
	"errors"
	"fmt"
)

// MaxVendorID is the largest id the IAB Global Vendor List can give: TC
// strings write vendor ids in 16 bits.
const MaxVendorID = 1<<16 - 1

// ErrInvalidConfig is the cause of every error New returns.
var ErrInvalidConfig = errors.New("invalid consent configuration")

// Config is the operator's part of the decision.
type Config struct {
	// VendorID is dspd's id on the IAB Global Vendor List (-gvl-vendor-id).
	// 0 means none: every request under GDPR then has no vendor consent and
	// no vendor legitimate interest, so dspd does not bid on it.
	VendorID int
}

// Checker decides requests under one Config. It is immutable and safe for
// concurrent use; a nil *Checker decides as New(Config{}) would.
type Checker struct {
	vendor uint16 // 0: none
}

// New returns the Checker of cfg, or an error wrapping ErrInvalidConfig when
// VendorID is outside 0–MaxVendorID.
func New(cfg Config) (*Checker, error) {
	if cfg.VendorID < 0 || cfg.VendorID > MaxVendorID {
		return nil, fmt.Errorf("%w: vendor id %d is outside 0-%d", ErrInvalidConfig, cfg.VendorID, MaxVendorID)
	}
	return &Checker{vendor: uint16(cfg.VendorID)}, nil
}

// VendorID returns the GVL vendor id the Checker decides for (0: none).
func (c *Checker) VendorID() int {
	if c == nil {
		return 0
	}
	return int(c.vendor)
}
