package api

import (
	"errors"
	"io"
	"strings"
	"sync"
)

// MaxBodyBytes is the contract's limit on a bid request body.
const MaxBodyBytes = 16 << 10

var errTooLarge = errors.New("body too large")

// bodyBuf is a pooled buffer one byte larger than the limit, so that an
// oversized body is noticed without reading it all.
type bodyBuf [MaxBodyBytes + 1]byte

var bodyBufs = sync.Pool{New: func() any { return new(bodyBuf) }}

// readBody reads the request body into buf, failing with errTooLarge
// beyond MaxBodyBytes (at once when the declared length says so).
func readBody(r *Request, buf *bodyBuf) ([]byte, error) {
	if r.ContentLength > MaxBodyBytes {
		return nil, errTooLarge
	}
	if r.Body == nil {
		return buf[:0], nil
	}
	return readLimited(r.Body, buf)
}

// readLimited reads src to its end into buf, failing with errTooLarge as
// soon as more than MaxBodyBytes arrive (buf has room for one byte more),
// without reading the rest.
func readLimited(src io.Reader, buf *bodyBuf) ([]byte, error) {
	n := 0
	for n < len(buf) {
		m, err := src.Read(buf[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if n > MaxBodyBytes {
		return nil, errTooLarge
	}
	return buf[:n], nil
}

const FormMediaType = "application/x-www-form-urlencoded"

// isFormContentType accepts application/x-www-form-urlencoded with the
// rule of hasMediaType.
func isFormContentType(ct string) bool { return hasMediaType(ct, FormMediaType) }

// hasMediaType reports whether a Content-Type is media in any case, alone or
// followed by parameters "; name=value" whose names are all charset (any
// case, any value). Spaces and tabs around the parts are allowed, and so is
// a trailing ';'.
func hasMediaType(ct, media string) bool {
	typ, params, _ := strings.Cut(ct, ";")
	if !strings.EqualFold(strings.Trim(typ, " \t"), media) {
		return false
	}
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if p = strings.Trim(p, " \t"); p == "" {
			continue
		}
		name, _, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.Trim(name, " \t"), "charset") {
			return false
		}
	}
	return true
}
