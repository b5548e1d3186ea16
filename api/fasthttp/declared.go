package fasthttp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
)

// fasthttp reads the first 8 KiB of a body before it calls the handler,
// even one whose declared length is over the contract's limit, which the
// core refuses unread (413): a client that declares a large body and sends
// none would wait out the read timeout for a 408. Such a request is
// declared to have no body before fasthttp reads it (and its Expect:
// 100-continue dropped, so that the client is not asked for the body), its
// real length kept in the declaredLength header for the core, and its
// connection closed after the answer (settleBody), since the body it may
// still send is never read.

// declaredLength names the header that keeps the length the client
// declared. Its value starts with a secret of this process, so that a
// client that sends the header itself is not taken at its word.
const declaredLength = "X-Dspd-Declared-Length"

// declaredSecret starts this process's declaredLength values.
var declaredSecret = func() []byte {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return []byte(hex.EncodeToString(b[:]) + ":")
}()

// refuseUnread is the HeaderReceived step: a declared body over the
// contract's limit is not read.
func refuseUnread(h *fasthttp.RequestHeader) {
	if n := h.ContentLength(); n > api.MaxBodyBytes {
		h.SetContentLength(0)
		h.Del("Expect")
		h.SetBytesV(declaredLength, strconv.AppendInt(append([]byte(nil), declaredSecret...), int64(n), 10))
	}
}

// declared returns the length a refused request declared, or -1 when v is
// not this process's.
func declared(v []byte) int64 {
	rest, ok := bytes.CutPrefix(v, declaredSecret)
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(string(rest), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// declaredOf returns the length a request refused unread declared (h's
// declaredLength), or 0 when it was not refused.
func declaredOf(h *fasthttp.RequestHeader) int64 {
	return max(declared(h.Peek(declaredLength)), 0)
}
