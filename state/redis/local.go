package redis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
)

type dayKey struct {
	campaign string
	day      bidder.Day
}

// spendCache holds recently read daily spends, so that most decisions need
// no round trip for budgets.
type spendCache struct {
	mu sync.RWMutex
	m  map[dayKey]cachedSpend
}

type cachedSpend struct {
	spent bidder.Micros
	at    time.Time
}

func (c *spendCache) init() { c.m = make(map[dayKey]cachedSpend) }

func (c *spendCache) get(campaign string, day bidder.Day, now time.Time, staleness time.Duration) (bidder.Micros, bool) {
	if staleness < 0 {
		return 0, false
	}
	c.mu.RLock()
	v, ok := c.m[dayKey{campaign, day}]
	c.mu.RUnlock()
	return v.spent, ok && now.Sub(v.at) < staleness
}

func (c *spendCache) put(campaign string, day bidder.Day, spent bidder.Micros, now time.Time) {
	c.mu.Lock()
	if len(c.m) > 100_000 { // bounded: a fresh start costs one read per campaign
		clear(c.m)
	}
	c.m[dayKey{campaign, day}] = cachedSpend{spent, now}
	c.mu.Unlock()
}

// add counts this replica's own win in the cached spend at once.
func (c *spendCache) add(campaign string, day bidder.Day, price bidder.Micros) {
	c.mu.Lock()
	if v, ok := c.m[dayKey{campaign, day}]; ok {
		v.spent += price
		c.m[dayKey{campaign, day}] = v
	}
	c.mu.Unlock()
}

// bidCounts adds up bid counts between flushes.
type bidCounts struct {
	mu   sync.Mutex
	m    map[exchangeDay]int64
	lost atomic.Int64
}

// exchangeDay names a campaign's bids for one exchange on one day.
type exchangeDay struct {
	dayKey
	exchange string
}

func (b *bidCounts) init() { b.m = make(map[exchangeDay]int64) }

func (b *bidCounts) add(campaign, exchange string, day bidder.Day) {
	b.mu.Lock()
	b.m[exchangeDay{dayKey{campaign, day}, exchange}]++
	b.mu.Unlock()
}

// pending returns the bids not yet written of a campaign's day, for one
// exchange or ("") for all.
func (b *bidCounts) pending(campaign, exchange string, day bidder.Day) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := int64(0)
	for k, c := range b.m {
		if k.campaign == campaign && k.day == day && (exchange == "" || k.exchange == exchange) {
			n += c
		}
	}
	return n
}

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

// savedWindow counts this replica's saves per second over the bid time to
// live, for the bid-store size metric.
type savedWindow struct {
	mu      sync.Mutex
	buckets []int64 // saves per second, a ring
	last    int64   // the second of the newest bucket
}

func (w *savedWindow) init(ttl time.Duration) {
	w.buckets = make([]int64, max(1, int(ttl/time.Second)))
}

func (w *savedWindow) advance(sec int64) {
	if w.last == 0 || sec-w.last >= int64(len(w.buckets)) {
		clear(w.buckets)
		w.last = sec
		return
	}
	for ; w.last < sec; w.last++ {
		w.buckets[(w.last+1)%int64(len(w.buckets))] = 0
	}
}

func (w *savedWindow) add(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sec := now.Unix()
	w.advance(sec)
	w.buckets[sec%int64(len(w.buckets))]++
}

func (w *savedWindow) count(now time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advance(now.Unix())
	n := int64(0)
	for _, b := range w.buckets {
		n += b
	}
	return int(n)
}
