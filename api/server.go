package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/currency"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/problems"
	"github.com/recbid/dspd/tracker"
)

// Config configures a Server. Zero fields take the defaults below.
type Config struct {
	// Seat is the seat id written in every bid. Default "dsp".
	Seat string
	// PublicURL is the base of the win notice URL (nurl); a trailing '/'
	// is dropped. Required.
	PublicURL string
	// CampaignsPath is the campaigns file read by Reload.
	CampaignsPath string
	// CampaignSource, when set, is where the campaigns come from instead
	// of CampaignsPath: the set managed through the API (package managed),
	// built for the exchanges given. A reload then reads the exchanges and
	// the rates files and takes the campaigns from it.
	CampaignSource func(exchanges []string) (*bidder.Catalog, error)
	// MaxCampaignsBytes bounds how much of the campaigns file a reload
	// reads (0: bidder.DefaultMaxCatalogBytes).
	MaxCampaignsBytes int64
	// AllowEmptyCampaigns lets a reload put a campaigns file with no
	// campaign in service, which stops all bidding. Off, such a file is
	// refused on reload (400 invalid_campaigns) and, at start, served with
	// a warning.
	AllowEmptyCampaigns bool
	// ExchangesPath is the exchanges file read by Reload with the campaigns
	// (contract section 7); empty: the implicit, open exchange
	// exchange.DefaultID on the bare paths, with clear prices.
	ExchangesPath string
	// CurrencyRatesPath is a currency-rates file in Prebid's format (package
	// currency), read by Reload with the campaigns: OpenRTB floors in a
	// listed currency are converted to USD. Empty: only USD floors can bid.
	CurrencyRatesPath string
	// TrustedProxies may name a bid request's client in X-Forwarded-For,
	// for the exchanges' allow lists (default: none, the peer is the client).
	TrustedProxies exchange.Proxies
	// TrustRequestTS makes a bid request's ts, when given, its request
	// time (contract version 1), for replays of recorded traffic and tests.
	// Off, the request time is the server clock at arrival and ts is only
	// validated: nothing a client sends moves money.
	TrustRequestTS bool
	// Logger receives start-up, reload and error logs, never one line per
	// request. Default slog.Default().
	Logger *slog.Logger

	// Events is the event log (package events), or nil for none: every
	// bid, win, billing notice and tracker event becomes a record.
	Events *events.Log
	// EventsWait makes a bid's answer wait until its record is synced (the
	// state's -bid-window 0: no answered bid's record is lost to a crash).
	EventsWait bool
	// NoBidSample writes a record of one no bid in NoBidSample (0: none).
	NoBidSample int
	// Track puts dspd's signed impression pixel and click URL in every
	// bid's adm (trackurl.go); off, the answers are contract version 2's,
	// byte for byte.
	Track bool
	// TrackKey signs the tracking URLs: the state's (tracker.DeriveKey), so
	// that replicas and restarts agree. Zero: a key of this process alone.
	TrackKey tracker.Key
	// TrackTTL is how long after its bid a tracking URL is valid (default
	// DefaultTrackTTL).
	TrackTTL time.Duration

	// Consent decides, from an OpenRTB request's privacy signals, whether
	// dspd may bid and process the user (docs/privacy.md); nil is a
	// checker with no vendor id: every request where GDPR applies is a no
	// bid.
	Consent *consent.Checker
}

// DefaultTrackTTL is how long a tracking URL is valid after its bid: a
// day, longer than a bid waits for its win, since renders and clicks come
// late.
const DefaultTrackTTL = 24 * time.Hour

// DefaultSeat is the seat id when none is configured.
const DefaultSeat = "dsp"

// Server serves the bidding endpoints and the admin endpoints over one
// engine and the current campaign set.
type Server struct {
	cfg     Config
	engine  *bidder.Engine
	log     *slog.Logger
	metrics *metrics
	seat    []byte // pre-encoded part between the two bid ids
	prices  pricings

	signer    *tracker.Signer
	nobids    atomic.Uint64 // no bids seen, for NoBidSample
	outbox    bool          // the state commits once-only records with its books (bidder.EventOutbox)
	eventsLog rateLog       // event log failures

	stateLog    rateLog // state-store failures, seen per request
	capacityLog rateLog // bids refused because the state is full
	invalidLog  rateLog // OpenRTB requests served with malformed optional fields

	current  atomic.Pointer[serving]
	reloadMu sync.Mutex
	today    dayBase // the exchanges' counters at the start of the day (exchangestats.go)
	draining atomic.Bool
}

// serving is one campaign set, exchange set and currency rates with their
// pre-encoded response fragments; a reload swaps a whole new one in, so a
// request never sees half of one.
type serving struct {
	catalog   *bidder.Catalog
	creatives []creativeJSON
	exchanges *exchange.Set
	rates     *currency.Rates  // nil: USD only
	wires     map[string]*wire // by exchange id
	loaded    time.Time
}

// NewServer returns a server over engine. It serves no bids until a
// catalog is loaded with Load or Reload.
func NewServer(cfg Config, engine *bidder.Engine) (*Server, error) {
	if cfg.Seat == "" {
		cfg.Seat = DefaultSeat
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	if cfg.PublicURL == "" {
		return nil, errors.New("api: PublicURL is required")
	}
	if cfg.TrackTTL <= 0 {
		cfg.TrackTTL = DefaultTrackTTL
	}
	if cfg.TrackKey == (tracker.Key{}) {
		cfg.TrackKey = tracker.DeriveKey(bidder.NewHashKey())
	}
	s := &Server{
		cfg:         cfg,
		engine:      engine,
		log:         cfg.Logger,
		metrics:     newMetrics(engine),
		seat:        seatJSON(cfg.Seat),
		stateLog:    rateLog{log: cfg.Logger},
		capacityLog: rateLog{log: cfg.Logger},
		invalidLog:  rateLog{log: cfg.Logger},
		eventsLog:   rateLog{log: cfg.Logger},
		signer:      tracker.NewSigner(cfg.TrackKey),
		outbox:      cfg.Events != nil && engine.EventOutbox() != nil,
	}
	s.metrics.addEvents(cfg.Events)
	return s, nil
}

// Load publishes cat and set as the serving campaign and exchange sets,
// with rates (nil: USD only) for OpenRTB floors; cat must have been
// validated for set's exchanges.
func (s *Server) Load(set *exchange.Set, cat *bidder.Catalog, rates *currency.Rates) {
	wires := make(map[string]*wire, set.Len())
	for _, ex := range set.All() {
		wires[ex.ID] = s.newWire(ex)
	}
	s.prices.add(set)
	s.engine.Pace(cat) // paced campaigns keep their rates across the reload
	s.current.Store(&serving{
		catalog:   cat,
		creatives: encodeCreatives(cat),
		exchanges: set,
		rates:     rates,
		wires:     wires,
		loaded:    s.engine.Now(),
	})
	s.metrics.campaigns.Set(float64(cat.Len()))
	s.metrics.exchanges.Set(float64(set.Len()))
	s.metrics.currencies.Set(float64(rates.Len()))
	_, asOf := rates.AsOf()
	s.metrics.ratesAsOf.Set(0)
	if !asOf.IsZero() {
		s.metrics.ratesAsOf.Set(float64(asOf.Unix()))
	}
}

// Catalog returns the serving campaign set, or nil before the first load.
func (s *Server) Catalog() *bidder.Catalog {
	if cur := s.current.Load(); cur != nil {
		return cur.catalog
	}
	return nil
}

// Loaded says what a reload put in service.
type Loaded struct {
	Campaigns, Exchanges int
	// Managed: the campaigns came from the managed set, not the file.
	Managed bool
}

// Sets are the exchanges, the currency rates (nil: USD only) and the
// campaigns that a load puts in service as one.
type Sets struct {
	Exchanges *exchange.Set
	Rates     *currency.Rates
	Catalog   *bidder.Catalog
	took      time.Duration // to read them
}

// ReadSets reads and validates the files cfg names: the exchanges and the
// currency rates (when there are any), then the campaigns against the
// exchanges. It needs no server, so that dspd can refuse to start on a bad
// file before it opens its state. A file with any problem is an error: a
// *problems.Error naming every problem, or an I/O error.
func ReadSets(cfg Config) (*Sets, error) {
	start := time.Now()
	set := exchange.Implicit()
	if cfg.ExchangesPath != "" {
		var err error
		if set, err = exchange.Load(cfg.ExchangesPath); err != nil {
			return nil, fmt.Errorf("exchanges %s: %w", cfg.ExchangesPath, err)
		}
	}
	var rates *currency.Rates
	if cfg.CurrencyRatesPath != "" {
		var err error
		if rates, err = currency.Load(cfg.CurrencyRatesPath); err != nil {
			return nil, fmt.Errorf("currency rates %s: %w", cfg.CurrencyRatesPath, err)
		}
	}
	if cfg.CampaignSource != nil {
		cat, err := cfg.CampaignSource(set.IDs())
		if err != nil {
			return nil, fmt.Errorf("the managed campaigns: %w", err)
		}
		return &Sets{Exchanges: set, Rates: rates, Catalog: cat, took: time.Since(start)}, nil
	}
	cat, err := bidder.LoadCatalogFile(cfg.CampaignsPath, set.IDs(), cfg.MaxCampaignsBytes)
	if err != nil {
		return nil, fmt.Errorf("campaigns %s: %w", cfg.CampaignsPath, err)
	}
	return &Sets{Exchanges: set, Rates: rates, Catalog: cat, took: time.Since(start)}, nil
}

// Start puts sets, read by ReadSets from the server's own files, in service
// as the first load; a campaigns file with no campaign serves, with a
// warning.
func (s *Server) Start(ctx context.Context, sets *Sets) (Loaded, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.put(ctx, sets, nil)
}

// Reload reads the exchanges file and the currency rates (when there are
// any) and the campaigns file again, as one set, and swaps them in. On any
// error the old sets keep serving and the error is returned: a
// *problems.Error naming every problem, or an I/O error. A campaigns file
// with no campaign is refused, unless AllowEmptyCampaigns.
func (s *Server) Reload(ctx context.Context) (Loaded, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	sets, err := ReadSets(s.cfg)
	return s.put(ctx, sets, err)
}

// put swaps sets in, or, when they could not be read (err) or must not
// serve, counts and logs the refusal; the caller holds reloadMu.
func (s *Server) put(ctx context.Context, sets *Sets, err error) (Loaded, error) {
	first := s.current.Load() == nil // the load at start: nothing serves yet
	if err == nil {
		err = ctx.Err()
	}
	managed := s.cfg.CampaignSource != nil // an empty managed set was emptied through the API, on purpose
	if err == nil && sets.Catalog.Len() == 0 && !first && !managed && !s.cfg.AllowEmptyCampaigns {
		err = fmt.Errorf("campaigns %s: %w", s.cfg.CampaignsPath, problems.New(bidder.ErrInvalidCatalog,
			"no campaigns: a reload would stop all bidding (dspd -allow-empty-campaigns allows it)"))
	}
	if err != nil {
		s.metrics.reloadFailed.Inc()
		if first {
			s.log.Error("campaigns, exchanges or rates rejected at start", "err", err)
		} else {
			s.log.Error("reload rejected; the previous campaigns, exchanges and rates keep serving", "err", err)
		}
		return Loaded{}, fmt.Errorf("reload: %w", err)
	}
	cat, set, rates := sets.Catalog, sets.Exchanges, sets.Rates
	source := s.cfg.CampaignsPath
	if managed {
		source = "the managed set"
	}
	if cat.Len() == 0 {
		s.log.Warn("no campaigns: no bids until some are added", "from", source)
	}
	s.Load(set, cat, rates)
	s.metrics.reloadOK.Inc()
	args := []any{"from", source, "campaigns", cat.Len(), "creatives", cat.NumCreatives(),
		"exchanges", set.IDs(), "took", sets.took.Round(time.Millisecond)}
	if rates != nil {
		asOf, _ := rates.AsOf()
		args = append(args, "currencies", rates.Len(), "rates_as_of", asOf)
	}
	s.log.Info("campaigns loaded", args...)
	return Loaded{Campaigns: cat.Len(), Exchanges: set.Len(), Managed: managed}, nil
}

// ServeCampaigns puts a new campaign set in service with the serving
// exchanges and rates: build makes its catalogue for the exchanges' ids
// (the managed set's, after a change through the API). On an error the
// old set keeps serving.
func (s *Server) ServeCampaigns(ctx context.Context, build func(exchanges []string) (*bidder.Catalog, error)) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	cur := s.current.Load()
	if cur == nil {
		return errors.New("api: nothing serves yet")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cat, err := build(cur.exchanges.IDs())
	if err != nil {
		return fmt.Errorf("campaigns: %w", err)
	}
	s.Load(cur.exchanges, cat, cur.rates)
	return nil
}

// Exchanges returns the serving exchange set, or nil before the first load.
func (s *Server) Exchanges() *exchange.Set {
	if cur := s.current.Load(); cur != nil {
		return cur.exchanges
	}
	return nil
}

// SetDraining marks the server as shutting down: /readyz answers 503 so
// that load balancers stop sending traffic.
func (s *Server) SetDraining() { s.draining.Store(true) }
