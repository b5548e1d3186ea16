package exchange

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"sync"

	"github.com/recbid/dspd/bidder"
)

// Encoding is how an exchange writes the clearing price of a win notice.
type Encoding uint8

// The encodings of the exchanges file.
const (
	Clear    Encoding = iota + 1 // a decimal CPM: "1.25"
	HMACSHA1                     // encrypted and signed with HMAC-SHA1
)

// Units of an encrypted price.
const (
	unitCPMMicros = "cpm_micros" // micros of CPM
	unitCPIMicros = "cpi_micros" // micros per impression: × 1000 is CPM micros
)

// KeyBytes is the length of the encryption and integrity keys.
const KeyBytes = 32

// Lengths of an encrypted price.
const (
	ivBytes        = 16
	priceBytes     = 8
	sigBytes       = 4
	encryptedBytes = ivBytes + priceBytes + sigBytes // 28
)

// ErrPrice is the cause of every price a Pricing refuses.
var ErrPrice = errors.New("invalid price")

// Pricing is how one exchange's win notices carry the clearing price. It is
// immutable; a reload makes new ones.
type Pricing struct {
	encoding   Encoding
	eKey, iKey []byte    // HMACSHA1 only
	work       sync.Pool // *work: keyed HMAC-SHA1 states and buffers, reused
	cpi        bool      // the decrypted price is per impression
	print      string
}

// ClearPricing is the pricing of an exchange that sends a decimal CPM.
func ClearPricing() *Pricing { return &Pricing{encoding: Clear, print: "clear"} }

// EncryptedPricing is the pricing of an exchange that encrypts its prices
// with the keys (KeyBytes each); cpi says the price is per impression.
func EncryptedPricing(eKey, iKey []byte, cpi bool) (*Pricing, error) {
	if len(eKey) != KeyBytes || len(iKey) != KeyBytes {
		return nil, fmt.Errorf("keys must be %d bytes", KeyBytes)
	}
	p := &Pricing{encoding: HMACSHA1, eKey: clone(eKey), iKey: clone(iKey), cpi: cpi}
	p.work.New = func() any { return &work{e: hmac.New(sha1.New, p.eKey), i: hmac.New(sha1.New, p.iKey)} }
	h := sha256.New()
	h.Write([]byte("dspd price rules v1\x00"))
	h.Write(eKey)
	h.Write(iKey)
	if cpi {
		h.Write([]byte{1})
	}
	p.print = "hmac-sha1:" + hex.EncodeToString(h.Sum(nil)[:8])
	return p, nil
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// Encoding returns how prices are written.
func (p *Pricing) Encoding() Encoding { return p.encoding }

// Fingerprint names the rules: "clear", or "hmac-sha1:" and 16 hex digits
// of a hash of the keys and unit (never the keys). A bid keeps it, so that
// its win notice is read by the rules it was made under, whatever reloads
// came between.
func (p *Pricing) Fingerprint() string { return p.print }

// Decode reads a win notice's price into CPM micros: a decimal for a clear
// exchange, an encrypted price for the others. It refuses (ErrPrice) what
// is malformed, fails the integrity check, is zero, or is above
// bidder.MaxDecimalMicros; whether the price is above the bid is the bid
// store's to say.
func (p *Pricing) Decode(s []byte) (bidder.Micros, error) {
	if p.encoding == Clear {
		m, err := bidder.ParseMicros(s)
		switch {
		case err != nil:
			return 0, fmt.Errorf("%w: %w", ErrPrice, err)
		case m == 0:
			return 0, fmt.Errorf("%w: zero", ErrPrice)
		}
		return m, nil
	}
	v, err := p.Decrypt(s)
	if err != nil {
		return 0, err
	}
	limit := uint64(bidder.MaxDecimalMicros)
	if p.cpi {
		limit /= 1000
	}
	switch {
	case v == 0:
		return 0, fmt.Errorf("%w: zero", ErrPrice)
	case v > limit:
		return 0, fmt.Errorf("%w: above %s CPM", ErrPrice, bidder.MaxDecimalMicros)
	}
	if p.cpi {
		v *= 1000
	}
	return bidder.Micros(v), nil
}

// Decrypt returns the integer an encrypted price carries: s is web-safe
// base64 (with or without "=" padding) of iv (16 bytes) ‖ p (8) ‖ sig (4);
// the price is p XOR HMAC-SHA1(e_key, iv)[:8], big-endian, and valid only if
// HMAC-SHA1(i_key, price ‖ iv)[:4] is sig (compared in constant time).
func (p *Pricing) Decrypt(s []byte) (uint64, error) {
	if p.encoding != HMACSHA1 {
		return 0, fmt.Errorf("%w: not an encrypting exchange", ErrPrice)
	}
	w := p.work.Get().(*work)
	defer p.work.Put(w)
	if err := decodeBase64(w.raw[:], s); err != nil {
		return 0, err
	}
	iv, enc, sig := w.raw[:ivBytes], w.raw[ivBytes:ivBytes+priceBytes], w.raw[ivBytes+priceBytes:]
	pad := w.mac(w.e, iv, nil)
	for i := range w.price {
		w.price[i] = enc[i] ^ pad[i]
	}
	want := w.mac(w.i, w.price[:], iv)
	if !hmac.Equal(want[:sigBytes], sig) {
		return 0, fmt.Errorf("%w: the integrity check fails", ErrPrice)
	}
	return binary.BigEndian.Uint64(w.price[:]), nil
}

// work is the reusable state of one decryption: the keyed HMACs (reset,
// not re-keyed) and buffers that would otherwise escape to the heap.
type work struct {
	e, i  hash.Hash
	raw   [encryptedBytes]byte
	price [priceBytes]byte
	sum   [sha1.Size]byte
}

// mac returns the HMAC of a then b under h, in w.sum.
func (w *work) mac(h hash.Hash, a, b []byte) []byte {
	h.Reset()
	h.Write(a)
	h.Write(b)
	return h.Sum(w.sum[:0])
}

// decodeBase64 decodes web-safe base64 of exactly len(dst) bytes, with its
// "=" padding or without, in its one canonical spelling: the unused low
// bits of the last character must be zero, so that no two strings carry
// the same price (found by FuzzDecrypt).
func decodeBase64(dst []byte, s []byte) error {
	enc := base64.RawURLEncoding.Strict()
	n := enc.EncodedLen(len(dst))
	switch {
	case len(s) == n:
	case len(s) == base64.URLEncoding.EncodedLen(len(dst)) && strings.Trim(string(s[n:]), "=") == "":
		s = s[:n]
	default:
		return fmt.Errorf("%w: not %d bytes in web-safe base64", ErrPrice, len(dst))
	}
	m, err := enc.Decode(dst, s)
	if err != nil || m != len(dst) {
		return fmt.Errorf("%w: not web-safe base64", ErrPrice)
	}
	return nil
}

// Encrypt is the exchange's side of Decrypt: price, encrypted and signed
// under the pricing's keys with an iv read from rand, in unpadded web-safe
// base64. dspd never encrypts; tests and load tools mint win notices with it.
func (p *Pricing) Encrypt(price uint64, rand io.Reader) (string, error) {
	if p.encoding != HMACSHA1 {
		return "", errors.New("exchange: not an encrypting exchange")
	}
	var raw [encryptedBytes]byte
	iv := raw[:ivBytes]
	if _, err := io.ReadFull(rand, iv); err != nil {
		return "", err
	}
	var plain [priceBytes]byte
	binary.BigEndian.PutUint64(plain[:], price)
	w := p.work.Get().(*work)
	defer p.work.Put(w)
	pad := w.mac(w.e, iv, nil)
	for i := range plain {
		raw[ivBytes+i] = plain[i] ^ pad[i]
	}
	copy(raw[ivBytes+priceBytes:], w.mac(w.i, plain[:], iv)[:sigBytes])
	return base64.RawURLEncoding.EncodeToString(raw[:]), nil
}
