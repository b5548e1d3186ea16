package api

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/internal/jsoncodec"
	"github.com/recbid/dspd/state/memory"
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

// benchServer is a production-configured server (random bid ids, default
// stores) over testdata's campaigns and the exchange corpus's currency
// rates, its clock started at testNow as -clock-start does, so that
// testdata's flights and hours hold.
func benchServer(b *testing.B) *Server {
	b.Helper()
	now := clock.StartingAt(testNow)
	engine := bidder.NewEngine(bidder.Config{Clock: now},
		memory.NewLedger(memory.LedgerConfig{Clock: now}),
		memory.NewBidStore(memory.BidStoreConfig{}))
	srv, err := NewServer(Config{PublicURL: "http://localhost:9090", CampaignsPath: testdataCampaigns,
		CurrencyRatesPath: corpusRates, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, engine)
	require.NoError(b, err)
	_, err = srv.Reload(b.Context())
	require.NoError(b, err)
	return srv
}

// benchRecbid posts bodies round robin to h and checks every answer is a
// bid or a no bid.
func benchRecbid(b *testing.B, h http.HandlerFunc, corpus []string) {
	bodies := make([][]byte, len(corpus))
	for i, s := range corpus {
		bodies[i] = []byte(s)
	}
	r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", nil)
	r.Header.Set("Content-Type", formMediaType)
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
		benchRecbid(b, srv.httpEndpoint(EndpointRecbid), []string{post})
	})
	b.Run("handler/requests.txt", func(b *testing.B) {
		srv := benchServer(b)
		benchRecbid(b, srv.httpEndpoint(EndpointRecbid), corpus)
	})
	b.Run("router/post.data", func(b *testing.B) {
		srv := benchServer(b)
		benchRecbid(b, srv.PublicHandler().ServeHTTP, []string{post})
	})
	b.Run("fasthttp/post.data", func(b *testing.B) {
		benchFast(b, benchServer(b).FastHandler(), "/dsp/recbid", formMediaType, [][]byte{[]byte(post)})
	})
	b.Run("core/post.data", func(b *testing.B) {
		srv := benchServer(b)
		body, postBytes := bytes.NewReader(nil), []byte(post)
		req := Request{Ctx: context.Background(), Method: methodPOST, ContentType: formMediaType, Body: body}
		b.ReportAllocs()
		for b.Loop() {
			body.Reset(postBytes)
			resp := AcquireResponse()
			srv.Serve(EndpointRecbid, exchange.DefaultID, &req, resp)
			if resp.Status != statusOK {
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
	req.Header.SetMethod(methodPOST)
	req.SetRequestURI(path)
	req.Header.SetContentType(contentType)
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1234}, nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ctx.Request.SetBody(bodies[i%len(bodies)])
		ctx.Response.Reset()
		h(&ctx)
		if c := ctx.Response.StatusCode(); c != statusOK && c != statusNoContent {
			b.Fatalf("status %d", c)
		}
	}
}

func BenchmarkParseForm(b *testing.B) {
	post := []byte(readFile(b, "../testdata/post.data"))
	buf := make([]byte, len(post))
	var f form
	b.ReportAllocs()
	b.SetBytes(int64(len(post)))
	for b.Loop() {
		copy(buf, post)
		if err := parseForm(buf, &f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseQueryStdlib is the library way of BenchmarkParseForm, for
// comparison: net/url builds a map of slices of fresh strings.
func BenchmarkParseQueryStdlib(b *testing.B) {
	post := readFile(b, "../testdata/post.data")
	b.ReportAllocs()
	b.SetBytes(int64(len(post)))
	for b.Loop() {
		if _, err := url.ParseQuery(post); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeBid writes a bid response from the pre-encoded fragments.
func BenchmarkEncodeBid(b *testing.B) {
	srv := benchServer(b)
	req, d, cr := sampleBid(b, srv)
	b.ReportAllocs()
	for b.Loop() {
		jw := jsoncodec.NewWriter()
		srv.encodeBid(jw, req, d, cr, srv.current.Load().wires[exchange.DefaultID])
		jw.Free()
	}
}

// BenchmarkEncodeBidStdlib encodes the same response with encoding/json
// from a struct, as a straightforward port would, for comparison. Its bytes
// differ (encoding/json escapes <, > and &), which is one more reason not to
// use it.
func BenchmarkEncodeBidStdlib(b *testing.B) {
	srv := benchServer(b)
	req, d, _ := sampleBid(b, srv)
	type bid struct {
		ID      string   `json:"id"`
		ImpID   string   `json:"impid"`
		Price   float64  `json:"price"`
		AdID    string   `json:"adid"`
		CID     string   `json:"cid"`
		CrID    string   `json:"crid"`
		ADomain []string `json:"adomain"`
		Cat     []string `json:"cat"`
		W       int      `json:"w"`
		H       int      `json:"h"`
		NURL    string   `json:"nurl"`
		Adm     string   `json:"adm"`
	}
	type seatBid struct {
		Seat string `json:"seat"`
		Bid  []bid  `json:"bid"`
	}
	type response struct {
		ID      string    `json:"id"`
		BidID   string    `json:"bidid"`
		Cur     string    `json:"cur"`
		SeatBid []seatBid `json:"seatbid"`
	}
	b.ReportAllocs()
	for b.Loop() {
		id := d.BidID.String()
		resp := response{ID: req.ID, BidID: id, Cur: "USD", SeatBid: []seatBid{{Seat: "dsp", Bid: []bid{{
			ID: id, ImpID: req.ImpID, Price: float64(d.Price) / 1e6, AdID: d.Creative.ID, CID: d.Campaign.ID,
			CrID: d.Creative.ID, ADomain: d.Campaign.ADomain, Cat: d.Campaign.Cat, W: d.Creative.W, H: d.Creative.H,
			NURL: "http://localhost:9090/dsp/win?bidid=" + id + "&price=${AUCTION_PRICE}",
			Adm: `<a href="` + html.EscapeString(d.Creative.ClickURL) + `" target="_blank"><img src="` +
				html.EscapeString(d.Creative.ImageURL) + `" width="` + strconv.Itoa(d.Creative.W) + `" height="` +
				strconv.Itoa(d.Creative.H) + `" alt="` + html.EscapeString(d.Campaign.Advertiser) + `"></a>`,
		}}}}}
		if _, err := json.Marshal(&resp); err != nil {
			b.Fatal(err)
		}
	}
}

// sampleBid decides post.data once and returns what encodeBid needs.
func sampleBid(b *testing.B, srv *Server) (*bidder.Request, *bidder.Decision, *creativeJSON) {
	b.Helper()
	var f form
	require.NoError(b, parseForm([]byte(readFile(b, "../testdata/post.data")), &f))
	req := new(bidder.Request)
	require.Nil(b, buildRequest(&f, req, srv.engine.Now(), false))
	cur := srv.current.Load()
	d, err := srv.engine.Decide(b.Context(), cur.catalog, req)
	require.NoError(b, err)
	require.True(b, d.Bid())
	return req, &d, &cur.creatives[d.Slot]
}

// benchOpenRTB posts bodies round robin to h as OpenRTB requests, with
// Content-Encoding ce when not empty, and checks every answer is a bid or a
// no bid.
func benchOpenRTB(b *testing.B, h http.HandlerFunc, bodies [][]byte, ce string) {
	r := httptest.NewRequest(http.MethodPost, openrtbPath, nil)
	r.Header.Set("Content-Type", jsonMediaType)
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
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), [][]byte{post}, "")
	})
	b.Run("handler/post.json.gz", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), gz(post), "gzip")
	})
	b.Run("handler/requests.jsonl", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), corpus, "")
	})
	b.Run("handler/requests.jsonl.gz", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), gz(corpus...), "gzip")
	})
	b.Run("handler/exchange.jsonl", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), exchange, "")
	})
	b.Run("handler/multi-imp", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).httpEndpoint(EndpointOpenRTB), [][]byte{[]byte(benchMultiImp)}, "")
	})
	b.Run("fasthttp/post.json", func(b *testing.B) {
		benchFast(b, benchServer(b).FastHandler(), openrtbPath, jsonMediaType, [][]byte{post})
	})
	b.Run("router/post.json", func(b *testing.B) {
		benchOpenRTB(b, benchServer(b).PublicHandler().ServeHTTP, [][]byte{post}, "")
	})
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

// BenchmarkDecodeBidRequest is the JSON walk alone, over post.json.
func BenchmarkDecodeBidRequest(b *testing.B) {
	post := []byte(readFile(b, "../testdata/openrtb/post.json"))
	st := openrtbStates.Get().(*openrtbState)
	b.ReportAllocs()
	b.SetBytes(int64(len(post)))
	for b.Loop() {
		if ferr, ok := decodeBidRequest(post, st); !ok || ferr != nil {
			b.Fatal(ferr)
		}
	}
}
