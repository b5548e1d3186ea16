package api

import (
	"encoding/binary"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// testNow is the server clock in these tests: 2026-11-04 08:00 UTC, inside
// the week testdata's requests are stamped with.
var testNow = time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)

const testdataCampaigns = "../testdata/campaigns.json"

type testServer struct {
	*Server
	engine *bidder.Engine
	ledger *bidder.MemoryLedger
	bids   *bidder.MemoryBidStore
	public http.Handler
	admin  http.Handler
}

// newTestServer serves the campaigns file at path on a fixed clock with
// predictable bid ids (1, 2, 3, …).
func newTestServer(t testing.TB, path string) *testServer {
	t.Helper()
	return buildTestServer(t, path, func() time.Time { return testNow }, nil)
}

// buildTestServer is newTestServer with the clock given, and the bid store
// wrapped by wrap when it is not nil (to make it fail, say).
func buildTestServer(t testing.TB, path string, clock func() time.Time, wrap func(bidder.BidStore) bidder.BidStore) *testServer {
	t.Helper()
	var n atomic.Uint64
	ledger := bidder.NewMemoryLedger(bidder.MemoryLedgerConfig{Clock: clock})
	bids := bidder.NewMemoryBidStore(time.Minute, 100_000)
	var store bidder.BidStore = bids
	if wrap != nil {
		store = wrap(bids)
	}
	engine := bidder.NewEngine(bidder.Config{
		Clock: clock,
		NewBidID: func() bidder.BidID {
			var id bidder.BidID
			binary.BigEndian.PutUint64(id[8:], n.Add(1))
			return id
		},
	}, ledger, store)
	srv, err := NewServer(Config{
		Seat:          "dsp",
		PublicURL:     "http://localhost:9090/",
		CampaignsPath: path,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, engine)
	require.NoError(t, err)
	if path != "" {
		_, err = srv.Reload(t.Context())
		require.NoError(t, err)
	}
	return &testServer{Server: srv, engine: engine, ledger: ledger, bids: bids,
		public: srv.PublicHandler(), admin: srv.AdminHandler()}
}

// writeCampaigns writes a campaigns file of the given campaign objects.
func writeCampaigns(t testing.TB, campaigns ...string) string {
	t.Helper()
	path := t.TempDir() + "/campaigns.json"
	require.NoError(t, os.WriteFile(path, []byte(`{"campaigns":[`+strings.Join(campaigns, ",")+`]}`), 0o644))
	return path
}

func postForm(h http.Handler, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func get(h http.Handler, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
