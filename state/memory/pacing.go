package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/recbid/dspd/bidder"
)

// pacing is a Ledger's bidder.PacingBook: request counts by day and
// bucket, and the controller states of paced campaigns. It is small (a few
// kilobytes a day, a hundred bytes a paced campaign) and written once a
// minute, so one lock guards it.
type pacing struct {
	mu      sync.Mutex
	traffic map[bidder.Day][]int64
	paces   map[string]bidder.Pace
}

var _ bidder.PacingBook = (*Ledger)(nil)

// AddTraffic implements bidder.PacingBook. Days older than the newest
// bidder.PaceTrafficDays are dropped.
func (l *Ledger) AddTraffic(_ context.Context, day bidder.Day, counts []int64) error {
	p := &l.pacing
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.traffic == nil {
		p.traffic = map[bidder.Day][]int64{}
	}
	t := p.traffic[day]
	if t == nil {
		t = make([]int64, bidder.PaceBuckets)
		p.traffic[day] = t
	}
	for b, n := range counts[:min(len(counts), bidder.PaceBuckets)] {
		t[b] += n
	}
	if len(p.traffic) > bidder.PaceTrafficDays {
		days := slices.Sorted(func(yield func(bidder.Day) bool) {
			for d := range p.traffic {
				if !yield(d) {
					return
				}
			}
		})
		for _, d := range days[:len(days)-bidder.PaceTrafficDays] {
			delete(p.traffic, d)
		}
	}
	return nil
}

// Traffic implements bidder.PacingBook.
func (l *Ledger) Traffic(_ context.Context, day bidder.Day) ([]int64, error) {
	p := &l.pacing
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.traffic[day]; t != nil {
		return slices.Clone(t), nil
	}
	return nil, nil
}

// Paces implements bidder.PacingBook.
func (l *Ledger) Paces(_ context.Context, ids []string, out []bidder.Pace) error {
	p := &l.pacing
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, id := range ids {
		out[i] = p.paces[id]
	}
	return nil
}

// StorePace implements bidder.PacingBook.
func (l *Ledger) StorePace(_ context.Context, id string, st bidder.Pace) (bidder.Pace, error) {
	p := &l.pacing
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paces == nil {
		p.paces = map[string]bidder.Pace{}
	}
	if old, ok := p.paces[id]; ok && old.Tick >= st.Tick {
		return old, nil
	}
	p.paces[id] = st
	return st, nil
}

// sweepPaces drops the controller states not ticked for bidder.PaceTrafficDays days:
// their campaigns are no longer paced here (a campaign paced again starts
// afresh).
func (p *pacing) sweepPaces(nowMinute int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, st := range p.paces {
		if nowMinute-st.Tick > bidder.PaceTrafficDays*24*60 {
			delete(p.paces, id)
			n++
		}
	}
	return n
}
