package redis

import (
	"sync"
	"sync/atomic"

	"github.com/recbid/dspd/bidder"
)

// bidCounts adds up bid counts between flushes. flushing is held by a
// flush from taking its batch to writing it, and by Stats while it reads:
// a Flush that returns has written every count added before it began, even
// when the background flush had taken them, and Stats never sees a batch
// that is neither pending nor written.
type bidCounts struct {
	flushing sync.Mutex
	mu       sync.Mutex
	m        map[exchangeDay]int64
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
	n := int64(0)
	for k, c := range b.m {
		if k.campaign == campaign && k.day == day &&
			(label == "" || k.exchange == label || (k.deal != "" && bidder.DealLabel(k.deal) == label)) {
			n += c
		}
	}
	return n
}

// take returns the counts added since the last take, for a flush holding
// flushing.
func (b *bidCounts) take() map[exchangeDay]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.m) == 0 {
		return nil
	}
	out := b.m
	b.m = make(map[exchangeDay]int64, len(out))
	return out
}
