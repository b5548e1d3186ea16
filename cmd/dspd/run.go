package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/admin"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/state"
	"github.com/recbid/dspd/tracker"
)

// hooks let tests observe the server's life; every field is optional.
type hooks struct {
	// listening receives the bound addresses once both listeners are up.
	listening func(public, admin net.Addr)
	// draining is called when the public listener starts shutting down.
	draining func()
	// active is called when a public connection starts reading a request.
	active func()
	// served is called after the public handler answered a request.
	served func()
}

// serverClock is the wall clock, or one started at -clock-start.
func serverClock(cfg config) func() time.Time {
	if cfg.clockStart.IsZero() {
		return clock.Wall
	}
	return clock.StartingAt(cfg.clockStart)
}

// run loads the campaigns, serves until ctx is done, then drains and
// returns nil. A campaigns file with any error stops it before it listens.
func run(ctx context.Context, cfg config, log *slog.Logger, hup <-chan os.Signal, h hooks) error {
	apiCfg := api.Config{
		Seat:                cfg.seat,
		PublicURL:           cfg.publicURL,
		CampaignsPath:       cfg.campaigns,
		MaxCampaignsBytes:   cfg.maxCampaignsBytes,
		AllowEmptyCampaigns: cfg.allowEmptyCampaigns,
		ExchangesPath:       cfg.exchanges,
		CurrencyRatesPath:   cfg.currencyRates,
		TrustedProxies:      cfg.trustedProxies,
		TrustRequestTS:      cfg.trustRequestTS,
		Logger:              log,
	}
	// The files first: a bad one stops dspd before it opens (or creates)
	// its state.
	sets, err := api.ReadSets(apiCfg)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	tokenFile, err := openTokens(cfg)
	if err != nil {
		return err
	}
	now := serverClock(cfg)
	st, err := openState(ctx, cfg, now, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("closing the state", "state", cfg.state, "err", err)
		}
	}()
	target, err := resolveEvents(cfg.events, cfg.state)
	if err != nil {
		return err
	}
	evlog, err := openEvents(cfg, target, st, now, log)
	if err != nil {
		return err
	}
	if evlog != nil {
		defer func() {
			if err := evlog.Close(); err != nil {
				log.Error("closing the event log", "err", err)
			}
		}()
	}
	engine := bidder.NewEngine(bidder.Config{SafetyMargin: cfg.safetyMargin, Clock: now, BidTTL: cfg.bidTTL,
		HashKey: st.HashKey, Pacing: bidder.PacingConfig{FollowRequests: cfg.trustRequestTS}}, st.Ledger, st.Bids)
	apiCfg.Events, apiCfg.EventsWait, apiCfg.NoBidSample = evlog, cfg.bidWindow == 0, cfg.events.nobidSample
	apiCfg.Track, apiCfg.TrackKey, apiCfg.TrackTTL = cfg.track, tracker.DeriveKey(st.HashKey), cfg.trackTTL
	if apiCfg.Consent, err = consent.New(consent.Config{VendorID: cfg.gvlVendorID}); err != nil {
		return err
	}
	if cfg.gvlVendorID == 0 {
		log.Warn("no -gvl-vendor-id: every OpenRTB request where GDPR applies gets no bid (reason consent); see docs/privacy.md")
	}
	var srv *api.Server
	var mgmt *management
	if tokenFile != nil {
		if mgmt, err = startManaged(ctx, cfg, tokenFile, st, sets, &apiCfg, func() *api.Server { return srv }, now, evlog, log); err != nil {
			return err
		}
	}
	if srv, err = api.NewServer(apiCfg, engine); err != nil {
		return err
	}
	if evlog != nil && len(target.brokers) > 0 {
		stopShipping, err := ship(evlog, target, now, log, srv)
		if err != nil {
			return err
		}
		defer stopShipping() // before the log closes (deferred earlier)
	}
	if _, err := srv.Start(ctx, sets); err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	mgmt.started(srv)
	if srv.Exchanges().IsImplicit() && !isLoopback(cfg.addr) {
		log.Warn("no -exchanges file: anyone who reaches the public address can ask for bids and send win notices at clear prices; "+
			"declare the exchanges you trade with (sources, tokens, encrypted prices)", "addr", cfg.addr)
	}

	publicLn, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("public listener: %w", err)
	}
	adminLn, err := net.Listen("tcp", cfg.admin)
	if err != nil {
		publicLn.Close()
		return fmt.Errorf("admin listener: %w", err)
	}
	public := newPublicServer(cfg, srv, log, h)
	adminSrv := admin.NewServer(srv, admin.Config{Server: nethttp.Config{Limits: cfg.limits, Logger: log}, Token: cfg.adminToken,
		Mount: mgmt.mounts(srv, log), Reload: mgmt.reload})

	log.Info("dspd listening", "public", publicLn.Addr().String(), "admin", adminLn.Addr().String(),
		"http", cfg.http, "public_url", cfg.publicURL, "seat", cfg.seat, "campaigns", cfg.campaigns, "state", cfg.state,
		"trust_request_ts", cfg.trustRequestTS, "clock", engine.Now().UTC().Format(time.RFC3339))
	if h.listening != nil {
		h.listening(publicLn.Addr(), adminLn.Addr())
	}

	errc := make(chan error, 2)
	go func() { errc <- public.Serve(publicLn) }()
	go func() { errc <- adminSrv.Serve(adminLn) }()
	paceCtx, stopPacing := context.WithCancel(context.Background())
	defer stopPacing()
	go pace(paceCtx, engine, srv, log)
	if mgmt != nil {
		go mgmt.set.Run(paceCtx)
	}

	sweep := time.NewTicker(cfg.sweepEvery)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return drain(srv, cfg.drainTimeout, log, public, adminSrv)
		case err := <-errc:
			_ = drain(srv, cfg.drainTimeout, log, public, adminSrv)
			return err
		case <-hup:
			if err := mgmt.reload(); err != nil {
				log.Error("reload: the tokens file was refused; the old tokens stay", "err", err)
			} else {
				_, _ = srv.Reload(context.Background()) // logged inside; the old set keeps serving
			}
		case <-sweep.C:
			if n := engine.Sweep(engine.Now()); n > 0 {
				log.Debug("expired state evicted", "entries", n)
			}
		}
	}
}

// openState opens the store -state names, on the server clock. The disk
// state's fsyncs are done by a helper process (-sync-helper), where
// waiting for the disk holds no P. Without it the disk state needs two
// Ps: with one, the goroutine in fsync holds it and the whole server waits
// for the disk (docs/operations.md: 1.5k against 11k req/s on one pinned
// CPU); two Ps on one CPU cost nothing. (A helper that does not start, or
// is lost later, has the disk state raise GOMAXPROCS itself: state/disk's
// synchelper.go.)
func openState(ctx context.Context, cfg config, now func() time.Time, log *slog.Logger) (*state.Store, error) {
	st, err := state.Open(ctx, cfg.state, state.Config{BidTTL: cfg.bidTTL, MaxBids: cfg.maxBids,
		MaxDayCounters: cfg.maxDays, MaxFreqCounters: cfg.maxFreq, MaxEventClaims: cfg.maxEventClaims,
		BidWindow: cfg.bidWindow, SyncHelper: cfg.syncHelper, Clock: now, Logger: log})
	if err != nil {
		return nil, err
	}
	if n := runtime.GOMAXPROCS(0); st.Kind == state.Disk && !cfg.syncHelper && n < 2 {
		runtime.GOMAXPROCS(2)
		log.Info("disk state: GOMAXPROCS raised to 2, so that an fsync never holds the only P", "was", n)
	}
	return st, nil
}

// pace runs the pacing controllers once a minute of the pacing clock (the
// server clock, or with -trust-request-ts the latest request time), looking
// every second, until ctx ends. A failed tick (the state unreachable)
// leaves the rates as they were; it is logged at most once a minute. It
// also starts the exchanges' counts of a new day (api.Server.TickDay).
func pace(ctx context.Context, engine *bidder.Engine, srv *api.Server, log *slog.Logger) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var logged time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			srv.TickDay()
			if err := engine.TickPacing(ctx, engine.PacingNow()); err != nil && time.Since(logged) >= time.Minute {
				log.Warn("pacing: tick failed; paced campaigns keep their rates", "err", err)
				logged = time.Now()
			}
		}
	}
}

// drain stops accepting connections, lets in-flight requests finish within
// timeout, and closes idle keep-alive connections.
func drain(srv *api.Server, timeout time.Duration, log *slog.Logger, servers ...server) error {
	srv.SetDraining()
	log.Info("draining", "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var errs []error
	for _, s := range servers {
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("drain: %w", err)
	}
	log.Info("stopped")
	return nil
}
