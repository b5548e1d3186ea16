package bidder

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoundedMemory pushes bids and wins, each from a new user of a
// frequency-capped campaign, far past the caps of the bid store and the
// ledger, and checks that the records and counters held never pass their
// caps and that the live heap stays under a stated bound. make test pushes
// 600,000 bids through caps of 100,000; make soak (DSPD_SOAK=1) pushes
// 5,000,000 through the production defaults (4,000,000 bid records,
// 5,000,000 frequency counters), with the bound given there.
func TestBoundedMemory(t *testing.T) {
	n, maxBids, maxFreq, boundMB := 600_000, 100_000, 100_000, 96
	if os.Getenv("DSPD_SOAK") != "" {
		n, maxBids, maxFreq, boundMB = 5_000_000, DefaultMaxBids, DefaultMaxFreqCounters, 2048
	}
	if testing.Short() && os.Getenv("DSPD_SOAK") == "" {
		n = 200_000
	}
	ctx := context.Background()
	now := testNow
	clock := func() time.Time { return now }
	ledger := NewMemoryLedger(MemoryLedgerConfig{MaxFreqCounters: maxFreq, Clock: clock})
	bids := NewMemoryBidStore(time.Hour, maxBids)
	e := NewEngine(Config{Clock: clock}, ledger, bids)
	cat := NewCatalog([]*Campaign{camp("c1", usd(1), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 86400} })})

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	var peak uint64
	req := baseRequest()
	for i := range n {
		req.UID = "user-" + strconv.Itoa(i)
		d, err := e.Decide(ctx, cat, &req)
		require.NoError(t, err)
		require.True(t, d.Bid(), "bid %d: %v", i, d.Reason)
		if i%2 == 0 { // half of them win
			_, err = e.Win(ctx, d.BidID, usd(0.5))
			require.NoError(t, err)
		}
		if i%(n/10) == n/10-1 {
			now = now.Add(time.Second)
			peak = max(peak, heap()-min(base, heap()))
		}
	}
	held := bids.Len()
	_, freq := ledger.Sizes()
	_, bidsEvicted := bids.Evictions()
	_, freqEvicted := ledger.Evictions()
	t.Logf("%d bids: %d records held (%d evicted), %d frequency counters (%d evicted), peak live heap %.1f MB (bound %d MB)",
		n, held, bidsEvicted, freq, freqEvicted, float64(peak)/(1<<20), boundMB)
	assert.LessOrEqual(t, held, maxBids)
	assert.LessOrEqual(t, freq, maxFreq)
	assert.Equal(t, int64(n-held), bidsEvicted, "every record that went is counted")
	assert.Less(t, peak, uint64(boundMB)<<20, fmt.Sprintf("live heap above %d MB", boundMB))
	st, _, _ := ledger.Stats(ctx, "c1", DayOf(req.TimeMs))
	assert.Equal(t, int64(n), st.Bids, "the daily counters are exact throughout")
	assert.Equal(t, int64((n+1)/2), st.Wins)
}
