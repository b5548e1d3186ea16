package bidder

import (
	"sync"
	"sync/atomic"
)

// Tally counts, per campaign, what the books do not keep and an operator
// looks at (the management API's stats and the console's charts): the
// stages at which the campaign dropped out of auctions, by reason; its
// bids, wins and spend by minute of the day; its impressions and clicks.
// It is this dspd's alone, in memory, for the server clock's current UTC
// day, and starts empty: the books (Engine.Stats) are the record of
// money, shared by replicas and durable; the tally is a view of one.
type Tally struct {
	mu    sync.RWMutex
	slots map[string]*tallySlot
}

// Minutes is the number of one-minute buckets of a day, SpendBuckets the
// number of five-minute ones.
const (
	Minutes      = 1440
	SpendBuckets = Minutes / 5
)

// tallySlot is one campaign's tally. Its buckets are made at the
// campaign's first bid of a day, so that idle campaigns cost little.
type tallySlot struct {
	mu    sync.Mutex // a new day's reset
	day   atomic.Int32
	drops [NumReasons]atomic.Int64
	imps  atomic.Int64
	click atomic.Int64
	b     atomic.Pointer[tallyBuckets]
}

type tallyBuckets struct {
	bids, wins [Minutes]atomic.Int32
	spend      [SpendBuckets]atomic.Int64 // CPM micros, as the books count spend
}

func newTally() *Tally { return &Tally{slots: map[string]*tallySlot{}} }

// slot returns the campaign's slot, made on first use.
func (t *Tally) slot(id string) *tallySlot {
	t.mu.RLock()
	s := t.slots[id]
	t.mu.RUnlock()
	if s != nil {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s = t.slots[id]; s == nil {
		s = new(tallySlot)
		t.slots[id] = s
	}
	return s
}

// find returns the campaign's slot, or nil when it has none.
func (t *Tally) find(id string) *tallySlot {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.slots[id]
}

// today makes s count day d, starting it empty when it counted another.
func (s *tallySlot) today(d Day) {
	if Day(s.day.Load()) == d {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if Day(s.day.Load()) == d {
		return
	}
	for i := range s.drops {
		s.drops[i].Store(0)
	}
	s.imps.Store(0)
	s.click.Store(0)
	s.b.Store(nil)
	s.day.Store(int32(d))
}

func (s *tallySlot) buckets() *tallyBuckets {
	if b := s.b.Load(); b != nil {
		return b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.b.Load(); b != nil {
		return b
	}
	b := new(tallyBuckets)
	s.b.Store(b)
	return b
}

// minuteOf is the minute of its UTC day a Unix millisecond time falls in.
func minuteOf(ms int64) int { return int(floorDiv(ms, 60_000) - int64(DayOf(ms))*Minutes) }

func (s *tallySlot) drop(ms int64, r NoBidReason) {
	if s == nil {
		return
	}
	s.today(DayOf(ms))
	s.drops[r].Add(1)
}

func (s *tallySlot) bid(ms int64) {
	if s == nil {
		return
	}
	s.today(DayOf(ms))
	s.buckets().bids[minuteOf(ms)].Add(1)
}

// win counts a win at its bid's time (the books' day), with its price.
func (t *Tally) win(rec BidRecord, price Micros) {
	s := t.find(rec.CampaignID)
	if s == nil {
		return
	}
	ms := rec.TimeS * 1000
	if Day(s.day.Load()) != DayOf(ms) {
		return // a win of another day than the one counted
	}
	b := s.buckets()
	m := minuteOf(ms)
	b.wins[m].Add(1)
	b.spend[m/5].Add(int64(price))
}

// Event counts an impression or a click of a campaign's bid made at
// bidTimeS (Unix seconds); kind is 1 for impressions, 2 for clicks (the
// values of package tracker's events), others are not counted.
func (t *Tally) Event(campaign string, bidTimeS int64, kind OnceEvent) {
	s := t.find(campaign)
	if s == nil || Day(s.day.Load()) != DayOfSec(bidTimeS) {
		return
	}
	switch kind {
	case 1:
		s.imps.Add(1)
	case 2:
		s.click.Add(1)
	}
}

// TallyDay is one campaign's tally of one day.
type TallyDay struct {
	Day         Day
	Drops       [NumReasons]int64 // the auctions it dropped out of, by the stage's reason
	Impressions int64
	Clicks      int64
	Bids, Wins  []int32 // by minute of the day (Minutes), nil when it never bid that day
	Spend       []int64 // by five minutes (SpendBuckets), CPM micros
}

// Read returns the campaign's tally of day d; a day it does not count
// (another, or none) reads as zeros.
func (t *Tally) Read(campaign string, d Day) TallyDay {
	out := TallyDay{Day: d}
	s := t.find(campaign)
	if s == nil || Day(s.day.Load()) != d {
		return out
	}
	for i := range s.drops {
		out.Drops[i] = s.drops[i].Load()
	}
	out.Impressions, out.Clicks = s.imps.Load(), s.click.Load()
	if b := s.b.Load(); b != nil {
		out.Bids, out.Wins, out.Spend = make([]int32, Minutes), make([]int32, Minutes), make([]int64, SpendBuckets)
		for i := range Minutes {
			out.Bids[i], out.Wins[i] = b.bids[i].Load(), b.wins[i].Load()
		}
		for i := range SpendBuckets {
			out.Spend[i] = b.spend[i].Load()
		}
	}
	return out
}

// Tally returns the engine's tally.
func (e *Engine) Tally() *Tally { return e.tally }

// attachTally gives cat's campaigns their tally slots.
func (e *Engine) attachTally(cat *Catalog) {
	for _, c := range cat.campaigns {
		c.tally = e.tally.slot(c.ID)
	}
}

// PacingShares returns the share of a day's traffic the pacing target
// expects by the end of each of its five-minute buckets (SpendBuckets of
// them): the curve learned from the past days' traffic, or a uniform one
// before any is learned or without pacing. A paced campaign's target by
// the end of bucket b is its budget times shares[b].
func (e *Engine) PacingShares() []float64 {
	c := uniformCurve()
	if e.pacer != nil {
		e.pacer.mu.Lock()
		if e.pacer.curve != nil {
			c = e.pacer.curve
		}
		e.pacer.mu.Unlock()
	}
	out := make([]float64, SpendBuckets)
	copy(out, c.cum[1:])
	return out
}
