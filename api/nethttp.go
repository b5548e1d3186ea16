package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/recbid/dspd/bidder"
)

// The default front end: the bidding endpoints on net/http, routed by chi.
// Each handler turns the *http.Request into a Request (no copy: its
// strings and body are net/http's), calls Serve, and writes the Response
// with header values shared by every answer, so that nothing is allocated
// per request beyond what net/http allocates itself.

// exchangeKey is the route parameter naming the exchange.
const exchangeKey = "exchange"

// Header values shared by every answer; net/http only reads them.
var (
	hdrJSON        = []string{jsonMediaType}
	hdrAllowPOST   = []string{methodPOST}
	hdrAllowGET    = []string{methodGET}
	hdrDuplicateOn = []string{"1"}
	hdrRetryAfter1 = []string{"1"}
	// nobidHeaders holds the X-Nobid-Reason values, one per reason.
	nobidHeaders = func() (h [16][]string) {
		for _, r := range bidder.NoBidReasons() {
			h[r] = []string{r.String()}
		}
		return h
	}()
)

// newRouter returns a chi router that answers 404 not_found for unknown
// paths and turns a handler's panic into a 500.
func (s *Server) newRouter() *chi.Mux {
	r := chi.NewRouter()
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		resp := AcquireResponse()
		notFound(resp)
		writeHTTP(w, r, resp)
		resp.Release()
	})
	r.Use(s.recoverPanics)
	return r
}

// PublicHandler returns the router of the public listener: the bidding
// endpoints of every exchange (the bare paths for exchange.DefaultID) and
// 404 elsewhere. It neither logs nor allocates per request.
func (s *Server) PublicHandler() http.Handler {
	r := s.newRouter()
	for _, path := range []string{"", "/{" + exchangeKey + "}"} {
		r.HandleFunc(recbidPath+path, s.httpEndpoint(EndpointRecbid))
		r.HandleFunc(winPath+path, s.httpEndpoint(EndpointWin))
		r.HandleFunc(openrtbPath+path, s.httpEndpoint(EndpointOpenRTB))
	}
	return r
}

// httpEndpoint serves endpoint e on net/http.
func (s *Server) httpEndpoint(e Endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp := AcquireResponse()
		if id, ok := exchangeOf(chi.URLParam(r, exchangeKey)); ok {
			req := httpRequest(r)
			s.Serve(e, id, &req, resp)
		} else {
			notFound(resp)
		}
		writeHTTP(w, r, resp)
		resp.Release()
	}
}

// httpRequest is r as the endpoints read it.
func httpRequest(r *http.Request) Request {
	h := r.Header
	req := Request{
		Ctx:           r.Context(),
		Method:        r.Method,
		Query:         r.URL.RawQuery,
		ContentType:   first(h["Content-Type"]),
		Authorization: first(h["Authorization"]),
		ForwardedFor:  h["X-Forwarded-For"],
		OpenRTBNbr:    first(h["X-Openrtb-Nbr"]),
		PeerText:      r.RemoteAddr,
		ContentLength: r.ContentLength,
		Body:          r.Body,
	}
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

// writeHTTP writes resp as r's answer.
func writeHTTP(w http.ResponseWriter, r *http.Request, resp *Response) {
	h := w.Header()
	if resp.JSON {
		h["Content-Type"] = hdrJSON
	}
	switch resp.Allow {
	case methodPOST:
		h["Allow"] = hdrAllowPOST
	case methodGET:
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
	body := resp.Body()
	if resp.Status != statusOK || len(body) == 0 {
		w.WriteHeader(resp.Status)
	}
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}

// recoverPanics turns a panic in an admin handler (or in the public
// router, around Serve's own recovery) into a 500 with a log line and a
// metric. net/http's own way to abort a response, http.ErrAbortHandler,
// still aborts.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logPanic(r.Method, v)
			writeError(w, http.StatusInternalServerError, errInternal, "", "internal error")
		}()
		next.ServeHTTP(w, r)
	})
}
