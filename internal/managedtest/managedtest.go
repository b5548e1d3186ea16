// Package managedtest is the tests' dspd with the management API and the
// console on: a core over in-memory books, the managed set seeded from a
// campaigns file, the admin handler with the API and the console mounted,
// and the public handler, all on a clock the test moves.
package managedtest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/admin"
	"github.com/recbid/dspd/api/campaignapi"
	"github.com/recbid/dspd/api/console"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/api/tokens"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/memory"
)

// The tokens of every fixture.
const (
	WriteToken = "ops-token-0123456789abcdef0123456789"
	ReadToken  = "viewer-token-0123456789abcdef012345"
)

// Now is the fixture's clock at start: 2026-12-02 10:00 UTC.
var Now = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// Fixture is one dspd's parts.
type Fixture struct {
	Core   *api.Server
	Set    *managed.Service
	Tokens *tokens.File
	Store  managed.Store
	Admin  http.Handler // the admin listener's router, the API and the console mounted
	Public http.Handler // the public listener's router
	Engine *bidder.Engine

	mu    sync.Mutex
	clock time.Time
}

// Advance moves the fixture's clock.
func (f *Fixture) Advance(d time.Duration) {
	f.mu.Lock()
	f.clock = f.clock.Add(d)
	f.mu.Unlock()
}

func (f *Fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock
}

// Option changes a fixture's configuration.
type Option func(*options)

type options struct {
	store   managed.Store
	console console.Config
}

// WithStore makes the managed set live in store (default: a new memory
// one), as replicas sharing a state do.
func WithStore(s managed.Store) Option { return func(o *options) { o.store = s } }

// WithConsole sets the console's session lifetimes and clock.
func WithConsole(c console.Config) Option { return func(o *options) { o.console = c } }

// New starts a fixture whose managed set is seeded from the campaigns
// file's text (when the store has none yet).
func New(t testing.TB, campaigns []byte, opts ...Option) *Fixture {
	t.Helper()
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.store == nil {
		o.store = memory.NewManaged()
	}
	f := &Fixture{clock: Now, Store: o.store}
	dir := t.TempDir()
	tokensPath := filepath.Join(dir, "tokens.json")
	require.NoError(t, os.WriteFile(tokensPath, []byte(`{"tokens":[{"name":"ops","token":"`+WriteToken+`","role":"write"},`+
		`{"name":"viewer","token":"`+ReadToken+`","role":"read"}]}`), 0o600))
	var err error
	f.Tokens, err = tokens.Open(tokensPath)
	require.NoError(t, err)
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: f.now})
	bids := memory.NewBidStore(memory.BidStoreConfig{TTL: time.Hour, MaxBids: 100_000, Clock: f.now})
	f.Engine = bidder.NewEngine(bidder.Config{Clock: f.now, BidTTL: time.Hour}, ledger, bids)
	cfg := api.Config{PublicURL: "http://127.0.0.1:9090", Track: true}
	f.Set, err = managed.New(managed.Config{Store: o.store, Clock: f.now, Exchanges: func() []string { return nil },
		Serve: func(ctx context.Context, build func([]string) (*bidder.Catalog, error)) error {
			return f.Core.ServeCampaigns(ctx, build)
		}})
	require.NoError(t, err)
	_, err = f.Set.Start(t.Context(), "campaigns.json", campaigns)
	require.NoError(t, err)
	cfg.CampaignSource = f.Set.Catalog
	f.Core, err = api.NewServer(cfg, f.Engine)
	require.NoError(t, err)
	sets, err := api.ReadSets(cfg)
	require.NoError(t, err)
	_, err = f.Core.Start(t.Context(), sets)
	require.NoError(t, err)
	cc := o.console
	cc.Set, cc.Core, cc.Tokens = f.Set, f.Core, f.Tokens
	f.Admin = admin.NewHandler(f.Core, admin.Config{Reload: f.Tokens.Reload, Mount: []func(chi.Router){
		func(r chi.Router) {
			campaignapi.Mount(r, campaignapi.Config{Set: f.Set, Core: f.Core, Tokens: f.Tokens})
		},
		func(r chi.Router) { console.Mount(r, cc) },
	}})
	f.Public = nethttp.Handler(f.Core)
	return f
}

// Campaign is a valid banner campaign document (300x250, bidding 1.5 CPM,
// daily budget 100) with extra fields appended.
func Campaign(id string, extra ...string) string {
	s := `{"id":"` + id + `","advertiser":"Acme","adomain":["acme.example"],"cat":["IAB1"],"status":"active","bid_cpm":1.5,` +
		`"daily_budget":100,"creatives":[{"id":"` + id + `-cr","w":300,"h":250,"image_url":"https://acme.example/a.png",` +
		`"click_url":"https://acme.example/"}]`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

// File is a campaigns file of the given documents.
func File(docs ...string) []byte {
	b := make([][]byte, len(docs))
	for i, d := range docs {
		b[i] = []byte(d)
	}
	return bidder.CampaignsFile(b)
}
