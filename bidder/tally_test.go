package bidder_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestTally: a campaign's bids, wins and spend land in the minute of their
// bid, its drop-outs under their reason, its impressions and clicks in
// its day; another day reads as zeros, and a new day starts empty.
func TestTally(t *testing.T) {
	ctx := context.Background()
	e, _, _ := newTestEngine()
	rich := camp("rich", usd(3), func(c *bidder.Campaign) { c.DailyBudget = usd(0.005) }) // room for one bid of 3 CPM
	poor := camp("poor", usd(1), func(c *bidder.Campaign) { c.DailyBudget = 0 })
	cat := bidder.NewCatalog([]*bidder.Campaign{rich, poor})
	e.Pace(cat)
	today := bidder.DayOfTime(testNow)
	minute := testNow.Hour()*60 + testNow.Minute()

	d := decide(e, cat, baseRequest())
	require.True(t, d.Bid())
	require.Equal(t, "rich", d.Campaign.ID)
	out, err := e.Win(ctx, d.BidID, usd(2.5))
	require.NoError(t, err)
	require.False(t, out.Duplicate)
	_, err = e.Win(ctx, d.BidID, usd(2.5))
	require.NoError(t, err, "a duplicate notice counts nothing")
	d = decide(e, cat, baseRequest())
	assert.Equal(t, bidder.ReasonBudget, d.Reason, "rich spent its budget, poor has none")
	e.Tally().Event("rich", testNow.Unix(), 1)
	e.Tally().Event("rich", testNow.Unix(), 2)
	e.Tally().Event("rich", testNow.Unix()-86_400, 1) // yesterday's bid: another day

	r := e.Tally().Read("rich", today)
	require.Len(t, r.Bids, bidder.Minutes)
	assert.EqualValues(t, 1, r.Bids[minute])
	assert.EqualValues(t, 1, r.Wins[minute])
	assert.EqualValues(t, usd(2.5), r.Spend[minute/5])
	assert.EqualValues(t, 1, r.Drops[bidder.ReasonBudget])
	assert.EqualValues(t, 1, r.Impressions)
	assert.EqualValues(t, 1, r.Clicks)
	p := e.Tally().Read("poor", today)
	assert.EqualValues(t, 1, p.Drops[bidder.ReasonBudget], "a zero budget drops out of the auction it is looked at in (the first was won before it was)")
	assert.Nil(t, p.Bids, "no buckets for a campaign that never bid")
	assert.Zero(t, e.Tally().Read("rich", today-1).Bids, "another day reads as zeros")

	// The next day starts empty.
	tomorrow := baseRequest()
	tomorrow.TimeMs += 86_400_000
	e.Tally().Read("rich", today+1)
	_ = decide(e, cat, tomorrow)
	assert.Nil(t, e.Tally().Read("rich", today).Bids, "the tally keeps one day")
}
