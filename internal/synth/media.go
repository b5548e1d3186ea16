package synth

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The campaigns of contract version 3 (MediaCampaigns): video and native
// ads, and banner campaigns that trade in deals.

// mediaCampaignStream selects the PCG stream of MediaCampaigns, apart from
// Campaigns' so that the campaigns before them keep every value.
const mediaCampaignStream uint64 = 0x6d65646961636d70 // "mediacmp"

// The kinds of MediaCampaigns, and how many of each per 1,000 campaigns
// of Campaigns.
const (
	mediaVideo         = iota // video creatives only
	mediaNative               // native creatives only
	mediaDealBanner           // banners, bidding only in deals (open_auction false)
	mediaPremiumBanner        // banners of the premium sizes, in deals and in the open auction
)

var mediaPerMille = [...]int{mediaVideo: 60, mediaNative: 40, mediaDealBanner: 40, mediaPremiumBanner: 20}

// The deals of each kind per 1,000 campaigns: the pools the campaigns of
// that kind draw their deal ids from (a deal is listed by one to a few
// campaigns; a few ids of a pool are listed by none).
var dealsPerMille = [...]int{mediaVideo: 15, mediaNative: 8, mediaDealBanner: 30, mediaPremiumBanner: 10}

// premiumSizes are the banner sizes of the premium campaigns: publishers'
// own large formats (the panorama, the double and triple billboards, the
// top banner), sold mostly in deals. No campaign of Campaigns has them and
// Requests never asks for them, so that a premium campaign, which bids in
// the open auction too, never meets the recbid corpus.
var premiumSizes = []size{{980, 120}, {750, 200}, {750, 300}, {930, 180}}

// MediaCampaigns returns the campaigns that follow the n of Campaigns(n,
// seed) in testdata's campaigns file, with what contract version 3 adds,
// derived from seed on a stream of their own (so that adding them changed
// none of the n). Their ids continue the n's (c-1001, … after 1,000), in
// an order that mixes the kinds. Per 1,000 campaigns of Campaigns there
// are:
//
//   - 60 video campaigns: 1–4 video creatives each (a spot of 6, 15, 30 or
//     60 s, most often 15 or 30, in one or two renditions: 1920x1080,
//     1280x720, 640x360 or 640x480, video/mp4 mostly, video/webm in one in
//     five, at a bitrate fitting the size), in the default VAST version
//     (4.2) for about 7 in 10 campaigns, else "3.0", "4.0" or, rarely,
//     "4.1"; bids 4–20 USD. A third of them also list 1–2 video deals, and
//     a quarter of those bid only in them (open_auction false).
//   - 40 native campaigns: 1–3 native creatives each (a title of up to 140
//     bytes, some with quotes, ampersands or non-ASCII, a few longer than
//     90 characters; a body, absent in a few, longer than 140 characters
//     in some; the advertiser as sponsored; a call to action, absent in
//     some; a 1200x627 main image; an 80x80 icon in most); bids 1–8 USD.
//     A quarter of them list 1–2 native deals.
//   - 40 deal-only banner campaigns (open_auction false) in the common
//     sizes, each listing 1–3 banner deals; bids 3–15 USD.
//   - 20 premium banner campaigns in premiumSizes, listing 1–2 deals and
//     bidding in the open auction as well (open_auction absent, or true in
//     about a third); bids 4–18 USD.
//
// Deal ids are D-0001, D-0002, …, shuffled over the kinds: 30 banner, 10
// premium, 15 video and 8 native deals per 1,000 campaigns (a few listed
// by none). Their targeting is lighter than Campaigns' (countries in about
// 4 in 10, os, device types, page categories or inventory in fewer; a
// campaign in deals, whose deals choose its inventory, countries in about
// 1 in 6 and nothing else), their flights cover the request window but
// for about 1 in 25 (ended), and about 1 in 50 is paused. None of them can change a decision of the recbid
// protocol: the form endpoint serves banners only, a deal-only campaign
// never bids there, and the premium sizes are never asked for.
func MediaCampaigns(n int, seed uint64) []Campaign {
	if n <= 0 {
		return []Campaign{}
	}
	g := newRNG(seed, mediaCampaignStream)
	var kinds []int
	for k, per := range mediaPerMille {
		for range n * per / 1000 {
			kinds = append(kinds, k)
		}
	}
	g.r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	pools := dealPools(g, n)
	width := max(4, len(strconv.Itoa(n+len(kinds))))
	out := make([]Campaign, len(kinds))
	for i, k := range kinds {
		num := fmt.Sprintf("%0*d", width, n+i+1)
		out[i] = mediaCampaign(g, num, k, pools[k])
	}
	return out
}

// dealPools returns the deal ids of each kind: D-0001, … numbered over
// all kinds, dealt out to the kinds in a shuffled order.
func dealPools(g *rng, n int) [len(dealsPerMille)][]string {
	var owner []int
	for k, per := range dealsPerMille {
		for range max(1, n*per/1000) {
			owner = append(owner, k)
		}
	}
	g.r.Shuffle(len(owner), func(i, j int) { owner[i], owner[j] = owner[j], owner[i] })
	var pools [len(dealsPerMille)][]string
	for i, k := range owner {
		pools[k] = append(pools[k], fmt.Sprintf("D-%04d", i+1))
	}
	return pools
}

// mediaCampaign draws one campaign of the given kind.
func mediaCampaign(g *rng, num string, kind int, deals []string) Campaign {
	c, adv := campaignHead(g, num)
	if g.chance(20) {
		c.Status = "paused"
	}
	bids := map[int][2]int64{mediaVideo: {400, 2000}, mediaNative: {100, 800}, mediaDealBanner: {300, 1500}, mediaPremiumBanner: {400, 1800}}[kind]
	c.BidCPM = money(g.between64(bids[0], bids[1]) * 10_000)
	if !g.chance(100) {
		c.DailyBudget = money(int64(g.between(5, 200)) * 100 * MicrosPerUSD)
	}
	c.Start, c.End = mediaFlight(g)
	if g.chance(200) {
		c.FreqCap = &FreqCap{Impressions: g.between(2, 8), PeriodS: pick(g, []int{3600, 86400})}
	}
	no := false
	switch kind {
	case mediaVideo:
		if g.chance(333) {
			c.Deals = sample(g, deals, g.between(1, 2))
			if g.chance(250) {
				c.OpenAuction = &no
			}
		}
	case mediaNative:
		if g.chance(250) {
			c.Deals = sample(g, deals, g.between(1, 2))
		}
	case mediaDealBanner:
		c.Deals = sample(g, deals, g.between(1, 3))
		c.OpenAuction = &no
	case mediaPremiumBanner:
		c.Deals = sample(g, deals, g.between(1, 2))
		if g.chance(333) {
			yes := true
			c.OpenAuction = &yes
		}
	}
	c.Targeting = mediaTargeting(g, adv, kind, len(c.Deals) > 0)
	switch kind {
	case mediaVideo:
		c.Creatives = videoCreatives(g, num, c.ID, c.Adomain[0])
	case mediaNative:
		c.Creatives = nativeCreatives(g, num, c.ID, adv, c.Adomain[0])
	case mediaDealBanner:
		c.Creatives = creatives(g, num, c.ID, c.Adomain)
	default:
		c.Creatives = premiumCreatives(g, num, c.ID, c.Adomain[0])
	}
	return c
}

// mediaFlight returns a flight covering the request window (2026-11-02 to
// 2026-11-09) but for about 1 in 25 that ended in October 2026.
func mediaFlight(g *rng) (start, end string) {
	if g.chance(40) {
		s := flightBase.AddDate(0, 0, 260+g.between(0, 14))
		return s.Format(time.RFC3339), s.AddDate(0, 0, g.between(14, 30)).Format(time.RFC3339)
	}
	if g.chance(150) {
		return "", ""
	}
	s := flightBase.AddDate(0, 0, g.between(0, 300))
	e := flightBase.AddDate(1, 0, g.between(0, 364))
	return s.Format(time.RFC3339), e.Format(time.RFC3339)
}

// mediaTargeting is a lighter targeting than Campaigns': countries in about
// 4 in 10 campaigns, os, device types (connected TVs for some videos),
// page categories and inventory in fewer; a campaign in deals, whose
// deals choose its inventory, has countries in about 1 in 6 and no other
// list.
func mediaTargeting(g *rng, adv advertiser, kind int, inDeals bool) Targeting {
	var t Targeting
	if inDeals {
		if g.chance(170) {
			t.Countries = []string{countries[g.weighted(countryWeights)].code}
		}
		return t
	}
	if g.chance(400) {
		chosen := map[string]bool{}
		for k := g.between(1, 4); len(chosen) < k; {
			chosen[countries[g.weighted(countryWeights)].code] = true
		}
		for _, c := range countries {
			if chosen[c.code] {
				t.Countries = append(t.Countries, c.code)
			}
		}
	}
	if g.chance(150) {
		t.OS = pick(g, [][]string{{"android", "ios"}, {"android"}, {"ios"}})
	}
	if kind == mediaVideo && g.chance(100) {
		t.Devtypes = []int{3, 7} // connected TVs and set-top boxes
	} else if g.chance(150) {
		t.Devtypes = pick(g, [][]int{{1, 4, 5}, {4}, {2}, {2, 4, 5}})
		if len(t.OS) > 0 && contains(t.Devtypes, 2) && len(t.Devtypes) == 1 {
			t.Devtypes = []int{1, 4, 5}
		}
	}
	if g.chance(150) {
		t.Cats = targetCats(g, adv)
	}
	if g.chance(100) {
		t.Sites = names(sample(g, sites, g.between(3, 8)))
		t.Bundles = names(sample(g, bundles, g.between(3, 8)))
	}
	return t
}

// The renditions of video creatives, weighted, with their bitrate range in
// kbps.
var videoSizes = []struct {
	s      size
	lo, hi int
	weight int
}{
	{size{1920, 1080}, 4500, 8000, 25},
	{size{1280, 720}, 2000, 4500, 35},
	{size{640, 360}, 500, 1200, 25},
	{size{640, 480}, 600, 1500, 15},
}

// videoCreatives returns 1–4 video creatives: one or two spots, each in
// one or two renditions.
func videoCreatives(g *rng, num, cid, dom string) []Creative {
	version := []string{"", "3.0", "4.0", "4.1"}[g.weighted([]int{72, 15, 10, 3})]
	secure := g.chance(900)
	scheme := "https"
	if !secure && g.chance(500) {
		scheme = "http"
	}
	ws := make([]int, len(videoSizes))
	for i, v := range videoSizes {
		ws[i] = v.weight
	}
	var out []Creative
	durations := []int{6, 15, 30, 60}
	first := durations[g.weighted([]int{10, 35, 45, 10})]
	spots := []int{first}
	if g.chance(400) {
		if d := durations[g.weighted([]int{15, 50, 25, 10})]; d != first {
			spots = append(spots, d)
		}
	}
	for _, d := range spots {
		renditions := 1 + g.weighted([]int{55, 45})
		var used []int
		for range renditions {
			k := g.weighted(ws)
			if contains(used, k) {
				continue
			}
			used = append(used, k)
			v := videoSizes[k]
			mime, ext := "video/mp4", "mp4"
			if g.chance(200) {
				mime, ext = "video/webm", "webm"
			}
			crid := fmt.Sprintf("cr-%s-%c", num, 'a'+len(out))
			out = append(out, Creative{
				ID: crid, Type: "video", W: v.s.w, H: v.s.h, Secure: secure,
				DurationS: d, Mime: mime,
				MediaURL:    fmt.Sprintf("%s://cdn.%s/video/%ds/%dx%d/%s.%s", scheme, dom, d, v.s.w, v.s.h, g.hex(16), ext),
				BitrateKbps: g.between(v.lo/100, v.hi/100) * 100,
				VASTVersion: version,
				ClickURL:    landingURL(scheme, dom, cid, crid, "video"),
			})
		}
	}
	return out
}

// premiumCreatives returns 1–2 secure banners in the premium sizes.
func premiumCreatives(g *rng, num, cid, dom string) []Creative {
	var out []Creative
	for i, s := range sample(g, premiumSizes, g.between(1, 2)) {
		crid := fmt.Sprintf("cr-%s-%c", num, 'a'+i)
		out = append(out, Creative{
			ID: crid, W: s.w, H: s.h, Secure: true,
			ImageURL: imageURL(g, "https", dom, s),
			ClickURL: clickURL("https", dom, cid, crid),
		})
	}
	return out
}

// nativeTitles are native ads' titles; %s is the advertiser's name. Some
// carry quotes, ampersands and non-ASCII text, and a few are longer than
// the 90 characters many native requests allow.
var nativeTitles = []string{
	"%s: Winter Sale, Up to 50% Off",
	"Why Everyone Is Talking About %s",
	`The "Smart" Way to Save on Everyday Essentials`,
	"Save 20% & Get Free Shipping Today",
	"%s: New Arrivals Are Here",
	"7 Tips for a Better Morning Routine",
	"Book Now, Pay Later: Weekend Getaways from $199",
	"Neu bei %s: Jetzt entdecken & sparen",
	"Réservez vos vacances d’été dès maintenant",
	"Ofertas de verano: hasta 50 % de descuento",
	"限时特惠：全场五折起",
	"日本旅行の新しい楽しみ方を見つけよう",
	"Try It Free for 30 Days. No Credit Card Needed",
	"Local Experts Reveal the Best Hiking Trails of 2026",
	"Rates Just Dropped: Compare Offers in Minutes",
	`"I Wish I'd Found This Sooner": Readers on %s`,
	"Tested & Approved: The Gear Our Editors Actually Use",
	"Everything You Need to Know Before Booking Your Next Family Holiday: Prices, Dates, Fees and the Best Time to Go",
	"%s Presents: The Complete Guide to Cooking at Home with Seasonal Ingredients, Tried & Tested by Our Chefs",
	"Çok satanlar şimdi indirimde",
	"Smart Savings <Today Only>",
}

// nativeBodies are native ads' descriptions; a few are longer than the
// 140 characters many requests allow for one.
var nativeBodies = []string{
	"Discover the collection everyone is talking about. Free returns within 30 days.",
	"Fresh, seasonal and delivered to your door: order by 2 pm for same-day delivery.",
	"Compare plans in minutes & switch without paperwork. Terms apply.",
	"Über 10.000 zufriedene Kunden. Jetzt ansehen und bis zu 30 % sparen.",
	"Des prix exceptionnels sur une sélection de produits, pour une durée limitée.",
	`Rated "excellent" by 12,000 customers. See why.`,
	"现在下单，享受免费送货。",
	"Join over a million members who get exclusive offers, early access to sales and free delivery on every order, all year round, with no minimum spend.",
	"From city breaks to beach escapes, find the trip that suits you, with flexible dates, free cancellation on most stays and prices that include every fee.",
	"Short and sweet.",
}

// nativeCTAs are calls to action; "" is none.
var nativeCTAs = []string{"Shop now", "Learn more", "Book now", "Install", "Get a quote", "Sign up", "Jetzt kaufen", "En savoir plus", "Descubrir", "立即购买", ""}

// nativeCreatives returns 1–3 native creatives.
func nativeCreatives(g *rng, num, cid string, adv advertiser, dom string) []Creative {
	secure := g.chance(900)
	scheme := "https"
	if !secure && g.chance(500) {
		scheme = "http"
	}
	k := 1 + g.weighted([]int{40, 40, 20})
	var out []Creative
	for i := range k {
		title := strings.ReplaceAll(pick(g, nativeTitles), "%s", adv.name)
		if len(title) > 140 { // an advertiser's long name: cut at a space
			title = title[:max(1, strings.LastIndexByte(title[:140], ' '))]
		}
		crid := fmt.Sprintf("cr-%s-%c", num, 'a'+i)
		cr := Creative{
			ID: crid, Type: "native", Secure: secure,
			Title:     title,
			Sponsored: adv.name,
			ImageURL:  fmt.Sprintf("%s://cdn.%s/native/1200x627/%s.jpg", scheme, dom, g.hex(16)),
			ImageW:    1200, ImageH: 627,
			ClickURL: landingURL(scheme, dom, cid, crid, "native"),
		}
		if !g.chance(100) {
			cr.Body = pick(g, nativeBodies)
		}
		cr.CTA = pick(g, nativeCTAs)
		if g.chance(800) {
			cr.IconURL = fmt.Sprintf("%s://cdn.%s/native/icon-80.png", scheme, dom)
			cr.IconW, cr.IconH = 80, 80
		}
		out = append(out, cr)
	}
	return out
}

// landingURL is clickURL with another utm_medium.
func landingURL(scheme, dom, cid, crid, medium string) string {
	return fmt.Sprintf("%s://%s/landing?src=dsp&cid=%s&crid=%s&utm_source=dsp&utm_medium=%s", scheme, dom, cid, crid, medium)
}
