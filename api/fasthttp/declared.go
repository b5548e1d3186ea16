package fasthttp

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
)

// fasthttp reads the first 8 KiB of a body before it calls the handler,
// even one whose declared length is over the contract's limit, which the
// core refuses unread (413): a client that declares a large body and sends
// none would wait out the read timeout for a 408. Such a request is
// declared to have no body before fasthttp reads it, its real length kept
// in declaredLength for the core, and its connection closed after the
// answer (settleBody), since the body it may still send is never read.

// declaredLength names the header that keeps the length the client
// declared. A client that sends it itself only refuses its own request.
const declaredLength = "X-Dspd-Declared-Length"

// refuseUnread is the HeaderReceived step: a declared body over the
// contract's limit is not read.
func refuseUnread(h *fasthttp.RequestHeader) {
	if n := h.ContentLength(); n > api.MaxBodyBytes {
		h.SetContentLength(0)
		h.Set(declaredLength, strconv.Itoa(n))
	}
}

// declared returns the length a refused request declared, or -1.
func declared(v []byte) int64 {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
