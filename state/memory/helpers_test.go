package memory

import (
	"runtime"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/countrand"
)

// testNow is the fixed clock of the store tests: Tuesday 2026-11-03, 10:30
// UTC.
var testNow = time.Date(2026, 11, 3, 10, 30, 0, 0, time.UTC)

// testHashKey keys the user hash in tests.
var testHashKey = bidder.HashKey{15: 1}

// newBidStore is a store of maxBids records of ttl with predictable ids.
func newBidStore(ttl time.Duration, maxBids int) *BidStore {
	return NewBidStore(BidStoreConfig{TTL: ttl, MaxBids: maxBids, Random: new(countrand.Reader)})
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
