package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
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
// beyond MaxBodyBytes.
func readBody(r *http.Request, buf *bodyBuf) ([]byte, error) {
	if r.ContentLength > MaxBodyBytes {
		return nil, errTooLarge
	}
	n := 0
	for n < len(buf) {
		m, err := r.Body.Read(buf[n:])
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

const formMediaType = "application/x-www-form-urlencoded"

// isFormContentType accepts application/x-www-form-urlencoded in any case,
// with no parameter or only a charset parameter.
func isFormContentType(ct string) bool {
	if len(ct) == len(formMediaType) && strings.EqualFold(ct, formMediaType) {
		return true // the common case, without allocating
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != formMediaType {
		return false
	}
	for k := range params {
		if k != "charset" {
			return false
		}
	}
	return true
}
