package bidder_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// naiveDecide is the contract's section 3 read literally, over every
// campaign, with no index: the reference the indexed engine must agree with.
// It knows no state, so it supports frequency caps only for requests without
// uid and budgets below one bid.
func naiveDecide(cs []*bidder.Campaign, r *bidder.Request) (reason bidder.NoBidReason, winner *bidder.Campaign, creative string) {
	if r.Cur != "" && !strings.EqualFold(r.Cur, "USD") {
		return bidder.ReasonCurrency, nil, ""
	}
	in := func(list []string, v string) bool {
		return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, v) })
	}
	items := func(list string) []string {
		var out []string
		for _, s := range strings.Split(list, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	stage := 0 // furthest stage reached: 1 matched, 2 floor, 3 frequency
	var best *bidder.Campaign
	bestCreative := ""
	for _, c := range cs {
		t := &c.Targeting
		ok := c.Active && c.InFlight(r.TimeMs)
		ok = ok && (len(t.Countries) == 0 || in(t.Countries, r.Country))
		ok = ok && (len(t.Regions) == 0 || in(t.Regions, r.Region))
		ok = ok && (len(t.Cities) == 0 || in(t.Cities, r.City))
		ok = ok && (len(t.OS) == 0 || in(t.OS, r.OS))
		ok = ok && (len(t.DevTypes) == 0 || slices.Contains(t.DevTypes, r.DevType))
		ok = ok && (len(t.Sites)+len(t.Bundles) == 0 || (r.Site != "" && in(t.Sites, r.Site)) || (r.Bundle != "" && in(t.Bundles, r.Bundle)))
		ok = ok && !(r.Site != "" && in(t.ExcludeSites, r.Site)) && !(r.Bundle != "" && in(t.ExcludeBundles, r.Bundle))
		if ok && len(t.Cats) > 0 {
			covered := false
			for _, x := range t.Cats {
				for _, y := range items(r.Cat) {
					covered = covered || bidder.Covers(x, y)
				}
			}
			ok = covered
		}
		for _, b := range items(r.BCat) {
			for _, y := range c.Cat {
				ok = ok && !bidder.Covers(b, y)
			}
		}
		for _, a := range items(r.BAdv) {
			ok = ok && !in(c.ADomain, a)
		}
		hour := int(r.TimeMs / 3_600_000 % 24)
		ok = ok && (len(t.Hours) == 0 || slices.Contains(t.Hours, hour))
		ok = ok && (len(t.Exchanges) == 0 || slices.Contains(t.Exchanges, r.Exchange))
		cr := ""
		for _, x := range c.Creatives {
			if x.W == r.W && x.H == r.H && (x.Secure || !r.Secure) {
				cr = x.ID
				break
			}
		}
		if !ok || cr == "" {
			continue
		}
		stage = max(stage, 1)
		if c.BidCPM < r.Floor {
			continue
		}
		stage = max(stage, 2)
		if c.FreqCap.Capped() && r.UID == "" {
			continue
		}
		stage = max(stage, 3)
		if c.Limited() && c.BidCPM > c.DailyBudget*1000 { // nothing is spent: only a budget below one bid drops
			continue
		}
		if best == nil || c.BidCPM > best.BidCPM || (c.BidCPM == best.BidCPM && c.ID < best.ID) {
			best, bestCreative = c, cr
		}
	}
	if best != nil {
		return bidder.ReasonNone, best, bestCreative
	}
	return [...]bidder.NoBidReason{bidder.ReasonNoMatch, bidder.ReasonBelowFloor, bidder.ReasonFreqCap, bidder.ReasonBudget}[stage], nil, ""
}

var (
	vCountries = []string{"CN", "US", "GB", "de", "JP"}
	vRegions   = []string{"CN-31", "CN-11", "US-CA", "us-ny"}
	vCities    = []string{"Shanghai", "Beijing", "new york"}
	vOS        = []string{"android", "iOS", "windows"}
	vSites     = []string{"a.example", "B.example", "c.example"}
	vBundles   = []string{"com.a", "com.B", "com.c"}
	vCats      = []string{"IAB1", "IAB1-2", "IAB12", "IAB12-1", "iab3", "IAB3-1-1"}
	vDomains   = []string{"x.example", "Y.example", "z.example"}
	vSizes     = [][2]int{{300, 250}, {320, 50}, {728, 90}}
	vExchanges = []string{"default", "adx", "ox"}
)

func pick[T any](rng *rand.Rand, v []T) T { return v[rng.IntN(len(v))] }

func some[T any](rng *rand.Rand, v []T, p float64) []T {
	if rng.Float64() >= p {
		return nil
	}
	var out []T
	for range 1 + rng.IntN(3) {
		out = append(out, pick(rng, v))
	}
	return out
}

func randomCampaign(rng *rand.Rand, i int) *bidder.Campaign {
	c := &bidder.Campaign{
		ID:          fmt.Sprintf("c%d", rng.IntN(1000)*1000+i), // ids of varying lengths
		Advertiser:  "adv",
		ADomain:     some(rng, vDomains, 1),
		Cat:         some(rng, vCats, 1),
		Active:      rng.IntN(10) > 0,
		BidCPM:      bidder.Micros(1+rng.IntN(5)) * 500_000,
		DailyBudget: bidder.NoDailyLimit,
		Targeting: bidder.Targeting{
			Countries: some(rng, vCountries, 0.3), Regions: some(rng, vRegions, 0.15),
			Cities: some(rng, vCities, 0.1), OS: some(rng, vOS, 0.3),
			DevTypes: some(rng, []int{1, 2, 4, 5}, 0.2),
			Sites:    some(rng, vSites, 0.2), Bundles: some(rng, vBundles, 0.2),
			ExcludeSites: some(rng, vSites, 0.1), ExcludeBundles: some(rng, vBundles, 0.1),
			Cats: some(rng, vCats, 0.3), Hours: some(rng, []int{9, 10, 11, 22}, 0.2),
		},
	}
	if rng.IntN(10) == 0 {
		c.Start = testNow.Add(time.Duration(rng.IntN(5)-2) * time.Hour)
	}
	if rng.IntN(10) == 0 {
		c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60}
	}
	c.Targeting.Exchanges = some(rng, vExchanges, 0.15)
	switch rng.IntN(20) {
	case 0, 1:
		c.DailyBudget = 1
	case 2:
		c.DailyBudget = 0 // never bids
	}
	for j := range 1 + rng.IntN(3) {
		s := pick(rng, vSizes)
		c.Creatives = append(c.Creatives, bidder.Creative{ID: fmt.Sprintf("%s-%d", c.ID, j), W: s[0], H: s[1], Secure: rng.IntN(2) == 0})
	}
	return c
}

func randomRequest(rng *rand.Rand) bidder.Request {
	opt := func(v []string, p float64) string {
		if rng.Float64() < p {
			return pick(rng, v)
		}
		return ""
	}
	list := func(v []string, p float64) string { return strings.Join(some(rng, v, p), ",") }
	s := pick(rng, vSizes)
	r := bidder.Request{
		ID: "r", ImpID: "1", W: s[0], H: s[1],
		Country: opt(vCountries, 0.9), Region: opt(vRegions, 0.5), City: opt(vCities, 0.4),
		OS: opt(vOS, 0.8), Site: opt(vSites, 0.5), Bundle: opt(vBundles, 0.5),
		Cat: list(vCats, 0.8), BCat: list(vCats, 0.2), BAdv: list(vDomains, 0.2),
		UID:    opt([]string{"u1"}, 0.5),
		TimeMs: testNow.Add(time.Duration(rng.IntN(6)-3) * time.Hour).UnixMilli(),
		Secure: rng.IntN(2) == 0,
		Floor:  bidder.Micros(rng.IntN(6)) * 500_000,
	}
	if rng.IntN(2) == 0 {
		r.DevType = pick(rng, []int{1, 2, 4, 5})
	}
	if rng.IntN(30) == 0 {
		r.Cur = "EUR"
	}
	r.Exchange = pick(rng, vExchanges)
	return r
}

// TestIndexAgreesWithNaiveDecision checks the index against the literal
// reading of the contract on random campaigns and requests.
func TestIndexAgreesWithNaiveDecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		var cs []*bidder.Campaign
		for i := range 5 + rng.IntN(200) {
			cs = append(cs, randomCampaign(rng, i))
		}
		cat := bidder.NewCatalog(cs)
		e, _, _ := newTestEngine()
		for i := range 300 {
			req := randomRequest(rng)
			wantReason, want, wantCr := naiveDecide(cs, &req)
			got := decide(e, cat, req)
			require.Equal(t, wantReason.String(), got.Reason.String(), "round %d request %d: %+v", round, i, req)
			if want != nil {
				require.Equal(t, want.ID, got.Campaign.ID, "round %d request %d", round, i)
				require.Equal(t, wantCr, got.Creative.ID, "round %d request %d", round, i)
			}
		}
	}
}

// TestIndexAgreesAcrossBlocks runs the same comparison on a catalog of
// several matching blocks (128, 256, 512, 1024 and part of 2048), where the
// decision may stop early.
func TestIndexAgreesAcrossBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cs []*bidder.Campaign
	for i := range 16*bidder.FirstBlock + 17 {
		cs = append(cs, randomCampaign(rng, i))
	}
	cat := bidder.NewCatalog(cs)
	e, _, _ := newTestEngine()
	for i := range 400 {
		req := randomRequest(rng)
		if i%2 == 0 {
			req.Floor = 0 // let low bidders in
		}
		wantReason, want, wantCr := naiveDecide(cs, &req)
		got := decide(e, cat, req)
		require.Equal(t, wantReason.String(), got.Reason.String(), "request %d: %+v", i, req)
		if want != nil {
			require.Equal(t, want.ID, got.Campaign.ID, "request %d", i)
			require.Equal(t, wantCr, got.Creative.ID, "request %d", i)
		}
	}
}
