package consent

import "strings"

// The package's own reader of TCF v2 TC strings (IAB Tech Lab, "Consent
// string and vendor list formats v2", "TC String Format"). It reads the
// core segment in place, straight from its base64url text: the fields at
// fixed offsets, then the two vendor sections and the publisher
// restrictions in order, keeping only what dspd needs for one vendor id.
// It allocates nothing, and its work is linear in the length of the core
// (every range entry and restriction entry it walks takes at least 17 bits
// of the string).
//
// It accepts exactly the strings go-gdpr v1.12.0, which the package used
// before, reads without error or panic, apart from what the package
// already refused before calling the library (a version other than 2,
// IsServiceSpecific 0) and carriage returns or line feeds, which Go's
// base64 decoder skips and this reader refuses. Its answers are go-gdpr's,
// except for repeated publisher restriction entries (restrictedBy). The
// tests compare the two.

// Bit positions in the core segment.
const (
	tcfVersionBit           = 0   // Version, 6 bits
	tcfVendorListVersionBit = 120 // VendorListVersion, 12 bits
	tcfServiceSpecificBit   = 138 // IsServiceSpecific
	tcfPurposesConsentBit   = 152 // PurposesConsent, 24 bits, Purpose 1 first
	tcfPurposesLIBit        = 176 // PurposesLITransparency, 24 bits
	tcfVendorConsentBit     = 213 // the Vendor Consent section: MaxVendorId, 16 bits, then IsRangeEncoding
	tcfVersion2             = 2
	tcfVersion2Char         = 'C' // the first 6 bits, version 2, in base64url
	tcfPurposes             = 24
)

// maxRestrictedVendor is the largest vendor id a publisher restriction
// entry may name. The specification sets none; go-gdpr refuses a string
// with a larger one ("one bit short of the max possible"), and so does the
// reader, so that the two accept the same strings.
const maxRestrictedVendor = 32767

// tcfView is what a TC string's core segment says, as far as dspd reads
// it, for one vendor id.
type tcfView struct {
	purposesConsent uint32 // PurposesConsent as read: Purpose p is bit 24-p
	purposesLI      uint32 // PurposesLITransparency, likewise
	maxVendor       uint16 // MaxVendorId of the Vendor Consent section
	maxVendorLI     uint16 // MaxVendorId of the Vendor Legitimate Interest section
	vendorConsent   bool   // the vendor's bit in the Vendor Consent section
	vendorLI        bool   // the vendor's bit in the Vendor Legitimate Interest section
	restrictions    uint8  // bit 4*(p-1)+type: an entry of that type for Purpose p (1 or 2) names the vendor
}

// purposeConsent reports Purpose p's consent bit (p in 1–24).
func (v *tcfView) purposeConsent(p int) bool {
	return p >= 1 && p <= tcfPurposes && v.purposesConsent>>(tcfPurposes-p)&1 == 1
}

// purposeLI reports Purpose p's legitimate-interest transparency bit.
func (v *tcfView) purposeLI(p int) bool {
	return p >= 1 && p <= tcfPurposes && v.purposesLI>>(tcfPurposes-p)&1 == 1
}

// restrictedBy reports whether a publisher restriction entry of type kind
// (0–3) for purpose (1 or 2) names the vendor. Every entry counts: a
// string that repeats a purpose and type in two entries restricts the
// vendors of both (go-gdpr keeps only the last of them, so that a vendor
// named only in the first is not restricted).
func (v *tcfView) restrictedBy(purpose, kind int) bool {
	if purpose < 1 || purpose > 2 || kind < 0 || kind > 3 {
		return false
	}
	return v.restrictions>>(4*(purpose-1)+kind)&1 == 1
}

// readTCF reads the core segment of tc (the text before the first '.'; the
// other segments are not read) for vendor (0: none, which no section
// names). ok is false for a string that is not a readable version 2,
// service-specific TC string: a core that is not base64url or cannot be
// bytes (a length of 4k+1 characters), any field or entry past its last
// whole byte, Version other than 2, IsServiceSpecific 0, VendorListVersion
// 0, or a range entry that names vendor 0, ends above its section's
// MaxVendorId (maxRestrictedVendor for publisher restrictions) or is a
// range that does not end above its start.
func readTCF(tc string, vendor uint16) (v tcfView, ok bool) {
	core := tc
	if i := strings.IndexByte(tc, '.'); i >= 0 {
		core = tc[:i]
	}
	// The first character is the Version: 'C' is 2. Checked first, as it
	// refuses TCF v1 strings without reading further.
	if len(core) == 0 || core[0] != tcfVersion2Char || len(core)%4 == 1 || !validBase64(core) {
		return v, false
	}
	// The core is bytes written in base64url without padding: the bits of
	// a last character that do not complete a byte are padding.
	r := bitReader{s: core, end: 6 * len(core) / 8 * 8}

	version, _ := r.at(tcfVersionBit, 6)
	listVersion, _ := r.at(tcfVendorListVersionBit, 12)
	serviceSpecific, _ := r.at(tcfServiceSpecificBit, 1)
	v.purposesConsent, _ = r.at(tcfPurposesConsentBit, tcfPurposes)
	v.purposesLI, _ = r.at(tcfPurposesLIBit, tcfPurposes)
	if r.failed || version != tcfVersion2 || listVersion == 0 || serviceSpecific != 1 {
		return tcfView{}, false
	}

	r.seek(tcfVendorConsentBit)
	v.maxVendor, v.vendorConsent = r.vendorSection(vendor)
	v.maxVendorLI, v.vendorLI = r.vendorSection(vendor)

	// The publisher restrictions: NumPubRestrictions, then for each a
	// PurposeId (6 bits), a RestrictionType (2 bits) and range entries.
	for range r.read(12) {
		purposeType := r.read(8)
		named := r.rangeEntries(vendor, maxRestrictedVendor)
		if r.failed {
			break
		}
		if p := purposeType >> 2; named && (p == purposeStorage || p == purposeBasicAds) {
			v.restrictions |= 1 << (4*(p-1) + purposeType&3)
		}
	}
	if r.failed {
		return tcfView{}, false
	}
	return v, true
}

// vendorSection reads a Vendor Consent or Vendor Legitimate Interest
// section: MaxVendorId, IsRangeEncoding, then a bit field of MaxVendorId
// bits (vendor 1 first) or range entries. It returns MaxVendorId and
// whether the section names vendor; a failure fails the reader.
func (r *bitReader) vendorSection(vendor uint16) (max uint16, has bool) {
	max = uint16(r.read(16))
	if r.read(1) == 1 {
		return max, r.rangeEntries(vendor, max)
	}
	start := r.offset()
	if !r.skip(int(max)) {
		return max, false
	}
	if vendor >= 1 && vendor <= max {
		bit, _ := r.at(start+int(vendor)-1, 1) // within the bits skip checked
		has = bit == 1
	}
	return max, has
}

// rangeEntries reads NumEntries (12 bits) and the range entries that
// follow (IsARange, StartOrOnlyVendorId, and EndVendorId for a range, 16
// bits each), and reports whether one names vendor. Every entry is walked
// and checked: one naming vendor 0 or a vendor above max, or a range whose
// end is not above its start, fails the reader, as a read past its end does.
func (r *bitReader) rangeEntries(vendor, max uint16) (has bool) {
	for range r.read(12) {
		head := r.read(17)
		start := head & 0xffff
		end := start
		if head>>16 == 1 {
			end = r.read(16)
			if end <= start {
				r.failed = true
			}
		}
		if r.failed || start == 0 || end > uint32(max) {
			r.failed = true
			return false
		}
		if start <= uint32(vendor) && uint32(vendor) <= end {
			has = true
		}
	}
	return has && !r.failed
}
