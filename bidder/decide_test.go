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

type decideCase struct {
	name      string
	campaigns []*bidder.Campaign
	req       func(*bidder.Request)
	setup     func(*memory.Ledger)
	reason    bidder.NoBidReason
	campaign  string // winner when reason is ReasonNone
	creative  string // "" means the winner's first creative
}

func runDecideCases(t *testing.T, cases []decideCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			e, ledger, _ := newTestEngine()
			cat := bidder.NewCatalog(tt.campaigns)
			if tt.setup != nil {
				tt.setup(ledger)
			}
			req := baseRequest()
			if tt.req != nil {
				tt.req(&req)
			}
			d := decide(e, cat, req)
			require.Equal(t, tt.reason.String(), d.Reason.String())
			if tt.reason != bidder.ReasonNone {
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

func target(f func(*bidder.Targeting)) func(*bidder.Campaign) {
	return func(c *bidder.Campaign) { f(&c.Targeting) }
}

func TestDecideCurrency(t *testing.T) {
	c := []*bidder.Campaign{camp("c1", usd(2.5))}
	runDecideCases(t, []decideCase{
		{name: "absent is USD", campaigns: c, campaign: "c1"},
		{name: "USD", campaigns: c, req: func(r *bidder.Request) { r.Cur = "USD" }, campaign: "c1"},
		{name: "usd any case", campaigns: c, req: func(r *bidder.Request) { r.Cur = "uSd" }, campaign: "c1"},
		{name: "EUR", campaigns: c, req: func(r *bidder.Request) { r.Cur = "EUR" }, reason: bidder.ReasonCurrency},
		{name: "currency before matching", campaigns: nil, req: func(r *bidder.Request) { r.Cur = "CNY" }, reason: bidder.ReasonCurrency},
	})
}

func TestDecideStatusAndFlight(t *testing.T) {
	start := testNow.Add(-time.Hour)
	end := testNow.Add(time.Hour)
	flight := func(c *bidder.Campaign) { c.Start, c.End = start, end }
	at := func(ts time.Time) func(*bidder.Request) { return func(r *bidder.Request) { r.TimeMs = ts.UnixMilli() } }
	runDecideCases(t, []decideCase{
		{name: "paused", campaigns: []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.Active = false })}, reason: bidder.ReasonNoMatch},
		{name: "inside flight", campaigns: []*bidder.Campaign{camp("c1", usd(1), flight)}, campaign: "c1"},
		{name: "start is inclusive", campaigns: []*bidder.Campaign{camp("c1", usd(1), flight)}, req: at(start), campaign: "c1"},
		{name: "before start", campaigns: []*bidder.Campaign{camp("c1", usd(1), flight)}, req: at(start.Add(-time.Millisecond)), reason: bidder.ReasonNoMatch},
		{name: "end is exclusive", campaigns: []*bidder.Campaign{camp("c1", usd(1), flight)}, req: at(end), reason: bidder.ReasonNoMatch},
		{name: "last millisecond", campaigns: []*bidder.Campaign{camp("c1", usd(1), flight)}, req: at(end.Add(-time.Millisecond)), campaign: "c1"},
		{name: "sub-millisecond start", campaigns: []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.Start = testNow.Add(time.Microsecond) })}, reason: bidder.ReasonNoMatch},
		{name: "open-ended", campaigns: []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.Start = start })}, req: at(testNow.AddDate(50, 0, 0)), campaign: "c1"},
	})
}

func TestDecideListTargeting(t *testing.T) {
	one := func(f func(*bidder.Targeting)) []*bidder.Campaign {
		return []*bidder.Campaign{camp("c1", usd(1), target(f))}
	}
	countries := one(func(t *bidder.Targeting) { t.Countries = []string{"CN", "US"} })
	regions := one(func(t *bidder.Targeting) { t.Regions = []string{"CN-31"} })
	cities := one(func(t *bidder.Targeting) { t.Cities = []string{"Shanghai"} })
	oses := one(func(t *bidder.Targeting) { t.OS = []string{"android", "ios"} })
	devtypes := one(func(t *bidder.Targeting) { t.DevTypes = []int{1, 4, 5} })
	runDecideCases(t, []decideCase{
		{name: "country in list", campaigns: countries, req: func(r *bidder.Request) { r.Country = "US" }, campaign: "c1"},
		{name: "country any case", campaigns: countries, req: func(r *bidder.Request) { r.Country = "cn" }, campaign: "c1"},
		{name: "country not in list", campaigns: countries, req: func(r *bidder.Request) { r.Country = "JP" }, reason: bidder.ReasonNoMatch},
		{name: "country absent fails a list", campaigns: countries, reason: bidder.ReasonNoMatch},
		{name: "empty list does not restrict", campaigns: one(func(*bidder.Targeting) {}), req: func(r *bidder.Request) { r.Country = "JP" }, campaign: "c1"},
		{name: "region", campaigns: regions, req: func(r *bidder.Request) { r.Region = "cn-31" }, campaign: "c1"},
		{name: "region other", campaigns: regions, req: func(r *bidder.Request) { r.Region = "CN-11" }, reason: bidder.ReasonNoMatch},
		{name: "city", campaigns: cities, req: func(r *bidder.Request) { r.City = "SHANGHAI" }, campaign: "c1"},
		{name: "city absent", campaigns: cities, reason: bidder.ReasonNoMatch},
		{name: "os", campaigns: oses, req: func(r *bidder.Request) { r.OS = "iOS" }, campaign: "c1"},
		{name: "os other", campaigns: oses, req: func(r *bidder.Request) { r.OS = "windows" }, reason: bidder.ReasonNoMatch},
		{name: "devtype", campaigns: devtypes, req: func(r *bidder.Request) { r.DevType = 4 }, campaign: "c1"},
		{name: "devtype other", campaigns: devtypes, req: func(r *bidder.Request) { r.DevType = 2 }, reason: bidder.ReasonNoMatch},
		{name: "devtype absent", campaigns: devtypes, reason: bidder.ReasonNoMatch},
		{name: "all lists together", campaigns: one(func(t *bidder.Targeting) {
			t.Countries, t.Regions, t.Cities, t.OS, t.DevTypes = []string{"CN"}, []string{"CN-31"}, []string{"Shanghai"}, []string{"android"}, []int{4}
		}), req: func(r *bidder.Request) {
			r.Country, r.Region, r.City, r.OS, r.DevType = "CN", "CN-31", "Shanghai", "android", 4
		}, campaign: "c1"},
		{name: "all lists but one", campaigns: one(func(t *bidder.Targeting) {
			t.Countries, t.Regions, t.Cities, t.OS, t.DevTypes = []string{"CN"}, []string{"CN-31"}, []string{"Shanghai"}, []string{"android"}, []int{4}
		}), req: func(r *bidder.Request) {
			r.Country, r.Region, r.City, r.OS, r.DevType = "CN", "CN-31", "Shanghai", "ios", 4
		}, reason: bidder.ReasonNoMatch},
	})
}

func TestDecideInventory(t *testing.T) {
	one := func(f func(*bidder.Targeting)) []*bidder.Campaign {
		return []*bidder.Campaign{camp("c1", usd(1), target(f))}
	}
	both := one(func(t *bidder.Targeting) {
		t.Sites, t.Bundles = []string{"news.example.com"}, []string{"com.example.news"}
	})
	sitesOnly := one(func(t *bidder.Targeting) { t.Sites = []string{"news.example.com"} })
	excl := one(func(t *bidder.Targeting) {
		t.ExcludeSites, t.ExcludeBundles = []string{"bad.example.com"}, []string{"com.bad.app"}
	})
	runDecideCases(t, []decideCase{
		{name: "site in sites", campaigns: both, req: func(r *bidder.Request) { r.Site = "News.Example.com" }, campaign: "c1"},
		{name: "bundle in bundles", campaigns: both, req: func(r *bidder.Request) { r.Bundle = "com.example.news" }, campaign: "c1"},
		{name: "both match", campaigns: both, req: func(r *bidder.Request) { r.Site, r.Bundle = "news.example.com", "com.example.news" }, campaign: "c1"},
		{name: "site other, bundle in bundles", campaigns: both, req: func(r *bidder.Request) { r.Site, r.Bundle = "x.example", "com.example.news" }, campaign: "c1"},
		{name: "neither", campaigns: both, req: func(r *bidder.Request) { r.Site, r.Bundle = "x.example", "com.x" }, reason: bidder.ReasonNoMatch},
		{name: "no inventory", campaigns: both, reason: bidder.ReasonNoMatch},
		{name: "bundle but only sites listed", campaigns: sitesOnly, req: func(r *bidder.Request) { r.Bundle = "news.example.com" }, reason: bidder.ReasonNoMatch},
		{name: "excluded site", campaigns: excl, req: func(r *bidder.Request) { r.Site = "BAD.example.com" }, reason: bidder.ReasonNoMatch},
		{name: "excluded bundle", campaigns: excl, req: func(r *bidder.Request) { r.Bundle = "com.bad.app" }, reason: bidder.ReasonNoMatch},
		{name: "not excluded", campaigns: excl, req: func(r *bidder.Request) { r.Site, r.Bundle = "good.example.com", "com.good" }, campaign: "c1"},
		{name: "excluded though listed", campaigns: one(func(t *bidder.Targeting) {
			t.Sites, t.ExcludeSites = []string{"a.example"}, []string{"a.example"}
		}), req: func(r *bidder.Request) { r.Site = "a.example" }, reason: bidder.ReasonNoMatch},
	})
}

func TestDecideCategories(t *testing.T) {
	withCats := func(cats ...string) []*bidder.Campaign {
		return []*bidder.Campaign{camp("c1", usd(1), target(func(t *bidder.Targeting) { t.Cats = cats }))}
	}
	withOwnCat := func(cats ...string) []*bidder.Campaign {
		return []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.Cat = cats })}
	}
	cat := func(v string) func(*bidder.Request) { return func(r *bidder.Request) { r.Cat = v } }
	bcat := func(v string) func(*bidder.Request) { return func(r *bidder.Request) { r.BCat = v } }
	runDecideCases(t, []decideCase{
		{name: "cats equal", campaigns: withCats("IAB12"), req: cat("IAB12"), campaign: "c1"},
		{name: "cats covers subcategory", campaigns: withCats("IAB12"), req: cat("IAB12-1"), campaign: "c1"},
		{name: "cats covers deeper", campaigns: withCats("IAB12-1"), req: cat("iab12-1-7"), campaign: "c1"},
		{name: "subcategory does not cover parent", campaigns: withCats("IAB12-1"), req: cat("IAB12"), reason: bidder.ReasonNoMatch},
		{name: "prefix without dash does not cover", campaigns: withCats("IAB1"), req: cat("IAB12"), reason: bidder.ReasonNoMatch},
		{name: "one of several request cats", campaigns: withCats("IAB3"), req: cat("IAB1, IAB3-2,IAB5"), campaign: "c1"},
		{name: "empty items ignored", campaigns: withCats("IAB3"), req: cat(",,IAB3,"), campaign: "c1"},
		{name: "no request cat", campaigns: withCats("IAB3"), reason: bidder.ReasonNoMatch},
		{name: "bcat blocks equal", campaigns: withOwnCat("IAB18"), req: bcat("IAB18"), reason: bidder.ReasonNoMatch},
		{name: "bcat blocks subcategory", campaigns: withOwnCat("IAB18-2"), req: bcat("iab18"), reason: bidder.ReasonNoMatch},
		{name: "bcat sibling does not block", campaigns: withOwnCat("IAB18-2"), req: bcat("IAB18-3"), campaign: "c1"},
		{name: "bcat child does not block parent", campaigns: withOwnCat("IAB18"), req: bcat("IAB18-3"), campaign: "c1"},
		{name: "bcat prefix without dash", campaigns: withOwnCat("IAB18"), req: bcat("IAB1"), campaign: "c1"},
		{name: "bcat any of the campaign's cats", campaigns: withOwnCat("IAB2", "IAB7-1"), req: bcat("IAB9,IAB7"), reason: bidder.ReasonNoMatch},
	})
}

func TestDecideBlockedAdvertisers(t *testing.T) {
	c := []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.ADomain = []string{"shop.example", "acme.example"} })}
	badv := func(v string) func(*bidder.Request) { return func(r *bidder.Request) { r.BAdv = v } }
	runDecideCases(t, []decideCase{
		{name: "blocked", campaigns: c, req: badv("acme.example"), reason: bidder.ReasonNoMatch},
		{name: "blocked any case, in a list", campaigns: c, req: badv("other.example, ACME.Example"), reason: bidder.ReasonNoMatch},
		{name: "not equal", campaigns: c, req: badv("acme"), campaign: "c1"},
		{name: "subdomain is not equal", campaigns: c, req: badv("www.acme.example"), campaign: "c1"},
	})
}

func TestDecideHours(t *testing.T) {
	hours := func(h ...int) []*bidder.Campaign {
		return []*bidder.Campaign{camp("c1", usd(1), target(func(t *bidder.Targeting) { t.Hours = h }))}
	}
	runDecideCases(t, []decideCase{
		{name: "hour in list", campaigns: hours(9, 10), campaign: "c1"}, // testNow is 10:30 UTC
		{name: "hour not in list", campaigns: hours(11, 12), reason: bidder.ReasonNoMatch},
		{name: "hour from ts", campaigns: hours(23), req: func(r *bidder.Request) {
			r.TimeMs = time.Date(2026, 11, 3, 23, 59, 59, 0, time.UTC).UnixMilli()
		}, campaign: "c1"},
	})
}

func TestDecideCreatives(t *testing.T) {
	cr := func(id string, w, h int, secure bool) bidder.Creative {
		return bidder.Creative{ID: id, W: w, H: h, Secure: secure, ImageURL: "https://i.example/x.jpg", ClickURL: "https://c.example/"}
	}
	multi := []*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) {
		c.Creatives = []bidder.Creative{cr("a", 728, 90, false), cr("b", 300, 250, false), cr("c", 300, 250, true), cr("d", 300, 250, true)}
	})}
	runDecideCases(t, []decideCase{
		{name: "first of the size in file order", campaigns: multi, campaign: "c1", creative: "b"},
		{name: "secure request takes the first secure", campaigns: multi, req: func(r *bidder.Request) { r.Secure = true }, campaign: "c1", creative: "c"},
		{name: "other size", campaigns: multi, req: func(r *bidder.Request) { r.W, r.H = 728, 90 }, campaign: "c1", creative: "a"},
		{name: "secure request, no secure creative of the size", campaigns: multi, req: func(r *bidder.Request) { r.W, r.H, r.Secure = 728, 90, true }, reason: bidder.ReasonNoMatch},
		{name: "no creative of the size", campaigns: multi, req: func(r *bidder.Request) { r.W, r.H = 320, 50 }, reason: bidder.ReasonNoMatch},
		{name: "width and height not swapped", campaigns: multi, req: func(r *bidder.Request) { r.W, r.H = 90, 728 }, reason: bidder.ReasonNoMatch},
	})
}

func TestDecideFloorAndWinner(t *testing.T) {
	three := []*bidder.Campaign{camp("c-b", usd(2)), camp("c-a", usd(3)), camp("c-c", usd(1))}
	floor := func(m bidder.Micros) func(*bidder.Request) { return func(r *bidder.Request) { r.Floor = m } }
	runDecideCases(t, []decideCase{
		{name: "highest bid wins", campaigns: three, campaign: "c-a"},
		{name: "floor equal to bid bids", campaigns: three, req: floor(usd(3)), campaign: "c-a"},
		{name: "floor above every bid", campaigns: three, req: floor(usd(3) + 1), reason: bidder.ReasonBelowFloor},
		{name: "tie goes to the smallest id in byte order", campaigns: []*bidder.Campaign{camp("c-9", usd(2)), camp("c-10", usd(2)), camp("c-100", usd(2))}, campaign: "c-10"},
		{name: "targeting before floor", campaigns: []*bidder.Campaign{camp("c1", usd(5), target(func(t *bidder.Targeting) { t.OS = []string{"ios"} }))}, req: floor(usd(10)), reason: bidder.ReasonNoMatch},
	})
}

func TestDecideFrequency(t *testing.T) {
	capped := func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 2, PeriodS: 3600} }
	window := bidder.FreqCap{Impressions: 2, PeriodS: 3600}.Window(testNow.UnixMilli())
	day := bidder.DayOf(testNow.UnixMilli())
	wins := func(uid string, w int64, n int) func(*memory.Ledger) {
		return func(l *memory.Ledger) {
			for range n {
				_ = l.RecordWin(context.Background(), bidder.Win{CampaignID: "c1", Day: day, Price: 1, User: testHashKey.User(uid), PeriodS: 3600, Window: w})
			}
		}
	}
	uid := func(r *bidder.Request) { r.UID = "u1" }
	one := []*bidder.Campaign{camp("c1", usd(2), capped)}
	runDecideCases(t, []decideCase{
		{name: "no uid drops out", campaigns: one, reason: bidder.ReasonFreqCap},
		{name: "under the cap", campaigns: one, req: uid, setup: wins("u1", window, 1), campaign: "c1"},
		{name: "at the cap", campaigns: one, req: uid, setup: wins("u1", window, 2), reason: bidder.ReasonFreqCap},
		{name: "other user's wins", campaigns: one, req: uid, setup: wins("u2", window, 5), campaign: "c1"},
		{name: "previous window", campaigns: one, req: uid, setup: wins("u1", window-1, 5), campaign: "c1"},
		{name: "capped winner yields to the next", campaigns: append(one, camp("c0", usd(1))), setup: wins("u1", window, 2), req: uid, campaign: "c0"},
		{name: "uncapped campaign needs no uid", campaigns: []*bidder.Campaign{camp("c1", usd(2))}, campaign: "c1"},
	})
}

func TestDecideBudget(t *testing.T) {
	budget := func(b bidder.Micros) func(*bidder.Campaign) { return func(c *bidder.Campaign) { c.DailyBudget = b } }
	day := bidder.DayOf(testNow.UnixMilli())
	spent := func(d bidder.Day, m bidder.Micros) func(*memory.Ledger) {
		return func(l *memory.Ledger) {
			_ = l.RecordWin(context.Background(), bidder.Win{CampaignID: "c1", Day: d, Price: m})
		}
	}
	capped1 := func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 3600} }
	// daily budget 10 USD = 10,000,000 micros; × 1000 = 10,000,000,000 CPM micros.
	ten := []*bidder.Campaign{camp("c1", usd(2.5), budget(usd(10)))}
	runDecideCases(t, []decideCase{
		{name: "nothing spent", campaigns: ten, campaign: "c1"},
		{name: "spent + bid equals the budget", campaigns: ten, setup: spent(day, 10_000_000_000-2_500_000), campaign: "c1"},
		{name: "spent + bid above the budget", campaigns: ten, setup: spent(day, 10_000_000_000-2_499_999), reason: bidder.ReasonBudget},
		{name: "yesterday's spend does not count", campaigns: ten, setup: spent(day-1, 10_000_000_000), campaign: "c1"},
		{name: "tiny budget below one bid", campaigns: []*bidder.Campaign{camp("c1", usd(2.5), budget(1000))}, reason: bidder.ReasonBudget},
		{name: "no daily limit", campaigns: []*bidder.Campaign{camp("c1", usd(2.5), budget(bidder.NoDailyLimit))}, setup: spent(day, 1<<50), campaign: "c1"},
		{name: "a zero budget never bids", campaigns: []*bidder.Campaign{camp("c1", usd(2.5), budget(0))}, reason: bidder.ReasonBudget},
		{name: "a zero budget never bids, capped", campaigns: []*bidder.Campaign{camp("c1", usd(2.5), budget(0), capped1)},
			req: func(r *bidder.Request) { r.UID = "u1" }, reason: bidder.ReasonBudget},
		{name: "a zero budget yields to the next", campaigns: []*bidder.Campaign{camp("c1", usd(2.5), budget(0)), camp("c0", usd(1))}, campaign: "c0"},
	})
}

func TestDecideNoBidReasonIsTheLastStage(t *testing.T) {
	capped := func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} }
	broke := func(c *bidder.Campaign) { c.DailyBudget = 1 }
	ios := target(func(t *bidder.Targeting) { t.OS = []string{"ios"} })
	runDecideCases(t, []decideCase{
		{name: "one below floor, one no match", campaigns: []*bidder.Campaign{camp("a", usd(1)), camp("b", usd(9), ios)},
			req: func(r *bidder.Request) { r.Floor = usd(5) }, reason: bidder.ReasonBelowFloor},
		{name: "one below floor, one capped", campaigns: []*bidder.Campaign{camp("a", usd(1)), camp("b", usd(9), capped)},
			req: func(r *bidder.Request) { r.Floor = usd(5) }, reason: bidder.ReasonFreqCap},
		{name: "one capped, one out of budget", campaigns: []*bidder.Campaign{camp("a", usd(9), capped), camp("b", usd(1), broke)}, reason: bidder.ReasonBudget},
		{name: "out of budget ranks before capped", campaigns: []*bidder.Campaign{camp("a", usd(1), capped), camp("b", usd(9), broke)}, reason: bidder.ReasonBudget},
		{name: "many capped", campaigns: manyCampaigns(40, capped), reason: bidder.ReasonFreqCap},
		{name: "many broke but the last", campaigns: append(manyCampaigns(40, broke), camp("z", usd(0.01))), campaign: "z"},
	})
}

func manyCampaigns(n int, mods ...func(*bidder.Campaign)) []*bidder.Campaign {
	var cs []*bidder.Campaign
	for i := range n {
		cs = append(cs, camp("m"+string(rune('A'+i%26))+string(rune('a'+i/26)), usd(5)+bidder.Micros(i), mods...))
	}
	return cs
}

func TestDecideTimeout(t *testing.T) {
	c := []*bidder.Campaign{camp("c1", usd(1))}
	runDecideCases(t, []decideCase{
		{name: "tmax within the safety margin", campaigns: c, req: func(r *bidder.Request) { r.TMax = 5 * time.Millisecond }, reason: bidder.ReasonTimeout},
		{name: "tmax above the margin", campaigns: c, req: func(r *bidder.Request) { r.TMax = 6 * time.Millisecond }, campaign: "c1"},
		{name: "arrived long ago", campaigns: c, req: func(r *bidder.Request) { r.Arrived = testNow.Add(-time.Second) }, reason: bidder.ReasonTimeout},
		{name: "a deadline passed on arrival is shed before matching", campaigns: nil, req: func(r *bidder.Request) { r.TMax = time.Millisecond }, reason: bidder.ReasonTimeout},
	})
}

// TestShed: a request whose deadline passed while it waited is not
// decided at all: nothing is read or kept; one that is still in time is
// decided.
func TestShed(t *testing.T) {
	tests := []struct {
		name    string
		arrived time.Duration // before the engine's clock
		tmax    time.Duration
		shed    bool
	}{
		{"just arrived", 0, 0, false},
		{"waited, still in time", 90 * time.Millisecond, 0, false},
		{"waited to the deadline (default tmax less the margin)", bidder.DefaultTMax - bidder.DefaultSafetyMargin, 0, true},
		{"waited past its own tmax", 60 * time.Millisecond, 50 * time.Millisecond, true},
		{"a long tmax is waited out later", 500 * time.Millisecond, time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ledger, bids := newTestEngine()
			cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(1), func(c *bidder.Campaign) { c.DailyBudget = usd(100) })})
			req := baseRequest()
			req.Arrived, req.TMax = testNow.Add(-tt.arrived), tt.tmax
			d := decide(e, cat, req)
			assert.Equal(t, tt.shed, d.Shed)
			if !tt.shed {
				assert.True(t, d.Bid())
				return
			}
			assert.Equal(t, bidder.ReasonTimeout, d.Reason)
			assert.Zero(t, bids.Len(), "nothing kept")
			st, _, err := ledger.Stats(context.Background(), "c1", "", bidder.DayOf(req.TimeMs))
			require.NoError(t, err)
			assert.Zero(t, st.Bids)
		})
	}
}

func TestDecideKeepsTheBidRecord(t *testing.T) {
	e, ledger, bids := newTestEngine()
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("c1", usd(2.5), func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 60} })})
	req := baseRequest()
	req.UID = "user-7"
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	assert.Equal(t, 1, bids.Len())
	rec, res, err := bids.Claim(context.Background(), d.BidID, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, bidder.Claimed, res)
	assert.Equal(t, bidder.BidRecord{ID: d.BidID, CampaignID: "c1", CreativeID: "c1-a", User: testHashKey.User("user-7"),
		TimeS: req.TimeMs / 1000, Price: usd(2.5), PeriodS: 60}, rec)
	st, ok, err := ledger.Stats(context.Background(), "c1", "", bidder.DayOf(req.TimeMs))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, bidder.DayStats{Bids: 1}, st)

	req.Test = true
	req.UID = "user-8"
	d = decide(e, cat, req)
	require.True(t, d.Bid())
	st, _, _ = ledger.Stats(context.Background(), "c1", "", bidder.DayOf(req.TimeMs))
	assert.Equal(t, int64(1), st.Bids, "test bids are not counted")
	assert.Equal(t, 2, bids.Len(), "test bids are kept")
}

func TestDecideSlotsAreDense(t *testing.T) {
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("a", usd(1)), camp("b", usd(2), func(c *bidder.Campaign) {
		c.Creatives = append(c.Creatives, bidder.Creative{ID: "b-b", W: 320, H: 50, ImageURL: "https://i/", ClickURL: "https://c/"})
	})})
	var slots []string
	cat.EachCreative(func(slot int, c *bidder.Campaign, cr *bidder.Creative) {
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
