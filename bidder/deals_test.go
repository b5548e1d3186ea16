package bidder_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// Deals and creative kinds in the decision: which campaigns a deal
// admits, what an open auction excludes, a deal's fixed price, and the
// chooser of video and native creatives.

func inDeals(only bool, deals ...string) func(*bidder.Campaign) {
	return func(c *bidder.Campaign) { c.Deals, c.DealsOnly = deals, only }
}

func TestDealsInTheDecision(t *testing.T) {
	cat := bidder.NewCatalog([]*bidder.Campaign{
		camp("deal-only", usd(9), inDeals(true, "D1")),
		camp("both", usd(7), inDeals(false, "D1", "D2")),
		camp("open", usd(5)),
		camp("deal-other-size", usd(8), inDeals(true, "D1"), func(c *bidder.Campaign) { c.Creatives[0].W = 728; c.Creatives[0].H = 90 }),
	})
	tests := []struct {
		name       string
		deal       string
		fixed      bidder.Micros
		floor      bidder.Micros
		adomains   string
		want       string // the campaign that bids, "" for none
		wantPrice  bidder.Micros
		wantReason bidder.NoBidReason
	}{
		{name: "open auction: not the deal-only campaign", want: "both", wantPrice: usd(7)},
		{name: "deal D1: the deal-only campaign, at its price", deal: "D1", want: "deal-only", wantPrice: usd(9)},
		{name: "deal D2: only the campaign that lists it", deal: "D2", want: "both", wantPrice: usd(7)},
		{name: "an unknown deal: nobody", deal: "D9", wantReason: bidder.ReasonNoMatch},
		{name: "a deal floor above the price", deal: "D2", floor: usd(7.5), wantReason: bidder.ReasonBelowFloor},
		{name: "a fixed price: the deal's", deal: "D1", fixed: usd(6), floor: usd(6), want: "deal-only", wantPrice: usd(6)},
		{name: "a fixed price above every bid", deal: "D2", fixed: usd(8), floor: usd(8), wantReason: bidder.ReasonBelowFloor},
		{name: "wadomain: for another advertiser", deal: "D1", adomains: "nobody.example", wantReason: bidder.ReasonNoMatch},
		{name: "wadomain: for this one", deal: "D1", adomains: "x.example,BOTH.example", want: "both", wantPrice: usd(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := newTestEngine()
			req := baseRequest()
			req.Deal, req.FixedPrice, req.Floor, req.DealADomains = tt.deal, tt.fixed, tt.floor, tt.adomains
			d, err := e.Decide(context.Background(), cat, &req)
			require.NoError(t, err)
			if tt.want == "" {
				assert.Equal(t, tt.wantReason, d.Reason)
				return
			}
			require.True(t, d.Bid(), d.Reason.String())
			assert.Equal(t, tt.want, d.Campaign.ID)
			assert.Equal(t, tt.wantPrice, d.Price)
			assert.Equal(t, tt.deal, d.Deal)
			rec, err := e.Peek(context.Background(), d.BidID)
			require.NoError(t, err)
			assert.Equal(t, tt.deal, rec.Deal, "the bid record keeps its deal")
			assert.Equal(t, tt.wantPrice, rec.Price)
		})
	}
}

// TestDealBooks: a deal's bid and win count under its label too.
func TestDealBooks(t *testing.T) {
	e, _, _ := newTestEngine()
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c", usd(4), inDeals(false, "D1"))})
	req := baseRequest()
	req.Deal = "D1"
	d, err := e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	_, err = e.Win(context.Background(), d.BidID, usd(3))
	require.NoError(t, err)
	day := bidder.DayOfTime(testNow)
	st, ok, err := e.Stats(context.Background(), "c", bidder.DealLabel("D1"), day)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, bidder.DayStats{Bids: 1, Wins: 1, Spend: usd(3)}, st)
	all, _, _ := e.Stats(context.Background(), "c", "", day)
	assert.Equal(t, st, all, "and in the campaign's totals, once")
}

// firstOfKind chooses a campaign's first creative of one kind.
type firstOfKind bidder.CreativeKind

func (k firstOfKind) Choose(c *bidder.Campaign, _ int) int {
	for i := range c.Creatives {
		if c.Creatives[i].Kind == bidder.CreativeKind(k) {
			return i
		}
	}
	return -1
}

func TestCreativeKinds(t *testing.T) {
	video := func(c *bidder.Campaign) {
		c.Creatives = append(c.Creatives, bidder.Creative{ID: c.ID + "-v", Kind: bidder.Video, W: 640, H: 360,
			DurationS: 15, Mime: "video/mp4", MediaURL: "https://cdn.example/v.mp4", ClickURL: "https://example.com/v"})
	}
	onlyVideo := func(c *bidder.Campaign) { c.Creatives = c.Creatives[:0]; video(c) }
	cat := bidder.NewCatalog([]*bidder.Campaign{
		camp("video-only", usd(9), onlyVideo),
		camp("banner-and-video", usd(6), video),
		camp("banner", usd(5)),
	})
	e, _, _ := newTestEngine()

	req := baseRequest()
	d, err := e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	assert.Equal(t, "banner-and-video", d.Campaign.ID, "a banner impression: banners only")
	assert.Equal(t, bidder.Banner, d.Creative.Kind)

	req = baseRequest()
	req.Kind, req.Chooser = bidder.Video, firstOfKind(bidder.Video)
	d, err = e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	assert.Equal(t, "video-only", d.Campaign.ID)
	assert.Equal(t, "video-only-v", d.Creative.ID)

	req.Chooser = firstOfKind(bidder.Native) // a chooser that finds nothing fits
	d, err = e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	assert.Equal(t, bidder.ReasonNoMatch, d.Reason)

	req = baseRequest()
	req.Kind, req.Chooser = bidder.Native, firstOfKind(bidder.Native)
	d, err = e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	assert.Equal(t, bidder.ReasonNoMatch, d.Reason, "no native creative anywhere")
}
