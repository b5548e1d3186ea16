// Command bareserver is the ceiling of a Go HTTP server on this machine: a
// bare handler that drains the request body and answers every request with
// the same bytes, on net/http (-http chi, the default: dspd's default front
// end runs on net/http) or on valyala/fasthttp (-http fasthttp), with
// dspd's listener timeouts and limits. Load tests run it beside dspd to
// show what the bidding itself costs on each front end.
//
//	bareserver -addr 127.0.0.1:9191 -body testdata/golden/post.data.json [-http fasthttp]
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/valyala/fasthttp"
)

// The listener settings of dspd's defaults (cmd/dspd).
const (
	readHeaderTimeout = 2 * time.Second
	readTimeout       = 5 * time.Second
	writeTimeout      = 5 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 16 << 10
	maxBodyBytes      = 16 << 10
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9191", "listen address")
	bodyFile := flag.String("body", "testdata/golden/post.data.json", "file whose bytes every response carries")
	contentType := flag.String("type", "application/json", "Content-Type of the responses")
	front := flag.String("http", "chi", "HTTP server: chi (net/http) or fasthttp")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatal(err)
	}
	switch *front {
	case "chi":
		log.Fatal(serveNetHTTP(*addr, body, *contentType))
	case "fasthttp":
		log.Fatal(serveFasthttp(*addr, body, *contentType))
	default:
		log.Fatalf("invalid -http %q: must be chi or fasthttp", *front)
	}
}

func serveNetHTTP(addr string, body []byte, contentType string) error {
	ct := []string{contentType}
	srv := &http.Server{
		Addr: addr,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header()["Content-Type"] = ct
			_, _ = w.Write(body)
		}),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	return srv.ListenAndServe()
}

// serveFasthttp answers as dspd -http fasthttp configures fasthttp: the
// body read into memory (fasthttp reads it before the handler runs), no
// Server header.
func serveFasthttp(addr string, body []byte, contentType string) error {
	ct := []byte(contentType)
	srv := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.Response.Header.SetContentTypeBytes(ct)
			ctx.Response.SetBodyRaw(body)
		},
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ReadTimeout:           readTimeout,
		WriteTimeout:          writeTimeout,
		IdleTimeout:           idleTimeout,
		ReadBufferSize:        maxHeaderBytes,
		MaxRequestBodySize:    maxBodyBytes,
		StreamRequestBody:     true,
		// No clock read per request for RequestCtx.Time, which nothing
		// here reads (time.Now measured ~100 ns on the development machine).
		LazyRequestTime: true,
	}
	return srv.ListenAndServe(addr)
}
