package fasthttp

import (
	"bytes"
	"net"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/arrival"
	"github.com/recbid/dspd/internal/bytesview"
)

// The handler routes with api.Route, turns the RequestCtx into an
// api.Request whose strings alias fasthttp's buffers (valid until the
// handler returns), calls Serve, and copies the Response into fasthttp's
// own response, which fasthttp writes after the handler.

// fastState is the pooled working memory of one fasthttp request.
type fastState struct {
	req  api.Request
	body bytes.Reader
	xff  [4]string // X-Forwarded-For values, without allocating for the first four
}

var fastStates = sync.Pool{New: func() any { return new(fastState) }}

// Handler returns the public listener's handler on fasthttp: the same
// endpoints, answers and metrics as nethttp.Handler.
func Handler(core *api.Server) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if ctx.IsOptions() && string(ctx.Request.Header.RequestURI()) == "*" {
			// OPTIONS * asks about the server itself: net/http answers it
			// 200 with an empty body before any handler, and so does this.
			settleBody(ctx, declaredOf(&ctx.Request.Header)) // a body over the limit: closed
			return
		}
		// The path as sent, as chi routes it: ctx.Path is decoded and
		// normalised, so /dsp/%72ecbid would reach recbid there.
		e, id := api.Route(bytesview.String(ctx.Request.URI().PathOriginal()))
		st := fastStates.Get().(*fastState)
		fastRequest(ctx, st)
		resp := api.AcquireResponse()
		core.Serve(e, id, &st.req, resp)
		writeFast(ctx, resp)
		settleBody(ctx, st.req.ContentLength)
		resp.Release()
		st.req, st.xff = api.Request{}, [4]string{}
		st.body.Reset(nil)
		fastStates.Put(st)
	}
}

// fastRequest fills st.req from ctx. The headers the core reads are taken
// in one pass over the request's headers (fasthttp has their names in
// canonical form), where a Peek per header would scan them once each.
func fastRequest(ctx *fasthttp.RequestCtx, st *fastState) {
	h := &ctx.Request.Header
	r := &st.req
	*r = api.Request{
		Ctx:           ctx,
		Method:        bytesview.String(h.Method()),
		Query:         bytesview.String(ctx.URI().QueryString()),
		ContentType:   bytesview.String(h.ContentType()),
		ContentLength: int64(h.ContentLength()),
	}
	if r.ContentLength < 0 {
		r.ContentLength = -1 // chunked, or read to the end
	}
	versions := 0
	var authSeen, nbrSeen bool
	for k, v := range h.All() {
		switch string(k) {
		case "Authorization":
			if !authSeen { // the first, as net/http's Header.Get
				r.Authorization, authSeen = bytesview.String(v), true
			}
		case "X-Openrtb-Nbr":
			if !nbrSeen {
				r.OpenRTBNbr, nbrSeen = bytesview.String(v), true
			}
		case "Content-Encoding":
			if r.Encodings == 0 {
				r.ContentEncoding = bytesview.String(v)
			}
			r.Encodings++
		case "X-Openrtb-Version":
			if versions++; versions == 1 {
				r.OpenRTBVersion = bytesview.String(v)
			} else {
				r.OpenRTBVersion = "" // only when there is exactly one
			}
		case declaredLength:
			if n := declared(v); n >= 0 {
				r.ContentLength = n // refused unread: closed after the answer (settleBody)
			}
		case "X-Forwarded-For":
			if r.ForwardedFor == nil {
				r.ForwardedFor = st.xff[:0]
			}
			r.ForwardedFor = append(r.ForwardedFor, bytesview.String(v))
		}
	}
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		r.Peer = a.AddrPort()
	}
	r.Received = arrival.Of(ctx.Conn())
	if ctx.Request.IsBodyStream() {
		r.Body = ctx.RequestBodyStream() // over MaxBodyBytes: read only as far as the limit
	} else {
		st.body.Reset(ctx.Request.Body())
		r.Body = &st.body
	}
}

// The answers' header names and values, as fasthttp takes them.
var (
	fastJSON      = []byte(api.JSONMediaType)
	fastOne       = []byte("1")
	fastGIF       = []byte("image/gif")
	fastNoStore   = []byte("no-store, max-age=0")
	fastNobidText = func() (h [bidder.NumReasons][]byte) {
		for _, r := range bidder.NoBidReasons() {
			h[r] = []byte(r.String())
		}
		return h
	}()
)

// writeFast copies resp into ctx's response.
func writeFast(ctx *fasthttp.RequestCtx, resp *api.Response) {
	out := &ctx.Response
	out.SetStatusCode(resp.Status)
	h := &out.Header
	if resp.JSON {
		h.SetContentTypeBytes(fastJSON)
	}
	if resp.Allow != "" {
		h.Set("Allow", resp.Allow)
	}
	if resp.NoBid != bidder.ReasonNone {
		h.SetBytesV("X-Nobid-Reason", fastNobidText[resp.NoBid])
	}
	if resp.Duplicate {
		h.SetBytesV("X-Win-Duplicate", fastOne)
	}
	if resp.RetryAfter {
		h.SetBytesV("Retry-After", fastOne)
	}
	if resp.Version != "" {
		h.Set("X-Openrtb-Version", resp.Version)
	}
	if resp.NoStore {
		h.SetBytesV("Cache-Control", fastNoStore)
	}
	if resp.Location != "" {
		h.Set("Location", resp.Location)
	}
	if resp.Pixel {
		h.SetContentTypeBytes(fastGIF)
		out.SetBody(api.PixelGIF)
		return
	}
	if body := resp.Body(); len(body) > 0 {
		out.SetBody(body) // copied: resp's buffer goes back to its pool
	}
}
