package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/disk"
	"github.com/recbid/dspd/state/memory"
	"github.com/recbid/dspd/state/redis"
)

// state is where the books live, as -state names it.
type state struct {
	ledger  bidder.Ledger
	bids    bidder.BidStore
	hashKey bidder.HashKey // the user hash key the state keeps
	close   func()
}

// errStateKind: -state names no kind of state dspd knows.
var errStateKind = errors.New("want disk:DIR, memory, redis://HOST:PORT/DB or redis-cluster://HOST:PORT")

// openState opens the ledger and bid store -state names, on the server clock.
func openState(ctx context.Context, cfg config, now func() time.Time, log *slog.Logger) (state, error) {
	switch {
	case cfg.state == "memory":
		ledger := memory.NewLedger(memory.LedgerConfig{MaxFreqCounters: cfg.maxFreq,
			MaxDayCounters: cfg.maxDays, Clock: now})
		return state{
			ledger:  ledger,
			bids:    memory.NewBidStore(memory.BidStoreConfig{TTL: cfg.bidTTL, MaxBids: cfg.maxBids}),
			hashKey: ledger.HashKey(), // the state's own key: it lives as long as the books it keys
			close:   func() {},
		}, nil
	case strings.HasPrefix(cfg.state, "disk:"):
		dir := strings.TrimPrefix(cfg.state, "disk:")
		if dir == "" {
			return state{}, fmt.Errorf("-state %q: %w", cfg.state, errStateKind)
		}
		if n := runtime.GOMAXPROCS(0); n < 2 {
			// With one P, the goroutine in fsync holds it and the whole
			// server waits for the disk (docs/operations.md: 1.5k against
			// 11k req/s on one pinned CPU). Two Ps on one CPU cost nothing.
			runtime.GOMAXPROCS(2)
			log.Info("disk state: GOMAXPROCS raised to 2, so that an fsync never holds the only P", "was", n)
		}
		s, err := disk.Open(disk.Config{Dir: dir, BidWindow: cfg.bidWindow, BidTTL: cfg.bidTTL, MaxBids: cfg.maxBids,
			MaxDayCounters: cfg.maxDays, MaxFreqCounters: cfg.maxFreq, Clock: now, Logger: log})
		if err != nil {
			return state{}, fmt.Errorf("state: %w", err)
		}
		return state{ledger: s.Ledger(), bids: s.Bids(), hashKey: s.HashKey(), close: func() {
			if err := s.Close(); err != nil {
				log.Error("closing the disk state", "dir", dir, "err", err)
			}
		}}, nil
	case strings.HasPrefix(cfg.state, "redis://"), strings.HasPrefix(cfg.state, "redis-cluster://"):
		s, err := redis.Open(ctx, redis.Config{URL: cfg.state, BidTTL: cfg.bidTTL})
		if err != nil {
			return state{}, fmt.Errorf("state: %w", err)
		}
		if p := s.EvictionPolicy(); p != "noeviction" {
			log.Warn("Redis may evict the books when full: set maxmemory-policy noeviction, so that a full Redis refuses writes instead",
				"maxmemory_policy", p)
		}
		return state{ledger: s, bids: s, hashKey: s.HashKey(), close: func() { _ = s.Close() }}, nil
	}
	return state{}, fmt.Errorf("-state %q: %w", cfg.state, errStateKind)
}
