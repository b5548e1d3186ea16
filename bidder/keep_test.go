package bidder_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// TestChooseKeepsNothing: Choose decides as Decide does but leaves no bid
// record and no bid count; Keep then saves exactly what Decide saves.
func TestChooseKeepsNothing(t *testing.T) {
	e, ledger, bids := newTestEngine()
	capped := func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} }
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2.5), capped), camp("c0", usd(1))})
	req := baseRequest()
	req.UID = "user-7"
	ctx := context.Background()

	d, err := e.Choose(ctx, cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	assert.Equal(t, "c1", d.Campaign.ID)
	assert.Equal(t, "c1-a", d.Creative.ID)
	assert.Equal(t, usd(2.5), d.Price)
	assert.Equal(t, bidder.BidID{}, d.BidID, "no bid id before Keep")
	assert.Zero(t, bids.Len(), "no record before Keep")
	_, ok, err := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	require.NoError(t, err)
	assert.False(t, ok, "no bid counted before Keep")

	require.NoError(t, e.Keep(ctx, &req, &d))
	require.True(t, d.Bid())
	assert.NotEqual(t, bidder.BidID{}, d.BidID)
	assert.Equal(t, 1, bids.Len())
	rec, res, err := bids.Claim(ctx, d.BidID, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, bidder.Claimed, res)
	assert.Equal(t, bidder.BidRecord{ID: d.BidID, CampaignID: "c1", CreativeID: "c1-a", User: testHashKey.User("user-7"),
		TimeS: req.TimeMs / 1000, Price: usd(2.5), PeriodS: 60}, rec)
	st, _, err := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	require.NoError(t, err)
	assert.Equal(t, bidder.DayStats{Bids: 1}, st)

	// Decide gives the same decision and keeps the same record.
	e2, _, bids2 := newTestEngine()
	d2, err := e2.Decide(ctx, cat, &req)
	require.NoError(t, err)
	assert.Equal(t, d.BidID, d2.BidID, "same id sequence")
	assert.Equal(t, d.Campaign, d2.Campaign)
	assert.Equal(t, d.Slot, d2.Slot)
	rec2, _, err := bids2.Claim(ctx, d2.BidID, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, rec, rec2)
}

// TestChooseMatchesDecide runs the decision cases through Choose and
// requires Decide's outcome.
func TestChooseMatchesDecide(t *testing.T) {
	capped := func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} }
	broke := func(c *bidder.Campaign) { c.DailyBudget = 1 }
	sets := [][]*bidder.Campaign{
		{camp("a", usd(1)), camp("b", usd(3)), camp("c", usd(2))},
		{camp("a", usd(9), capped), camp("b", usd(1), broke)},
		{camp("a", usd(1), target(func(t *bidder.Targeting) { t.OS = []string{"ios"} }))},
		manyCampaigns(40, broke),
	}
	reqs := []func(*bidder.Request){
		func(*bidder.Request) {},
		func(r *bidder.Request) { r.Cur = "EUR" },
		func(r *bidder.Request) { r.Floor = usd(2.5) },
		func(r *bidder.Request) { r.Floor = usd(100) },
		func(r *bidder.Request) { r.UID = "u" },
		func(r *bidder.Request) { r.OS = "ios" },
		func(r *bidder.Request) { r.W, r.H = 1, 1 },
		func(r *bidder.Request) { r.TMax = 5 * time.Millisecond },
	}
	for i, cs := range sets {
		cat := bidder.NewCatalog(cs)
		for j, mod := range reqs {
			e1, _, bids1 := newTestEngine()
			e2, _, bids2 := newTestEngine()
			req := baseRequest()
			mod(&req)
			want := decide(e1, cat, req)
			got, err := e2.Choose(context.Background(), cat, &req)
			require.NoError(t, err)
			if got.Bid() {
				require.NoError(t, e2.Keep(context.Background(), &req, &got))
			}
			assert.Equal(t, want.Reason.String(), got.Reason.String(), "set %d, request %d", i, j)
			assert.Equal(t, want.Campaign, got.Campaign, "set %d, request %d", i, j)
			assert.Equal(t, want.Creative, got.Creative, "set %d, request %d", i, j)
			assert.Equal(t, want.Price, got.Price, "set %d, request %d", i, j)
			assert.Equal(t, want.BidID, got.BidID, "set %d, request %d", i, j)
			assert.Equal(t, bids1.Len(), bids2.Len(), "set %d, request %d", i, j)
		}
	}
}

// TestKeepChecksTheDeadline: time spent between Choose and Keep counts, and
// a decision kept past the deadline is a no bid that leaves no record.
func TestKeepChecksTheDeadline(t *testing.T) {
	var now atomic.Int64
	now.Store(testNow.UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	bids := memory.NewBidStore(memory.BidStoreConfig{TTL: time.Minute, MaxBids: 100})
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: clock})
	e := bidder.NewEngine(bidder.Config{Clock: clock}, ledger, bids)
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(1))})
	req := baseRequest()
	req.Arrived = testNow
	req.TMax = 20 * time.Millisecond // deadline: arrival + 15ms

	d, err := e.Choose(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	now.Add(int64(15 * time.Millisecond))
	require.NoError(t, e.Keep(context.Background(), &req, &d))
	assert.Equal(t, bidder.ReasonTimeout.String(), d.Reason.String())
	assert.Nil(t, d.Campaign)
	assert.Zero(t, bids.Len())

	now.Store(testNow.UnixNano())
	d, err = e.Choose(context.Background(), cat, &req)
	require.NoError(t, err)
	now.Add(int64(14 * time.Millisecond))
	require.NoError(t, e.Keep(context.Background(), &req, &d))
	assert.True(t, d.Bid(), "still before the deadline")
	assert.Equal(t, 1, bids.Len())
}

func TestKeepRefusesNoBids(t *testing.T) {
	e, _, bids := newTestEngine()
	for _, d := range []bidder.Decision{{Reason: bidder.ReasonNoMatch}, {}} {
		req := baseRequest()
		assert.ErrorIs(t, e.Keep(context.Background(), &req, &d), bidder.ErrNotABid)
	}
	assert.Zero(t, bids.Len())
}

// brokenBids fails every Save.
type brokenBids struct{ *memory.BidStore }

var errBidsDown = errors.New("bid store down")

func (brokenBids) Save(context.Context, bidder.BidRecord, time.Time) (bidder.BidID, error) {
	return bidder.BidID{}, errBidsDown
}

func TestKeepStoreFailure(t *testing.T) {
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock}, ledger, brokenBids{memory.NewBidStore(memory.BidStoreConfig{})})
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(1))})
	req := baseRequest()
	d, err := e.Choose(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	err = e.Keep(context.Background(), &req, &d)
	assert.ErrorIs(t, err, errBidsDown)
	assert.Equal(t, bidder.ReasonStateUnavailable.String(), d.Reason.String())
	assert.Nil(t, d.Campaign)
	st, _, _ := ledger.Stats(context.Background(), "c1", "", bidder.DayOf(req.TimeMs))
	assert.Zero(t, st.Bids, "a bid whose record cannot be kept is not counted")
}
