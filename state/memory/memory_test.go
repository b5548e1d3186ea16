package memory

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestBoundedMemory pushes bids, each from a new user of a
// frequency-capped campaign, far past the caps of the bid store and the
// ledger, on a clock that runs through several time-to-lives while a sweep
// runs beside it. Within a TTL the caps are reached, and the answer is then
// capacity, never an eviction: every record made in the last TTL can still
// be won at the end, the records and counters held never pass their caps,
// and the live heap stays under a stated bound. make test pushes 600,000
// bids through caps of 100,000 at 5,000 a simulated second; make soak
// (DSPD_SOAK=1) pushes 5,000,000 at 20,000 a second through a bid-record
// cap of 1,000,000 (the default cap is not reached within a one-minute TTL
// by 5,000,000 bids) and the default frequency-counter cap, and reports the
// longest time a sweep held a shard's lock.
func TestBoundedMemory(t *testing.T) {
	n, maxBids, maxFreq, perSecond, boundMB := 600_000, 100_000, 100_000, 5_000, 96
	if os.Getenv("DSPD_SOAK") != "" {
		n, maxBids, maxFreq, perSecond, boundMB = 5_000_000, 1_000_000, DefaultMaxFreqCounters, 20_000, 1024
	}
	if testing.Short() && os.Getenv("DSPD_SOAK") == "" {
		n = 200_000
	}
	const ttl = time.Minute
	ctx := context.Background()
	var nowNs atomic.Int64
	nowNs.Store(testNow.UnixNano())
	clock := func() time.Time { return time.Unix(0, nowNs.Load()) }
	ledger := NewLedger(LedgerConfig{MaxFreqCounters: maxFreq, Clock: clock})
	bids := NewBidStore(BidStoreConfig{TTL: ttl, MaxBids: maxBids})
	e := bidder.NewEngine(bidder.Config{Clock: clock, BidTTL: ttl}, ledger, bids)
	const price = bidder.MicrosPerUnit // one dollar CPM
	cat := bidder.NewCatalog([]*bidder.Campaign{{ID: "c1", Active: true, BidCPM: price, DailyBudget: bidder.NoDailyLimit,
		FreqCap: bidder.FreqCap{Impressions: 1, PeriodS: 60}, Creatives: []bidder.Creative{{ID: "c1-a", W: 300, H: 250}}}})

	// The sweep runs beside the bids, once a simulated second, as dspd's does.
	tick := make(chan time.Time, 1)
	var sweeps sync.WaitGroup
	sweeps.Add(1)
	go func() {
		defer sweeps.Done()
		for now := range tick {
			e.Sweep(now)
		}
	}()

	base := liveHeap()
	var peak uint64
	type made struct {
		id bidder.BidID
		at time.Time
	}
	var recent []made // a sample of the bids made, to win at the end
	accepted, refused := 0, 0
	req := bidder.Request{ID: "req-1", ImpID: "1", W: 300, H: 250}
	for i := range n {
		if i%perSecond == 0 && i > 0 {
			nowNs.Add(int64(time.Second))
			select {
			case tick <- clock():
			default: // the sweep is still busy
			}
		}
		now := clock()
		req.UID = "user-" + strconv.Itoa(i)
		req.TimeMs, req.Arrived = now.UnixMilli(), now
		d, err := e.Decide(ctx, cat, &req)
		switch {
		case d.Bid():
			require.NoError(t, err)
			accepted++
			if i%97 == 0 {
				recent = append(recent, made{d.BidID, now})
			}
		case d.Reason == bidder.ReasonCapacity:
			require.ErrorIs(t, err, bidder.ErrCapacity)
			refused++
		default:
			t.Fatalf("bid %d: %v %v", i, d.Reason, err)
		}
		if i%(n/10) == n/10-1 {
			peak = max(peak, liveHeap()-min(base, liveHeap()))
		}
	}
	close(tick)
	sweeps.Wait()

	end := clock()
	won := 0
	for _, m := range recent {
		if end.Sub(m.at) >= ttl {
			continue
		}
		_, err := e.Win(ctx, m.id, price/2)
		require.NoError(t, err, "a bid made %v before the end must still be held", end.Sub(m.at))
		won++
	}
	held := bids.Len()
	days, freq := ledger.Sizes()
	bu, lu := bids.Upkeep(), ledger.Upkeep()
	t.Logf("%d bids over %v: %d made, %d refused (capacity); %d records held (%d expired), %d frequency counters (%d expired); "+
		"peak live heap %.1f MB (bound %d MB); longest sweep lock hold: bid store %v, ledger %v",
		n, end.Sub(testNow), accepted, refused, held, bu.Expired, freq, lu.Expired, float64(peak)/(1<<20), boundMB,
		bu.MaxPause, lu.MaxPause)
	assert.Positive(t, refused, "the caps were reached within a TTL")
	assert.Positive(t, bu.Expired, "expiry did real work")
	assert.Positive(t, won, "recent bids were won")
	assert.Equal(t, int64(refused), bu.Refused+lu.Refused, "every refusal is counted")
	assert.LessOrEqual(t, held, maxBids)
	assert.LessOrEqual(t, freq, maxFreq)
	assert.Equal(t, 1, days)
	assert.Less(t, peak, uint64(boundMB)<<20, fmt.Sprintf("live heap above %d MB", boundMB))
	st, _, _ := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	assert.Equal(t, int64(accepted), st.Bids, "the daily counters are exact throughout")
	assert.Equal(t, int64(won), st.Wins)
}
