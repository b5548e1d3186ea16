package synth

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// broadEvery makes every broadEvery-th campaign, starting with the first, a
// broad one (see broadCampaign), so that any campaign set of realistic size
// has a few campaigns that most requests, PostData included, can win.
const broadEvery = 100

// nicheOffset makes every broadEvery-th campaign, starting with the
// nicheOffset-th, a niche one (see nicheCampaign).
const nicheOffset = 50

// The creative sizes of the niche campaigns, which no other campaign has, so
// that a request for one of them can only be won by a niche campaign.
var (
	nicheCappedSize = size{234, 60}
	nicheBudgetSize = size{120, 240}
)

// Campaigns returns n realistic campaigns derived from seed. The ids run
// c-0001, c-0002, … zero-padded to the width of n (at least 4 digits), so they
// sort in byte order as they do numerically. Every campaign passes the
// validation rules of section 2 of the contract.
func Campaigns(n int, seed uint64) []Campaign {
	if n <= 0 {
		return []Campaign{}
	}
	g := newRNG(seed, campaignStream)
	width := max(4, len(strconv.Itoa(n)))
	cs := make([]Campaign, n)
	for i := range cs {
		num := fmt.Sprintf("%0*d", width, i+1)
		switch i % broadEvery {
		case 0:
			cs[i] = broadCampaign(g, num)
		case nicheOffset:
			cs[i] = nicheCampaign(g, num, i/broadEvery%2 == 0)
		default:
			cs[i] = randomCampaign(g, num)
		}
	}
	return cs
}

// campaignHead draws a campaign's advertiser and what comes with it: its
// domains and categories, active; the caller draws the rest.
func campaignHead(g *rng, num string) (Campaign, advertiser) {
	adv := pick(g, advertisers)
	return Campaign{
		ID:         "c-" + num,
		Advertiser: adv.name,
		Adomain:    adomains(g, adv),
		Cat:        adCats(g, adv),
		Status:     "active",
	}, adv
}

// randomCampaign draws one campaign with realistic proportions of every option.
func randomCampaign(g *rng, num string) Campaign {
	c, adv := campaignHead(g, num)
	if g.chance(100) {
		c.Status = "paused"
	}
	c.BidCPM = money(bidMicros(g))
	c.DailyBudget = dailyBudget(g)
	c.Start, c.End = flight(g)
	if g.chance(300) {
		c.FreqCap = &FreqCap{Impressions: g.between(1, 10), PeriodS: pick(g, []int{3600, 21600, 86400})}
	}
	c.Targeting = targeting(g, adv)
	c.Creatives = creatives(g, num, c.ID, c.Adomain)
	return c
}

// broadCampaign is a campaign that targets only a few countries, CN among
// them, with secure creatives in the common sizes, no frequency cap, a large
// budget and a flight covering 2026 and 2027.
func broadCampaign(g *rng, num string) Campaign {
	adv := pick(g, advertisers)
	c := Campaign{
		ID:          "c-" + num,
		Advertiser:  adv.name,
		Adomain:     []string{adv.slug + "." + adv.tlds[0]},
		Cat:         []string{adv.cat},
		Status:      "active",
		BidCPM:      money(int64(g.between(50, 300)) * 10_000),
		DailyBudget: money(int64(g.between(10, 50)) * 1000 * MicrosPerUSD),
		Start:       "2026-01-01T00:00:00Z",
		End:         "2028-01-01T00:00:00Z",
	}
	others := make([]string, 0, len(countries)-1)
	for _, k := range countries[1:] {
		others = append(others, k.code)
	}
	c.Targeting.Countries = append([]string{"CN"}, sample(g, others, g.between(2, 4))...)
	dom := c.Adomain[0]
	for i, s := range []size{{300, 250}, {320, 50}, {728, 90}, {320, 480}, {300, 600}, {320, 100}} {
		crid := fmt.Sprintf("cr-%s-%c", num, 'a'+i)
		c.Creatives = append(c.Creatives, Creative{
			ID: crid, W: s.w, H: s.h, Secure: true,
			ImageURL: imageURL(g, "https", dom, s),
			ClickURL: clickURL("https", dom, c.ID, crid),
		})
	}
	return c
}

// nicheCampaign is a campaign that alone buys one app and one site in a size
// no other campaign has: the requests aimed at it (see Requests) end at its
// frequency cap when they carry no user id (capped), or at its budget, which
// is smaller than one bid (not capped).
func nicheCampaign(g *rng, num string, capped bool) Campaign {
	adv := pick(g, advertisers)
	c := Campaign{
		ID:         "c-" + num,
		Advertiser: adv.name,
		Adomain:    []string{adv.slug + "." + adv.tlds[0]},
		Cat:        []string{adv.cat},
		Status:     "active",
		BidCPM:     money(int64(g.between(50, 300)) * 10_000),
		Start:      "2026-01-01T00:00:00Z",
		End:        "2028-01-01T00:00:00Z",
	}
	c.Targeting.Sites = []string{"offers-" + num + ".example.com"}
	c.Targeting.Bundles = []string{"com.example.offers" + num}
	s := nicheBudgetSize
	if capped {
		s = nicheCappedSize
		c.FreqCap = &FreqCap{Impressions: 3, PeriodS: 86400}
		c.DailyBudget = money(int64(g.between(100, 900)) * MicrosPerUSD)
	} else {
		c.DailyBudget = money(pick(g, tinyBudgets))
	}
	crid := fmt.Sprintf("cr-%s-a", num)
	dom := c.Adomain[0]
	c.Creatives = []Creative{{
		ID: crid, W: s.w, H: s.h, Secure: true,
		ImageURL: imageURL(g, "https", dom, s),
		ClickURL: clickURL("https", dom, c.ID, crid),
	}}
	return c
}

// adomains returns 1–3 of the advertiser's domains, the main one first.
func adomains(g *rng, adv advertiser) []string {
	k := min(1+g.weighted([]int{65, 25, 10}), len(adv.tlds))
	out := make([]string, k)
	for i := range out {
		out[i] = adv.slug + "." + adv.tlds[i]
	}
	return out
}

// adCats returns the ad's 1–2 IAB categories, built around the advertiser's.
func adCats(g *rng, adv advertiser) []string {
	top := catTop(adv.cat)
	switch g.weighted([]int{45, 25, 10, 20}) {
	case 0:
		return []string{adv.cat}
	case 1:
		if sub := subcat(g, top); sub != adv.cat {
			return []string{adv.cat, sub}
		}
		return []string{adv.cat}
	case 2:
		return []string{subcat(g, top)}
	default:
		other := "IAB" + strconv.Itoa(pick(g, contentTops))
		if other == adv.cat {
			return []string{adv.cat}
		}
		return []string{adv.cat, other}
	}
}

// catTop returns the top-level number of an IAB category: "IAB12-3" → 12.
func catTop(cat string) int {
	s, _, _ := strings.Cut(strings.TrimPrefix(cat, "IAB"), "-")
	n, _ := strconv.Atoi(s)
	return n
}

// subcat returns a random subcategory of IAB<top>, or IAB<top> itself when
// it has none.
func subcat(g *rng, top int) string {
	n := iabSubcats[top-1]
	if n == 0 {
		return "IAB" + strconv.Itoa(top)
	}
	return fmt.Sprintf("IAB%d-%d", top, g.between(1, n))
}

// bidMicros returns a CPM between 0.20 and 12.00 USD with 2–4 fractional
// digits, most of them between 0.50 and 3.00.
func bidMicros(g *rng) int64 {
	tiers := [][2]int64{{200_000, 1_000_000}, {1_000_000, 3_000_000}, {3_000_000, 6_000_000}, {6_000_000, 12_000_000}}
	t := tiers[g.weighted([]int{35, 40, 17, 8})]
	quantum := []int64{10_000, 1_000, 100}[g.weighted([]int{60, 25, 15})]
	return g.between64(t[0]/quantum, t[1]/quantum) * quantum
}

// tinyBudgets are daily budgets so small that budget×1000 is below the lowest
// possible bid_cpm (0.20 USD): such a campaign always drops at the budget stage.
var tinyBudgets = []int64{100, 50, 1}

// dailyBudget returns no budget (absent: no daily limit) for ~20 % of
// campaigns, a tiny one for ~5 %, and 50–5000 USD for the rest. (Version 1
// of the contract read "0" as no limit too, and this wrote it for 8 % of
// them; now 0 stops a campaign, so the weights keep the draws the same and
// the file's other campaigns unchanged.)
func dailyBudget(g *rng) json.Number {
	switch g.weighted([]int{12, 8, 5, 75}) {
	case 0, 1:
		return ""
	case 2:
		return money(pick(g, tinyBudgets))
	}
	switch g.weighted([]int{70, 20, 10}) {
	case 0:
		return money(int64(g.between(1, 100)) * 50 * MicrosPerUSD)
	case 1:
		return money(int64(g.between(50, 5000)) * MicrosPerUSD)
	default:
		return money(g.between64(5_000, 500_000) * 10_000)
	}
}

// Flight calendar.
var (
	utc8       = time.FixedZone("", 8*3600)
	flightBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// flight returns a campaign's start and end: none for ~20 %, already over by
// 2026-11-01 for ~5 %, not yet started for ~3 %, open-ended for ~3 %, and for
// the rest a start in 2026-01-01..2026-11-01 and an end in 2027..2028.
func flight(g *rng) (start, end string) {
	loc := time.UTC
	if g.chance(50) {
		loc = utc8
	}
	day := func(y int, m time.Month, d, addDays int) time.Time {
		t := time.Date(y, m, d, 0, 0, 0, 0, loc).AddDate(0, 0, addDays)
		if g.chance(150) {
			t = t.Add(time.Duration(g.between(1, 23)) * time.Hour)
		}
		return t
	}
	format := func(t time.Time) string { return t.Format(time.RFC3339) }
	switch g.weighted([]int{20, 5, 3, 3, 69}) {
	case 0:
		return "", ""
	case 1: // ended: starts 2025-06-01..2026-07-31, runs 14–90 days
		s := day(2025, time.June, 1, g.between(0, 425))
		e := s.AddDate(0, 0, g.between(14, 90))
		return format(s), format(e)
	case 2: // scheduled: starts 2026-11-15..2027-02-01
		s := day(2026, time.November, 15, g.between(0, 78))
		e := day(2027, time.March, 1, g.between(0, 670))
		return format(s), format(e)
	case 3: // open-ended
		return format(day(2026, time.January, 1, g.between(0, 304))), ""
	default:
		s := day(2026, time.January, 1, g.between(0, 304))
		e := day(2027, time.January, 1, g.between(0, 730))
		return format(s), format(e)
	}
}

// targeting fills each targeting list with a realistic probability.
func targeting(g *rng, adv advertiser) Targeting {
	var t Targeting
	if g.chance(600) {
		geoTargeting(g, &t)
	}
	if g.chance(400) {
		t.OS = osTargets[g.weighted(osTargetWeights)]
	}
	if g.chance(300) {
		for range 10 {
			t.Devtypes = devtypeTargets[g.weighted(devtypeTargetWeights)]
			if devtypesFit(t.OS, t.Devtypes) {
				break
			}
		}
	}
	if g.chance(250) {
		kind := g.weighted([]int{40, 40, 20})
		if len(t.OS) > 0 && !contains(t.OS, "android") && !contains(t.OS, "ios") {
			kind = 0 // desktop systems buy sites only
		}
		if kind != 1 {
			t.Sites = names(sample(g, sites, g.between(2, 10)))
		}
		if kind != 0 {
			t.Bundles = names(sample(g, bundles, g.between(2, 10)))
		}
	}
	if g.chance(100) {
		kind := g.weighted([]int{40, 40, 20})
		if kind != 1 {
			t.ExcludeSites = names(sample(g, without(sites, t.Sites), g.between(1, 5)))
		}
		if kind != 0 {
			t.ExcludeBundles = names(sample(g, without(bundles, t.Bundles), g.between(1, 5)))
		}
	}
	if g.chance(350) {
		t.Cats = targetCats(g, adv)
	}
	if g.chance(200) {
		t.Hours = expandHours(pick(g, dayparts))
	}
	return t
}

// geoTargeting sets 1–4 countries and, sometimes, regions and cities inside
// them; countries are narrowed to those of the regions or cities chosen so that
// the lists stay consistent.
func geoTargeting(g *rng, t *Targeting) {
	k := 1 + g.weighted([]int{45, 30, 15, 10})
	chosen := map[string]bool{}
	for len(chosen) < k {
		chosen[countries[g.weighted(countryWeights)].code] = true
	}
	var cc []country
	for _, c := range countries {
		if chosen[c.code] {
			cc = append(cc, c)
		}
	}
	if g.chance(250) { // regions, in one or two of the countries
		cc = sample(g, cc, g.between(1, 2))
		for _, c := range cc {
			t.Regions = append(t.Regions, sample(g, c.regions, g.between(1, 3))...)
		}
	}
	if g.chance(170) { // cities, inside the regions if any, else the countries
		var candidates []city
		for _, ct := range cities {
			if contains(t.Regions, ct.region) || (len(t.Regions) == 0 && hasCountry(cc, regionCountry(ct.region))) {
				candidates = append(candidates, ct)
			}
		}
		picked := sample(g, candidates, g.between(1, 3))
		if len(picked) > 0 {
			var regions []string
			inCity := map[string]bool{}
			for _, ct := range picked {
				t.Cities = append(t.Cities, ct.name)
				if !contains(regions, ct.region) {
					regions = append(regions, ct.region)
				}
				inCity[regionCountry(ct.region)] = true
			}
			if len(t.Regions) > 0 {
				t.Regions = regions
			}
			var narrowed []country
			for _, c := range cc {
				if inCity[c.code] {
					narrowed = append(narrowed, c)
				}
			}
			cc = narrowed
		}
	}
	for _, c := range cc {
		t.Countries = append(t.Countries, c.code)
	}
}

// devtypesFit reports whether a devtype list can meet an os list: desktop
// systems need 2, mobile ones 1, 4 or 5.
func devtypesFit(oses []string, devtypes []int) bool {
	if len(oses) == 0 {
		return true
	}
	for _, os := range oses {
		for _, d := range devtypes {
			if (contains(desktopOSes, os) && d == 2) || (contains(mobileOSes, os) && (d == 1 || d == 4 || d == 5)) {
				return true
			}
		}
	}
	return false
}

// targetCats returns 1–3 page categories, often including the advertiser's.
func targetCats(g *rng, adv advertiser) []string {
	var out []string
	if g.chance(500) {
		out = append(out, "IAB"+strconv.Itoa(catTop(adv.cat)))
	}
	for k := g.between(1, 3); len(out) < k; {
		c := "IAB" + strconv.Itoa(pick(g, contentTops))
		if g.chance(300) {
			c = subcat(g, catTop(c))
		}
		if !contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// creatives returns 1–4 creatives in realistic sizes, ids cr-<num>-a, -b, ….
func creatives(g *rng, num, cid string, doms []string) []Creative {
	k := 1 + g.weighted([]int{30, 35, 20, 15})
	out := make([]Creative, 0, k)
	var used []size
	for i := range k {
		s := creativeSizes[g.weighted(creativeSizeWeights)]
		for try := 0; try < 10 && containsSize(used, s) && !g.chance(100); try++ {
			s = creativeSizes[g.weighted(creativeSizeWeights)]
		}
		used = append(used, s)
		dom := doms[0]
		if g.chance(200) {
			dom = pick(g, doms)
		}
		secure := g.chance(700)
		imgScheme, clickScheme := "https", "https"
		if !secure {
			if g.chance(600) {
				imgScheme = "http"
			}
			if g.chance(500) {
				clickScheme = "http"
			}
		}
		crid := fmt.Sprintf("cr-%s-%c", num, 'a'+i)
		out = append(out, Creative{
			ID: crid, W: s.w, H: s.h, Secure: secure,
			ImageURL: imageURL(g, imgScheme, dom, s),
			ClickURL: clickURL(clickScheme, dom, cid, crid),
		})
	}
	return out
}

// imageURL returns a CDN image URL for a creative of size s.
func imageURL(g *rng, scheme, dom string, s size) string {
	ext := []string{"jpg", "png", "gif"}[g.weighted([]int{75, 20, 5})]
	return fmt.Sprintf("%s://cdn.%s/img/%dx%d/%s.%s", scheme, dom, s.w, s.h, g.hex(16), ext)
}

// clickURL returns a landing page URL with the usual tracking parameters.
func clickURL(scheme, dom, cid, crid string) string {
	return fmt.Sprintf("%s://%s/landing?src=dsp&cid=%s&crid=%s&utm_source=dsp&utm_medium=display", scheme, dom, cid, crid)
}

func names(items []inventoryItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.name)
	}
	return out
}

// without returns the items whose names are not in drop.
func without(items []inventoryItem, drop []string) []inventoryItem {
	var out []inventoryItem
	for _, it := range items {
		if !contains(drop, it.name) {
			out = append(out, it)
		}
	}
	return out
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func containsSize(xs []size, s size) bool { return contains(xs, s) }

func hasCountry(cc []country, code string) bool {
	for _, c := range cc {
		if c.code == code {
			return true
		}
	}
	return false
}
