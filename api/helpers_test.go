package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/admin"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/countrand"
	"github.com/recbid/dspd/state/disk"
	"github.com/recbid/dspd/state/memory"
	"github.com/recbid/dspd/tracker"
)

type testServer struct {
	*Server
	engine *bidder.Engine
	ledger *memory.Ledger
	bids   *memory.BidStore
	public http.Handler
	admin  http.Handler
	log    *events.Log // the event log, when the options asked for one
}

// newTestServer serves the campaigns file at path on a fixed server clock
// (testNow) with predictable bid ids; requests' ts are validated and
// ignored, as in production.
func newTestServer(t testing.TB, path string) *testServer {
	t.Helper()
	return buildTestServer(t, path, serverOptions{})
}

// newReplayServer is newTestServer with -trust-request-ts: each request's
// ts is its request time, as when recorded traffic is replayed.
func newReplayServer(t testing.TB, path string) *testServer {
	t.Helper()
	return buildTestServer(t, path, serverOptions{trustTS: true})
}

// serverOptions vary a test server; the zero value is newTestServer's.
type serverOptions struct {
	clock   func() time.Time                      // the server clock (default: testNow, fixed)
	wrap    func(bidder.BidStore) bidder.BidStore // wraps the bid store (to make it fail, say)
	wrapL   func(bidder.Ledger) bidder.Ledger     // wraps the ledger
	trustTS bool                                  // -trust-request-ts
	maxBids int                                   // the bid store's cap (default 100,000)
	exFile  string                                // -exchanges
	rates   string                                // -currency-rates
	random  bool                                  // random bid ids, as in production
	proxies exchange.Proxies                      // -trusted-proxies
	empty   bool                                  // -allow-empty-campaigns
	// the event log and tracking
	events      *events.Config // an event log of this configuration, with the disk state's outbox (nil: none)
	eventsWait  bool           // -bid-window 0: a bid waits for its record's sync
	nobidSample int            // -events-nobid-sample
	track       bool           // -track
	disk        string         // the disk state in this directory, instead of the memory stores
	vendor      int            // -gvl-vendor-id
}

// testHashKey keys the user hash of test servers.
var testHashKey = bidder.HashKey{15: 1}

func buildTestServer(t testing.TB, path string, o serverOptions) *testServer {
	t.Helper()
	if o.clock == nil {
		o.clock = func() time.Time { return testNow }
	}
	if o.maxBids == 0 {
		o.maxBids = 100_000
	}
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: o.clock})
	bc := memory.BidStoreConfig{TTL: time.Minute, MaxBids: o.maxBids, Random: new(countrand.Reader), Clock: o.clock}
	if o.random {
		bc.Random = nil
	}
	bids := memory.NewBidStore(bc)
	var store bidder.BidStore = bids
	if o.wrap != nil {
		store = o.wrap(bids)
	}
	var books bidder.Ledger = ledger
	if o.wrapL != nil {
		books = o.wrapL(ledger)
	}
	if o.disk != "" {
		st, err := disk.Open(disk.Config{Dir: o.disk, Clock: o.clock, BidTTL: time.Minute, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		books, store, ledger, bids = st.Ledger(), st.Bids(), nil, nil
	}
	var evlog *events.Log
	if o.events != nil {
		cfg := *o.events
		if outbox, ok := store.(bidder.EventOutbox); ok {
			cfg.Outbox = outbox
		}
		evlog = openLog(t, cfg)
	}
	engine := bidder.NewEngine(bidder.Config{Clock: o.clock, BidTTL: time.Minute, HashKey: testHashKey}, books, store)
	checker, err := consent.New(consent.Config{VendorID: o.vendor})
	require.NoError(t, err)
	srv, err := NewServer(Config{
		Seat:                "dsp",
		PublicURL:           "http://localhost:9090/",
		CampaignsPath:       path,
		ExchangesPath:       o.exFile,
		CurrencyRatesPath:   o.rates,
		TrustedProxies:      o.proxies,
		TrustRequestTS:      o.trustTS,
		AllowEmptyCampaigns: o.empty,
		Logger:              slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events:              evlog,
		EventsWait:          o.eventsWait,
		NoBidSample:         o.nobidSample,
		Track:               o.track,
		TrackKey:            tracker.DeriveKey(testHashKey),
		Consent:             checker,
	}, engine)
	require.NoError(t, err)
	if path != "" {
		_, err = srv.Reload(t.Context())
		require.NoError(t, err)
	}
	return &testServer{Server: srv, engine: engine, ledger: ledger, bids: bids, log: evlog,
		public: publicHandler(srv), admin: admin.Handler(srv, "")}
}

func postForm(h http.Handler, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// postReload asks the admin handler for a reload.
func postReload(h http.Handler) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/admin/reload", nil)
	r.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, r)
	return w
}

func get(h http.Handler, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}
