package redis

import (
	"sync"
	"sync/atomic"

	"github.com/recbid/dspd/bidder"
)

// bidCounts adds up bid counts between flushes. One flush runs at a time
// (flushing): a Flush that returns has written every count added before it
// began, even when the background flush had taken them; and the batch being
// written (inflight) still counts as pending, so a replica's own stats never
// miss it in the moment between take and write.
type bidCounts struct {
	flushing sync.Mutex
	mu       sync.Mutex
	m        map[exchangeDay]int64
	inflight map[exchangeDay]int64
	lost     atomic.Int64
}

// exchangeDay names a campaign's bids for one exchange, in one deal, on
// one day.
type exchangeDay struct {
	dayKey
	exchange, deal string
}

func (b *bidCounts) init() { b.m = make(map[exchangeDay]int64) }

// add adds n (1, or -1 for a bid taken back) to a campaign's bids.
func (b *bidCounts) add(campaign, exchange, deal string, day bidder.Day, n int64) {
	b.mu.Lock()
	b.m[exchangeDay{dayKey{campaign, day}, exchange, deal}] += n
	b.mu.Unlock()
}

// pending returns the bids not yet written of a campaign's day, for one
// exchange, or for one deal (label bidder.DealLabel), or ("") for all.
func (b *bidCounts) pending(campaign, label string, day bidder.Day) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return sumFor(b.m, campaign, label, day) + sumFor(b.inflight, campaign, label, day)
}

func sumFor(m map[exchangeDay]int64, campaign, label string, day bidder.Day) int64 {
	n := int64(0)
	for k, c := range m {
		if k.campaign == campaign && k.day == day &&
			(label == "" || k.exchange == label || (k.deal != "" && bidder.DealLabel(k.deal) == label)) {
			n += c
		}
	}
	return n
}

// take moves the counts to the in-flight batch; the caller holds flushing
// and calls written when the batch is written or lost.
func (b *bidCounts) take() map[exchangeDay]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.m) == 0 {
		return nil
	}
	b.inflight = b.m
	b.m = make(map[exchangeDay]int64, len(b.inflight))
	return b.inflight
}

// written ends the in-flight batch.
func (b *bidCounts) written() {
	b.mu.Lock()
	b.inflight = nil
	b.mu.Unlock()
}
