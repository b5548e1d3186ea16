package fasthttp

import (
	"errors"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The listener's own refusals, of requests fasthttp could not read: what
// fasthttp's default answers, in the JSON every other refusal has, counted
// in dspd_http_errors_total{endpoint="listener"}.
const (
	codeHeaderTooLarge = "header_too_large"
	codeRequestTimeout = "request_timeout"
	codeBadRequest     = "bad_request"
)

// errorHandler answers a request fasthttp could not read.
func errorHandler(core *api.Server) func(*fasthttp.RequestCtx, error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		status, code, msg := fasthttp.StatusBadRequest, codeBadRequest, "the request could not be read"
		var small *fasthttp.ErrSmallBuffer
		var netErr *net.OpError
		switch {
		case errors.As(err, &small):
			status, code, msg = fasthttp.StatusRequestHeaderFieldsTooLarge, codeHeaderTooLarge, "the header block is too large"
		case errors.As(err, &netErr) && netErr.Timeout():
			status, code, msg = fasthttp.StatusRequestTimeout, codeRequestTimeout, "the request was not read in time"
		}
		// A connection that never sent a byte (a balancer's TCP check, a
		// client's spare connection) timing out is no refusal of a request.
		if c, ok := ctx.Conn().(*lingerConn); !ok || c.heard.Load() {
			core.NoteListenerRefusal(code)
		}
		jw := jsoncodec.NewWriter()
		defer jw.Free()
		api.AppendError(jw, code, "", msg)
		ctx.Response.SetStatusCode(status)
		ctx.Response.Header.SetContentTypeBytes(fastJSON)
		ctx.Response.SetBody(jw.Bytes())
	}
}
