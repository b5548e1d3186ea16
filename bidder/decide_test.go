package bidder

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type decideCase struct {
	name      string
	campaigns []*Campaign
	req       func(*Request)
	setup     func(*MemoryLedger)
	reason    NoBidReason
	campaign  string // winner when reason is ReasonNone
	creative  string // "" means the winner's first creative
}

func runDecideCases(t *testing.T, cases []decideCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			e, ledger, _ := newTestEngine()
			cat := NewCatalog(tt.campaigns)
			if tt.setup != nil {
				tt.setup(ledger)
			}
			req := baseRequest()
			if tt.req != nil {
				tt.req(&req)
			}
			d := decide(e, cat, req)
			require.Equal(t, tt.reason.String(), d.Reason.String())
			if tt.reason != ReasonNone {
				assert.Nil(t, d.Campaign)
				return
			}
			require.NotNil(t, d.Campaign)
			assert.Equal(t, tt.campaign, d.Campaign.ID)
			want := tt.creative
			if want == "" {
				want = d.Campaign.Creatives[0].ID
			}
			assert.Equal(t, want, d.Creative.ID)
			assert.Equal(t, d.Campaign.BidCPM, d.Price)
		})
	}
}

func target(f func(*Targeting)) func(*Campaign) { return func(c *Campaign) { f(&c.Targeting) } }

func TestDecideCurrency(t *testing.T) {
	c := []*Campaign{camp("c1", usd(2.5))}
	runDecideCases(t, []decideCase{
		{name: "absent is USD", campaigns: c, campaign: "c1"},
		{name: "USD", campaigns: c, req: func(r *Request) { r.Cur = "USD" }, campaign: "c1"},
		{name: "usd any case", campaigns: c, req: func(r *Request) { r.Cur = "uSd" }, campaign: "c1"},
		{name: "EUR", campaigns: c, req: func(r *Request) { r.Cur = "EUR" }, reason: ReasonCurrency},
		{name: "currency before matching", campaigns: nil, req: func(r *Request) { r.Cur = "CNY" }, reason: ReasonCurrency},
	})
}

func TestDecideStatusAndFlight(t *testing.T) {
	start := testNow.Add(-time.Hour)
	end := testNow.Add(time.Hour)
	flight := func(c *Campaign) { c.Start, c.End = start, end }
	at := func(ts time.Time) func(*Request) { return func(r *Request) { r.TimeMs = ts.UnixMilli() } }
	runDecideCases(t, []decideCase{
		{name: "paused", campaigns: []*Campaign{camp("c1", usd(1), func(c *Campaign) { c.Active = false })}, reason: ReasonNoMatch},
		{name: "inside flight", campaigns: []*Campaign{camp("c1", usd(1), flight)}, campaign: "c1"},
		{name: "start is inclusive", campaigns: []*Campaign{camp("c1", usd(1), flight)}, req: at(start), campaign: "c1"},
		{name: "before start", campaigns: []*Campaign{camp("c1", usd(1), flight)}, req: at(start.Add(-time.Millisecond)), reason: ReasonNoMatch},
		{name: "end is exclusive", campaigns: []*Campaign{camp("c1", usd(1), flight)}, req: at(end), reason: ReasonNoMatch},
		{name: "last millisecond", campaigns: []*Campaign{camp("c1", usd(1), flight)}, req: at(end.Add(-time.Millisecond)), campaign: "c1"},
		{name: "sub-millisecond start", campaigns: []*Campaign{camp("c1", usd(1), func(c *Campaign) { c.Start = testNow.Add(time.Microsecond) })}, reason: ReasonNoMatch},
		{name: "open-ended", campaigns: []*Campaign{camp("c1", usd(1), func(c *Campaign) { c.Start = start })}, req: at(testNow.AddDate(50, 0, 0)), campaign: "c1"},
	})
}

func TestDecideListTargeting(t *testing.T) {
	one := func(f func(*Targeting)) []*Campaign { return []*Campaign{camp("c1", usd(1), target(f))} }
	countries := one(func(t *Targeting) { t.Countries = []string{"CN", "US"} })
	regions := one(func(t *Targeting) { t.Regions = []string{"CN-31"} })
	cities := one(func(t *Targeting) { t.Cities = []string{"Shanghai"} })
	oses := one(func(t *Targeting) { t.OS = []string{"android", "ios"} })
	devtypes := one(func(t *Targeting) { t.DevTypes = []int{1, 4, 5} })
	runDecideCases(t, []decideCase{
		{name: "country in list", campaigns: countries, req: func(r *Request) { r.Country = "US" }, campaign: "c1"},
		{name: "country any case", campaigns: countries, req: func(r *Request) { r.Country = "cn" }, campaign: "c1"},
		{name: "country not in list", campaigns: countries, req: func(r *Request) { r.Country = "JP" }, reason: ReasonNoMatch},
		{name: "country absent fails a list", campaigns: countries, reason: ReasonNoMatch},
		{name: "empty list does not restrict", campaigns: one(func(*Targeting) {}), req: func(r *Request) { r.Country = "JP" }, campaign: "c1"},
		{name: "region", campaigns: regions, req: func(r *Request) { r.Region = "cn-31" }, campaign: "c1"},
		{name: "region other", campaigns: regions, req: func(r *Request) { r.Region = "CN-11" }, reason: ReasonNoMatch},
		{name: "city", campaigns: cities, req: func(r *Request) { r.City = "SHANGHAI" }, campaign: "c1"},
		{name: "city absent", campaigns: cities, reason: ReasonNoMatch},
		{name: "os", campaigns: oses, req: func(r *Request) { r.OS = "iOS" }, campaign: "c1"},
		{name: "os other", campaigns: oses, req: func(r *Request) { r.OS = "windows" }, reason: ReasonNoMatch},
		{name: "devtype", campaigns: devtypes, req: func(r *Request) { r.DevType = 4 }, campaign: "c1"},
		{name: "devtype other", campaigns: devtypes, req: func(r *Request) { r.DevType = 2 }, reason: ReasonNoMatch},
		{name: "devtype absent", campaigns: devtypes, reason: ReasonNoMatch},
		{name: "all lists together", campaigns: one(func(t *Targeting) {
			t.Countries, t.Regions, t.Cities, t.OS, t.DevTypes = []string{"CN"}, []string{"CN-31"}, []string{"Shanghai"}, []string{"android"}, []int{4}
		}), req: func(r *Request) {
			r.Country, r.Region, r.City, r.OS, r.DevType = "CN", "CN-31", "Shanghai", "android", 4
		}, campaign: "c1"},
		{name: "all lists but one", campaigns: one(func(t *Targeting) {
			t.Countries, t.Regions, t.Cities, t.OS, t.DevTypes = []string{"CN"}, []string{"CN-31"}, []string{"Shanghai"}, []string{"android"}, []int{4}
		}), req: func(r *Request) { r.Country, r.Region, r.City, r.OS, r.DevType = "CN", "CN-31", "Shanghai", "ios", 4 }, reason: ReasonNoMatch},
	})
}

func TestDecideInventory(t *testing.T) {
	one := func(f func(*Targeting)) []*Campaign { return []*Campaign{camp("c1", usd(1), target(f))} }
	both := one(func(t *Targeting) { t.Sites, t.Bundles = []string{"news.example.com"}, []string{"com.example.news"} })
	sitesOnly := one(func(t *Targeting) { t.Sites = []string{"news.example.com"} })
	excl := one(func(t *Targeting) {
		t.ExcludeSites, t.ExcludeBundles = []string{"bad.example.com"}, []string{"com.bad.app"}
	})
	runDecideCases(t, []decideCase{
		{name: "site in sites", campaigns: both, req: func(r *Request) { r.Site = "News.Example.com" }, campaign: "c1"},
		{name: "bundle in bundles", campaigns: both, req: func(r *Request) { r.Bundle = "com.example.news" }, campaign: "c1"},
		{name: "both match", campaigns: both, req: func(r *Request) { r.Site, r.Bundle = "news.example.com", "com.example.news" }, campaign: "c1"},
		{name: "site other, bundle in bundles", campaigns: both, req: func(r *Request) { r.Site, r.Bundle = "x.example", "com.example.news" }, campaign: "c1"},
		{name: "neither", campaigns: both, req: func(r *Request) { r.Site, r.Bundle = "x.example", "com.x" }, reason: ReasonNoMatch},
		{name: "no inventory", campaigns: both, reason: ReasonNoMatch},
		{name: "bundle but only sites listed", campaigns: sitesOnly, req: func(r *Request) { r.Bundle = "news.example.com" }, reason: ReasonNoMatch},
		{name: "excluded site", campaigns: excl, req: func(r *Request) { r.Site = "BAD.example.com" }, reason: ReasonNoMatch},
		{name: "excluded bundle", campaigns: excl, req: func(r *Request) { r.Bundle = "com.bad.app" }, reason: ReasonNoMatch},
		{name: "not excluded", campaigns: excl, req: func(r *Request) { r.Site, r.Bundle = "good.example.com", "com.good" }, campaign: "c1"},
		{name: "excluded though listed", campaigns: one(func(t *Targeting) {
			t.Sites, t.ExcludeSites = []string{"a.example"}, []string{"a.example"}
		}), req: func(r *Request) { r.Site = "a.example" }, reason: ReasonNoMatch},
	})
}

func TestDecideCategories(t *testing.T) {
	withCats := func(cats ...string) []*Campaign {
		return []*Campaign{camp("c1", usd(1), target(func(t *Targeting) { t.Cats = cats }))}
	}
	withOwnCat := func(cats ...string) []*Campaign {
		return []*Campaign{camp("c1", usd(1), func(c *Campaign) { c.Cat = cats })}
	}
	cat := func(v string) func(*Request) { return func(r *Request) { r.Cat = v } }
	bcat := func(v string) func(*Request) { return func(r *Request) { r.BCat = v } }
	runDecideCases(t, []decideCase{
		{name: "cats equal", campaigns: withCats("IAB12"), req: cat("IAB12"), campaign: "c1"},
		{name: "cats covers subcategory", campaigns: withCats("IAB12"), req: cat("IAB12-1"), campaign: "c1"},
		{name: "cats covers deeper", campaigns: withCats("IAB12-1"), req: cat("iab12-1-7"), campaign: "c1"},
		{name: "subcategory does not cover parent", campaigns: withCats("IAB12-1"), req: cat("IAB12"), reason: ReasonNoMatch},
		{name: "prefix without dash does not cover", campaigns: withCats("IAB1"), req: cat("IAB12"), reason: ReasonNoMatch},
		{name: "one of several request cats", campaigns: withCats("IAB3"), req: cat("IAB1, IAB3-2,IAB5"), campaign: "c1"},
		{name: "empty items ignored", campaigns: withCats("IAB3"), req: cat(",,IAB3,"), campaign: "c1"},
		{name: "no request cat", campaigns: withCats("IAB3"), reason: ReasonNoMatch},
		{name: "bcat blocks equal", campaigns: withOwnCat("IAB18"), req: bcat("IAB18"), reason: ReasonNoMatch},
		{name: "bcat blocks subcategory", campaigns: withOwnCat("IAB18-2"), req: bcat("iab18"), reason: ReasonNoMatch},
		{name: "bcat sibling does not block", campaigns: withOwnCat("IAB18-2"), req: bcat("IAB18-3"), campaign: "c1"},
		{name: "bcat child does not block parent", campaigns: withOwnCat("IAB18"), req: bcat("IAB18-3"), campaign: "c1"},
		{name: "bcat prefix without dash", campaigns: withOwnCat("IAB18"), req: bcat("IAB1"), campaign: "c1"},
		{name: "bcat any of the campaign's cats", campaigns: withOwnCat("IAB2", "IAB7-1"), req: bcat("IAB9,IAB7"), reason: ReasonNoMatch},
	})
}

func TestDecideBlockedAdvertisers(t *testing.T) {
	c := []*Campaign{camp("c1", usd(1), func(c *Campaign) { c.ADomain = []string{"shop.example", "acme.example"} })}
	badv := func(v string) func(*Request) { return func(r *Request) { r.BAdv = v } }
	runDecideCases(t, []decideCase{
		{name: "blocked", campaigns: c, req: badv("acme.example"), reason: ReasonNoMatch},
		{name: "blocked any case, in a list", campaigns: c, req: badv("other.example, ACME.Example"), reason: ReasonNoMatch},
		{name: "not equal", campaigns: c, req: badv("acme"), campaign: "c1"},
		{name: "subdomain is not equal", campaigns: c, req: badv("www.acme.example"), campaign: "c1"},
	})
}

func TestDecideHours(t *testing.T) {
	hours := func(h ...int) []*Campaign {
		return []*Campaign{camp("c1", usd(1), target(func(t *Targeting) { t.Hours = h }))}
	}
	runDecideCases(t, []decideCase{
		{name: "hour in list", campaigns: hours(9, 10), campaign: "c1"}, // testNow is 10:30 UTC
		{name: "hour not in list", campaigns: hours(11, 12), reason: ReasonNoMatch},
		{name: "hour from ts", campaigns: hours(23), req: func(r *Request) {
			r.TimeMs = time.Date(2026, 11, 3, 23, 59, 59, 0, time.UTC).UnixMilli()
		}, campaign: "c1"},
	})
}

func TestDecideCreatives(t *testing.T) {
	cr := func(id string, w, h int, secure bool) Creative {
		return Creative{ID: id, W: w, H: h, Secure: secure, ImageURL: "https://i.example/x.jpg", ClickURL: "https://c.example/"}
	}
	multi := []*Campaign{camp("c1", usd(1), func(c *Campaign) {
		c.Creatives = []Creative{cr("a", 728, 90, false), cr("b", 300, 250, false), cr("c", 300, 250, true), cr("d", 300, 250, true)}
	})}
	runDecideCases(t, []decideCase{
		{name: "first of the size in file order", campaigns: multi, campaign: "c1", creative: "b"},
		{name: "secure request takes the first secure", campaigns: multi, req: func(r *Request) { r.Secure = true }, campaign: "c1", creative: "c"},
		{name: "other size", campaigns: multi, req: func(r *Request) { r.W, r.H = 728, 90 }, campaign: "c1", creative: "a"},
		{name: "secure request, no secure creative of the size", campaigns: multi, req: func(r *Request) { r.W, r.H, r.Secure = 728, 90, true }, reason: ReasonNoMatch},
		{name: "no creative of the size", campaigns: multi, req: func(r *Request) { r.W, r.H = 320, 50 }, reason: ReasonNoMatch},
		{name: "width and height not swapped", campaigns: multi, req: func(r *Request) { r.W, r.H = 90, 728 }, reason: ReasonNoMatch},
	})
}

func TestDecideFloorAndWinner(t *testing.T) {
	three := []*Campaign{camp("c-b", usd(2)), camp("c-a", usd(3)), camp("c-c", usd(1))}
	floor := func(m Micros) func(*Request) { return func(r *Request) { r.Floor = m } }
	runDecideCases(t, []decideCase{
		{name: "highest bid wins", campaigns: three, campaign: "c-a"},
		{name: "floor equal to bid bids", campaigns: three, req: floor(usd(3)), campaign: "c-a"},
		{name: "floor above every bid", campaigns: three, req: floor(usd(3) + 1), reason: ReasonBelowFloor},
		{name: "tie goes to the smallest id in byte order", campaigns: []*Campaign{camp("c-9", usd(2)), camp("c-10", usd(2)), camp("c-100", usd(2))}, campaign: "c-10"},
		{name: "targeting before floor", campaigns: []*Campaign{camp("c1", usd(5), target(func(t *Targeting) { t.OS = []string{"ios"} }))}, req: floor(usd(10)), reason: ReasonNoMatch},
	})
}

func TestDecideFrequency(t *testing.T) {
	capped := func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 2, PeriodS: 3600} }
	window := FreqCap{Impressions: 2, PeriodS: 3600}.Window(testNow.UnixMilli())
	day := DayOf(testNow.UnixMilli())
	wins := func(uid string, w int64, n int) func(*MemoryLedger) {
		return func(l *MemoryLedger) {
			for range n {
				_ = l.RecordWin(context.Background(), Win{CampaignID: "c1", Day: day, Price: 1, User: testHashKey.User(uid), PeriodS: 3600, Window: w})
			}
		}
	}
	uid := func(r *Request) { r.UID = "u1" }
	one := []*Campaign{camp("c1", usd(2), capped)}
	runDecideCases(t, []decideCase{
		{name: "no uid drops out", campaigns: one, reason: ReasonFreqCap},
		{name: "under the cap", campaigns: one, req: uid, setup: wins("u1", window, 1), campaign: "c1"},
		{name: "at the cap", campaigns: one, req: uid, setup: wins("u1", window, 2), reason: ReasonFreqCap},
		{name: "other user's wins", campaigns: one, req: uid, setup: wins("u2", window, 5), campaign: "c1"},
		{name: "previous window", campaigns: one, req: uid, setup: wins("u1", window-1, 5), campaign: "c1"},
		{name: "capped winner yields to the next", campaigns: append(one, camp("c0", usd(1))), setup: wins("u1", window, 2), req: uid, campaign: "c0"},
		{name: "uncapped campaign needs no uid", campaigns: []*Campaign{camp("c1", usd(2))}, campaign: "c1"},
	})
}

func TestDecideBudget(t *testing.T) {
	budget := func(b Micros) func(*Campaign) { return func(c *Campaign) { c.DailyBudget = b } }
	day := DayOf(testNow.UnixMilli())
	spent := func(d Day, m Micros) func(*MemoryLedger) {
		return func(l *MemoryLedger) {
			_ = l.RecordWin(context.Background(), Win{CampaignID: "c1", Day: d, Price: m})
		}
	}
	capped1 := func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 3600} }
	// daily budget 10 USD = 10,000,000 micros; × 1000 = 10,000,000,000 CPM micros.
	ten := []*Campaign{camp("c1", usd(2.5), budget(usd(10)))}
	runDecideCases(t, []decideCase{
		{name: "nothing spent", campaigns: ten, campaign: "c1"},
		{name: "spent + bid equals the budget", campaigns: ten, setup: spent(day, 10_000_000_000-2_500_000), campaign: "c1"},
		{name: "spent + bid above the budget", campaigns: ten, setup: spent(day, 10_000_000_000-2_499_999), reason: ReasonBudget},
		{name: "yesterday's spend does not count", campaigns: ten, setup: spent(day-1, 10_000_000_000), campaign: "c1"},
		{name: "tiny budget below one bid", campaigns: []*Campaign{camp("c1", usd(2.5), budget(1000))}, reason: ReasonBudget},
		{name: "no daily limit", campaigns: []*Campaign{camp("c1", usd(2.5), budget(NoDailyLimit))}, setup: spent(day, 1<<50), campaign: "c1"},
		{name: "a zero budget never bids", campaigns: []*Campaign{camp("c1", usd(2.5), budget(0))}, reason: ReasonBudget},
		{name: "a zero budget never bids, capped", campaigns: []*Campaign{camp("c1", usd(2.5), budget(0), capped1)},
			req: func(r *Request) { r.UID = "u1" }, reason: ReasonBudget},
		{name: "a zero budget yields to the next", campaigns: []*Campaign{camp("c1", usd(2.5), budget(0)), camp("c0", usd(1))}, campaign: "c0"},
	})
}

func TestDecideNoBidReasonIsTheLastStage(t *testing.T) {
	capped := func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 60} }
	broke := func(c *Campaign) { c.DailyBudget = 1 }
	ios := target(func(t *Targeting) { t.OS = []string{"ios"} })
	runDecideCases(t, []decideCase{
		{name: "one below floor, one no match", campaigns: []*Campaign{camp("a", usd(1)), camp("b", usd(9), ios)},
			req: func(r *Request) { r.Floor = usd(5) }, reason: ReasonBelowFloor},
		{name: "one below floor, one capped", campaigns: []*Campaign{camp("a", usd(1)), camp("b", usd(9), capped)},
			req: func(r *Request) { r.Floor = usd(5) }, reason: ReasonFreqCap},
		{name: "one capped, one out of budget", campaigns: []*Campaign{camp("a", usd(9), capped), camp("b", usd(1), broke)}, reason: ReasonBudget},
		{name: "out of budget ranks before capped", campaigns: []*Campaign{camp("a", usd(1), capped), camp("b", usd(9), broke)}, reason: ReasonBudget},
		{name: "many capped", campaigns: manyCampaigns(40, capped), reason: ReasonFreqCap},
		{name: "many broke but the last", campaigns: append(manyCampaigns(40, broke), camp("z", usd(0.01))), campaign: "z"},
	})
}

func manyCampaigns(n int, mods ...func(*Campaign)) []*Campaign {
	var cs []*Campaign
	for i := range n {
		cs = append(cs, camp("m"+string(rune('A'+i%26))+string(rune('a'+i/26)), usd(5)+Micros(i), mods...))
	}
	return cs
}

func TestDecideTimeout(t *testing.T) {
	c := []*Campaign{camp("c1", usd(1))}
	runDecideCases(t, []decideCase{
		{name: "tmax within the safety margin", campaigns: c, req: func(r *Request) { r.TMax = 5 * time.Millisecond }, reason: ReasonTimeout},
		{name: "tmax above the margin", campaigns: c, req: func(r *Request) { r.TMax = 6 * time.Millisecond }, campaign: "c1"},
		{name: "arrived long ago", campaigns: c, req: func(r *Request) { r.Arrived = testNow.Add(-time.Second) }, reason: ReasonTimeout},
		{name: "no match is answered before timeout", campaigns: nil, req: func(r *Request) { r.TMax = time.Millisecond }, reason: ReasonNoMatch},
	})
}

func TestDecideKeepsTheBidRecord(t *testing.T) {
	e, ledger, bids := newTestEngine()
	cat := NewCatalog([]*Campaign{camp("c1", usd(2.5), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 60} })})
	req := baseRequest()
	req.UID = "user-7"
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	assert.Equal(t, 1, bids.Len())
	rec, res, err := bids.Claim(context.Background(), d.BidID, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, Claimed, res)
	assert.Equal(t, BidRecord{ID: d.BidID, CampaignID: "c1", CreativeID: "c1-a", User: testHashKey.User("user-7"),
		TimeS: req.TimeMs / 1000, Price: usd(2.5), PeriodS: 60}, rec)
	st, ok, err := ledger.Stats(context.Background(), "c1", "", DayOf(req.TimeMs))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, DayStats{Bids: 1}, st)

	req.Test = true
	req.UID = "user-8"
	d = decide(e, cat, req)
	require.True(t, d.Bid())
	st, _, _ = ledger.Stats(context.Background(), "c1", "", DayOf(req.TimeMs))
	assert.Equal(t, int64(1), st.Bids, "test bids are not counted")
	assert.Equal(t, 2, bids.Len(), "test bids are kept")
}

func TestDecideSlotsAreDense(t *testing.T) {
	cat := NewCatalog([]*Campaign{camp("a", usd(1)), camp("b", usd(2), func(c *Campaign) {
		c.Creatives = append(c.Creatives, Creative{ID: "b-b", W: 320, H: 50, ImageURL: "https://i/", ClickURL: "https://c/"})
	})})
	var slots []string
	cat.EachCreative(func(slot int, c *Campaign, cr *Creative) {
		require.Equal(t, len(slots), slot)
		slots = append(slots, cr.ID)
	})
	assert.Equal(t, []string{"b-a", "b-b", "a-a"}, slots)
	e, _, _ := newTestEngine()
	req := baseRequest()
	req.W, req.H = 320, 50
	d := decide(e, cat, req)
	assert.Equal(t, 1, d.Slot)
}
