package memory

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
)

const memShards = 64 // a power of two

// Defaults of LedgerConfig.
const (
	// DefaultDayTTL is how long a campaign's daily counters live after their
	// last write: long enough for /admin/stats to answer about the past week.
	DefaultDayTTL = 8 * 24 * time.Hour
	// MinDayTTL keeps today's and yesterday's counters whatever the setting:
	// a day counter is written at least once on its day.
	MinDayTTL = 48 * time.Hour
	// DefaultMaxDayCounters bounds the (campaign, day) counters: 1,000
	// campaigns for 8 days need 8,000.
	DefaultMaxDayCounters = 1_000_000
	// DefaultMaxFreqCounters bounds the (user, campaign, window) counters,
	// about 70 bytes each.
	DefaultMaxFreqCounters = 5_000_000
)

// Work bounds of the ledger's upkeep.
const (
	ledgerSweepBatch = 1024 // entries a sweep looks at per lock hold
	roomScan         = 32   // entries a full shard looks at for an expired one
)

// Ledger is the default Ledger: sharded maps of counters in this
// process. Reads take a shard's read lock; spend and wins are atomic adds,
// so concurrent wins are never lost and no global lock is taken.
//
// It never drops a counter the books still need. A daily counter lives
// DayTTL after its last write (at least MinDayTTL, so today's and
// yesterday's always stay); a frequency counter lives to the end of its
// window and at least as long as the records of the bids that reserved it.
// Each kind has a hard cap: when a shard is full of live counters, Reserve
// refuses with bidder.ErrCapacity instead of evicting one.
type Ledger struct {
	hashKey   bidder.HashKey
	campaigns *interner[string]
	deals     dealLabels
	clock     func() time.Time
	dayTTL    int64 // seconds
	days      [memShards]shard[dayKey, *dayCounters]
	freq      [memShards]shard[freqKey, freqCounter]
	expired   atomic.Int64
	refused   atomic.Int64
	maxPause  atomic.Int64 // nanoseconds
	pacing    pacing
}

// dayKey names a campaign's day, for one exchange or (exchange allExchanges)
// for all; campaign and exchange are interned.
type dayKey struct {
	campaign, exchange uint32
	day                bidder.Day
}

// allExchanges is the interned exchange of the counters of all exchanges:
// the empty id, interned first.
const allExchanges = 0

type dayCounters struct {
	bids, wins, spend atomic.Int64
	touched           atomic.Int64 // Unix seconds of the last write
}

// freqKey names a frequency counter without pointers, so that millions of
// them cost the garbage collector nothing: the user's keyed hash, the
// interned campaign, the period and the window.
type freqKey struct {
	user     [2]uint64
	campaign uint32
	period   uint32 // at most MaxFreqPeriodS
	window   int64
}

type freqCounter struct {
	wins    int64
	expires int64 // Unix seconds: live while now < expires
}

// shard is one lock's worth of a sharded map of counters, holding at most
// max entries.
type shard[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]V
	max int
}

// LedgerConfig configures a Ledger; the zero value is usable.
type LedgerConfig struct {
	// DayTTL is how long daily counters live after their last write
	// (default DefaultDayTTL, at least MinDayTTL).
	DayTTL time.Duration
	// MaxDayCounters and MaxFreqCounters are hard caps (defaults above).
	// A ledger full of live counters makes no room by dropping one: the
	// bid that needs a new counter is refused (bidder.ErrCapacity) instead.
	MaxDayCounters, MaxFreqCounters int
	// Clock is the server clock the counters age by (default time.Now).
	Clock func() time.Time
	// HashKey keys the user hash of the books this ledger keeps (default:
	// drawn when the ledger is made, since its counters live no longer).
	HashKey bidder.HashKey
}

// NewLedger returns an empty ledger.
func NewLedger(cfg LedgerConfig) *Ledger {
	if cfg.DayTTL <= 0 {
		cfg.DayTTL = DefaultDayTTL
	}
	cfg.DayTTL = max(cfg.DayTTL, MinDayTTL)
	if cfg.MaxDayCounters <= 0 {
		cfg.MaxDayCounters = DefaultMaxDayCounters
	}
	if cfg.MaxFreqCounters <= 0 {
		cfg.MaxFreqCounters = DefaultMaxFreqCounters
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.HashKey == (bidder.HashKey{}) {
		cfg.HashKey = bidder.NewHashKey()
	}
	l := &Ledger{hashKey: cfg.HashKey, campaigns: newInterner[string](), clock: cfg.Clock,
		dayTTL: int64(cfg.DayTTL / time.Second)}
	l.deals.init(l.campaigns)
	l.campaigns.id("") // allExchanges: ids and exchanges share the interner
	for i := range l.days {
		l.days[i] = shard[dayKey, *dayCounters]{m: make(map[dayKey]*dayCounters), max: max(1, cfg.MaxDayCounters/memShards)}
		l.freq[i] = shard[freqKey, freqCounter]{m: make(map[freqKey]freqCounter), max: max(1, cfg.MaxFreqCounters/memShards)}
	}
	return l
}

// HashKey returns the user hash key of the books this ledger keeps: the
// engine over it must use the same (see Config.HashKey).
func (l *Ledger) HashKey() bidder.HashKey { return l.hashKey }

func (l *Ledger) dayExpired(_ dayKey, c *dayCounters, now int64) bool {
	return c.touched.Load()+l.dayTTL <= now
}

func freqExpired(_ freqKey, c freqCounter, now int64) bool { return c.expires <= now }

// dayKey names the counters of a campaign's day for all exchanges.
func (l *Ledger) dayKey(campaign string, day bidder.Day) dayKey {
	return dayKey{campaign: l.campaigns.id(campaign), day: day}
}

// exchangeKey names the counters of a campaign's day for one exchange;
// "" names those of all.
func (l *Ledger) exchangeKey(campaign, exchange string, day bidder.Day) dayKey {
	return dayKey{campaign: l.campaigns.id(campaign), exchange: l.campaigns.id(exchange), day: day}
}

func (l *Ledger) dayShard(k dayKey) *shard[dayKey, *dayCounters] {
	h := (uint64(k.campaign) + uint64(k.exchange)<<20 + uint64(uint32(k.day))<<40) * 0x9e3779b97f4a7c15
	return &l.days[h>>58] // the top 6 bits
}

func (l *Ledger) freqKey(user bidder.UserKey, campaign string, period, window int64) freqKey {
	return freqKey{
		user:     [2]uint64{binary.LittleEndian.Uint64(user[:8]), binary.LittleEndian.Uint64(user[8:])},
		campaign: l.campaigns.id(campaign),
		period:   uint32(period), window: window,
	}
}

func (l *Ledger) freqShard(k freqKey) *shard[freqKey, freqCounter] {
	return &l.freq[(k.user[0]^uint64(k.campaign)*0x9e3779b97f4a7c15)&(memShards-1)]
}

// day returns the counters of k, or nil.
func (l *Ledger) day(k dayKey) *dayCounters {
	s := l.dayShard(k)
	s.mu.RLock()
	c := s.m[k]
	s.mu.RUnlock()
	return c
}

// dayOrNew returns the counters of k, creating them when absent: within
// the shard's cap when bounded is set (else nil and bidder.ErrCapacity), or past
// it (a write the books already made room for).
func (l *Ledger) dayOrNew(k dayKey, now int64, bounded bool) (*dayCounters, error) {
	if c := l.day(k); c != nil {
		return c, nil
	}
	s := l.dayShard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.m[k]; c != nil {
		return c, nil
	}
	if bounded && !s.room(now, l.dayExpired, &l.expired) {
		l.refused.Add(1)
		return nil, bidder.ErrCapacity
	}
	c := new(dayCounters)
	c.touched.Store(now)
	s.m[k] = c
	return c, nil
}

// room reports whether the shard can take one more entry, first dropping
// the expired entries among a few it looks at when it is full. The caller
// holds the write lock.
func (s *shard[K, V]) room(now int64, expired func(K, V, int64) bool, dropped *atomic.Int64) bool {
	if len(s.m) < s.max {
		return true
	}
	seen := 0
	for k, v := range s.m { // map iteration starts at a random entry
		if expired(k, v, now) {
			delete(s.m, k)
			dropped.Add(1)
		}
		if seen++; seen == roomScan {
			break
		}
	}
	return len(s.m) < s.max
}

// Usage implements Ledger.
func (l *Ledger) Usage(_ context.Context, qs []bidder.UsageQuery) error {
	for i := range qs {
		q := &qs[i]
		q.Spent, q.Wins = 0, 0
		if c := l.day(l.dayKey(q.CampaignID, q.Day)); c != nil {
			q.Spent = bidder.Micros(c.spend.Load())
		}
		if !q.User.IsZero() {
			k := l.freqKey(q.User, q.CampaignID, q.PeriodS, q.Window)
			s := l.freqShard(k)
			s.mu.RLock()
			q.Wins = s.m[k].wins
			s.mu.RUnlock()
		}
	}
	return nil
}

// counterSlack is how much longer than asked a reserved frequency counter
// is kept (seconds), so that a user's next bids within it need no write.
const counterSlack = 10

// Reserve implements Ledger: the day's counters (of all exchanges, of the
// bid's, and of its deal) and the user's frequency counter are created if
// absent, the latter kept until at least r.Until; then, with room for
// them all, the bid is counted in the day's counters.
func (l *Ledger) Reserve(_ context.Context, r bidder.Room) error {
	now := l.clock().Unix()
	keys, n := l.dayKeys(r.CampaignID, r.Exchange, r.Deal, r.Day)
	var days [len(keys)]*dayCounters
	for i, k := range keys[:n] {
		c, err := l.dayOrNew(k, now, true)
		if err != nil {
			return err
		}
		days[i] = c
	}
	if err := l.reserveFreq(r, now); err != nil {
		return err
	}
	for _, c := range days[:n] {
		c.bids.Add(1)
		c.touched.Store(now)
	}
	return nil
}

// reserveFreq makes room for r's frequency counter, when it has one.
func (l *Ledger) reserveFreq(r bidder.Room, now int64) error {
	if r.User.IsZero() || r.PeriodS <= 0 {
		return nil
	}
	until := ceilSeconds(r.Until)
	k := l.freqKey(r.User, r.CampaignID, r.PeriodS, r.Window)
	s := l.freqShard(k)
	s.mu.RLock()
	f, ok := s.m[k]
	s.mu.RUnlock()
	if ok && f.expires >= until {
		return nil // kept long enough already: no write
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok = s.m[k]
	if !ok && !s.room(now, freqExpired, &l.expired) {
		l.refused.Add(1)
		return bidder.ErrCapacity
	}
	f.expires = max(f.expires, until+counterSlack)
	s.m[k] = f
	return nil
}

// dayKeys returns the day counters a bid or win writes: those of all
// exchanges, those of its own (when it names one) and those of its deal
// (when it was made in one, under bidder.DealLabel).
func (l *Ledger) dayKeys(campaign, exchange, deal string, day bidder.Day) ([3]dayKey, int) {
	all := l.dayKey(campaign, day)
	keys, n := [3]dayKey{all}, 1
	if exchange != "" {
		keys[n] = all
		keys[n].exchange = l.campaigns.id(exchange)
		n++
	}
	if deal != "" {
		keys[n] = all
		keys[n].exchange = l.deals.id(deal)
		n++
	}
	return keys, n
}

// UncountBid implements Ledger.
func (l *Ledger) UncountBid(_ context.Context, r bidder.Room) error {
	keys, n := l.dayKeys(r.CampaignID, r.Exchange, r.Deal, r.Day)
	for _, k := range keys[:n] {
		if c := l.day(k); c != nil { // Reserve made it; it may have expired since
			c.bids.Add(-1)
		}
	}
	return nil
}

// RecordWin implements Ledger. It needs no room: the bid reserved its
// counters, and they outlive its record.
func (l *Ledger) RecordWin(_ context.Context, w bidder.Win) error {
	now := l.clock().Unix()
	keys, n := l.dayKeys(w.CampaignID, w.Exchange, w.Deal, w.Day)
	for _, k := range keys[:n] {
		c, _ := l.dayOrNew(k, now, false)
		c.wins.Add(1)
		c.spend.Add(int64(w.Price))
		c.touched.Store(now)
	}
	if w.User.IsZero() || w.PeriodS <= 0 {
		return nil
	}
	k := l.freqKey(w.User, w.CampaignID, w.PeriodS, w.Window)
	s := l.freqShard(k)
	s.mu.Lock()
	f, ok := s.m[k]
	if !ok { // not reserved (a ledger filled by hand): keep it a period
		f.expires = now + w.PeriodS
	}
	f.wins++
	s.m[k] = f
	s.mu.Unlock()
	return nil
}

// Stats implements Ledger.
func (l *Ledger) Stats(_ context.Context, campaignID, exchange string, day bidder.Day) (bidder.DayStats, bool, error) {
	c := l.day(l.exchangeKey(campaignID, exchange, day))
	if c == nil {
		return bidder.DayStats{}, false, nil
	}
	return bidder.DayStats{Bids: c.bids.Load(), Wins: c.wins.Load(), Spend: bidder.Micros(c.spend.Load())}, true, nil
}

// FreqExpires returns when a user's frequency counter expires (Unix
// seconds), or false when the ledger holds none.
func (l *Ledger) FreqExpires(user bidder.UserKey, campaignID string, periodS, window int64) (int64, bool) {
	k := l.freqKey(user, campaignID, periodS, window)
	s := l.freqShard(k)
	s.mu.RLock()
	f, ok := s.m[k]
	s.mu.RUnlock()
	return f.expires, ok
}

// RestoreDay adds, at start, the counters a durable store kept for a
// campaign's day (of one exchange, or "" for all), above the cap if need
// be: they were held before.
func (l *Ledger) RestoreDay(campaignID, exchange string, day bidder.Day, st bidder.DayStats) {
	now := l.clock().Unix()
	c, _ := l.dayOrNew(l.exchangeKey(campaignID, exchange, day), now, false)
	c.bids.Add(st.Bids)
	c.wins.Add(st.Wins)
	c.spend.Add(int64(st.Spend))
	c.touched.Store(now)
}

// RestoreFreq adds, at start, the wins a durable store kept for a user's
// frequency window, kept until at least expires.
func (l *Ledger) RestoreFreq(user bidder.UserKey, campaignID string, periodS, window, wins int64, expires time.Time) {
	k := l.freqKey(user, campaignID, periodS, window)
	s := l.freqShard(k)
	s.mu.Lock()
	f := s.m[k]
	f.wins += wins
	f.expires = max(f.expires, ceilSeconds(expires))
	s.m[k] = f
	s.mu.Unlock()
}

// Sweep drops the counters expired at now and returns how many. It holds a
// shard's lock for at most ledgerSweepBatch entries at a time.
func (l *Ledger) Sweep(now time.Time) int {
	sec, n := now.Unix(), 0
	for i := range l.days {
		n += sweepShard(&l.days[i], l.dayExpired, sec, &l.maxPause)
		n += sweepShard(&l.freq[i], freqExpired, sec, &l.maxPause)
	}
	l.expired.Add(int64(n))
	l.pacing.sweepPaces(sec / 60) // not counters: not counted
	return n
}

// sweepShard deletes a shard's expired entries, letting go of its lock
// after every ledgerSweepBatch entries it looks at, so that bids and wins
// wait at most that long. Go allows a map to change between the steps of a
// range over it (an entry added meanwhile may or may not be seen): the lock
// is held at every step, so the other writers never overlap one.
func sweepShard[K comparable, V any](s *shard[K, V], expired func(K, V, int64) bool, now int64, maxPause *atomic.Int64) int {
	n, seen := 0, 0
	s.mu.Lock()
	began := time.Now()
	for k, v := range s.m {
		if expired(k, v, now) {
			delete(s.m, k)
			n++
		}
		if seen++; seen%ledgerSweepBatch == 0 {
			notePause(maxPause, time.Since(began))
			s.mu.Unlock()
			// Yield: a sweep that gives up its time slice now and then is not
			// preempted by the scheduler while it holds the lock.
			runtime.Gosched()
			s.mu.Lock()
			began = time.Now()
		}
	}
	notePause(maxPause, time.Since(began))
	s.mu.Unlock()
	return n
}

// Sizes returns the number of daily and frequency counters held.
func (l *Ledger) Sizes() (days, freq int) {
	for i := range l.days {
		days += l.days[i].len()
		freq += l.freq[i].len()
	}
	return days, freq
}

func (s *shard[K, V]) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}

// Upkeep returns what left at its time to live, what was refused for want
// of room, and the longest lock hold of a sweep.
func (l *Ledger) Upkeep() bidder.Upkeep {
	return bidder.Upkeep{Expired: l.expired.Load(), Refused: l.refused.Load(), MaxPause: time.Duration(l.maxPause.Load())}
}

// The memory ledger's optional abilities (bidder/storestats.go).
var (
	_ bidder.UpkeepReporter = (*Ledger)(nil)
	_ bidder.SizeReporter   = (*Ledger)(nil)
)
