package bidder_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// TestHeldBidsCountAgainstCaps: bids made earlier in the same request (the
// other impressions of an OpenRTB request) count against the frequency cap
// and the remaining budget, as if won at their bid price.
func TestHeldBidsCountAgainstCaps(t *testing.T) {
	capped := camp("capped", usd(3), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 3600} })
	twoBids := camp("budget", usd(2), func(c *bidder.Campaign) { c.DailyBudget = usd(0.004) }) // room for exactly two bids
	other := camp("other", usd(1))
	tests := []struct {
		name      string
		campaigns []*bidder.Campaign
		held      func(cat *bidder.Catalog) []bidder.Held
		want      string // the winner, or "" for a no bid
		reason    bidder.NoBidReason
	}{
		{"capped at 1, nothing held", []*bidder.Campaign{capped}, nil, "capped", bidder.ReasonNone},
		{"capped at 1, one held", []*bidder.Campaign{capped}, heldOf("capped", 1), "", bidder.ReasonFreqCap},
		{"capped at 1, one held, another campaign bids", []*bidder.Campaign{capped, other}, heldOf("capped", 1), "other", bidder.ReasonNone},
		{"held bids of another campaign do not count", []*bidder.Campaign{capped, other}, heldOf("other", 3), "capped", bidder.ReasonNone},
		{"budget for two, one held", []*bidder.Campaign{twoBids}, heldOf("budget", 1), "budget", bidder.ReasonNone},
		{"budget for two, two held", []*bidder.Campaign{twoBids}, heldOf("budget", 2), "", bidder.ReasonBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := newTestEngine()
			cat := bidder.NewCatalog(tt.campaigns)
			req := baseRequest()
			req.UID = "u1"
			if tt.held != nil {
				req.Held = tt.held(cat)
			}
			d, err := e.Choose(context.Background(), cat, &req)
			require.NoError(t, err)
			require.Equal(t, tt.reason.String(), d.Reason.String())
			if tt.want != "" {
				assert.Equal(t, tt.want, d.Campaign.ID)
			}
		})
	}
}

// heldOf holds n bids of campaign id at its bid price.
func heldOf(id string, n int) func(*bidder.Catalog) []bidder.Held {
	return func(cat *bidder.Catalog) []bidder.Held {
		c, ok := cat.Campaign(id)
		if !ok {
			panic(id)
		}
		var h []bidder.Held
		for range n {
			h = append(h, bidder.Held{Campaign: c, Price: c.BidCPM})
		}
		return h
	}
}

// TestDecideCapacity: a bid whose record finds no room is not made (no bid,
// reason capacity, nothing counted), and the records held are untouched.
func TestDecideCapacity(t *testing.T) {
	ctx := context.Background()
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock}, ledger, newBidStore(time.Minute, 1))
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2))})
	req := baseRequest()
	first, err := e.Decide(ctx, cat, &req)
	require.NoError(t, err)
	require.True(t, first.Bid())
	second, err := e.Decide(ctx, cat, &req)
	assert.ErrorIs(t, err, bidder.ErrCapacity)
	assert.Equal(t, bidder.ReasonCapacity.String(), second.Reason.String())
	assert.Nil(t, second.Campaign)
	st, _, _ := ledger.Stats(ctx, "c1", "", bidder.DayOf(req.TimeMs))
	assert.Equal(t, int64(1), st.Bids, "the refused bid is not counted")
	_, err = e.Win(ctx, first.BidID, usd(1))
	assert.NoError(t, err, "the held record is still won")
}

// TestUserKeys: the user hash depends on its key only, so two engines (two
// replicas, or one before and after a restart) on the same key agree.
func TestUserKeys(t *testing.T) {
	k := bidder.HashKey{1, 2, 3}
	assert.Equal(t, k.User("user-1"), k.User("user-1"))
	assert.NotEqual(t, k.User("user-1"), k.User("user-2"))
	assert.NotEqual(t, k.User("user-1"), bidder.HashKey{4}.User("user-1"), "another key, other users")
	assert.True(t, k.User("").IsZero())
	assert.False(t, k.User("x").IsZero())
	back, err := bidder.ParseHashKey(k.String())
	require.NoError(t, err)
	assert.Equal(t, k, back)
	for _, bad := range []string{"", "00", k.String() + "0", "zz" + k.String()[2:]} {
		_, err := bidder.ParseHashKey(bad)
		assert.Error(t, err, bad)
	}
	a := bidder.NewEngine(bidder.Config{HashKey: k}, nil, nil)
	b := bidder.NewEngine(bidder.Config{HashKey: k}, nil, nil)
	assert.Equal(t, a.User("u"), b.User("u"))
	assert.NotEqual(t, bidder.NewHashKey(), bidder.NewHashKey())
}
