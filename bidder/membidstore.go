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
//
// Records hold no pointers: campaign and creative ids are interned as
// numbers and user ids are kept in a per-shard byte log, so the garbage
// collector never scans the millions of records a busy server holds.
type MemoryBidStore struct {
	ttl      time.Duration
	perShard int
	names    *names
	shards   [memShards]bidShard
	expired  atomic.Int64
	evicted  atomic.Int64
}

type bidShard struct {
	mu    sync.Mutex
	m     map[BidID]storedBid
	queue []queuedBid // insertion order, which is expiry order
	head  int
	uids  uidLog
}

// storedBid is a BidRecord as the store keeps it, without pointers.
type storedBid struct {
	campaign, creative uint32 // interned ids
	uidOff             uint64 // in the shard's uid log
	uidLen             uint8
	test, won          bool
	timeMs             int64
	price              Micros
	periodS            int64
	expires            int64 // Unix nanoseconds
}

type queuedBid struct {
	id      BidID
	expires int64
	uidOff  uint64 // where this record's uid starts: what the log may drop once it goes
}

// uidLog keeps the user ids of a shard's records in insertion order, which
// is also the order in which records leave, so the bytes of departed
// records are always a prefix and are dropped by compaction.
type uidLog struct {
	buf  []byte
	base uint64 // the offset of buf[0] since the shard began
}

func (l *uidLog) add(uid string) uint64 {
	off := l.base + uint64(len(l.buf))
	l.buf = append(l.buf, uid...)
	return off
}

func (l *uidLog) get(off uint64, n uint8) string {
	i := off - l.base
	return string(l.buf[i : i+uint64(n)])
}

// forget drops the bytes before off once they make up half the log.
func (l *uidLog) forget(off uint64) {
	dead := int(off - l.base)
	if dead < 4096 || dead*2 < len(l.buf) {
		return
	}
	n := copy(l.buf, l.buf[dead:])
	l.buf = l.buf[:n]
	l.base = off
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
	s := &MemoryBidStore{ttl: ttl, perShard: max(1, maxBids/memShards), names: newNames()}
	for i := range s.shards {
		s.shards[i].m = make(map[BidID]storedBid)
	}
	return s
}

func (s *MemoryBidStore) shard(id BidID) *bidShard { return &s.shards[id[0]&(memShards-1)] }

// maxUIDLen is the longest user id a record keeps (the contract's limit).
const maxUIDLen = 128

// Save implements BidStore.
func (s *MemoryBidStore) Save(_ context.Context, rec BidRecord, now time.Time) error {
	if len(rec.UID) > maxUIDLen {
		return errors.New("user id longer than 128 bytes")
	}
	campaign, creative := s.names.id(rec.CampaignID), s.names.id(rec.CreativeID)
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
	off := sh.uids.add(rec.UID)
	sh.m[rec.ID] = storedBid{campaign: campaign, creative: creative, uidOff: off, uidLen: uint8(len(rec.UID)),
		test: rec.Test, timeMs: rec.TimeMs, price: rec.Price, periodS: rec.PeriodS, expires: exp}
	sh.queue = append(sh.queue, queuedBid{id: rec.ID, expires: exp, uidOff: off})
	return nil
}

// Claim implements BidStore.
func (s *MemoryBidStore) Claim(_ context.Context, id BidID, price Micros, now time.Time) (BidRecord, ClaimResult, error) {
	sh := s.shard(id)
	sh.mu.Lock()
	e, ok := sh.m[id]
	if !ok || e.expires <= now.UnixNano() {
		sh.mu.Unlock()
		return BidRecord{}, 0, ErrUnknownBid
	}
	if price > e.price {
		sh.mu.Unlock()
		return BidRecord{}, 0, ErrPriceAboveBid
	}
	res := Duplicate
	if !e.won {
		res = Claimed
		e.won = true
		sh.m[id] = e
	}
	uid := sh.uids.get(e.uidOff, e.uidLen)
	sh.mu.Unlock()
	return BidRecord{ID: id, CampaignID: s.names.name(e.campaign), CreativeID: s.names.name(e.creative), UID: uid,
		TimeMs: e.timeMs, Price: e.price, Test: e.test, PeriodS: e.periodS}, res, nil
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
		sh.uids.forget(sh.uids.base + uint64(len(sh.uids.buf)))
	} else {
		sh.uids.forget(sh.queue[sh.head].uidOff)
		if sh.head >= 1024 && sh.head*2 >= len(sh.queue) {
			n := copy(sh.queue, sh.queue[sh.head:])
			sh.queue, sh.head = sh.queue[:n], 0
		}
	}
}
