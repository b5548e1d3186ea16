package api

import (
	"bytes"
	"errors"
)

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
//
// The separators are found with bytes.IndexByte; each key, and each value
// the bidder reads, is decoded within its own bytes (decoding never
// lengthens text); the values it ignores (the user agent, mostly) are only
// checked, never written.
func parseForm(body []byte, f *form) error {
	*f = form{}
	s := pairScanner{rest: body}
	for {
		key, val, ok, err := s.next()
		if err != nil || !ok {
			return err
		}
		if k := lookupKey(key); k != keyUnknown && f.vals[k] == nil && len(val) > 0 {
			if f.vals[k], err = unescape(val); err != nil {
				return err
			}
			continue
		}
		if err := checkEscapes(val); err != nil {
			return err
		}
	}
}

// pairScanner splits url-encoded text into pairs at '&' and each pair at
// its first '=', decoding the key in place; the value is left as it
// stands, for the caller to decode (unescape) or only check
// (checkEscapes).
type pairScanner struct{ rest []byte }

// next returns the next pair; ok is false at the end of the text.
func (s *pairScanner) next() (key, rawVal []byte, ok bool, err error) {
	if len(s.rest) == 0 {
		return nil, nil, false, nil
	}
	pair := s.rest
	if amp := bytes.IndexByte(pair, '&'); amp >= 0 {
		pair, s.rest = pair[:amp], pair[amp+1:]
	} else {
		s.rest = nil
	}
	key = pair
	if eq := bytes.IndexByte(pair, '='); eq >= 0 {
		key, rawVal = pair[:eq], pair[eq+1:]
	}
	if key, err = unescape(key); err != nil {
		return nil, nil, false, err
	}
	return key, rawVal, true, nil
}

// unescape decodes t in place: '+' is a space, %XX a byte; a '%' not
// followed by two hex digits is errBadEncoding.
func unescape(t []byte) ([]byte, error) {
	i := 0
	for i < len(t) && t[i] != '%' && t[i] != '+' {
		i++
	}
	if i == len(t) {
		return t, nil
	}
	w := i
	for r := i; r < len(t); r++ {
		c := t[r]
		switch c {
		case '+':
			c = ' '
		case '%':
			if r+2 >= len(t) {
				return nil, errBadEncoding
			}
			hi, ok1 := fromHex(t[r+1])
			lo, ok2 := fromHex(t[r+2])
			if !ok1 || !ok2 {
				return nil, errBadEncoding
			}
			c = hi<<4 | lo
			r += 2
		}
		t[w] = c
		w++
	}
	return t[:w], nil
}

// checkEscapes checks that every '%' in t is followed by two hex digits,
// without decoding.
func checkEscapes(t []byte) error {
	for {
		i := bytes.IndexByte(t, '%')
		if i < 0 {
			return nil
		}
		if i+2 >= len(t) {
			return errBadEncoding
		}
		if _, ok := fromHex(t[i+1]); !ok {
			return errBadEncoding
		}
		if _, ok := fromHex(t[i+2]); !ok {
			return errBadEncoding
		}
		t = t[i+3:]
	}
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
