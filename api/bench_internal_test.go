package api

import (
	"encoding/json"
	"html"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
)

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

// BenchmarkDecodeBidRequest is the JSON walk alone, over post.json.
func BenchmarkDecodeBidRequest(b *testing.B) {
	post := []byte(readFile(b, "../testdata/openrtb/post.json"))
	st := openrtbStates.Get().(*openrtbState)
	b.ReportAllocs()
	b.SetBytes(int64(len(post)))
	for b.Loop() {
		if ferr, ok := decodeBidRequest(post, st, DefaultSeat); !ok || ferr != nil {
			b.Fatal(ferr)
		}
	}
}
