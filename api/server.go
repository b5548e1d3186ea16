package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
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
	// TrustRequestTS makes a bid request's ts, when given, its request
	// time (contract version 1), for replays of recorded traffic and tests.
	// Off, the request time is the server clock at arrival and ts is only
	// validated: nothing a client sends moves money.
	TrustRequestTS bool
	// Logger receives start-up, reload and error logs, never one line per
	// request. Default slog.Default().
	Logger *slog.Logger
}

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
	winURL  string

	stateLog    rateLog // state-store failures, seen per request
	capacityLog rateLog // bids refused because the state is full

	current  atomic.Pointer[serving]
	reloadMu sync.Mutex
	draining atomic.Bool
}

// serving is one campaign set with its pre-encoded response fragments; a
// reload swaps a whole new one in, so a request never sees half of one.
type serving struct {
	catalog   *bidder.Catalog
	creatives []creativeJSON
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
	return &Server{
		cfg:         cfg,
		engine:      engine,
		log:         cfg.Logger,
		metrics:     newMetrics(engine),
		seat:        seatJSON(cfg.Seat),
		winURL:      cfg.PublicURL + winPath,
		stateLog:    rateLog{log: cfg.Logger},
		capacityLog: rateLog{log: cfg.Logger},
	}, nil
}

// Load publishes cat as the serving campaign set.
func (s *Server) Load(cat *bidder.Catalog) {
	s.current.Store(&serving{
		catalog:   cat,
		creatives: encodeCreatives(cat, s.winURL),
		loaded:    s.engine.Now(),
	})
	s.metrics.campaigns.Set(float64(cat.Len()))
}

// Catalog returns the serving campaign set, or nil before the first load.
func (s *Server) Catalog() *bidder.Catalog {
	if cur := s.current.Load(); cur != nil {
		return cur.catalog
	}
	return nil
}

// Reload reads the campaigns file again and swaps the new set in. On any
// error the old set keeps serving and the error (a *bidder.CatalogError
// naming every problem, or an I/O error) is returned.
func (s *Server) Reload(ctx context.Context) (int, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	start := time.Now()
	cat, err := bidder.LoadCatalogFile(s.cfg.CampaignsPath)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		s.metrics.reloadFailed.Inc()
		s.log.Error("reload rejected; the previous campaigns keep serving",
			"file", s.cfg.CampaignsPath, "err", err)
		return 0, fmt.Errorf("reload %s: %w", s.cfg.CampaignsPath, err)
	}
	s.Load(cat)
	s.metrics.reloadOK.Inc()
	s.log.Info("campaigns loaded", "file", s.cfg.CampaignsPath, "campaigns", cat.Len(),
		"creatives", cat.NumCreatives(), "took", time.Since(start).Round(time.Millisecond))
	return cat.Len(), nil
}

// SetDraining marks the server as shutting down: /readyz answers 503 so
// that load balancers stop sending traffic.
func (s *Server) SetDraining() { s.draining.Store(true) }

// Routes of the public listener.
const (
	recbidPath = "/dsp/recbid"
	winPath    = "/dsp/win"
)

// PublicHandler returns the router of the public listener: the bidding
// endpoints and 404 elsewhere. Its only middleware turns panics into 500s;
// it neither logs nor allocates per request.
func (s *Server) PublicHandler() http.Handler {
	r := newRouter()
	r.Use(s.recoverPanics)
	r.HandleFunc(recbidPath, s.handleRecbid)
	r.HandleFunc(winPath, s.handleWin)
	r.HandleFunc(openrtbPath, s.handleOpenRTB)
	return r
}
