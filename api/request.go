package api

import (
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/bytesview"
)

// Value limits of the contract.
const (
	maxIDLen     = 64
	maxUIDLen    = 128
	maxStringLen = 256
	maxTSMillis  = 253402300799999 // 9999-12-31T23:59:59.999Z
)

// fieldError is a 400 answer naming the key at fault.
type fieldError struct {
	code    string // errMissingField or errInvalidField
	field   string
	message string
}

// buildRequest validates the form's values in the order of the contract's
// table and fills req. String fields of req alias f's buffer. now is the
// server clock at the request's arrival: the request time, unless trustTS
// is set and the request has a ts (replays of recorded traffic, tests).
func buildRequest(f *form, req *bidder.Request, now time.Time, trustTS bool) *fieldError {
	*req = bidder.Request{Arrived: now}
	var ok bool
	for k := formKey(0); k < numKeys; k++ {
		v := f.vals[k]
		if v == nil {
			if k == keyID || k == keyImpID || k == keyW || k == keyH {
				return &fieldError{CodeMissingField, keyNames[k], keyNames[k] + " is required"}
			}
			continue
		}
		if k != keyUID && k != keyID && k != keyImpID && len(v) > maxStringLen {
			return invalid(k, "must be at most 256 bytes")
		}
		switch k {
		case keyID, keyImpID:
			if len(v) > maxIDLen || !bidder.IsPrintableASCII(v) {
				return invalid(k, "must be 1-64 printable ASCII characters")
			}
			if k == keyID {
				req.ID = str(v)
			} else {
				req.ImpID = str(v)
			}
		case keyW, keyH:
			n, ok := parseInt(v, 1, 10000)
			if !ok {
				return invalid(k, "must be an integer 1-10000")
			}
			if k == keyW {
				req.W = int(n)
			} else {
				req.H = int(n)
			}
		case keyFloor:
			m, err := bidder.ParseMicros(v)
			if err != nil {
				return invalid(k, "must be a decimal >= 0 with at most 6 fractional digits")
			}
			req.Floor = m
		case keyCur:
			if len(v) != 3 || !bidder.IsLetters(v) {
				return invalid(k, "must be a 3-letter currency code")
			}
			req.Cur = str(v)
		case keySite:
			if !bidder.IsToken(v) {
				return invalid(k, "must be a domain name")
			}
			req.Site = str(v)
		case keyBundle:
			req.Bundle = str(v)
		case keyCat:
			req.Cat = str(v)
		case keyBCat:
			req.BCat = str(v)
		case keyBAdv:
			req.BAdv = str(v)
		case keyOS:
			if !bidder.IsToken(v) {
				return invalid(k, "must be a token of letters, digits, '.', '_' or '-'")
			}
			req.OS = str(v)
		case keyDevType:
			n, ok := parseInt(v, 1, 7)
			if !ok {
				return invalid(k, "must be an OpenRTB device type 1-7")
			}
			req.DevType = int(n)
		case keyCountry:
			if len(v) != 2 || !bidder.IsLetters(v) {
				return invalid(k, "must be an ISO 3166-1 alpha-2 code")
			}
			req.Country = str(v)
		case keyRegion:
			if !bidder.IsRegionCode(v) {
				return invalid(k, "must be an ISO 3166-2 code such as CN-31")
			}
			req.Region = str(v)
		case keyCity:
			req.City = str(v)
		case keyUID:
			if len(v) > maxUIDLen {
				return invalid(k, "must be at most 128 bytes")
			}
			req.UID = str(v)
		case keyTS:
			if req.TimeMs, ok = parseInt(v, 0, maxTSMillis); !ok {
				return invalid(k, "must be Unix milliseconds")
			}
			if !trustTS {
				req.TimeMs = 0 // validated, and otherwise ignored: money never comes from the request
			}
		case keyTMax:
			n, ok := parseInt(v, 1, 10000)
			if !ok {
				return invalid(k, "must be an integer 1-10000 (milliseconds)")
			}
			req.TMax = time.Duration(n) * time.Millisecond
		case keyTest, keySecure:
			if len(v) != 1 || (v[0] != '0' && v[0] != '1') {
				return invalid(k, "must be 0 or 1")
			}
			if k == keyTest {
				req.Test = v[0] == '1'
			} else {
				req.Secure = v[0] == '1'
			}
		}
	}
	if f.vals[keyTS] == nil || !trustTS {
		req.TimeMs = now.UnixMilli()
	}
	return nil
}

func invalid(k formKey, msg string) *fieldError {
	return &fieldError{CodeInvalidField, keyNames[k], keyNames[k] + " " + msg}
}

// str aliases b as a string without copying. The string is valid only
// while b's buffer is not reused: until the response is written.
func str(b []byte) string { return bytesview.String(b) }

// parseInt parses ASCII digits (no sign, no spaces; leading zeros allowed)
// within [lo, hi].
func parseInt(b []byte, lo, hi int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for len(b) > 1 && b[0] == '0' {
		b = b[1:]
	}
	if len(b) > 19 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > hi {
			return 0, false
		}
	}
	return n, n >= lo
}
