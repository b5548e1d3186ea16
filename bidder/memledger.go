package bidder

import (
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

const memShards = 64 // a power of two

// MemoryLedger is the default Ledger: sharded maps of atomic counters in
// this process. Reads take a shard's read lock; writes add atomically, so
// concurrent wins are never lost and no global lock is taken. Counters are
// evicted by Sweep once they have not been written for their time to live.
type MemoryLedger struct {
	seed   maphash.Seed
	dayTTL time.Duration
	clock  func() time.Time
	days   [memShards]shard[dayKey, dayCounters]
	freq   [memShards]shard[freqKey, freqCounter]
}

type dayKey struct {
	campaign string
	day      Day
}

type dayCounters struct {
	bids, wins, spend atomic.Int64
	touched           atomic.Int64 // Unix seconds of the last write
}

// shard is one lock's worth of a sharded map of counters.
type shard[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]*V
}

// get returns the counters of k, creating them when create is set.
func (s *shard[K, V]) get(k K, create bool) *V {
	s.mu.RLock()
	c := s.m[k]
	s.mu.RUnlock()
	if c != nil || !create {
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c = s.m[k]; c == nil {
		c = new(V)
		s.m[k] = c
	}
	return c
}

// sweep deletes the entries expired says so of, and returns how many.
func (s *shard[K, V]) sweep(expired func(K, *V) bool) int {
	n := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, c := range s.m {
		if expired(k, c) {
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

type freqKey struct {
	uid, campaign  string
	period, window int64
}

type freqCounter struct {
	wins    atomic.Int64
	touched atomic.Int64 // Unix seconds of the last write
}

// DefaultDayTTL is how long a campaign's daily counters live after their last
// write: long enough for /admin/stats to answer about the past week.
const DefaultDayTTL = 8 * 24 * time.Hour

// MemoryLedgerConfig configures a MemoryLedger; the zero value is usable.
type MemoryLedgerConfig struct {
	// DayTTL is how long daily counters live after their last write
	// (default DefaultDayTTL). Frequency counters live their period.
	DayTTL time.Duration
	// Clock is the wall clock for time-to-live bookkeeping (default time.Now).
	Clock func() time.Time
}

// NewMemoryLedger returns an empty ledger.
func NewMemoryLedger(cfg MemoryLedgerConfig) *MemoryLedger {
	if cfg.DayTTL <= 0 {
		cfg.DayTTL = DefaultDayTTL
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	l := &MemoryLedger{seed: maphash.MakeSeed(), dayTTL: cfg.DayTTL, clock: cfg.Clock}
	for i := range l.days {
		l.days[i].m = make(map[dayKey]*dayCounters)
		l.freq[i].m = make(map[freqKey]*freqCounter)
	}
	return l
}

func (l *MemoryLedger) day(k dayKey, create bool) *dayCounters {
	h := maphash.String(l.seed, k.campaign) + uint64(k.day)*0x9e3779b97f4a7c15
	return l.days[h&(memShards-1)].get(k, create)
}

func (l *MemoryLedger) freqCounter(k freqKey, create bool) *freqCounter {
	h := maphash.String(l.seed, k.uid) ^ maphash.String(l.seed, k.campaign)
	return l.freq[h&(memShards-1)].get(k, create)
}

// Usage implements Ledger.
func (l *MemoryLedger) Usage(_ context.Context, qs []UsageQuery) error {
	for i := range qs {
		q := &qs[i]
		q.Spent, q.Wins = 0, 0
		if c := l.day(dayKey{q.CampaignID, q.Day}, false); c != nil {
			q.Spent = Micros(c.spend.Load())
		}
		if q.UID != "" {
			if c := l.freqCounter(freqKey{q.UID, q.CampaignID, q.PeriodS, q.Window}, false); c != nil {
				q.Wins = c.wins.Load()
			}
		}
	}
	return nil
}

// RecordBid implements Ledger.
func (l *MemoryLedger) RecordBid(_ context.Context, campaignID string, day Day) error {
	c := l.day(dayKey{campaignID, day}, true)
	c.bids.Add(1)
	c.touched.Store(l.clock().Unix())
	return nil
}

// RecordWin implements Ledger.
func (l *MemoryLedger) RecordWin(_ context.Context, w Win) error {
	now := l.clock().Unix()
	c := l.day(dayKey{w.CampaignID, w.Day}, true)
	c.wins.Add(1)
	c.spend.Add(int64(w.Price))
	c.touched.Store(now)
	if w.UID != "" && w.PeriodS > 0 {
		f := l.freqCounter(freqKey{w.UID, w.CampaignID, w.PeriodS, w.Window}, true)
		f.wins.Add(1)
		f.touched.Store(now)
	}
	return nil
}

// Stats implements Ledger.
func (l *MemoryLedger) Stats(_ context.Context, campaignID string, day Day) (DayStats, bool, error) {
	c := l.day(dayKey{campaignID, day}, false)
	if c == nil {
		return DayStats{}, false, nil
	}
	return DayStats{Bids: c.bids.Load(), Wins: c.wins.Load(), Spend: Micros(c.spend.Load())}, true, nil
}

// Sweep evicts the counters whose time to live has passed at now, and
// returns how many it evicted.
func (l *MemoryLedger) Sweep(now time.Time) (evicted int) {
	sec := now.Unix()
	dayTTL := int64(l.dayTTL / time.Second)
	for i := range l.days {
		evicted += l.days[i].sweep(func(_ dayKey, c *dayCounters) bool { return c.touched.Load()+dayTTL <= sec })
		evicted += l.freq[i].sweep(func(k freqKey, c *freqCounter) bool { return c.touched.Load()+k.period <= sec })
	}
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
