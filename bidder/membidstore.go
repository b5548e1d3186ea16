package bidder

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrDuplicateBidID is returned by Save when the id is already held; the
// engine then draws another id.
var ErrDuplicateBidID = errors.New("bid id already held")

// Defaults of MemoryBidStore.
const (
	DefaultBidTTL  = 10 * time.Minute
	DefaultMaxBids = 4_000_000
)

// MemoryBidStore is the default BidStore: sharded maps with a FIFO per
// shard. Records expire after the time to live; when a shard is full, its
// oldest record is evicted first (and counted), so memory stays bounded
// however fast bids arrive.
type MemoryBidStore struct {
	ttl      time.Duration
	perShard int
	shards   [memShards]bidShard
	expired  atomic.Int64
	evicted  atomic.Int64
}

type bidShard struct {
	mu    sync.Mutex
	m     map[BidID]bidEntry
	queue []queuedBid // insertion order, which is expiry order
	head  int
}

type bidEntry struct {
	rec     BidRecord
	expires int64 // Unix nanoseconds
	won     bool
}

type queuedBid struct {
	id      BidID
	expires int64
}

// NewMemoryBidStore returns a store keeping each record ttl (DefaultBidTTL
// when zero) and at most maxBids records (DefaultMaxBids when zero).
func NewMemoryBidStore(ttl time.Duration, maxBids int) *MemoryBidStore {
	if ttl <= 0 {
		ttl = DefaultBidTTL
	}
	if maxBids <= 0 {
		maxBids = DefaultMaxBids
	}
	s := &MemoryBidStore{ttl: ttl, perShard: max(1, maxBids/memShards)}
	for i := range s.shards {
		s.shards[i].m = make(map[BidID]bidEntry)
	}
	return s
}

func (s *MemoryBidStore) shard(id BidID) *bidShard { return &s.shards[id[0]&(memShards-1)] }

// Save implements BidStore.
func (s *MemoryBidStore) Save(_ context.Context, rec BidRecord, now time.Time) error {
	sh := s.shard(rec.ID)
	ns := now.UnixNano()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, dup := sh.m[rec.ID]; dup {
		return ErrDuplicateBidID
	}
	s.expired.Add(int64(sh.dropExpired(ns)))
	for len(sh.m) >= s.perShard {
		sh.dropOldest()
		s.evicted.Add(1)
	}
	exp := ns + int64(s.ttl)
	sh.m[rec.ID] = bidEntry{rec: rec, expires: exp}
	sh.queue = append(sh.queue, queuedBid{id: rec.ID, expires: exp})
	return nil
}

// Claim implements BidStore.
func (s *MemoryBidStore) Claim(_ context.Context, id BidID, price Micros, now time.Time) (BidRecord, ClaimResult, error) {
	sh := s.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.m[id]
	if !ok || e.expires <= now.UnixNano() {
		return BidRecord{}, 0, ErrUnknownBid
	}
	if price > e.rec.Price {
		return BidRecord{}, 0, ErrPriceAboveBid
	}
	if e.won {
		return e.rec, Duplicate, nil
	}
	e.won = true
	sh.m[id] = e
	return e.rec, Claimed, nil
}

// Len implements BidStore.
func (s *MemoryBidStore) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// Sweep drops every record expired at now and returns how many it dropped.
func (s *MemoryBidStore) Sweep(now time.Time) int {
	ns, n := now.UnixNano(), 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.dropExpired(ns)
		sh.mu.Unlock()
	}
	s.expired.Add(int64(n))
	return n
}

// Evictions returns how many records expired and how many were evicted
// early because the store was full.
func (s *MemoryBidStore) Evictions() (expired, evicted int64) {
	return s.expired.Load(), s.evicted.Load()
}

func (sh *bidShard) dropExpired(ns int64) int {
	n := 0
	for sh.head < len(sh.queue) && sh.queue[sh.head].expires <= ns {
		sh.dropOldest()
		n++
	}
	return n
}

func (sh *bidShard) dropOldest() {
	delete(sh.m, sh.queue[sh.head].id)
	sh.queue[sh.head] = queuedBid{}
	sh.head++
	if sh.head == len(sh.queue) {
		sh.queue, sh.head = sh.queue[:0], 0
	} else if sh.head >= 1024 && sh.head*2 >= len(sh.queue) {
		n := copy(sh.queue, sh.queue[sh.head:])
		sh.queue, sh.head = sh.queue[:n], 0
	}
}
