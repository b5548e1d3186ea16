package bidder

import (
	"cmp"
	"context"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const memShards = 64 // a power of two

// MemoryLedger is the default Ledger: sharded maps of atomic counters in
// this process. Reads take a shard's read lock; writes add atomically, so
// concurrent wins are never lost and no global lock is taken. Counters are
// evicted by Sweep once they have not been written for their time to live,
// and each kind is bounded by a hard cap.
type MemoryLedger struct {
	seed       maphash.Seed
	userSeeds  [2]maphash.Seed
	campaigns  *names
	clock      func() time.Time
	days       [memShards]shard[dayKey, *dayCounters]
	freq       [memShards]shard[freqKey, freqCounter]
	dayPolicy  policy[dayKey, *dayCounters]
	freqPolicy policy[freqKey, freqCounter]
	expired    atomic.Int64
	evicted    atomic.Int64
}

type dayKey struct {
	campaign string
	day      Day
}

type dayCounters struct {
	bids, wins, spend atomic.Int64
	touched           atomic.Int64 // Unix seconds of the last write
}

// shard is one lock's worth of a sharded map of counters, holding at most
// max entries.
type shard[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]V
	max int
}

// policy says how a shard's entries age: when one expired, and when it was
// last written.
type policy[K comparable, V any] struct {
	expired   func(k K, v V, nowSec int64) bool
	lastWrite func(v V) int64
}

func (s *shard[K, V]) load(k K) (V, bool) {
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	return v, ok
}

// upsert stores fn(old value, found) under the shard's lock and returns it.
// A full shard first drops its expired entries, then its least recently
// written sixteenth; evicted counts what went for want of room.
func (s *shard[K, V]) upsert(k K, fn func(V, bool) V, pol *policy[K, V], nowSec int64, evicted *atomic.Int64) V {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok && len(s.m) >= s.max {
		s.makeRoom(pol, nowSec, evicted)
	}
	v = fn(v, ok)
	s.m[k] = v
	return v
}

func (s *shard[K, V]) makeRoom(pol *policy[K, V], nowSec int64, evicted *atomic.Int64) {
	for k, v := range s.m {
		if pol.expired(k, v, nowSec) {
			delete(s.m, k)
		}
	}
	if len(s.m) < s.max {
		return
	}
	type aged struct {
		k K
		t int64
	}
	all := make([]aged, 0, len(s.m))
	for k, v := range s.m {
		all = append(all, aged{k, pol.lastWrite(v)})
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.t, b.t) })
	n := len(all)/16 + 1
	for _, a := range all[:n] {
		delete(s.m, a.k)
	}
	evicted.Add(int64(n))
}

// sweep deletes the expired entries and returns how many.
func (s *shard[K, V]) sweep(pol *policy[K, V], nowSec int64) int {
	n := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.m {
		if pol.expired(k, v, nowSec) {
			delete(s.m, k)
			n++
		}
	}
	return n
}

func (s *shard[K, V]) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}

// freqKey names a frequency counter without pointers, so that millions of
// them cost the garbage collector nothing: the user is a 128-bit keyed hash
// of the user id (two users share a counter with a chance of about n²/2¹²⁹
// for n users), the campaign an interned number.
type freqKey struct {
	user           [2]uint64
	campaign       uint32
	period, window int64
}

type freqCounter struct {
	wins    int64
	touched int64 // Unix seconds of the last write
}

// Defaults of MemoryLedgerConfig.
const (
	// DefaultDayTTL is how long a campaign's daily counters live after their
	// last write: long enough for /admin/stats to answer about the past week.
	DefaultDayTTL = 8 * 24 * time.Hour
	// DefaultMaxDayCounters bounds the (campaign, day) counters: 1,000
	// campaigns for 8 days need 8,000.
	DefaultMaxDayCounters = 1_000_000
	// DefaultMaxFreqCounters bounds the (user, campaign, window) counters,
	// about 150 bytes each.
	DefaultMaxFreqCounters = 5_000_000
)

// MemoryLedgerConfig configures a MemoryLedger; the zero value is usable.
type MemoryLedgerConfig struct {
	// DayTTL is how long daily counters live after their last write
	// (default DefaultDayTTL). Frequency counters live their period.
	DayTTL time.Duration
	// MaxDayCounters and MaxFreqCounters are hard caps (defaults above).
	// When one is reached, expired counters go first, then the least
	// recently written, counted by Evictions. Losing a frequency counter can
	// let a user see a campaign more often than its cap; losing a daily
	// counter can let a campaign overspend that day, which is why daily
	// counters get a generous cap and the least recently written go first.
	MaxDayCounters, MaxFreqCounters int
	// Clock is the wall clock for time-to-live bookkeeping (default time.Now).
	Clock func() time.Time
}

// NewMemoryLedger returns an empty ledger.
func NewMemoryLedger(cfg MemoryLedgerConfig) *MemoryLedger {
	if cfg.DayTTL <= 0 {
		cfg.DayTTL = DefaultDayTTL
	}
	if cfg.MaxDayCounters <= 0 {
		cfg.MaxDayCounters = DefaultMaxDayCounters
	}
	if cfg.MaxFreqCounters <= 0 {
		cfg.MaxFreqCounters = DefaultMaxFreqCounters
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	dayTTL := int64(cfg.DayTTL / time.Second)
	l := &MemoryLedger{
		seed:      maphash.MakeSeed(),
		userSeeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		campaigns: newNames(),
		clock:     cfg.Clock,
		dayPolicy: policy[dayKey, *dayCounters]{
			expired:   func(_ dayKey, c *dayCounters, now int64) bool { return c.touched.Load()+dayTTL <= now },
			lastWrite: func(c *dayCounters) int64 { return c.touched.Load() },
		},
		freqPolicy: policy[freqKey, freqCounter]{
			expired:   func(k freqKey, c freqCounter, now int64) bool { return c.touched+k.period <= now },
			lastWrite: func(c freqCounter) int64 { return c.touched },
		},
	}
	for i := range l.days {
		l.days[i] = shard[dayKey, *dayCounters]{m: make(map[dayKey]*dayCounters), max: max(1, cfg.MaxDayCounters/memShards)}
		l.freq[i] = shard[freqKey, freqCounter]{m: make(map[freqKey]freqCounter), max: max(1, cfg.MaxFreqCounters/memShards)}
	}
	return l
}

func (l *MemoryLedger) dayShard(k dayKey) *shard[dayKey, *dayCounters] {
	h := maphash.String(l.seed, k.campaign) + uint64(k.day)*0x9e3779b97f4a7c15
	return &l.days[h&(memShards-1)]
}

// day returns the counters of k, creating them when create is set.
func (l *MemoryLedger) day(k dayKey, create bool, now int64) *dayCounters {
	s := l.dayShard(k)
	if c, ok := s.load(k); ok || !create {
		return c
	}
	return s.upsert(k, func(c *dayCounters, ok bool) *dayCounters {
		if ok {
			return c
		}
		return new(dayCounters)
	}, &l.dayPolicy, now, &l.evicted)
}

func (l *MemoryLedger) freqKey(uid, campaign string, period, window int64) freqKey {
	return freqKey{
		user:     [2]uint64{maphash.String(l.userSeeds[0], uid), maphash.String(l.userSeeds[1], uid)},
		campaign: l.campaigns.id(campaign),
		period:   period, window: window,
	}
}

func (l *MemoryLedger) freqShard(k freqKey) *shard[freqKey, freqCounter] {
	return &l.freq[(k.user[0]^uint64(k.campaign)*0x9e3779b97f4a7c15)&(memShards-1)]
}

// Usage implements Ledger.
func (l *MemoryLedger) Usage(_ context.Context, qs []UsageQuery) error {
	for i := range qs {
		q := &qs[i]
		q.Spent, q.Wins = 0, 0
		if c := l.day(dayKey{q.CampaignID, q.Day}, false, 0); c != nil {
			q.Spent = Micros(c.spend.Load())
		}
		if q.UID != "" {
			k := l.freqKey(q.UID, q.CampaignID, q.PeriodS, q.Window)
			c, _ := l.freqShard(k).load(k)
			q.Wins = c.wins
		}
	}
	return nil
}

// RecordBid implements Ledger.
func (l *MemoryLedger) RecordBid(_ context.Context, campaignID string, day Day) error {
	now := l.clock().Unix()
	c := l.day(dayKey{campaignID, day}, true, now)
	c.bids.Add(1)
	c.touched.Store(now)
	return nil
}

// RecordWin implements Ledger.
func (l *MemoryLedger) RecordWin(_ context.Context, w Win) error {
	now := l.clock().Unix()
	c := l.day(dayKey{w.CampaignID, w.Day}, true, now)
	c.wins.Add(1)
	c.spend.Add(int64(w.Price))
	c.touched.Store(now)
	if w.UID != "" && w.PeriodS > 0 {
		k := l.freqKey(w.UID, w.CampaignID, w.PeriodS, w.Window)
		l.freqShard(k).upsert(k, func(c freqCounter, _ bool) freqCounter {
			c.wins++
			c.touched = now
			return c
		}, &l.freqPolicy, now, &l.evicted)
	}
	return nil
}

// Stats implements Ledger.
func (l *MemoryLedger) Stats(_ context.Context, campaignID string, day Day) (DayStats, bool, error) {
	c := l.day(dayKey{campaignID, day}, false, 0)
	if c == nil {
		return DayStats{}, false, nil
	}
	return DayStats{Bids: c.bids.Load(), Wins: c.wins.Load(), Spend: Micros(c.spend.Load())}, true, nil
}

// Sweep evicts the counters whose time to live has passed at now, and
// returns how many it evicted.
func (l *MemoryLedger) Sweep(now time.Time) (evicted int) {
	sec := now.Unix()
	for i := range l.days {
		evicted += l.days[i].sweep(&l.dayPolicy, sec)
		evicted += l.freq[i].sweep(&l.freqPolicy, sec)
	}
	l.expired.Add(int64(evicted))
	return evicted
}

// Sizes returns the number of daily and frequency counters held.
func (l *MemoryLedger) Sizes() (days, freq int) {
	for i := range l.days {
		days += l.days[i].len()
		freq += l.freq[i].len()
	}
	return days, freq
}

// Evictions returns how many counters were dropped at the end of their
// time to live, and how many earlier because their cap was reached.
func (l *MemoryLedger) Evictions() (expired, evicted int64) {
	return l.expired.Load(), l.evicted.Load()
}
