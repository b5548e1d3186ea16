package memory

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
)

// Defaults and limits of BidStore.
const (
	// DefaultMaxBids covers the default time to live at 50,000 bids a
	// second, above what one core serves (docs/operations.md), in about
	// 1.4 GiB when full; the memory is taken as records are made.
	DefaultMaxBids = 30_000_000
	// MaxBids is the most a BidStore holds: 2^26 records in
	// each of its 64 shards (200 GB of records).
	MaxBids = memShards << 26
	// BidRecordBytes is the memory one record takes, index included (the
	// record's place is written in its bid id, so there is no index).
	BidRecordBytes = 48
)

// BidStoreConfig configures a BidStore; the zero value is usable.
type BidStoreConfig struct {
	// TTL is how long a record waits for its win notice (bidder.DefaultBidTTL
	// when zero, at most bidder.MaxBidTTL). Records live at least that long and
	// at most a second more (times are kept in whole seconds).
	TTL time.Duration
	// MaxBids is the most records held (DefaultMaxBids when zero, at most
	// MaxBids). A store full of unexpired records refuses new ones
	// with bidder.ErrCapacity; it never drops a record before its time to live.
	MaxBids int
	// Random is the source of the bid ids' secret bits (crypto/rand when
	// nil); tests give a predictable one.
	Random io.Reader
	// MaxEventClaims bounds the once-only event claims (Claims) the store
	// keeps for the event log (DefaultMaxEventClaims when zero).
	MaxEventClaims int
	// Clock is the server clock the claims age by (default time.Now).
	Clock func() time.Time
}

// BidStore is the default BidStore: a ring of fixed-size records per
// shard, in the order they were made, which is the order they expire in.
// A bid id is the record's place (its shard, 6 bits, and its sequence
// number in the shard, 42 bits: its slot is the number modulo the ring's
// size) and 80 secret random bits that the record keeps: a win notice finds
// its record without an index, and an id that is stale (its slot reused) or
// forged does not match. Expired records leave from the head of the ring, a
// few at each save and in bounded batches by Sweep. Because an id holds the
// sequence number rather than the slot, a durable store can restore records
// into a ring of another size, each at the slot its id names there.
//
// A record is 48 bytes and holds no pointers: campaign, creative, price and
// frequency period are interned together as one number, the user as its
// 128-bit keyed hash, times as seconds. The garbage collector never scans
// the millions of records a busy server holds, and their memory is taken in
// chunks as the rings fill, up to MaxBids.
type BidStore struct {
	*Claims  // the once-only event claims (bidder.EventClaimer)
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
	deal               string
	price              bidder.Micros
	periodS            int64
}

// ringRecord is one bid record as the store keeps it: 48 bytes, no pointers.
type ringRecord struct {
	secret0 uint64 // the id's secret bits; zero marks a free slot
	secret1 uint32 // 16 more of them
	meta    uint32 // interned terms << 2 | won << 1 | test
	expires int64  // Unix seconds: the record is live while now < expires
	user    bidder.UserKey
	timeS   int64 // the request time, Unix seconds
}

const (
	metaTest = 1 << iota
	metaWon
	metaTermsShift = iota
)

// Layout of a ring.
const (
	seqBits    = 42      // the sequence number in a bid id, after the 6 bits of its shard
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

// NewBidStore returns an empty store.
func NewBidStore(cfg BidStoreConfig) *BidStore {
	if cfg.TTL <= 0 {
		cfg.TTL = bidder.DefaultBidTTL
	}
	cfg.TTL = min(cfg.TTL, bidder.MaxBidTTL)
	if cfg.MaxBids <= 0 {
		cfg.MaxBids = DefaultMaxBids
	}
	cfg.MaxBids = min(cfg.MaxBids, MaxBids)
	// As many shards as there are records, up to memShards, so that a
	// small store holds exactly MaxBids.
	n := memShards
	for n > 1 && n > cfg.MaxBids {
		n /= 2
	}
	s := &BidStore{ttl: cfg.TTL, nshards: n, random: cfg.Random, terms: newInterner[bidTerms](),
		Claims: NewClaims(cfg.MaxEventClaims, cfg.Clock)}
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
func (s *BidStore) Save(_ context.Context, rec bidder.BidRecord, now time.Time) (bidder.BidID, error) {
	var id bidder.BidID
	if err := s.secret((*[10]byte)(id[6:])); err != nil {
		return bidder.BidID{}, err
	}
	if binary.BigEndian.Uint64(id[6:14]) == 0 {
		id[13] = 1 // a zero secret marks a free slot
	}
	secret0, secret1 := idSecret(id)
	r := ringRecord{
		secret0: secret0,
		secret1: secret1,
		meta: s.terms.id(bidTerms{campaign: rec.CampaignID, creative: rec.CreativeID, exchange: rec.Exchange,
			deal: rec.Deal, pricing: rec.Pricing, price: rec.Price, periodS: rec.PeriodS}) << metaTermsShift,
		expires: s.ExpiresAt(now),
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
			seq := sh.tail
			sh.tail++
			*sh.slot(seq % sh.size) = r
			sh.mu.Unlock()
			putPlace(&id, shard, seq)
			return id, nil
		}
		sh.mu.Unlock()
	}
	s.refused.Add(1)
	return bidder.BidID{}, bidder.ErrCapacity
}

// putPlace writes a record's place in its id: the shard and the sequence
// number (its low 42 bits).
func putPlace(id *bidder.BidID, shard int, seq uint64) {
	place := uint64(shard)<<seqBits | seq&(1<<seqBits-1)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], place)
	copy(id[:6], b[2:])
}

// place reads a record's place from its id.
func place(id bidder.BidID) (shard int, seq uint64) {
	var b [8]byte
	copy(b[2:], id[:6])
	p := binary.BigEndian.Uint64(b[:])
	return int(p >> seqBits), p & (1<<seqBits - 1)
}

// idSecret reads the secret bits of an id.
func idSecret(id bidder.BidID) (uint64, uint32) {
	return binary.BigEndian.Uint64(id[6:14]), uint32(binary.BigEndian.Uint16(id[14:16]))
}

// secret draws an id's secret bits: from a ChaCha8 stream keyed by
// crypto/rand (a pool of them, so that concurrent bids do not share one),
// or from the configured source. ChaCha8 is a cryptographically strong
// generator: its output cannot be predicted without its key, and it costs
// a fraction of a getrandom call per id.
func (s *BidStore) secret(dst *[10]byte) error {
	if s.random == nil {
		c := idStreams.Get().(*mrand.ChaCha8)
		_, _ = c.Read(dst[:]) // never fails
		idStreams.Put(c)
		return nil
	}
	b := make([]byte, len(dst)) // through an interface, the buffer escapes: tests only
	if _, err := io.ReadFull(s.random, b); err != nil {
		return err
	}
	copy(dst[:], b)
	return nil
}

// idStreams are the ChaCha8 streams bid ids are drawn from, each keyed by
// crypto/rand when made.
var idStreams = sync.Pool{New: func() any {
	var key [32]byte
	_, _ = rand.Read(key[:]) // never fails since Go 1.24
	return mrand.NewChaCha8(key)
}}

// ceilSeconds is t in Unix seconds, rounded up.
func ceilSeconds(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// find returns the shard of id and, with the shard locked, its live record;
// nil (and the shard unlocked) for an unknown or expired bid.
func (s *BidStore) find(id bidder.BidID, now time.Time) (*ring, *ringRecord) {
	shard, seq := place(id)
	secret0, secret1 := idSecret(id)
	if shard >= s.nshards || secret0 == 0 {
		return nil, nil
	}
	sh := &s.shards[shard]
	sh.mu.Lock()
	// The sequence number must be in the ring's window (at most size long,
	// so the slot names one record in it): another number of the same slot
	// is a stale or forged id.
	if (seq-sh.head)&(1<<seqBits-1) >= sh.tail-sh.head {
		sh.mu.Unlock()
		return nil, nil
	}
	r := sh.existing(seq % sh.size)
	if r == nil || r.secret0 != secret0 || r.secret1 != secret1 || r.expires <= now.Unix() {
		sh.mu.Unlock()
		return nil, nil
	}
	return sh, r
}

// record returns what r holds, as a bidder.BidRecord of id.
func (s *BidStore) record(id bidder.BidID, r *ringRecord, terms bidTerms) bidder.BidRecord {
	return bidder.BidRecord{ID: id, CampaignID: terms.campaign, CreativeID: terms.creative, Exchange: terms.exchange,
		Deal: terms.deal, Pricing: terms.pricing, User: r.user, TimeS: r.timeS, Price: terms.price, Test: r.meta&metaTest != 0,
		PeriodS: terms.periodS}
}

// Peek implements BidStore.
func (s *BidStore) Peek(_ context.Context, id bidder.BidID, now time.Time) (bidder.BidRecord, error) {
	sh, r := s.find(id, now)
	if r == nil {
		return bidder.BidRecord{}, bidder.ErrUnknownBid
	}
	defer sh.mu.Unlock()
	return s.record(id, r, s.terms.value(r.meta>>metaTermsShift)), nil
}

// Claim implements BidStore.
func (s *BidStore) Claim(_ context.Context, id bidder.BidID, price bidder.Micros, now time.Time) (bidder.BidRecord, bidder.ClaimResult, error) {
	sh, r := s.find(id, now)
	if r == nil {
		return bidder.BidRecord{}, 0, bidder.ErrUnknownBid
	}
	defer sh.mu.Unlock()
	terms := s.terms.value(r.meta >> metaTermsShift)
	if price > terms.price {
		return bidder.BidRecord{}, 0, bidder.ErrPriceAboveBid
	}
	res := bidder.Duplicate
	if r.meta&metaWon == 0 {
		res = bidder.Claimed
		r.meta |= metaWon
	}
	return s.record(id, r, terms), res, nil
}

// Expires returns when a live record expires (Unix seconds).
func (s *BidStore) Expires(id bidder.BidID, now time.Time) (int64, bool) {
	sh, r := s.find(id, now)
	if r == nil {
		return 0, false
	}
	defer sh.mu.Unlock()
	return r.expires, true
}

// ExpiresAt is when a record saved at now expires (Unix seconds): its time
// to live, rounded up to a whole second.
func (s *BidStore) ExpiresAt(now time.Time) int64 { return ceilSeconds(now.Add(s.ttl)) }

// Forget drops a live record at once, as if it had never been saved: a
// durable store that could not write a saved bid takes it back.
func (s *BidStore) Forget(id bidder.BidID, now time.Time) {
	if sh, r := s.find(id, now); r != nil {
		*r = ringRecord{} // a free slot, dropped when the head passes it
		sh.mu.Unlock()
	}
}

// Unclaim undoes a claim whose win could not be recorded, so that the
// exchange's retry can claim the bid again.
func (s *BidStore) Unclaim(id bidder.BidID, now time.Time) {
	if sh, r := s.find(id, now); r != nil {
		r.meta &^= metaWon
		sh.mu.Unlock()
	}
}

// Restore puts back, at start, a record a durable store kept, at the place
// its id names and with its own expiry; it must come before any Save. It
// fails with bidder.ErrCapacity when a shard's records no longer fit in its ring
// (the store was made with a smaller MaxBids than the one that saved them).
func (s *BidStore) Restore(rec bidder.BidRecord, expires time.Time, won bool) error {
	shard, seq := place(rec.ID)
	secret0, secret1 := idSecret(rec.ID)
	if shard >= s.nshards || secret0 == 0 {
		return fmt.Errorf("restore bid %s: not an id of a store of %d shards", rec.ID, s.nshards)
	}
	r := ringRecord{
		secret0: secret0,
		secret1: secret1,
		meta: s.terms.id(bidTerms{campaign: rec.CampaignID, creative: rec.CreativeID, exchange: rec.Exchange,
			deal: rec.Deal, pricing: rec.Pricing, price: rec.Price, periodS: rec.PeriodS}) << metaTermsShift,
		expires: ceilSeconds(expires),
		user:    rec.User,
		timeS:   rec.TimeS,
	}
	if rec.Test {
		r.meta |= metaTest
	}
	if won {
		r.meta |= metaWon
	}
	sh := &s.shards[shard]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	head, tail := min(sh.head, seq), max(sh.tail, seq+1)
	if sh.head == sh.tail { // the first record of the shard
		head, tail = seq, seq+1
	}
	if tail-head > sh.size {
		return fmt.Errorf("restore bid %s: %w: shard %d holds %d live records from seq %d, more than its %d slots",
			rec.ID, bidder.ErrCapacity, shard, tail-head, head, sh.size)
	}
	sh.head, sh.tail = head, tail
	*sh.slot(seq % sh.size) = r
	return nil
}

// Len implements BidStore: the records held, the expired ones not yet
// dropped included.
func (s *BidStore) Len() int {
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
func (s *BidStore) Sweep(now time.Time) int {
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
	return total + s.Claims.Sweep(now)
}

// Upkeep returns what left at its time to live, what was refused for want
// of room, and the longest lock hold of a sweep.
func (s *BidStore) Upkeep() bidder.Upkeep {
	return bidder.Upkeep{Expired: s.expired.Load(), Refused: s.refused.Load(), MaxPause: time.Duration(s.maxPause.Load())}
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

var (
	_ bidder.UpkeepReporter = (*BidStore)(nil)
	_ bidder.EventClaimer   = (*BidStore)(nil)
)
