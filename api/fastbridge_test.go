package api_test

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"

	. "github.com/recbid/dspd/api"
	fastfront "github.com/recbid/dspd/api/fasthttp"
	"github.com/recbid/dspd/api/nethttp"

	"github.com/valyala/fasthttp"
)

// The api tests run against either front end: chi on net/http (the
// default), or, with DSPD_FRONT_END=fasthttp (make test runs both), the
// fasthttp handler through fastBridge. The listeners themselves (timeouts,
// slowloris, oversized headers, drain) are tested over real sockets in
// cmd/dspd, on both.
var testFrontEnd = os.Getenv("DSPD_FRONT_END")

// publicHandler returns the public handler of the front end under test.
func publicHandler(s *Server) http.Handler {
	if testFrontEnd == "fasthttp" {
		return fastBridge{fastfront.Handler(s)}
	}
	return nethttp.Handler(s)
}

// fastBridge serves a net/http test request through a fasthttp handler: it
// builds the fasthttp request from it, runs the handler, and copies
// fasthttp's answer (status, headers, body) back.
type fastBridge struct{ h fasthttp.RequestHandler }

func (b fastBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req fasthttp.Request
	req.Header.SetMethod(r.Method)
	req.SetRequestURI(r.URL.RequestURI())
	for name, values := range r.Header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.SetBody(body)
		if r.ContentLength > 0 {
			req.Header.SetContentLength(int(r.ContentLength)) // as declared, even when it lies
		}
	}
	var remote net.Addr = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		remote = net.TCPAddrFromAddrPort(ap)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, remote, nil)
	b.h(&ctx)
	out := &ctx.Response
	for k, v := range out.Header.All() {
		if string(k) == "Content-Length" || string(k) == "Server" || string(k) == "Date" {
			continue // as net/http's recorder leaves them out
		}
		w.Header().Add(string(k), string(v))
	}
	w.WriteHeader(out.StatusCode())
	_, _ = w.Write(out.Body())
}
