package bidder_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

func TestBidIDHex(t *testing.T) {
	id := bidder.BidID{0xde, 0xad, 0xbe, 0xef, 15: 0x01}
	assert.Equal(t, "deadbeef000000000000000000000001", id.String())
	back, ok := bidder.ParseBidID("DEADBEEF000000000000000000000001")
	require.True(t, ok)
	assert.Equal(t, id, back)
	for _, bad := range []string{"", "deadbeef", "deadbeef00000000000000000000000g", "deadbeef0000000000000000000000011"} {
		_, ok := bidder.ParseBidID(bad)
		assert.False(t, ok, bad)
	}
	assert.NotEqual(t, bidder.RandomBidID(), bidder.RandomBidID())
}

func TestWinRules(t *testing.T) {
	ctx := context.Background()
	e, ledger, _ := newTestEngine()
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2.5), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 5, PeriodS: 3600} })})
	req := baseRequest()
	req.UID = "u1"
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	day := bidder.DayOf(req.TimeMs)
	window := bidder.FreqCap{PeriodS: 3600}.Window(req.TimeMs)

	_, err := e.Win(ctx, bidder.BidID{0xff}, 1)
	assert.ErrorIs(t, err, bidder.ErrUnknownBid)
	_, err = e.Win(ctx, d.BidID, usd(2.5)+1)
	assert.ErrorIs(t, err, bidder.ErrPriceAboveBid)
	st, _, _ := ledger.Stats(ctx, "c1", "", day)
	assert.Equal(t, bidder.DayStats{Bids: 1}, st, "rejected notices record nothing")

	out, err := e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.False(t, out.Duplicate)
	out, err = e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.True(t, out.Duplicate)

	st, _, _ = ledger.Stats(ctx, "c1", "", day)
	assert.Equal(t, bidder.DayStats{Bids: 1, Wins: 1, Spend: usd(1.75)}, st)
	qs := []bidder.UsageQuery{{CampaignID: "c1", Day: day, User: testHashKey.User("u1"), PeriodS: 3600, Window: window}}
	require.NoError(t, ledger.Usage(ctx, qs))
	assert.Equal(t, int64(1), qs[0].Wins)
	assert.Equal(t, usd(1.75), qs[0].Spent)

	// A test bid records nothing on win, but is still claimed once.
	req.Test = true
	d = decide(e, cat, req)
	out, err = e.Win(ctx, d.BidID, usd(1))
	require.NoError(t, err)
	assert.False(t, out.Duplicate)
	assert.True(t, out.Record.Test)
	out, _ = e.Win(ctx, d.BidID, usd(1))
	assert.True(t, out.Duplicate)
	st, _, _ = ledger.Stats(ctx, "c1", "", day)
	assert.Equal(t, bidder.DayStats{Bids: 1, Wins: 1, Spend: usd(1.75)}, st)
}

func TestWinSurvivesReload(t *testing.T) {
	ctx := context.Background()
	e, ledger, _ := newTestEngine()
	before := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(3), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} })})
	req := baseRequest()
	req.UID = "u1"
	d := decide(e, before, req)
	require.True(t, d.Bid())
	after := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(1))}) // reloaded: price and cap changed
	_, err := e.Win(ctx, d.BidID, usd(2))
	require.NoError(t, err, "the record's price (3) bounds the notice, not the new campaign's")
	st, _, _ := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	assert.Equal(t, usd(2), st.Spend)
	served := decide(e, after, req)
	assert.True(t, served.Bid(), "the reloaded set, without a cap, serves")
	// Reloaded again with the cap: the counters stayed with the id, so c1
	// still holds the win counted under the bid-time period.
	again := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(3), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} })})
	assert.Equal(t, bidder.ReasonFreqCap, decide(e, again, req).Reason)
}

// TestConcurrentWinsAreExact hammers the engine from many goroutines with
// bids and duplicate win notices; run under -race. Every bid's win must be
// recorded exactly once and the spend must be the exact sum.
func TestConcurrentWinsAreExact(t *testing.T) {
	ctx := context.Background()
	ledger := memory.NewLedger(memory.LedgerConfig{})
	bids := memory.NewBidStore(memory.BidStoreConfig{TTL: time.Hour, MaxBids: 1_000_000})
	e := bidder.NewEngine(bidder.Config{}, ledger, bids)
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2.5))})
	const workers, perWorker, dupes = 8, 200, 3

	ids := make(chan bidder.BidID, workers*perWorker)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				req := baseRequest()
				req.TimeMs = testNow.UnixMilli() + int64(w*perWorker+i)
				d, err := e.Decide(ctx, cat, &req)
				if err != nil || !d.Bid() {
					t.Errorf("no bid: %v %v", d.Reason, err)
					return
				}
				ids <- d.BidID
			}
		}()
	}
	wg.Wait()
	close(ids)
	var all []bidder.BidID
	for id := range ids {
		all = append(all, id)
	}
	require.Len(t, all, workers*perWorker)

	var recorded, duplicates sync.Map
	for w := range workers * dupes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, id := range all {
				price := bidder.Micros(1_000_000 + i) // a distinct price per bid
				out, err := e.Win(ctx, id, price)
				if err != nil {
					t.Error(err)
					return
				}
				if out.Duplicate {
					duplicates.Store([2]int{w, i}, true)
				} else if _, dup := recorded.LoadOrStore(i, w); dup {
					t.Errorf("bid %d recorded twice", i)
				}
			}
		}()
	}
	wg.Wait()

	var want bidder.Micros
	for i := range all {
		want += bidder.Micros(1_000_000 + i)
	}
	st, ok, err := ledger.Stats(ctx, "c1", "", bidder.DayOf(testNow.UnixMilli()))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, bidder.DayStats{Bids: int64(len(all)), Wins: int64(len(all)), Spend: want}, st)
	n := 0
	duplicates.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, len(all)*(workers*dupes-1), n)
}

// TestSpentBudgetStaysSpent: a campaign that has spent its budget stops
// writing its counter, and however many other campaigns then fill the
// ledger, it keeps answering budget (no eviction resets it to zero).
func TestSpentBudgetStaysSpent(t *testing.T) {
	ctx := context.Background()
	now := testNow
	clock := func() time.Time { return now }
	// The smallest ledger: one day counter a shard.
	ledger := memory.NewLedger(memory.LedgerConfig{MaxDayCounters: 1, Clock: clock})
	e := bidder.NewEngine(bidder.Config{Clock: clock}, ledger, newBidStore(time.Minute, 1000))
	broke := camp("broke", usd(2), func(c *bidder.Campaign) { c.DailyBudget = usd(0.002) }) // one bid's worth
	cat := bidder.NewCatalog([]*bidder.Campaign{broke})
	req := baseRequest()
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	_, err := e.Win(ctx, d.BidID, usd(2))
	require.NoError(t, err)
	require.Equal(t, bidder.ReasonBudget, decide(e, cat, req).Reason)

	refused := 0
	for i := range 500 { // other campaigns' counters, written later
		now = testNow.Add(time.Duration(i) * time.Second)
		if err := ledger.Reserve(ctx, bidder.Room{CampaignID: fmt.Sprint("other-", i), Day: bidder.DayOfTime(now)}); errors.Is(err, bidder.ErrCapacity) {
			refused++
		}
	}
	assert.Positive(t, refused, "the cap was reached")
	req.TimeMs = now.UnixMilli()
	assert.Equal(t, bidder.ReasonBudget.String(), decide(e, cat, req).Reason.String(), "still spent")
}

// TestWinNeverNeedsRoom: the counters a bid's win writes are reserved when
// the bid is made, so a win is booked even when the ledger is full.
func TestWinNeverNeedsRoom(t *testing.T) {
	ctx := context.Background()
	// The smallest ledger: one counter of each kind a shard.
	ledger := memory.NewLedger(memory.LedgerConfig{MaxFreqCounters: 1, MaxDayCounters: 1, Clock: fixedClock})
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock, HashKey: testHashKey}, ledger, newBidStore(time.Minute, 1000))
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 5, PeriodS: 3600} })})
	req := baseRequest()
	req.UID = "the-user"
	d := decide(e, cat, req)
	require.True(t, d.Bid())

	others := int64(0) // bids for other users, which fill the frequency counters' cap
	for i := range 1000 {
		if ledger.Reserve(ctx, bidder.Room{CampaignID: "c1", Day: bidder.DayOf(req.TimeMs), User: testHashKey.User(fmt.Sprint(i)),
			PeriodS: 3600, Window: 1, Until: testNow.Add(time.Hour)}) == nil {
			others++
		}
	}
	req.UID = "someone-new"
	full, err := e.Decide(ctx, cat, &req)
	require.ErrorIs(t, err, bidder.ErrCapacity)
	require.Equal(t, bidder.ReasonCapacity.String(), full.Reason.String(), "the ledger is full")

	_, err = e.Win(ctx, d.BidID, usd(1))
	require.NoError(t, err, "the win is booked")
	st, _, _ := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	assert.Equal(t, bidder.DayStats{Bids: 1 + others, Wins: 1, Spend: usd(1)}, st, "the refused bid is not counted")
	qs := []bidder.UsageQuery{{CampaignID: "c1", User: testHashKey.User("the-user"), PeriodS: 3600,
		Window: bidder.FreqCap{PeriodS: 3600}.Window(req.TimeMs)}}
	require.NoError(t, ledger.Usage(ctx, qs))
	assert.Equal(t, int64(1), qs[0].Wins, "and counted against the user's cap")
}

// flakyLedger fails RecordWin until it is told to work.
type flakyLedger struct {
	*memory.Ledger
	down bool
}

func (l *flakyLedger) RecordWin(ctx context.Context, w bidder.Win) error {
	if l.down {
		return errors.New("disk full")
	}
	return l.Ledger.RecordWin(ctx, w)
}

// TestWinNotRecordedIsNotClaimed: a win the ledger could not record gives
// its claim back, so that the exchange's retry records it (not a duplicate).
func TestWinNotRecordedIsNotClaimed(t *testing.T) {
	ctx := context.Background()
	ledger := &flakyLedger{Ledger: memory.NewLedger(memory.LedgerConfig{Clock: fixedClock}), down: true}
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock}, ledger, newBidStore(time.Minute, 100))
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2))})
	d := decide(e, cat, baseRequest())
	_, err := e.Win(ctx, d.BidID, usd(1))
	require.Error(t, err)
	ledger.down = false
	out, err := e.Win(ctx, d.BidID, usd(1))
	require.NoError(t, err)
	assert.False(t, out.Duplicate, "the retry records the win")
	st, _, _ := ledger.Stats(ctx, "c1", "", bidder.DayOf(testNow.UnixMilli()))
	assert.Equal(t, bidder.DayStats{Bids: 1, Wins: 1, Spend: usd(1)}, st)
}
