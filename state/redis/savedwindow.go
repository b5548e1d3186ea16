package redis

import (
	"sync"
	"time"
)

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
