package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	. "github.com/recbid/dspd/api"
	fastfront "github.com/recbid/dspd/api/fasthttp"
	"github.com/recbid/dspd/api/nethttp"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/exchange"
)

// discardWriter is a ResponseWriter that keeps only the status, the way a
// server's writer costs nothing per request once its header map exists.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// benchRecbid posts bodies round robin to h and checks every answer is a
// bid or a no bid.
func benchRecbid(b *testing.B, h http.HandlerFunc, corpus []string) {
	bodies := make([][]byte, len(corpus))
	for i, s := range corpus {
		bodies[i] = []byte(s)
	}
	r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", nil)
	r.Header.Set("Content-Type", FormMediaType)
	benchPost(b, h, r, bodies)
}

// benchPost sends r with bodies round robin to h, as a server would: one
// request value, its body reader reset each time, a writer whose header map
// is reused. Every answer must be a bid or a no bid.
func benchPost(b *testing.B, h http.HandlerFunc, r *http.Request, bodies [][]byte) {
	reader := bytes.NewReader(nil)
	r.Body = io.NopCloser(reader)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := bodies[i%len(bodies)]
		reader.Reset(body)
		r.ContentLength = int64(len(body))
		w.code = http.StatusOK
		h(w, r)
		if w.code != http.StatusOK && w.code != http.StatusNoContent {
			b.Fatalf("status %d", w.code)
		}
	}
}

// BenchmarkRecbid measures the whole recbid handler: body read into a pooled
// buffer, form parse, validation, decision, bid record, response encoding.
func BenchmarkRecbid(b *testing.B) {
	post := readFile(b, "../testdata/post.data")
	corpus := readLines(b, "../testdata/requests.txt")
	b.Run("handler/post.data", func(b *testing.B) {
		srv := benchServer(b)
		benchRecbid(b, nethttp.EndpointHandler(srv, EndpointRecbid), []string{post})
	})
	b.Run("handler/requests.txt", func(b *testing.B) {
		srv := benchServer(b)
		benchRecbid(b, nethttp.EndpointHandler(srv, EndpointRecbid), corpus)
	})
	b.Run("router/post.data", func(b *testing.B) {
		srv := benchServer(b)
		benchRecbid(b, nethttp.Handler(srv).ServeHTTP, []string{post})
	})
	b.Run("fasthttp/post.data", func(b *testing.B) {
		benchFast(b, fastfront.Handler(benchServer(b)), "/dsp/recbid", FormMediaType, [][]byte{[]byte(post)})
	})
	// The event log (a bid record each, written and synced every 2 ms, as
	// with dspd's default -bid-window) and the tracking URLs in the adm.
	b.Run("events/post.data", func(b *testing.B) {
		srv := benchServerWith(b, func(c *Config) { c.Events = benchLog(b) })
		benchRecbid(b, nethttp.EndpointHandler(srv, EndpointRecbid), []string{post})
	})
	b.Run("tracked/post.data", func(b *testing.B) {
		srv := benchServerWith(b, func(c *Config) { c.Track = true })
		benchRecbid(b, nethttp.EndpointHandler(srv, EndpointRecbid), []string{post})
	})
	b.Run("events+tracked/requests.txt", func(b *testing.B) {
		srv := benchServerWith(b, func(c *Config) { c.Events, c.Track = benchLog(b), true })
		benchRecbid(b, nethttp.EndpointHandler(srv, EndpointRecbid), corpus)
	})
	b.Run("core/post.data", func(b *testing.B) {
		srv := benchServer(b)
		body, postBytes := bytes.NewReader(nil), []byte(post)
		req := Request{Ctx: context.Background(), Method: http.MethodPost, ContentType: FormMediaType, Body: body}
		b.ReportAllocs()
		for b.Loop() {
			body.Reset(postBytes)
			resp := AcquireResponse()
			srv.Serve(EndpointRecbid, exchange.DefaultID, &req, resp)
			if resp.Status != http.StatusOK {
				b.Fatalf("status %d", resp.Status)
			}
			resp.Release()
		}
	})
}

// benchFast sends bodies round robin to a fasthttp handler on one reused
// RequestCtx, as fasthttp's server does, and checks every answer is a bid
// or a no bid.
func benchFast(b *testing.B, h fasthttp.RequestHandler, path, contentType string, bodies [][]byte) {
	var ctx fasthttp.RequestCtx
	var req fasthttp.Request
	req.Header.SetMethod(http.MethodPost)
	req.SetRequestURI(path)
	req.Header.SetContentType(contentType)
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1234}, nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ctx.Request.SetBody(bodies[i%len(bodies)])
		ctx.Response.Reset()
		h(&ctx)
		if c := ctx.Response.StatusCode(); c != http.StatusOK && c != http.StatusNoContent {
			b.Fatalf("status %d", c)
		}
	}
}

// benchOpenRTB posts bodies round robin to h as OpenRTB requests, with
// Content-Encoding ce when not empty, and checks every answer is a bid or a
// no bid.
func benchOpenRTB(b *testing.B, h http.HandlerFunc, bodies [][]byte, ce string) {
	r := httptest.NewRequest(http.MethodPost, OpenRTBPath, nil)
	r.Header.Set("Content-Type", JSONMediaType)
	r.Header.Set("X-Openrtb-Version", "2.6")
	if ce != "" {
		r.Header.Set("Content-Encoding", ce)
	}
	benchPost(b, h, r, bodies)
}

// BenchmarkOpenRTB measures the whole OpenRTB handler beside
// BenchmarkRecbid: body read (and inflated), JSON walk, validation, one
// decision per banner size, bid records, response encoding.
func BenchmarkOpenRTB(b *testing.B) {
	post := []byte(readFile(b, "../testdata/openrtb/post.json"))
	var corpus [][]byte
	for _, l := range readLines(b, "../testdata/openrtb/requests.jsonl") {
		corpus = append(corpus, []byte(l))
	}
	var exchange [][]byte // shaped as exchanges send them
	for _, l := range readLines(b, exchangeCorpus) {
		exchange = append(exchange, []byte(l))
	}
	gz := func(bodies ...[]byte) [][]byte {
		out := make([][]byte, len(bodies))
		for i, body := range bodies {
			out[i] = gzipBytes(b, body)
		}
		return out
	}
	b.Run("handler/post.json", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), [][]byte{post}, "")
	})
	b.Run("handler/post.json.gz", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), gz(post), "gzip")
	})
	b.Run("handler/requests.jsonl", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), corpus, "")
	})
	b.Run("handler/requests.jsonl.gz", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), gz(corpus...), "gzip")
	})
	b.Run("handler/exchange.jsonl", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), exchange, "")
	})
	b.Run("handler/multi-imp", func(b *testing.B) {
		benchOpenRTB(b, nethttp.EndpointHandler(benchServer(b), EndpointOpenRTB), [][]byte{[]byte(benchMultiImp)}, "")
	})
	b.Run("fasthttp/post.json", func(b *testing.B) {
		benchFast(b, fastfront.Handler(benchServer(b)), OpenRTBPath, JSONMediaType, [][]byte{post})
	})
	b.Run("router/post.json", func(b *testing.B) {
		benchOpenRTB(b, nethttp.Handler(benchServer(b)).ServeHTTP, [][]byte{post}, "")
	})
	// Video, native and deal impressions (media_test.go's campaigns).
	media := func(b *testing.B) *Server {
		path := writeCampaigns(b, mediaCampaigns...)
		return benchServerWith(b, func(c *Config) { c.CampaignsPath = path })
	}
	for name, body := range mediaBenchRequests() {
		b.Run("handler/"+name, func(b *testing.B) {
			benchOpenRTB(b, nethttp.EndpointHandler(media(b), EndpointOpenRTB), [][]byte{[]byte(body)}, "")
		})
	}
}

// mediaBenchRequests are one request each of a video, a native (its
// request a JSON string, as exchanges send it) and a deal impression.
func mediaBenchRequests() map[string]string {
	nativeString, _ := json.Marshal(nativeRequest)
	return map[string]string{
		"video": oneImp(`{"id":"v1","video":{"mimes":["video/mp4","video/webm"],"minduration":5,"maxduration":60,` +
			`"protocols":[2,3,7,11,13],"w":1280,"h":720,"plcmt":1}}`),
		"native": oneImp(`{"id":"n1","native":{"request":` + string(nativeString) + `,"ver":"1.2"}}`),
		"deal": oneImp(`{"id":"1","banner":{"w":300,"h":250},"bidfloor":0.5,` +
			`"pmp":{"private_auction":0,"deals":[{"id":"D-1","bidfloor":7.25,"at":3},{"id":"D-9","bidfloor":1}]}}`),
	}
}

// benchMultiImp is post.json's request with three banner impressions, one
// of them offering three sizes.
const benchMultiImp = `{"id":"7c0f3e9a5b2d4c18a6e1f0d9b8c7a654","imp":[` +
	`{"id":"1","banner":{"w":320,"h":50,"format":[{"w":320,"h":50},{"w":300,"h":250},{"w":728,"h":90}]},"bidfloor":0.5,"secure":1},` +
	`{"id":"2","banner":{"w":300,"h":250},"bidfloor":0.5,"secure":1},` +
	`{"id":"3","banner":{"w":320,"h":480},"bidfloor":0.5,"secure":1}],` +
	`"app":{"bundle":"com.example.news","name":"Example News","cat":["IAB12","IAB12-1"]},` +
	`"device":{"ua":"Mozilla/5.0 (Linux; Android 14; 23049RAD8C Build/UKQ1.230804.001; wv)","ip":"116.228.111.18",` +
	`"geo":{"country":"CHN","region":"31","city":"Shanghai"},"devicetype":4,"os":"android"},` +
	`"user":{"id":"u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7"},"at":1,"tmax":120,"cur":["USD"]}`

// benchLog is an event log in the benchmark's directory, its window
// dspd's default bid window.
func benchLog(b *testing.B) *events.Log {
	l, err := events.Open(events.Config{Dir: b.TempDir(), Window: 2 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.Cleanup(func() { _ = l.Close() })
	return l
}
