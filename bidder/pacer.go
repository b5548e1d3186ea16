package bidder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Pacer spends the daily budgets of the campaigns with pacing even along
// the day's traffic. It counts the requests the engine decides by
// five-minute bucket of their request time, learns from past days' counts
// the expected share of a day's traffic by time of day (trafficCurve), and
// on each tick of its clock (PaceTick) sets each paced campaign's
// participation rate with a throttling controller (PacingConfig.next): the
// share of the requests it matches that it takes part in, drawn per
// decision. What it learns and decides is kept in the state's PacingBook.
//
// Replicas sharing a state (Redis) share the spend the controller reads,
// the traffic counts the curve is learned from, and the controller state
// itself: of the replicas that tick a given minute, the first stores the
// new state and the others take it (PacingBook.StorePace), so that every
// replica throttles with the same rate, computed once a minute from the
// shared spend. No replica corrects what another already corrected, which
// is what would make them oscillate.
type Pacer struct {
	cfg    PacingConfig
	book   PacingBook
	ledger Ledger
	clock  func() time.Time

	// Request counts by absolute five-minute slot, modulo two days.
	ring   [2 * PaceBuckets]atomic.Int64
	latest atomic.Int64 // the latest request time seen, Unix ms (FollowRequests)

	mu       sync.Mutex // Attach and Tick
	slots    map[string]*paceSlot
	paced    []*Campaign // of the attached catalog
	curve    *trafficCurve
	curveDay Day
	lastTick int64 // Unix minute of the last tick
}

// paceSlot is one paced campaign's throttle, kept across reloads by id.
type paceSlot struct {
	// threshold: a decision takes part when its 32-bit draw is below it;
	// 1<<32 always does.
	threshold atomic.Uint64
	status    atomic.Pointer[PaceStatus]
}

func (s *paceSlot) admit(draw uint32) bool { return uint64(draw) < s.threshold.Load() }

func (s *paceSlot) setRate(rate float64) {
	s.threshold.Store(uint64(math.Round(min(max(rate, 0), 1) * (1 << 32))))
}

func newPacer(cfg PacingConfig, book PacingBook, ledger Ledger, clock func() time.Time) *Pacer {
	return &Pacer{cfg: cfg.withDefaults(), book: book, ledger: ledger, clock: clock, slots: map[string]*paceSlot{}}
}

// count counts one request at its request time (Unix ms).
func (p *Pacer) count(ms int64) {
	slot := floorDiv(ms, paceBucketMs)
	p.ring[uint64(slot)%uint64(len(p.ring))].Add(1)
	if p.cfg.FollowRequests {
		for {
			l := p.latest.Load()
			if ms <= l || p.latest.CompareAndSwap(l, ms) {
				break
			}
		}
	}
}

// Now returns the pacing clock: the server clock, or with FollowRequests
// the latest request time seen (the server clock before the first).
func (p *Pacer) Now() time.Time {
	if p.cfg.FollowRequests {
		if ms := p.latest.Load(); ms != 0 {
			return time.UnixMilli(ms).UTC()
		}
	}
	return p.clock()
}

// attach makes cat's paced campaigns the ones the pacer steers: each gets
// the throttle its id had (a new id starts at rate 1), in force at once.
func (p *Pacer) attach(cat *Catalog) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paced = p.paced[:0:0]
	for _, c := range cat.campaigns {
		if !c.Paced() {
			continue
		}
		s, ok := p.slots[c.ID]
		if !ok {
			s = new(paceSlot)
			s.setRate(1)
			p.slots[c.ID] = s
		}
		c.pace = s
		p.paced = append(p.paced, c)
	}
}

// tick runs the controllers once per minute of the pacing clock: it adds
// the requests counted since the last tick to the book, learns the curve
// anew when the day changes, and sets every paced campaign's rate from its
// spend so far against the target. A minute already ticked does nothing.
func (p *Pacer) tick(ctx context.Context, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	ms := now.UnixMilli()
	minute := floorDiv(ms, 60_000)
	if minute <= p.lastTick {
		return nil
	}
	p.lastTick = minute
	errs := []error{p.flush(ctx, ms)}
	day := DayOf(ms)
	if p.curve == nil || p.curveDay != day {
		c, err := p.learn(ctx, day)
		errs = append(errs, err)
		p.curve, p.curveDay = c, day
	}
	errs = append(errs, p.steer(ctx, now, minute, day))
	return errors.Join(errs...)
}

// flush moves the ring's counts into the book, by day.
func (p *Pacer) flush(ctx context.Context, nowMs int64) error {
	cur := floorDiv(nowMs, paceBucketMs)
	n := int64(len(p.ring))
	byDay := map[Day][]int64{}
	for i := range p.ring {
		c := p.ring[i].Swap(0)
		if c == 0 {
			continue
		}
		slot := cur - ((cur-int64(i))%n+n)%n // the cell's slot in the two days up to now
		day := DayOf(slot * paceBucketMs)
		counts := byDay[day]
		if counts == nil {
			counts = make([]int64, PaceBuckets)
			byDay[day] = counts
		}
		counts[slot-int64(day)*PaceBuckets] += c
	}
	var errs []error
	for day, counts := range byDay {
		if err := p.book.AddTraffic(ctx, day, counts); err != nil {
			errs = append(errs, fmt.Errorf("pacing: add traffic: %w", err))
		}
	}
	return errors.Join(errs...)
}

// learnDays is how many past days the curve is learned from.
const learnDays = 7

// PaceTrafficDays is how many days of request counts a pacing book needs to
// keep: the days the curve is learned from, and today.
const PaceTrafficDays = learnDays + 1

// learn builds the curve of day from the book's counts of the days before.
func (p *Pacer) learn(ctx context.Context, day Day) (*trafficCurve, error) {
	days := make([][]int64, 0, learnDays)
	var errs []error
	for d := day - learnDays; d < day; d++ {
		counts, err := p.book.Traffic(ctx, d)
		if err != nil {
			errs = append(errs, fmt.Errorf("pacing: traffic of %s: %w", d, err))
		}
		days = append(days, counts)
	}
	return learnCurve(days), errors.Join(errs...)
}

// steer sets the rates of the paced campaigns.
func (p *Pacer) steer(ctx context.Context, now time.Time, minute int64, day Day) error {
	if len(p.paced) == 0 {
		return nil
	}
	ids := make([]string, len(p.paced))
	qs := make([]UsageQuery, len(p.paced))
	for i, c := range p.paced {
		ids[i] = c.ID
		qs[i] = UsageQuery{CampaignID: c.ID, Day: day}
	}
	if err := p.ledger.Usage(ctx, qs); err != nil {
		return fmt.Errorf("pacing: read spend: %w", err) // rates stay as they were
	}
	states := make([]Pace, len(ids))
	if err := p.book.Paces(ctx, ids, states); err != nil {
		return fmt.Errorf("pacing: read controllers: %w", err)
	}
	counts, err := p.book.Traffic(ctx, day) // every replica's requests of the day, flushed
	if err != nil {
		return fmt.Errorf("pacing: read today's traffic: %w", err)
	}
	requests := 0.0
	for _, n := range counts {
		requests += float64(n)
	}
	msOfDay := now.UnixMilli() - int64(day)*86_400_000
	share := p.curve.share(msOfDay)
	ahead := p.curve.share(msOfDay + p.cfg.Horizon.Milliseconds())
	var errs []error
	for i, c := range p.paced {
		budget := float64(c.DailyBudget) * 1000
		in := paceInput{tick: minute, day: day, budget: budget, spent: float64(qs[i].Spent), requests: requests,
			share: share, ahead: ahead}
		st := states[i]
		if st.Tick < minute {
			next := p.cfg.next(st, in)
			stored, err := p.book.StorePace(ctx, c.ID, next)
			if err != nil {
				errs = append(errs, fmt.Errorf("pacing: store %s: %w", c.ID, err))
				stored = next // steer by it here; the next tick tries again
			}
			st = stored
		}
		s := p.slots[c.ID]
		s.setRate(st.Rate)
		s.status.Store(&PaceStatus{CampaignID: c.ID, Rate: st.Rate, Target: Micros(math.Round(budget * share)),
			Spent: qs[i].Spent, Budget: Micros(budget), At: now})
	}
	return errors.Join(errs...)
}

// Status returns the pacing of the paced campaigns as of the last tick (a
// campaign not yet ticked is left out).
func (p *Pacer) Status() []PaceStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PaceStatus, 0, len(p.paced))
	for _, c := range p.paced {
		if st := p.slots[c.ID].status.Load(); st != nil {
			out = append(out, *st)
		}
	}
	return out
}
