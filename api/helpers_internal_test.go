// Test helpers of the internal tests (package api). export_test.go
// exports them to the tests of package api_test, which drive the core
// through the front ends.

package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/state/memory"
)

// testNow is the server clock in these tests: 2026-11-04 08:00 UTC, inside
// the week testdata's requests are stamped with.
var testNow = time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)

const (
	testdataCampaigns = "../testdata/campaigns.json"
	corpusRates       = "../testdata/openrtb/currency.json"
)

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// ortbBody returns a one-impression BidRequest for a 300x250 banner with
// the given extra top-level members and impression members (JSON text
// without the surrounding braces, "" for none).
func ortbBody(top, imp string) string {
	var b strings.Builder
	b.WriteString(`{"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}`)
	if imp != "" {
		b.WriteString("," + imp)
	}
	b.WriteString("}]")
	if top != "" {
		b.WriteString("," + top)
	}
	b.WriteString("}")
	return b.String()
}

// openrtbCampaigns are small campaigns whose decisions the tests can tell
// apart: c-a bids 3 on 728x90, c-b and c-c bid 2 on 300x250 and 160x600,
// c-cap (frequency cap) and c-broke (a budget below one bid) 9 on 320x50 on
// their own sites.
var openrtbCampaigns = []string{
	ortbCampaign("c-a", "3", `"w":728,"h":90,"secure":true`, ``),
	ortbCampaign("c-b", "2", `"w":300,"h":250`, ``),
	ortbCampaign("c-c", "2", `"w":160,"h":600`, ``),
	ortbCampaign("c-cap", "9", `"w":320,"h":50`, `,"freq_cap":{"impressions":1,"period_s":3600},"targeting":{"sites":["cap.example"]}`),
	ortbCampaign("c-broke", "9", `"w":320,"h":50`, `,"daily_budget":0.001,"targeting":{"sites":["broke.example"]}`),
}

func ortbCampaign(id, bid, creative, extra string) string {
	return `{"id":"` + id + `","advertiser":"Advertiser ` + id + `","adomain":["` + id + `.example"],"cat":["IAB3"],` +
		`"status":"active","bid_cpm":` + bid + extra + `,"creatives":[{"id":"` + id + `-cr",` + creative +
		`,"image_url":"https://cdn.example/` + id + `.png","click_url":"https://` + id + `.example/landing?a=1&b=2"}]}`
}

func impList(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, `{"id":"i`+strconv.Itoa(i)+`","banner":{"w":300,"h":250}}`)
	}
	return strings.Join(parts, ",")
}

// benchServer is a production-configured server (random bid ids, default
// stores) over testdata's campaigns and the exchange corpus's currency
// rates, its clock started at testNow as -clock-start does, so that
// testdata's flights and hours hold.
func benchServer(b *testing.B) *Server { return benchServerWith(b, nil) }

// benchServerWith is benchServer with its configuration changed by mod
// (its event log, its tracking), before the server is made.
func benchServerWith(b testing.TB, mod func(*Config)) *Server {
	b.Helper()
	now := clock.StartingAt(testNow)
	engine := bidder.NewEngine(bidder.Config{Clock: now},
		memory.NewLedger(memory.LedgerConfig{Clock: now}),
		memory.NewBidStore(memory.BidStoreConfig{Clock: now}))
	cfg := Config{PublicURL: "http://localhost:9090", CampaignsPath: testdataCampaigns,
		CurrencyRatesPath: corpusRates, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := NewServer(cfg, engine)
	require.NoError(b, err)
	_, err = srv.Reload(b.Context())
	require.NoError(b, err)
	return srv
}

// benchServerT is benchServer for tests.
func benchServerT(t *testing.T) *Server {
	t.Helper()
	engine := bidder.NewEngine(bidder.Config{Clock: func() time.Time { return testNow }},
		memory.NewLedger(memory.LedgerConfig{}), memory.NewBidStore(memory.BidStoreConfig{}))
	srv, err := NewServer(Config{PublicURL: "http://localhost:9090", CampaignsPath: testdataCampaigns,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, engine)
	require.NoError(t, err)
	_, err = srv.Reload(t.Context())
	require.NoError(t, err)
	return srv
}

// writeCampaigns writes a campaigns file of the given campaign objects.
func writeCampaigns(t testing.TB, campaigns ...string) string {
	t.Helper()
	path := t.TempDir() + "/campaigns.json"
	require.NoError(t, os.WriteFile(path, []byte(`{"campaigns":[`+strings.Join(campaigns, ",")+`]}`), 0o644))
	return path
}

// coreServer serves the campaigns file at path on a fixed server clock
// (testNow), for the tests that drive the core without HTTP.
func coreServer(t testing.TB, path string) *Server {
	t.Helper()
	clk := func() time.Time { return testNow }
	engine := bidder.NewEngine(bidder.Config{Clock: clk, BidTTL: time.Minute},
		memory.NewLedger(memory.LedgerConfig{Clock: clk}), memory.NewBidStore(memory.BidStoreConfig{TTL: time.Minute}))
	srv, err := NewServer(Config{PublicURL: "http://localhost:9090", CampaignsPath: path,
		Logger: slog.New(slog.DiscardHandler)}, engine)
	require.NoError(t, err)
	_, err = srv.Reload(t.Context())
	require.NoError(t, err)
	return srv
}
