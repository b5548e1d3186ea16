package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
)

// ErrUnavailable is the cause of every failure while the breaker is open:
// Redis failed recently and is left alone for a pause.
var ErrUnavailable = errors.New("redis unavailable")

// Store is the bidder's state in Redis: a bidder.Ledger and a
// bidder.BidStore. It is safe for concurrent use; Close flushes it.
type Store struct {
	cfg    Config
	client goredis.UniversalClient

	openUntil atomic.Int64 // Unix nanoseconds until which the breaker is open
	inARow    atomic.Int64 // failures since the last success
	failures  atomic.Int64

	spend spendCache
	bids  bidCounts
	saved savedWindow

	hashKey bidder.HashKey
	policy  string // Redis's maxmemory-policy, "" when it would not say
	oldKeys bool   // Redis holds bid records of the earlier key scheme (oldkeys.go)

	manager     goredis.UniversalClient // the managed set's, made on first use (managed.go)
	managerErr  error
	managerOnce sync.Once

	stop      chan struct{}
	done      sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

var (
	_ bidder.Ledger   = (*Store)(nil)
	_ bidder.BidStore = (*Store)(nil)
)

// Open connects to Redis, checks it answers, and starts the background
// flush of bid counts.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	client, err := cfg.client()
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, client: client, stop: make(chan struct{})}
	s.spend.init()
	s.bids.init()
	s.saved.init(cfg.BidTTL)
	pctx, cancel := context.WithTimeout(ctx, 50*cfg.OpTimeout)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis %s: %w", cfg.URL, err)
	}
	if s.hashKey, err = s.loadHashKey(pctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis %s: %w", cfg.URL, err)
	}
	if v, err := client.ConfigGet(pctx, "maxmemory-policy").Result(); err == nil {
		s.policy = v["maxmemory-policy"]
	}
	s.oldKeys = s.findOldKeys(pctx)
	s.done.Add(1)
	go s.flushLoop()
	return s, nil
}

// Close writes the pending bid counts and closes the connections.
// A second Close does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.done.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ferr := s.Flush(ctx)
		s.closeErr = errors.Join(ferr, s.client.Close())
		if s.manager != nil {
			s.closeErr = errors.Join(s.closeErr, s.manager.Close())
		}
	})
	return s.closeErr
}

// loadHashKey returns the user hash key the store keeps, storing a new one
// if it holds none: the first replica to start draws it, and every replica
// after it, and every restart, reads the same.
func (s *Store) loadHashKey(ctx context.Context) (bidder.HashKey, error) {
	if err := s.client.SetNX(ctx, s.hashKeyKey(), bidder.NewHashKey().String(), 0).Err(); err != nil {
		return bidder.HashKey{}, fmt.Errorf("user hash key: %w", err)
	}
	v, err := s.client.Get(ctx, s.hashKeyKey()).Result()
	if err != nil {
		return bidder.HashKey{}, fmt.Errorf("user hash key: %w", err)
	}
	return bidder.ParseHashKey(v)
}

// HashKey returns the user hash key this store keeps for every replica.
func (s *Store) HashKey() bidder.HashKey { return s.hashKey }

// EvictionPolicy returns Redis's maxmemory-policy, or "" when Redis would
// not say (CONFIG disabled). Only noeviction keeps the books: under any
// other policy a full Redis drops keys, budget and frequency counters and
// bid records among them.
func (s *Store) EvictionPolicy() string { return s.policy }

// Failures returns how many Redis operations failed so far.
func (s *Store) Failures() int64 { return s.failures.Load() }

// call runs op with the store's timeout unless the breaker is open; the
// breaker opens when BreakerAfter operations in a row have failed.
func (s *Store) call(ctx context.Context, op func(ctx context.Context) error) error {
	if now := time.Now().UnixNano(); now < s.openUntil.Load() {
		return ErrUnavailable
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	defer cancel()
	err := op(ctx)
	if err != nil && !errors.Is(err, goredis.Nil) {
		s.failures.Add(1)
		if s.inARow.Add(1) >= int64(s.cfg.BreakerAfter) {
			s.openUntil.Store(time.Now().Add(s.cfg.BreakerPause).UnixNano())
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	s.inARow.Store(0)
	return nil
}

// Keys. The part in braces is the hash tag: what Redis Cluster places by.
// Everything a win writes (its bid record, its campaign's day counters,
// its user's frequency counter for the campaign) carries the campaign's
// tag (tag.go), so that one script on one node records it whole; the bid
// id carries the tag too, so that a win notice, which has only the id,
// finds the record's node.

func (s *Store) bidKey(id bidder.BidID) string {
	return s.cfg.Prefix + ":bid:{" + tagOfID(id).String() + "}:" + id.String()
}

func (s *Store) dayKey(campaign string, day bidder.Day) string {
	return s.cfg.Prefix + ":day:{" + tagOf(campaign).String() + "}:" + campaign + ":" + strconv.Itoa(int(day))
}

func (s *Store) freqKey(user bidder.UserKey, campaign string, period, window int64) string {
	return s.cfg.Prefix + ":freq:{" + tagOf(campaign).String() + "}:" + campaign + ":" + user.String() + ":" +
		strconv.FormatInt(period, 10) + ":" + strconv.FormatInt(window, 10)
}

func (s *Store) hashKeyKey() string { return s.cfg.Prefix + ":hashkey" }

// The Redis store's optional abilities (bidder/storestats.go).
var (
	_ bidder.FailureCounter = (*Store)(nil)
	_ bidder.LostBidCounter = (*Store)(nil)
)
