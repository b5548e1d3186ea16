package bidder_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/synth"
	"github.com/recbid/dspd/state/memory"
)

// synthCatalog returns the JSON and the catalog of n synthetic campaigns,
// built once per size.
var synthCatalog = sync.OnceValue(func() map[int][]byte { return map[int][]byte{} })

func campaignsJSON(tb testing.TB, n int) []byte {
	tb.Helper()
	cache := synthCatalog()
	if b, ok := cache[n]; ok {
		return b
	}
	var buf bytes.Buffer
	require.NoError(tb, synth.WriteCampaigns(&buf, synth.Campaigns(n, synth.DefaultSeed)))
	cache[n] = buf.Bytes()
	return cache[n]
}

// requestFromForm builds a Request from a url-encoded body with net/url, for
// benchmarks outside the transport.
func requestFromForm(tb testing.TB, body string) bidder.Request {
	tb.Helper()
	v, err := url.ParseQuery(body)
	require.NoError(tb, err)
	atoi := func(k string) int { n, _ := strconv.Atoi(v.Get(k)); return n }
	floor, _ := bidder.ParseMicros(v.Get("floor"))
	ts, _ := strconv.ParseInt(v.Get("ts"), 10, 64)
	return bidder.Request{
		ID: v.Get("id"), ImpID: v.Get("imp_id"), W: atoi("w"), H: atoi("h"), Floor: floor,
		Cur: v.Get("cur"), Site: v.Get("site"), Bundle: v.Get("bundle"), Cat: v.Get("cat"),
		BCat: v.Get("bcat"), BAdv: v.Get("badv"), OS: v.Get("os"), DevType: atoi("devtype"),
		Country: v.Get("country"), Region: v.Get("region"), City: v.Get("city"), UID: v.Get("uid"),
		TimeMs: ts, Test: v.Get("test") == "1", Secure: v.Get("secure") == "1",
	}
}

// mixRequests returns 2,000 synthetic requests for n synthetic campaigns.
func mixRequests(tb testing.TB, n int) []bidder.Request {
	tb.Helper()
	var reqs []bidder.Request
	for _, body := range synth.Requests(2000, synth.DefaultSeed, synth.Campaigns(n, synth.DefaultSeed)) {
		reqs = append(reqs, requestFromForm(tb, body))
	}
	return reqs
}

// BenchmarkDecide runs decisions for synthetic request mixes against 1,000
// and 100,000 synthetic campaigns. Requests carry no tmax, so timeouts never
// interfere.
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		cat, err := bidder.ParseCatalog(campaignsJSON(b, n))
		require.NoError(b, err)
		reqs := mixRequests(b, n)
		post := requestFromForm(b, synth.PostData())
		for _, mix := range []struct {
			name string
			reqs []bidder.Request
		}{{"post.data", []bidder.Request{post}}, {"requests", reqs}} {
			b.Run(fmt.Sprintf("campaigns=%d/%s", n, mix.name), func(b *testing.B) {
				e := bidder.NewEngine(bidder.Config{}, memory.NewLedger(memory.LedgerConfig{}), memory.NewBidStore(memory.BidStoreConfig{}))
				ctx := context.Background()
				bids := 0
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					req := mix.reqs[i%len(mix.reqs)]
					d, err := e.Decide(ctx, cat, &req)
					if err != nil {
						b.Fatal(err)
					}
					if d.Bid() {
						bids++
					}
				}
				b.ReportMetric(float64(bids)/float64(b.N), "bids/op")
			})
		}
	}
}

// BenchmarkLoadCatalog parses, validates and indexes a campaigns file.
func BenchmarkLoadCatalog(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		data := campaignsJSON(b, n)
		b.Run(fmt.Sprintf("campaigns=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bidder.ParseCatalog(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
