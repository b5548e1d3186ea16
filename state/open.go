// Package state opens the store where dspd's books live (budgets,
// frequency counters, bid records), as one URL names it: the memory
// stores (package memory), the durable embedded state on Pebble (package
// disk), or state shared by replicas in Redis or a Redis Cluster (package
// redis). Package statetest holds the suite every store passes.
package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/disk"
	"github.com/recbid/dspd/state/disk/synchelper"
	"github.com/recbid/dspd/state/memory"
	"github.com/recbid/dspd/state/redis"
)

// ErrURL is the cause of Open's error for a URL that names no kind of
// state.
var ErrURL = errors.New("want disk:DIR, memory, redis://HOST:PORT/DB or redis-cluster://HOST:PORT")

// Kind is the kind of store a URL names.
type Kind uint8

// The kinds of store.
const (
	Memory Kind = iota + 1 // memory: lost at exit
	Disk                   // disk:DIR, Pebble with group-committed wins
	Redis                  // redis:// or redis-cluster://, shared by replicas
)

// Config sizes and clocks the store; zero fields take each store's
// defaults.
type Config struct {
	BidTTL          time.Duration    // how long a bid record waits for its win notice
	MaxBids         int              // bid records held (memory and disk)
	MaxDayCounters  int              // per-campaign daily counters (memory and disk)
	MaxFreqCounters int              // per-user frequency counters (memory and disk)
	MaxEventClaims  int              // once-only event claims (memory; disk and Redis keep theirs on disk)
	BidWindow       time.Duration    // disk: how long a bid's record may wait for its write
	SyncHelper      bool             // disk: fsync in a helper process (disk.Config.SyncHelper)
	Clock           func() time.Time // the server clock (default: the wall clock)
	Logger          *slog.Logger     // default slog.Default()
}

// Store is an open store: its ledger and bid store, and the user hash key
// it keeps (so that replicas and restarts hash users alike).
type Store struct {
	Kind    Kind
	Ledger  bidder.Ledger
	Bids    bidder.BidStore
	HashKey bidder.HashKey
	// Managed keeps the campaign set managed through the API (package
	// managed): in memory, in the state directory, or in Redis.
	Managed managed.Store
	// SyncHelper does the disk state's fsyncs (Config.SyncHelper), and can
	// do the event log's: nil when there is none.
	SyncHelper *synchelper.Helper
	close      func() error
}

// Close flushes and closes the store.
func (s *Store) Close() error { return s.close() }

// Outbox returns the store's event outbox (bidder.EventOutbox: the disk
// state commits the event log's once-only records with its books), or nil.
func (s *Store) Outbox() bidder.EventOutbox {
	o, _ := s.Bids.(bidder.EventOutbox)
	return o
}

// Open opens the store url names: "memory", "disk:DIR",
// "redis://HOST:PORT/DB" or "redis-cluster://HOST:PORT[,…]". An unknown
// URL's error wraps ErrURL.
func Open(ctx context.Context, url string, cfg Config) (*Store, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	switch {
	case url == "memory":
		ledger := memory.NewLedger(memory.LedgerConfig{MaxFreqCounters: cfg.MaxFreqCounters,
			MaxDayCounters: cfg.MaxDayCounters, Clock: cfg.Clock})
		return &Store{
			Kind:   Memory,
			Ledger: ledger,
			Bids: memory.NewBidStore(memory.BidStoreConfig{TTL: cfg.BidTTL, MaxBids: cfg.MaxBids,
				MaxEventClaims: cfg.MaxEventClaims, Clock: cfg.Clock}),
			HashKey: ledger.HashKey(), // the state's own key: it lives as long as the books it keys
			Managed: memory.NewManaged(),
			close:   func() error { return nil },
		}, nil
	case strings.HasPrefix(url, "disk:") && url != "disk:":
		s, err := disk.Open(disk.Config{Dir: strings.TrimPrefix(url, "disk:"), BidWindow: cfg.BidWindow,
			BidTTL: cfg.BidTTL, MaxBids: cfg.MaxBids, MaxDayCounters: cfg.MaxDayCounters,
			MaxFreqCounters: cfg.MaxFreqCounters, Clock: cfg.Clock, Logger: cfg.Logger, SyncHelper: cfg.SyncHelper})
		if err != nil {
			return nil, fmt.Errorf("state: %w", err)
		}
		return &Store{Kind: Disk, Ledger: s.Ledger(), Bids: s.Bids(), HashKey: s.HashKey(), Managed: s.Managed(),
			SyncHelper: s.SyncHelper(), close: s.Close}, nil
	case strings.HasPrefix(url, "redis://"), strings.HasPrefix(url, "redis-cluster://"):
		s, err := redis.Open(ctx, redis.Config{URL: url, BidTTL: cfg.BidTTL})
		if err != nil {
			return nil, fmt.Errorf("state: %w", err)
		}
		if s.OldKeys() {
			cfg.Logger.Warn("Redis holds books of an earlier dspd's key scheme, which this one does not read: their spend, "+
				"frequency counters and live bids would be unseen; stop every replica of the earlier version first, "+
				"and start on an empty Redis (docs/operations.md, Replicas sharing Redis)", "url", url)
		}
		if p := s.EvictionPolicy(); p != "noeviction" {
			cfg.Logger.Warn("Redis may evict the books when full: set maxmemory-policy noeviction, so that a full Redis refuses writes instead",
				"maxmemory_policy", p)
		}
		return &Store{Kind: Redis, Ledger: s, Bids: s, HashKey: s.HashKey(), Managed: s, close: s.Close}, nil
	}
	return nil, fmt.Errorf("state %q: %w", url, ErrURL)
}
