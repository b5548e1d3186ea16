package api

import "errors"

// errBadEncoding is the cause of every body that is not valid
// url-encoding.
var errBadEncoding = errors.New("bad url-encoding")

// formKey numbers the keys the bidder reads, in the order of the contract's
// table, which is also the order in which their errors are reported.
type formKey uint8

const (
	keyID formKey = iota
	keyImpID
	keyW
	keyH
	keyFloor
	keyCur
	keySite
	keyBundle
	keyCat
	keyBCat
	keyBAdv
	keyOS
	keyDevType
	keyCountry
	keyRegion
	keyCity
	keyUID
	keyTS
	keyTMax
	keyTest
	keySecure
	numKeys
	keyUnknown = numKeys
)

var keyNames = [numKeys]string{
	"id", "imp_id", "w", "h", "floor", "cur", "site", "bundle", "cat", "bcat", "badv",
	"os", "devtype", "country", "region", "city", "uid", "ts", "tmax", "test", "secure",
}

func lookupKey(k []byte) formKey {
	switch string(k) { // compiled to comparisons, no allocation
	case "id":
		return keyID
	case "imp_id":
		return keyImpID
	case "w":
		return keyW
	case "h":
		return keyH
	case "floor":
		return keyFloor
	case "cur":
		return keyCur
	case "site":
		return keySite
	case "bundle":
		return keyBundle
	case "cat":
		return keyCat
	case "bcat":
		return keyBCat
	case "badv":
		return keyBAdv
	case "os":
		return keyOS
	case "devtype":
		return keyDevType
	case "country":
		return keyCountry
	case "region":
		return keyRegion
	case "city":
		return keyCity
	case "uid":
		return keyUID
	case "ts":
		return keyTS
	case "tmax":
		return keyTMax
	case "test":
		return keyTest
	case "secure":
		return keySecure
	}
	return keyUnknown
}

// form holds the decoded values of the keys the bidder reads. A value is
// nil when its key is absent or every occurrence was empty; otherwise it is
// the first non-empty value, aliasing the parsed body.
type form struct {
	vals [numKeys][]byte
}

// parseForm decodes an application/x-www-form-urlencoded body in place and
// fills f. Decoding is strict: '+' is a space, '%' must be followed by two
// hex digits, and anything else after a '%' fails the whole body with
// errBadEncoding, even in keys the bidder ignores. Pairs are separated by
// '&'; a pair without '=' is a key with an empty value; empty values count
// as absent; when a key repeats, its first non-empty value counts.
func parseForm(body []byte, f *form) error {
	*f = form{}
	sc := pairScanner{b: body}
	for {
		key, val, ok, err := sc.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if k := lookupKey(key); k != keyUnknown && len(val) > 0 && f.vals[k] == nil {
			f.vals[k] = val
		}
	}
}

// byte classes of url-encoded text
const (
	clsPlain uint8 = iota
	clsAmp
	clsEq
	clsPlus
	clsPct
)

var formClass = [256]uint8{'&': clsAmp, '=': clsEq, '+': clsPlus, '%': clsPct}

// pairScanner decodes url-encoded text in place, one key=value pair at a
// time, in a single pass over the bytes. Decoded pairs are packed at the
// front of the buffer; since decoding never lengthens text, the write
// position never passes the read position.
type pairScanner struct {
	b    []byte
	r, w int
}

// next returns the next pair; ok is false at the end of the text.
func (s *pairScanner) next() (key, val []byte, ok bool, err error) {
	b, r, w := s.b, s.r, s.w
	if r >= len(b) {
		return nil, nil, false, nil
	}
	start, eq := w, -1
scan:
	for r < len(b) {
		c := b[r]
		switch formClass[c] {
		case clsPlain:
		case clsAmp:
			r++
			break scan
		case clsEq:
			if eq < 0 {
				eq = w
				r++
				continue
			}
		case clsPlus:
			c = ' '
		case clsPct:
			if r+2 >= len(b) {
				return nil, nil, false, errBadEncoding
			}
			hi, ok1 := fromHex(b[r+1])
			lo, ok2 := fromHex(b[r+2])
			if !ok1 || !ok2 {
				return nil, nil, false, errBadEncoding
			}
			c = hi<<4 | lo
			r += 2
		}
		b[w] = c
		w++
		r++
	}
	s.r, s.w = r, w
	if eq < 0 {
		return b[start:w], nil, true, nil
	}
	return b[start:eq], b[eq:w], true, nil
}

func fromHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
