// Command bareserver is the ceiling of a Go HTTP server on this machine: a
// bare net/http handler that drains the request body and answers every
// request with the same bytes, with dspd's listener timeouts. Load tests run
// it beside dspd to show what the bidding itself costs.
//
//	bareserver -addr 127.0.0.1:9191 -body testdata/golden/post.data.json
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9191", "listen address")
	bodyFile := flag.String("body", "testdata/golden/post.data.json", "file whose bytes every response carries")
	contentType := flag.String("type", "application/json", "Content-Type of the responses")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatal(err)
	}
	ct := []string{*contentType}
	srv := &http.Server{
		Addr: *addr,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header()["Content-Type"] = ct
			_, _ = w.Write(body)
		}),
		ReadHeaderTimeout: 2 * time.Second,
		ReadTimeout:       5 * time.Second,
		WriteTimeout:      5 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	log.Fatal(srv.ListenAndServe())
}
