package nethttp

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
)

// Each handler turns the *http.Request into an api.Request (no copy: its
// strings and body are net/http's), calls the core's Serve, and writes the
// Response with header values shared by every answer, so that nothing is
// allocated per request beyond what net/http allocates itself.

// exchangeKey is the route parameter naming the exchange.
const exchangeKey = "exchange"

// Header values shared by every answer; net/http only reads them.
var (
	hdrJSON        = []string{api.JSONMediaType}
	hdrAllowPOST   = []string{http.MethodPost}
	hdrAllowGET    = []string{http.MethodGet}
	hdrDuplicateOn = []string{"1"}
	hdrRetryAfter1 = []string{"1"}
	hdrGIF         = []string{"image/gif"}
	hdrNoStore     = []string{"no-store, max-age=0"}
	// nobidHeaders holds the X-Nobid-Reason values, one per reason.
	nobidHeaders = func() (h [bidder.NumReasons][]string) {
		for _, r := range bidder.NoBidReasons() {
			h[r] = []string{r.String()}
		}
		return h
	}()
)

// NewRouter returns a chi router that answers 404 not_found for unknown
// paths and turns a handler's panic into a 500 (Recoverer): the public
// router's base, and the admin listener's.
func NewRouter(core *api.Server) *chi.Mux {
	r := chi.NewRouter()
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		resp := api.AcquireResponse()
		resp.NotFound()
		Write(w, r, resp)
		resp.Release()
	})
	r.Use(Recoverer(core))
	return r
}

// Handler returns the router of the public listener: the bidding
// endpoints of every exchange (the bare paths for exchange.DefaultID) and
// 404 elsewhere. It neither logs nor allocates per request.
func Handler(core *api.Server) http.Handler {
	r := NewRouter(core)
	// A method chi does not know (PRI of HTTP/2's preface, any extension
	// method) never reaches a route's handler: route it as fasthttp
	// routes every request, so that the core answers (405 with Allow on
	// an endpoint's path, 404 elsewhere), in JSON.
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		resp := api.AcquireResponse()
		e, id := api.Route(r.URL.EscapedPath())
		req := CoreRequest(r)
		core.Serve(e, id, &req, resp)
		Write(w, r, resp)
		resp.Release()
	})
	for _, path := range []string{"", "/{" + exchangeKey + "}"} {
		for _, route := range api.Routes() {
			r.HandleFunc(route.Path+path, EndpointHandler(core, route.Endpoint))
		}
	}
	return r
}

// EndpointHandler serves endpoint e on net/http, for the exchange chi's
// route parameter names (the default exchange outside a chi route): the
// handler Handler routes to, and what the benchmarks call without routing.
func EndpointHandler(core *api.Server, e api.Endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp := api.AcquireResponse()
		if id, ok := api.ExchangeParam(chi.URLParam(r, exchangeKey)); ok {
			req := CoreRequest(r)
			core.Serve(e, id, &req, resp)
		} else {
			resp.NotFound()
		}
		Write(w, r, resp)
		resp.Release()
	}
}

// CoreRequest is r as the core reads it: the first Authorization and
// X-Openrtb-Nbr, the first Content-Encoding and how many there were,
// X-Openrtb-Version only when there is exactly one, every X-Forwarded-For
// line in order. Its strings and body are r's.
func CoreRequest(r *http.Request) api.Request {
	h := r.Header
	req := api.Request{
		Ctx:           r.Context(),
		Method:        r.Method,
		Query:         r.URL.RawQuery,
		ContentType:   first(h["Content-Type"]),
		Authorization: first(h["Authorization"]),
		ForwardedFor:  h["X-Forwarded-For"],
		OpenRTBNbr:    first(h["X-Openrtb-Nbr"]),
		ContentLength: r.ContentLength,
		Body:          r.Body,
	}
	req.Received, req.Peer = fromConn(r)
	if ce := h["Content-Encoding"]; len(ce) > 0 {
		req.ContentEncoding, req.Encodings = ce[0], len(ce)
	}
	if v := h["X-Openrtb-Version"]; len(v) == 1 {
		req.OpenRTBVersion = v[0]
	}
	return req
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// Write writes resp as r's answer.
func Write(w http.ResponseWriter, r *http.Request, resp *api.Response) {
	h := w.Header()
	if resp.JSON {
		h["Content-Type"] = hdrJSON
	}
	switch resp.Allow {
	case http.MethodPost:
		h["Allow"] = hdrAllowPOST
	case http.MethodGet:
		h["Allow"] = hdrAllowGET
	}
	if resp.NoBid != bidder.ReasonNone {
		h["X-Nobid-Reason"] = nobidHeaders[resp.NoBid]
	}
	if resp.Duplicate {
		h["X-Win-Duplicate"] = hdrDuplicateOn
	}
	if resp.RetryAfter {
		h["Retry-After"] = hdrRetryAfter1
	}
	if resp.Version != "" {
		h["X-Openrtb-Version"] = r.Header["X-Openrtb-Version"] // the request's own slice
	}
	if resp.NoStore {
		h["Cache-Control"] = hdrNoStore
	}
	if resp.Location != "" {
		h["Location"] = []string{resp.Location}
	}
	body := resp.Body()
	if resp.Pixel {
		h["Content-Type"] = hdrGIF
		body = api.PixelGIF
	}
	if resp.Status != http.StatusOK || len(body) == 0 {
		w.WriteHeader(resp.Status)
	}
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}
