package bidder

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults and limits of MemoryBidStore.
const (
	DefaultBidTTL = 10 * time.Minute
	// MaxBidTTL bounds the time to live: a win notice comes within minutes
	// of its bid, and a bid's budget day and frequency counters are kept
	// for at least a day after it.
	MaxBidTTL = 24 * time.Hour
	// DefaultMaxBids covers the default time to live at 50,000 bids a
	// second, above what one core serves (docs/operations.md), in about
	// 1.4 GiB when full; the memory is taken as records are made.
	DefaultMaxBids = 30_000_000
	// MaxMemoryBids is the most a MemoryBidStore can hold: its bid ids
	// number 2^26 records in each of 64 shards.
	MaxMemoryBids = memShards << slotBits
	// BidRecordBytes is the memory one record takes, index included (the
	// record's place is written in its bid id, so there is no index).
	BidRecordBytes = 48
)

// MemoryBidStoreConfig configures a MemoryBidStore; the zero value is usable.
type MemoryBidStoreConfig struct {
	// TTL is how long a record waits for its win notice (DefaultBidTTL
	// when zero, at most MaxBidTTL). Records live at least that long and
	// at most a second more (times are kept in whole seconds).
	TTL time.Duration
	// MaxBids is the most records held (DefaultMaxBids when zero, at most
	// MaxMemoryBids). A store full of unexpired records refuses new ones
	// with ErrCapacity; it never drops a record before its time to live.
	MaxBids int
	// Random is the source of the bid ids' secret bits (crypto/rand when
	// nil); tests give a predictable one.
	Random io.Reader
}

// MemoryBidStore is the default BidStore: a ring of fixed-size records per
// shard, in the order they were made, which is the order they expire in.
// A bid id is the record's place (shard and slot, 32 bits) and 96 secret
// random bits that the record keeps: a win notice finds its record without
// an index, and an id that is stale (its slot reused) or forged does not
// match. Expired records leave from the head of the ring, a few at each
// save and in bounded batches by Sweep.
//
// A record is 48 bytes and holds no pointers: campaign, creative, price and
// frequency period are interned together as one number, the user as its
// 128-bit keyed hash, times as seconds. The garbage collector never scans
// the millions of records a busy server holds, and their memory is taken in
// chunks as the rings fill, up to MaxBids.
type MemoryBidStore struct {
	ttl      time.Duration
	nshards  int
	random   io.Reader
	terms    *interner[bidTerms]
	shards   [memShards]ring
	expired  atomic.Int64
	refused  atomic.Int64
	maxPause atomic.Int64 // nanoseconds
}

// bidTerms is what a record keeps of the campaign it bid for and the
// exchange it bid on.
type bidTerms struct {
	campaign, creative string
	exchange, pricing  string
	price              Micros
	periodS            int64
}

// ringRecord is one bid record as the store keeps it: 48 bytes, no pointers.
type ringRecord struct {
	secret0 uint64 // the id's secret bits; zero marks a free slot
	secret1 uint32
	meta    uint32 // interned terms << 2 | won << 1 | test
	expires int64  // Unix seconds: the record is live while now < expires
	user    UserKey
	timeS   int64 // the request time, Unix seconds
}

const (
	metaTest = 1 << iota
	metaWon
	metaTermsShift = iota
)

// Layout of a ring.
const (
	slotBits   = 26      // slots per shard, written in the bid id with the shard
	chunkSize  = 1 << 14 // records per chunk: 768 KiB
	saveDrops  = 4       // expired records a save drops at most
	sweepBatch = 4096    // expired records a sweep drops per lock hold
)

// ring is one shard: the records [head, tail) by sequence number, record
// n in slot n mod size.
type ring struct {
	mu         sync.Mutex
	head, tail uint64
	size       uint64
	chunks     [][]ringRecord // of chunkSize records (the last one the rest), allocated as the ring first reaches them
	_          [32]byte       // keep shards on separate cache lines
}

// NewMemoryBidStore returns an empty store.
func NewMemoryBidStore(cfg MemoryBidStoreConfig) *MemoryBidStore {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultBidTTL
	}
	cfg.TTL = min(cfg.TTL, MaxBidTTL)
	if cfg.MaxBids <= 0 {
		cfg.MaxBids = DefaultMaxBids
	}
	cfg.MaxBids = min(cfg.MaxBids, MaxMemoryBids)
	// As many shards as there are records, up to memShards, so that a
	// small store holds exactly MaxBids.
	n := memShards
	for n > 1 && n > cfg.MaxBids {
		n /= 2
	}
	s := &MemoryBidStore{ttl: cfg.TTL, nshards: n, random: cfg.Random, terms: newInterner[bidTerms]()}
	for i := range s.shards[:n] {
		s.shards[i].size = uint64(cfg.MaxBids / n)
		if i < cfg.MaxBids%n {
			s.shards[i].size++
		}
	}
	return s
}

// slot returns the record in slot i, allocating its chunk on first use.
func (r *ring) slot(i uint64) *ringRecord {
	c := i / chunkSize
	for uint64(len(r.chunks)) <= c {
		r.chunks = append(r.chunks, make([]ringRecord, min(chunkSize, r.size-uint64(len(r.chunks))*chunkSize)))
	}
	return &r.chunks[c][i%chunkSize]
}

// existing returns the record in slot i, or nil when the slot is outside
// the ring or its chunk was never used.
func (r *ring) existing(i uint64) *ringRecord {
	c := i / chunkSize
	if i >= r.size || c >= uint64(len(r.chunks)) {
		return nil
	}
	return &r.chunks[c][i%chunkSize]
}

// Save implements BidStore. When the chosen shard is full it tries the
// others, so that the store refuses a record only when it holds MaxBids.
func (s *MemoryBidStore) Save(_ context.Context, rec BidRecord, now time.Time) (BidID, error) {
	var id BidID
	if err := s.secret((*[12]byte)(id[4:])); err != nil {
		return BidID{}, err
	}
	if binary.BigEndian.Uint64(id[4:12]) == 0 {
		id[11] = 1 // a zero secret marks a free slot
	}
	r := ringRecord{
		secret0: binary.BigEndian.Uint64(id[4:12]),
		secret1: binary.BigEndian.Uint32(id[12:16]),
		meta: s.terms.id(bidTerms{campaign: rec.CampaignID, creative: rec.CreativeID, exchange: rec.Exchange,
			pricing: rec.Pricing, price: rec.Price, periodS: rec.PeriodS}) << metaTermsShift,
		expires: ceilSeconds(now.Add(s.ttl)),
		user:    rec.User,
		timeS:   rec.TimeS,
	}
	if rec.Test {
		r.meta |= metaTest
	}
	nowS := now.Unix()
	first := int(id[15]) % s.nshards
	for k := range s.nshards {
		shard := (first + k) % s.nshards
		sh := &s.shards[shard]
		sh.mu.Lock()
		s.expired.Add(int64(sh.dropExpired(nowS, saveDrops)))
		if sh.tail-sh.head < sh.size {
			slot := sh.tail % sh.size
			sh.tail++
			*sh.slot(slot) = r
			sh.mu.Unlock()
			binary.BigEndian.PutUint32(id[:4], uint32(shard)<<slotBits|uint32(slot))
			return id, nil
		}
		sh.mu.Unlock()
	}
	s.refused.Add(1)
	return BidID{}, ErrCapacity
}

// secret draws an id's secret bits: from crypto/rand without a copy on the
// heap, or from the configured source.
func (s *MemoryBidStore) secret(dst *[12]byte) error {
	if s.random == nil {
		_, _ = rand.Read(dst[:]) // never fails since Go 1.24
		return nil
	}
	b := make([]byte, len(dst)) // through an interface, the buffer escapes: tests only
	if _, err := io.ReadFull(s.random, b); err != nil {
		return err
	}
	copy(dst[:], b)
	return nil
}

// ceilSeconds is t in Unix seconds, rounded up.
func ceilSeconds(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// find returns the shard of id and, with the shard locked, its live record;
// nil (and the shard unlocked) for an unknown or expired bid.
func (s *MemoryBidStore) find(id BidID, now time.Time) (*ring, *ringRecord) {
	place := binary.BigEndian.Uint32(id[:4])
	shard, slot := int(place>>slotBits), uint64(place&(1<<slotBits-1))
	secret0, secret1 := binary.BigEndian.Uint64(id[4:12]), binary.BigEndian.Uint32(id[12:16])
	if shard >= s.nshards || secret0 == 0 {
		return nil, nil
	}
	sh := &s.shards[shard]
	sh.mu.Lock()
	r := sh.existing(slot)
	if r == nil || r.secret0 != secret0 || r.secret1 != secret1 || r.expires <= now.Unix() {
		sh.mu.Unlock()
		return nil, nil
	}
	return sh, r
}

// record returns what r holds, as a BidRecord of id.
func (s *MemoryBidStore) record(id BidID, r *ringRecord, terms bidTerms) BidRecord {
	return BidRecord{ID: id, CampaignID: terms.campaign, CreativeID: terms.creative, Exchange: terms.exchange,
		Pricing: terms.pricing, User: r.user, TimeS: r.timeS, Price: terms.price, Test: r.meta&metaTest != 0,
		PeriodS: terms.periodS}
}

// Peek implements BidStore.
func (s *MemoryBidStore) Peek(_ context.Context, id BidID, now time.Time) (BidRecord, error) {
	sh, r := s.find(id, now)
	if r == nil {
		return BidRecord{}, ErrUnknownBid
	}
	defer sh.mu.Unlock()
	return s.record(id, r, s.terms.value(r.meta>>metaTermsShift)), nil
}

// Claim implements BidStore.
func (s *MemoryBidStore) Claim(_ context.Context, id BidID, price Micros, now time.Time) (BidRecord, ClaimResult, error) {
	sh, r := s.find(id, now)
	if r == nil {
		return BidRecord{}, 0, ErrUnknownBid
	}
	defer sh.mu.Unlock()
	terms := s.terms.value(r.meta >> metaTermsShift)
	if price > terms.price {
		return BidRecord{}, 0, ErrPriceAboveBid
	}
	res := Duplicate
	if r.meta&metaWon == 0 {
		res = Claimed
		r.meta |= metaWon
	}
	return s.record(id, r, terms), res, nil
}

// Len implements BidStore: the records held, the expired ones not yet
// dropped included.
func (s *MemoryBidStore) Len() int {
	n := 0
	for i := range s.shards[:s.nshards] {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += int(sh.tail - sh.head)
		sh.mu.Unlock()
	}
	return n
}

// Sweep drops every record expired at now and returns how many it dropped.
// It holds a shard's lock for at most sweepBatch records at a time.
func (s *MemoryBidStore) Sweep(now time.Time) int {
	nowS, total := now.Unix(), 0
	for i := range s.shards[:s.nshards] {
		sh := &s.shards[i]
		for {
			sh.mu.Lock()
			began := time.Now()
			n := sh.dropExpired(nowS, sweepBatch)
			pause := time.Since(began)
			sh.mu.Unlock()
			notePause(&s.maxPause, pause)
			total += n
			if n < sweepBatch {
				break
			}
			runtime.Gosched() // see sweepShard
		}
	}
	s.expired.Add(int64(total))
	return total
}

// Upkeep returns what left at its time to live, what was refused for want
// of room, and the longest lock hold of a sweep.
func (s *MemoryBidStore) Upkeep() Upkeep {
	return Upkeep{Expired: s.expired.Load(), Refused: s.refused.Load(), MaxPause: time.Duration(s.maxPause.Load())}
}

// dropExpired frees up to limit records expired at nowS from the head.
func (r *ring) dropExpired(nowS int64, limit int) int {
	n := 0
	for n < limit && r.head < r.tail {
		rec := r.existing(r.head % r.size)
		if rec.expires > nowS {
			break
		}
		*rec = ringRecord{}
		r.head++
		n++
	}
	return n
}

// notePause raises max to d when d is longer.
func notePause(max *atomic.Int64, d time.Duration) {
	for {
		old := max.Load()
		if int64(d) <= old || max.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}
