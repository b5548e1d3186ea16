package nativead

import (
	"errors"
	"fmt"
	"math"

	"github.com/recbid/dspd/internal/bytesview"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The errors of ParseRequest; all wrap ErrInvalid. They are values made
// once, so that a refusal allocates nothing either.
var (
	// ErrInvalid is any native request dspd does not bid on.
	ErrInvalid = errors.New("nativead: invalid native request")
	// ErrSyntax: the value, or the JSON text its string holds, is not
	// valid JSON (it also wraps jsoncodec.ErrSyntax).
	ErrSyntax = fmt.Errorf("%w: %w", ErrInvalid, jsoncodec.ErrSyntax)
	// ErrNotObject: the value is neither a JSON object nor a JSON string
	// holding one.
	ErrNotObject = fmt.Errorf("%w: not a JSON object, nor a string holding one", ErrInvalid)
	// ErrNoAssets: the request has no asset object.
	ErrNoAssets = fmt.Errorf("%w: no assets", ErrInvalid)
)

// ParseRequest reads data, the raw JSON value of an impression's
// imp.native.request, into r: a JSON string holding the native request's
// JSON text (OpenRTB 2.x), or that JSON object itself (as some exchanges
// send it), either of them the request object of Native 1.1 and 1.2 or
// the {"native":{…}} root of 1.0. data is not kept: r's strings alias r's
// own buffers.
//
// A part of the request that is malformed (a value of the wrong kind, an
// integer out of range, a fraction) is treated as absent. The error is
// not nil, and dspd does not bid, only when data is not valid JSON, is not
// an object (or a string holding one), or has no asset object; r then has
// no assets.
func ParseRequest(data []byte, r *Request) error {
	r.reset()
	err := r.parse(data)
	if err != nil {
		r.n, r.Dropped, r.DroppedRequired = 0, 0, false
	}
	return err
}

func (r *Request) parse(data []byte) error {
	// A number of any magnitude is valid JSON (as for the bid request); as
	// a used integer it is out of range, absent.
	s := jsoncodec.NewScannerAnyMagnitude(data)
	if s.WhatIsNext() == jsoncodec.StringValue {
		r.doc = s.AppendString(r.doc[:0])
		if !s.End() {
			return ErrSyntax
		}
		s = jsoncodec.NewScannerAnyMagnitude(r.doc)
	}
	if s.WhatIsNext() != jsoncodec.ObjectValue {
		if s.Err() != nil {
			return ErrSyntax
		}
		return ErrNotObject
	}
	d := decoder{s: s, r: r}
	d.request(true)
	if !d.s.End() {
		return ErrSyntax
	}
	r.checkIDs()
	if r.n == 0 && r.Dropped == 0 {
		return ErrNoAssets
	}
	return nil
}

// checkIDs marks the assets whose id is missing, invalid or shared.
func (r *Request) checkIDs() {
	as := r.assets[:r.n]
	for i := range as {
		if !as[i].idOK {
			as[i].Malformed = true
			continue
		}
		for j := range i {
			if as[j].idOK && as[j].ID == as[i].ID {
				as[i].Malformed, as[j].Malformed = true, true
			}
		}
	}
}

// decoder walks a native request with a Scanner, which reads it in place.
type decoder struct {
	s jsoncodec.Scanner
	r *Request
}

// object reports whether the next value is an object; anything else is
// skipped (absent).
func (d *decoder) object() bool {
	if d.s.WhatIsNext() == jsoncodec.ObjectValue {
		return true
	}
	d.s.Skip()
	return false
}

// array is object for arrays.
func (d *decoder) array() bool {
	if d.s.WhatIsNext() == jsoncodec.ArrayValue {
		return true
	}
	d.s.Skip()
	return false
}

// integer reads an integer in [0, 2^31-1]; ok is false, the value
// skipped, for null, another kind, a fraction, an exponent or a value out
// of range.
func (d *decoder) integer() (n int, ok bool) {
	if d.s.WhatIsNext() != jsoncodec.NumberValue {
		d.s.Skip()
		return 0, false
	}
	r := d.r
	start := len(r.text)
	r.text = d.s.AppendNumber(r.text)
	n, ok = parseInt(r.text[start:])
	r.text = r.text[:start] // numbers are not kept
	return n, ok
}

// int0 is integer with 0 for absent.
func (d *decoder) int0() int {
	n, _ := d.integer()
	return n
}

// parseInt parses ASCII digits in [0, MaxInt32].
func parseInt(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// maxVer is the longest ver kept.
const maxVer = 16

// ver reads "ver": a string, or a number's text (1.2).
func (d *decoder) ver() {
	r := d.r
	start := len(r.text)
	switch d.s.WhatIsNext() {
	case jsoncodec.StringValue:
		r.text = d.s.AppendString(r.text)
	case jsoncodec.NumberValue:
		r.text = d.s.AppendNumber(r.text)
	default:
		d.s.Skip()
		return
	}
	if v := r.text[start:]; len(v) <= maxVer {
		r.Ver = bytesview.String(v)
		return
	}
	r.text = r.text[:start]
	r.Ver = ""
}

// request reads the request object; top: it may hold the 1.0 root's
// "native" member, read as the request.
func (d *decoder) request(top bool) {
	r := d.r
	for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
		switch string(key) {
		case "ver":
			d.ver()
		case "context":
			r.Context = d.int0()
		case "contextsubtype":
			r.ContextSubtype = d.int0()
		case "plcmttype":
			r.PlcmtType = d.int0()
		case "plcmtcnt":
			r.PlcmtCnt = d.int0()
		case "assets":
			d.assets()
		case "eventtrackers", "eventrackers": // the second as the spec's samples (6.1, 6.2) spell it
			d.eventTrackers()
		case "native":
			if top && d.object() {
				r.Wrapped = true
				d.request(false)
			} else if !top {
				d.s.Skip()
			}
		default: // seq, aurlsupport, durlsupport, privacy, ext…
			d.s.Skip()
		}
		if d.s.Err() != nil {
			return
		}
	}
}
