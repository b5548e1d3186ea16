package synth

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ExchangeTraffic returns n OpenRTB BidRequests shaped like the traffic real
// exchanges send, one line of JSON each, built from the recbid bodies (as
// Requests writes them; line i of the output starts from body i mod
// len(bodies)), so that their targeting meets the generated campaigns.
//
// Beside what OpenRTB translates, each request carries what the OpenRTB 2.6
// object model lets an exchange add and dspd does not need: site or app
// with publisher and content, several banner formats, pmp deals (some in
// private auctions), source.schain, user.eids, the ext blocks of several
// exchanges (Prebid's among them), and further impressions that are video,
// native or audio. Floors come in USD, EUR, GBP, JPY, CAD and, rarely, SEK
// (which CurrencyFile has no rate for), some written with the binary noise
// of a float ("0.8500000000000001").
//
// Its impressions are then rewritten so that the video, native and deal
// campaigns of cs meet them (see "Video, native and deals" below); cs
// holds Campaigns' and MediaCampaigns' campaigns, and gives the rewrite
// its deals.
//
// About one request in eight carries one malformed optional field, of the
// kinds real traffic has: a comma for a dot in site.domain, test 2, a
// country name for a code, geo as an array, an overlong user id, numbers
// as strings and strings as numbers, a user that is not an object… None
// touches what a bidder needs to decide and pay (ids, impressions, sizes,
// floors, currencies): every request is one a lenient bidder serves.
//
// # Privacy signals
//
// The requests carry privacy signals package consent reads, TC strings and
// GPP strings built field by field with package consenttest, for the vendor
// id GVLVendorID. They are drawn from a random stream of their own, apart
// from the one every other field is drawn from, so that adding them changed
// no other field's value; where they go follows the places that stream
// chooses:
//
//   - regs, in 7 requests in 10: in the OpenRTB 2.6 places in half of them,
//     in 2.5's regs.ext in the others. regs.gdpr is the body's: 1 for the
//     requests from GB, DE, FR, ES and IT (about 15% of all requests), 0
//     elsewhere.
//   - GDPR: a request with gdpr=1 carries a TC string (version 2,
//     IsServiceSpecific, TcfPolicyVersion 5, created on a day of 2026, a
//     CMP id and a screen language of the publisher's country) whose vendor
//     sections are a CMP's list of about 200 vendors, scattered over ids
//     1–1350 in two lists in three, in runs in the others, each section
//     written in whichever encoding is shorter (bit field or ranges), and
//     a Disclosed Vendors segment in 4 in 5. Of these strings: 70% full
//     consent (Purposes 1–10 consented, legitimate interest for 2 and
//     7–10, consent and legitimate interest for GVLVendorID: consented);
//     8% "reject all" (no purpose and no vendor consent, Purpose 2
//     legitimate-interest transparency and GVLVendorID's legitimate
//     interest: a contextual bid, no_purpose1); 8% GVLVendorID in neither
//     vendor section (no bid, no_vendor); 4% full consent with a publisher
//     restriction of type 0 on Purpose 2 for a range holding GVLVendorID
//     (no bid, restricted); 5% full consent but for Purpose 1 (a contextual
//     bid, no_purpose1); 5% malformed (no bid): truncated within the core
//     segment (3 in 5), global-scope (IsServiceSpecific 0) or version 1.
//     The TC string is in user.consent with regs in the 2.6 places, or, in
//     28% of those requests, instead in regs.gpp's EU TCF section (gpp_sid
//     [2]); in user.ext.consent with regs in regs.ext. A request from those
//     countries without regs carries its TC string in user.consent or
//     user.ext.consent, where the generator puts a consent string (about
//     half of them), or none: with no regs.gdpr, the TC string says that
//     GDPR applies. Requests without gdpr=1 carry no TC string. A request
//     whose user a malformed field replaces has lost its TC string.
//   - us_privacy, in every regs: "1---" where gdpr=1; elsewhere 45% "1YNN",
//     45% "1---", 10% "1YYN" (an opt-out of sale).
//   - GPP, in 28% of the regs in the 2.6 places (about 10% of requests):
//     where gdpr=1, the EU TCF section above; elsewhere a US National
//     section (gpp_sid [7]), version 1 or 2 in equal shares, every notice
//     given, opting out of sale and of targeted advertising in 30% of
//     them, with a GPC subsection (GPC not set) in half of them, and in a
//     third of them preceded by a uspv1 section holding the request's
//     us_privacy (gpp_sid [6, 7]).
//   - regs.coppa: 1 in 1.5% of the regs (about 1% of requests), else 0.
//   - device.lmt, written where the body has lmt (app requests with an
//     advertising id, about 4 in 10): 1 in 12% of them (about 5% of
//     requests). device.dnt, written in one request in five: 1 in a quarter
//     of them (5%).
//
// Decided with consent.New(consent.Config{VendorID: GVLVendorID}), the 2,000
// requests of testdata/openrtb/exchange.jsonl come out as: no_gdpr 1,431,
// consented 222, no_purpose1 43, no_vendor 29, restricted 10, malformed 27,
// usp_optout 98, gpp_optout 41, coppa 16, lmt 83 (no_purpose2 0); that is
// 1,653 bids with user-level processing, 281 contextual bids and 66 no
// bids.
//
// # Video, native and deals
//
// The impressions are rewritten once the request is built, from a random
// stream of their own (mediaStream), so that every other field keeps the
// value it had before the rewrite existed. Of the 2,830 impressions of the 2,000 requests of
// testdata/openrtb/exchange.jsonl, 2,062 (73%) are banners, 432 (15%)
// videos, 298 (11%) native ads and 38 audio; 1,388 requests (69%) hold
// banners only (1,557 before the rewrite).
//
//   - The first impression, the body's banner, becomes a video in 7.5% of
//     the requests (in one in ten of those beside its banner: a
//     multi-format slot, which dspd decides as a banner) and a native ad in
//     3.5%; six in ten of the further video and native impressions are
//     drawn anew the same way.
//   - A video: mimes (video/mp4 in most lists, with video/webm, HLS,
//     3GPP; VPAID's application/javascript alone in a few; none in a
//     handful), minduration–maxduration bounds, rqddurs or only a maximum,
//     protocols (VAST 2.0–4.0 with wrappers, all of them, up to 3.0, 3.0
//     only, 4.x only, 2.0 only, wrappers only: nothing dspd can answer, or
//     none listed), a player of 4:3, 16:9, vertical 320x480, 300x250 or no
//     size, startdelay, plcmt (and 2.5's placement in some), linearity 1
//     (2, an overlay, in 5%), skip, bitrate bounds in some, playbackmethod,
//     api and pos.
//   - A native ad: a Native 1.2 request as a JSON string (as OpenRTB 2.x
//     has it) in 85%, else the object itself, a few of them wrapped as
//     1.0's {"native":…} or in ver 1.1: a title (len 90, 140, 60, 25, 120
//     or none), a main image (img type 3: at least 300x250, 1200x627 or
//     627x627, exactly 1200x627 or 600x314, or any size), an icon (type 1:
//     exactly 80x80 or at least 50x50), data assets sponsored (type 1),
//     description (2), call to action (12) and rating (3, which dspd never
//     fills), each required or not, a video asset in a few; asset ids from
//     1, 0 or 101; eventtrackers for impressions by img and js, by img, or
//     none.
//   - Deals: an impression gets one of cs's deals of its kind (5% of the
//     banners, 15% of the videos, 9% of the native ads), with up to two
//     deals of others (ids no campaign lists, some shaped as cs's, or cs's
//     deals of another kind), added to the pmp it had (12% of the banners
//     carry one of others' deals) or in a new one (private_auction 1 in
//     45%, 0 in 35%, absent in 20%). The deal's floor is 30–110% of its
//     campaigns' best bid (40–105% at a fixed price), in USD in 70%, else
//     EUR or GBP, absent in some; its at is absent, 1, 2 or 3 (a fixed
//     price, always with a floor); a quarter have a wseat (["dsp"],
//     dspd's seat and another, or another's alone), 15% a wadomain (a
//     domain of the deal's campaigns, or others'). A banner is then
//     offered one of the deal's sizes in 9 in 10, a video is made for one
//     of the deal's spots in 8 in 10 (its mime, its duration within the
//     bounds, every protocol, its size or none), a native ad gets a
//     standard in-feed request in 6 in 10. Of the 2,830 impressions, 444
//     (16%) carry deals, 187 (7%) one of cs's.
//   - Premium sizes: 2.5% of the banners without such a deal offer one of
//     the premium campaigns' sizes among their formats, in the open
//     auction.
func ExchangeTraffic(n int, seed uint64, bodies []string, cs []Campaign) ([]string, error) {
	return exchangeTraffic(n, seed, bodies, cs, true)
}

// exchangeTraffic is ExchangeTraffic, without the rewrite of the
// impressions (the video, native and deal ones) unless media.
func exchangeTraffic(n int, seed uint64, bodies []string, cs []Campaign, media bool) ([]string, error) {
	if n <= 0 || len(bodies) == 0 {
		return []string{}, nil
	}
	g := newRNG(seed, exchangeStream)
	p := newRNG(seed, privacyStream)
	m := newRNG(seed, mediaStream)
	book := dealBook(cs)
	out := make([]string, n)
	for i := range out {
		q, err := url.ParseQuery(bodies[i%len(bodies)])
		if err != nil {
			return nil, fmt.Errorf("body %d: %w", i%len(bodies)+1, err)
		}
		x := exchangeGen{g: g, q: q, priv: drawPrivacy(p, q)}
		r := x.request()
		if media {
			x.rewriteMedia(r, m, book)
		}
		if g.chance(125) {
			x.malform(r)
		}
		if u, ok := r.get("user").(*obj); ok && len(*u) == 0 {
			r.remove("user")
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// exchangeStream selects the PCG stream of ExchangeTraffic.
const exchangeStream uint64 = 0x65786368616e6765 // "exchange"

// The currency rates of CurrencyFile, as conversions[from][to] literals.
// EUR and GBP floors convert by their own USD rate, the others by the
// inverse of USD's.
var exchangeRates = []struct{ from, to, rate string }{
	{"USD", "USD", "1"}, {"USD", "EUR", "0.9263914"}, {"USD", "GBP", "0.78219473"}, {"USD", "JPY", "151.873"},
	{"USD", "CAD", "1.38612"}, {"USD", "AUD", "1.53271"}, {"USD", "CHF", "0.8791"},
	{"EUR", "EUR", "1"}, {"EUR", "USD", "1.0794573829"}, {"EUR", "GBP", "0.8443"}, {"EUR", "JPY", "163.94"},
	{"GBP", "GBP", "1"}, {"GBP", "USD", "1.2784543"}, {"GBP", "EUR", "1.18441"},
}

// CurrencyFile returns the rates ExchangeTraffic's floors are written in,
// as a currency file in Prebid's format (dspd -currency-rates).
func CurrencyFile() string {
	var conv obj
	for _, r := range exchangeRates {
		conv.child(r.from).set(r.to, json.Number(r.rate))
	}
	f := obj{{"dataAsOf", "2026-11-01"}, {"generatedAt", "2026-11-01T12:00:03.118Z"}, {"conversions", &conv}}
	b, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// exchangeGen builds one request from one recbid body.
type exchangeGen struct {
	g    *rng
	q    url.Values
	priv privacy // the request's privacy signals (privacy.go)

	userPlace string // where user() would have put a consent string: "consent", "ext" or ""
}

func (x *exchangeGen) request() *obj {
	g, get := x.g, x.q.Get
	r := &obj{}
	r.set("id", pick(g, []string{uuid(g), g.hex(32), get("id")}))
	imps := []any{x.bannerImp("1", get("w"), get("h"), true)}
	for k := 2; g.chance(300) && k <= 4; k++ {
		id := strconv.Itoa(k)
		switch g.weighted([]int{35, 35, 25, 5}) {
		case 0:
			s := creativeSizes[g.weighted(creativeSizeWeights)]
			imps = append(imps, x.bannerImp(id, strconv.Itoa(s.w), strconv.Itoa(s.h), false))
		case 1:
			imps = append(imps, x.videoImp(id))
		case 2:
			imps = append(imps, x.nativeImp(id))
		default:
			imps = append(imps, x.audioImp(id))
		}
	}
	r.set("imp", imps)
	app := get("bundle") != "" && get("site") == ""
	if app {
		r.set("app", x.app())
	} else {
		r.set("site", x.site())
	}
	r.set("device", x.device(app))
	u := x.user()
	r.set("user", u) // removed by ExchangeTraffic if it stays empty
	r.set("at", pick(g, []int{1, 1, 1, 2}))
	if t := get("tmax"); t != "" {
		r.set("tmax", json.Number(t))
	} else {
		r.set("tmax", pick(g, []int{300, 500, 800, 1000, 1500}))
	}
	switch g.weighted([]int{80, 10, 8, 2}) {
	case 0:
		r.set("cur", []string{"USD"})
	case 2:
		r.set("cur", []string{"USD", "EUR"})
	case 3:
		r.set("cur", []string{"EUR"}) // a buyer in USD cannot bid
	}
	if t := get("test"); t != "" {
		r.set("test", json.Number(t))
	}
	if l := list(get("bcat")); len(l) > 0 {
		r.set("bcat", l)
	}
	if l := list(get("badv")); len(l) > 0 {
		r.set("badv", l)
	}
	if g.chance(200) {
		r.set("bapp", []string{"com.example.casino", "com.example.dating"})
	}
	if g.chance(300) {
		r.set("wlang", []string{pick(g, []string{"en", "de", "fr", "es", "ja", "zh"})})
	}
	r.set("source", x.source())
	if g.chance(700) {
		r.set("regs", x.regs())
	}
	if e := x.requestExt(); e != nil {
		r.set("ext", e)
	}
	x.placeConsent(r, u)
	return r
}

// placeConsent writes the request's TC string where its regs say GDPR
// applies: in user.consent with regs in the 2.6 place (unless regs.gpp
// carries it), in user.ext.consent with regs in the 2.5 place, and without
// regs where user() chose to put a consent string, if it did.
func (x *exchangeGen) placeConsent(r, u *obj) {
	tc := x.priv.tc
	if tc == "" {
		return
	}
	place := x.userPlace
	if regs, ok := r.get("regs").(*obj); ok {
		place = "ext"
		if regs.get("gdpr") != nil {
			place = "consent"
			if regs.get("gpp") != nil {
				return // in the EU TCF section
			}
		}
	}
	switch place {
	case "consent":
		u.insertBefore("consent", tc, "eids", "ext", "data")
	case "ext":
		if e, ok := u.get("ext").(*obj); ok {
			*e = append(obj{{"consent", tc}}, *e...)
		} else {
			u.insertBefore("ext", &obj{{"consent", tc}}, "data")
		}
	}
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// bannerImp writes a banner impression of size w×h: as format[] (with up to
// three other sizes of the slot), as w/h, or both; first carries the body's
// floor, secure flag and slot position.
func (x *exchangeGen) bannerImp(id, w, h string, first bool) *obj {
	g, get := x.g, x.q.Get
	imp := &obj{{"id", id}}
	banner := &obj{}
	formats := []any{obj{{"w", json.Number(w)}, {"h", json.Number(h)}}}
	for k := g.intn(4); k > 0; k-- {
		s := creativeSizes[g.weighted(creativeSizeWeights)]
		formats = append(formats, obj{{"w", s.w}, {"h", s.h}})
	}
	switch g.weighted([]int{50, 20, 30}) {
	case 0:
		banner.set("format", formats)
	case 1:
		banner.set("w", json.Number(w))
		banner.set("h", json.Number(h))
	default:
		banner.set("w", json.Number(w))
		banner.set("h", json.Number(h))
		banner.set("format", formats)
	}
	if p := get("pos"); p != "" && first {
		banner.set("pos", json.Number(p))
	}
	if g.chance(400) {
		banner.set("api", []int{3, 5, 6, 7}[:g.between(1, 4)])
	}
	if g.chance(300) {
		banner.set("battr", []int{1, 3, 8, 9, 10, 14})
	}
	if g.chance(200) {
		banner.set("topframe", g.intn(2))
	}
	imp.set("banner", banner)
	if get("bundle") != "" && get("site") == "" {
		imp.set("displaymanager", pick(g, []string{"PrebidMobile", "GoogleMobileAds", "AppLovin"}))
		imp.set("displaymanagerver", fmt.Sprintf("%d.%d.%d", g.between(1, 22), g.intn(10), g.intn(10)))
		imp.set("instl", pick(g, []int{0, 0, 0, 1}))
	}
	imp.set("tagid", pick(g, []string{"div-gpt-ad-" + strconv.Itoa(g.between(1000000, 9999999)) + "-0", "/" +
		strconv.Itoa(g.between(1000, 99999)) + "/" + pick(g, []string{"home", "article", "sports"}) + "/" +
		pick(g, []string{"top", "mid", "sidebar"}), "slot-" + id}))
	if first {
		x.floor(imp, get("floor"), get("cur"))
		if s := get("secure"); s != "" {
			imp.set("secure", json.Number(s))
		}
	} else if g.chance(500) {
		x.floor(imp, FormatMicros(g.between64(1, 150)*10_000), "")
	}
	if g.chance(120) {
		imp.set("pmp", x.pmp())
	}
	imp.set("exp", pick(g, []int{300, 3600, 7200}))
	imp.set("ext", x.impExt(id))
	return imp
}

// floor writes a floor in USD (as the body has it, or with a float's noise)
// or converted to another currency; a body's non-USD currency is kept as it
// is, with its floor.
func (x *exchangeGen) floor(imp *obj, usd, cur string) {
	g := x.g
	if usd == "" {
		return
	}
	if cur != "" && !strings.EqualFold(cur, "USD") {
		imp.set("bidfloor", json.Number(usd))
		imp.set("bidfloorcur", cur)
		return
	}
	micros, ok := parseMicros(usd)
	if !ok || micros == 0 {
		imp.set("bidfloor", json.Number(usd))
		return
	}
	// USD to CUR: micros × rate, in the currency's usual precision.
	to := func(code string, rate, places int64) {
		v := micros * rate / 1_000_000 // rate in millionths
		scale := int64(1)
		for range 6 - places {
			scale *= 10
		}
		imp.set("bidfloor", json.Number(formatMicrosFixed(v/scale*scale, int(places))))
		imp.set("bidfloorcur", code)
	}
	switch g.weighted([]int{66, 10, 15, 4, 2, 2, 1}) {
	case 0:
		imp.set("bidfloor", json.Number(usd))
		if g.chance(300) {
			imp.set("bidfloorcur", "USD")
		}
	case 1: // a float's noise: 0.85 written as 0.8500000000000001
		s := formatMicrosFixed(micros, 6) + "0000000001"
		imp.set("bidfloor", json.Number(s))
		imp.set("bidfloorcur", "USD")
	case 2:
		to("EUR", 926391, 2)
	case 3:
		to("GBP", 782195, 2)
	case 4:
		to("JPY", 151873000, 0)
	case 5:
		to("CAD", 1386120, 2)
	default:
		to("SEK", 10650000, 2) // no rate: no bid
	}
}

func (x *exchangeGen) pmp() *obj {
	g := x.g
	deals := []any{}
	for k := g.between(1, 3); k > 0; k-- {
		d := obj{{"id", "deal-" + g.hex(8)}, {"bidfloor", json.Number(FormatMicros(g.between64(100, 2000) * 10_000))},
			{"bidfloorcur", "USD"}, {"at", pick(g, []int{1, 3})}}
		if g.chance(500) {
			d.set("wseat", []string{"seat-" + g.hex(4)})
		}
		deals = append(deals, d)
	}
	return &obj{{"private_auction", pick(g, []int{0, 0, 1})}, {"deals", deals}}
}

func (x *exchangeGen) impExt(id string) *obj {
	g := x.g
	e := &obj{}
	switch g.weighted([]int{40, 20, 20, 20}) {
	case 0: // Prebid's
		slot := "/" + strconv.Itoa(g.between(1000, 99999)) + "/slot-" + id
		e.set("gpid", slot)
		e.set("data", obj{{"pbadslot", slot}, {"adserver", obj{{"name", "gam"}, {"adslot", slot}}}})
		e.set("prebid", obj{{"bidder", obj{{"dspd", obj{}}}}, {"storedrequest", obj{{"id", "sr-" + g.hex(6)}}}})
	case 1:
		e.set("exchange_b", obj{{"zone", g.between(1, 99999)}, {"ad_type", "display"}})
	case 2:
		e.set("skadn", obj{{"version", "4.0"}, {"versions", []string{"2.0", "2.1", "2.2", "3.0", "4.0"}},
			{"sourceapp", strconv.Itoa(g.between(100000000, 999999999))}, {"skadnetids", []string{g.hex(10) + ".skadnetwork"}}})
	}
	e.set("tid", uuid(g))
	return e
}

func (x *exchangeGen) videoImp(id string) *obj {
	g := x.g
	v := obj{{"mimes", []string{"video/mp4", "video/webm", "application/javascript"}}, {"minduration", 5},
		{"maxduration", pick(g, []int{15, 30, 60})}, {"protocols", []int{2, 3, 5, 6, 7, 8}}, {"w", 640}, {"h", 480},
		{"startdelay", 0}, {"plcmt", pick(g, []int{1, 2, 4})}, {"linearity", 1}, {"skip", g.intn(2)},
		{"playbackmethod", []int{pick(g, []int{1, 2, 6})}}, {"api", []int{1, 2, 7}}}
	return &obj{{"id", id}, {"video", v}, {"bidfloor", json.Number(FormatMicros(g.between64(100, 1500) * 10_000))},
		{"bidfloorcur", "USD"}, {"secure", 1}}
}

func (x *exchangeGen) nativeImp(id string) *obj {
	g := x.g
	req := `{"ver":"1.2","context":1,"plcmttype":1,"plcmtcnt":1,"assets":[{"id":1,"required":1,"title":{"len":90}},` +
		`{"id":2,"required":1,"img":{"type":3,"wmin":300,"hmin":250}},{"id":3,"data":{"type":2,"len":140}}]}`
	return &obj{{"id", id}, {"native", obj{{"request", req}, {"ver", "1.2"}, {"api", []int{3}}}},
		{"bidfloor", json.Number(FormatMicros(g.between64(10, 200) * 10_000))}, {"secure", 1}}
}

func (x *exchangeGen) audioImp(id string) *obj {
	g := x.g
	return &obj{{"id", id}, {"audio", obj{{"mimes", []string{"audio/mp4", "audio/mpeg"}}, {"minduration", 5},
		{"maxduration", 30}, {"protocols", []int{2, 3}}, {"feed", pick(g, []int{1, 3})}}}}
}

func (x *exchangeGen) site() *obj {
	g, get := x.g, x.q.Get
	domain := get("site")
	s := &obj{{"id", "site-" + g.hex(6)}, {"name", strings.TrimSuffix(domain, ".example")}}
	s.setIf("domain", domain)
	if cat := list(get("cat")); len(cat) > 0 {
		s.set("cat", cat)
		if g.chance(300) {
			s.set("sectioncat", cat[:1])
		}
	}
	page := get("page")
	if page == "" && domain != "" {
		page = "https://" + domain + "/"
	}
	s.setIf("page", page)
	s.setIf("ref", get("ref"))
	s.set("publisher", obj{{"id", "pub-" + g.hex(6)}, {"name", strings.TrimSuffix(domain, ".example") + " media"},
		{"domain", domain}})
	if g.chance(400) {
		s.set("content", obj{{"language", pick(g, []string{"en", "de", "fr", "es"})},
			{"keywords", "news,weather,sport"}})
	}
	s.set("mobile", pick(g, []int{0, 1}))
	if g.chance(300) {
		s.set("privacypolicy", 1)
	}
	s.set("ext", obj{{"amp", 0}})
	return s
}

func (x *exchangeGen) app() *obj {
	g, get := x.g, x.q.Get
	bundle := get("bundle")
	a := &obj{{"id", "app-" + g.hex(6)}}
	a.setIf("name", get("app_name"))
	a.set("bundle", bundle)
	if strings.HasPrefix(bundle, "com.") || strings.HasPrefix(bundle, "net.") {
		a.set("storeurl", "https://play.example/store/apps/details?id="+bundle)
	}
	if cat := list(get("cat")); len(cat) > 0 {
		a.set("cat", cat)
	}
	a.set("ver", fmt.Sprintf("%d.%d", g.between(1, 9), g.intn(20)))
	a.set("publisher", obj{{"id", "pub-" + g.hex(6)}})
	if g.chance(300) {
		a.set("paid", 0)
	}
	return a
}

func (x *exchangeGen) device(app bool) *obj {
	g, get := x.g, x.q.Get
	d := &obj{}
	d.setIf("ua", get("ua"))
	if !app && g.chance(300) {
		d.set("sua", obj{{"source", 2}, {"platform", obj{{"brand", "Android"}, {"version", []string{"13"}}}},
			{"browsers", []any{obj{{"brand", "Chromium"}, {"version", []string{"128", "0"}}}}}, {"mobile", 1}})
	}
	d.setIf("ip", get("ip"))
	country, region := openrtbGeo(x.q, g.chance(200))
	if country != "" || get("city") != "" {
		geo := &obj{}
		if lat := get("lat"); lat != "" {
			geo.set("lat", json.Number(lat))
			geo.set("lon", json.Number(get("lon")))
		}
		geo.set("type", pick(g, []int{1, 2, 2}))
		geo.setIf("country", country)
		geo.setIf("region", region)
		geo.setIf("city", get("city"))
		if g.chance(300) {
			geo.set("zip", strconv.Itoa(g.between(10000, 99999)))
		}
		if g.chance(200) {
			geo.set("utcoffset", pick(g, []int{-480, -300, 0, 60, 480, 540}))
		}
		d.set("geo", geo)
	}
	if g.chance(200) {
		d.set("dnt", x.priv.dnt)
	}
	if l := get("lmt"); l != "" {
		d.set("lmt", x.priv.lmt)
	}
	if t := get("devtype"); t != "" {
		d.set("devicetype", json.Number(t))
	}
	d.setIf("make", get("make"))
	d.setIf("model", get("model"))
	if os := get("os"); os != "" {
		// Exchanges write operating systems as names, in any case.
		if name, ok := osNames[os]; ok && g.chance(300) {
			os = name
		}
		d.set("os", os)
	}
	d.setIf("osv", get("osv"))
	if g.chance(400) {
		d.set("w", pick(g, []int{390, 412, 1920, 1440}))
		d.set("h", pick(g, []int{844, 915, 1080, 900}))
		d.set("pxratio", json.Number(pick(g, []string{"1", "2", "2.625", "3"})))
	}
	d.set("js", 1)
	d.setIf("language", get("lang"))
	d.setIf("carrier", get("carrier"))
	if c := get("connectiontype"); c != "" {
		d.set("connectiontype", json.Number(c))
	}
	if ifa := get("ifa"); ifa != "" {
		d.set("ifa", ifa)
		d.set("ext", obj{{"ifa_type", pick(g, []string{"aaid", "idfa", "ppid"})}, {"atts", pick(g, []int{0, 3})}})
	}
	return d
}

func (x *exchangeGen) user() *obj {
	g, get := x.g, x.q.Get
	u := &obj{}
	if uid := get("uid"); uid != "" {
		if g.chance(250) {
			u.set("buyeruid", uid)
		} else {
			u.set("id", uid)
		}
	}
	if g.chance(200) {
		u.set("yob", g.between(1950, 2008))
	}
	// The draws of the random consent string the corpus once carried, kept
	// so that every field drawn after them keeps its value: the TC strings
	// are the privacy stream's (placeConsent).
	g.chars(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
	eids := []any{}
	for _, src := range sample(g, []string{"idgraph-a.example", "idgraph-b.example", "pubcid.example", "uid2.example"}, g.intn(4)) {
		eids = append(eids, obj{{"source", src}, {"uids", []any{obj{{"id", g.hex(24)}, {"atype", pick(g, []int{1, 3})}}}}})
	}
	if g.chance(500) { // OpenRTB 2.6
		if g.chance(500) {
			x.userPlace = "consent"
		}
		if len(eids) > 0 {
			u.set("eids", eids)
		}
	} else if g.chance(600) { // 2.5, in ext
		x.userPlace = "ext"
		if len(eids) > 0 {
			u.set("ext", &obj{{"eids", eids}})
		}
	}
	if g.chance(150) {
		u.set("data", []any{obj{{"id", "dmp-" + g.hex(4)}, {"name", "segments.example"},
			{"segment", []any{obj{{"id", strconv.Itoa(g.between(1, 999))}}}}}})
	}
	return u
}

func (x *exchangeGen) source() *obj {
	g := x.g
	nodes := []any{}
	for k := g.between(1, 3); k > 0; k-- {
		nodes = append(nodes, obj{{"asi", pick(g, []string{"exchange-a.example", "exchange-b.example", "reseller.example"})},
			{"sid", strconv.Itoa(g.between(1000, 999999))}, {"hp", 1}, {"rid", g.hex(16)}})
	}
	schain := obj{{"complete", pick(g, []int{0, 1, 1})}, {"ver", "1.0"}, {"nodes", nodes}}
	s := &obj{{"tid", uuid(g)}}
	if g.chance(400) {
		s.set("fd", 1)
	}
	if g.chance(500) {
		s.set("schain", schain) // 2.6
	} else {
		s.set("ext", obj{{"schain", schain}}) // 2.5
	}
	return s
}

// regs writes the body's gdpr and the request's privacy signals, in the
// 2.6 places or the 2.5 ext ones; GPP only in the 2.6 ones.
func (x *exchangeGen) regs() *obj {
	g, get, s := x.g, x.q.Get, &x.priv
	gdpr := 0
	if get("gdpr") == "1" {
		gdpr = 1
	}
	// The draws of the random us_privacy and GPP values the corpus once
	// carried, kept so that every field drawn after them keeps its value.
	g.intn(4)
	if g.chance(500) { // 2.6
		r := &obj{{"coppa", s.coppa}, {"gdpr", gdpr}, {"us_privacy", s.usp}}
		if g.chance(400) {
			g.intn(3)
		}
		if s.gpp != "" {
			r.set("gpp", s.gpp)
			r.set("gpp_sid", s.gppSID)
		}
		return r
	}
	return &obj{{"coppa", s.coppa}, {"ext", obj{{"gdpr", gdpr}, {"us_privacy", s.usp}}}} // 2.5
}

func (x *exchangeGen) requestExt() *obj {
	g := x.g
	switch g.weighted([]int{40, 20, 20, 20}) {
	case 0:
		return &obj{{"prebid", obj{{"channel", obj{{"name", "web"}, {"version", "9.20.0"}}}, {"debug", false},
			{"targeting", obj{{"includewinners", true}, {"pricegranularity", "medium"}}},
			{"cache", obj{{"bids", obj{}}}}}}}
	case 1:
		return &obj{{"exchange_b", obj{{"is_secure", 1}, {"pub_id", strconv.Itoa(g.between(1, 9999))}}}}
	case 2:
		return &obj{{"exchange_c", obj{{"auction_id", g.hex(20)}, {"ssp", "exchange-c.example"}}}, {"wt", 1}}
	}
	return nil
}

// malform breaks one optional field of r, as real traffic does.
func (x *exchangeGen) malform(r *obj) {
	g := x.g
	site, _ := r.get("site").(*obj)
	app, _ := r.get("app").(*obj)
	dev := r.child("device")
	geo, _ := dev.get("geo").(*obj)
	for try := 0; try < 10; try++ {
		switch g.intn(18) {
		case 0:
			if site == nil || site.get("domain") == nil {
				continue
			}
			site.set("domain", strings.Replace(site.get("domain").(string), ".", ",", 1)) // a typo
		case 1:
			if site == nil || site.get("domain") == nil {
				continue
			}
			site.set("domain", "https://"+site.get("domain").(string)+"/") // a URL for a domain
		case 2:
			r.set("test", pick(g, []any{2, "1", true, -1}))
		case 3:
			if geo == nil {
				continue
			}
			geo.set("country", pick(g, []any{"United States", "U.S.", 840, "us "}))
		case 4:
			dev.set("geo", pick(g, []any{[]any{}, "USA", 7}))
		case 5:
			r.child("user").set("id", strings.Repeat(g.hex(8), 25)) // 200 bytes
		case 6:
			if app == nil {
				continue
			}
			app.set("bundle", g.between(100000000, 999999999)) // an App Store id as a number
		case 7:
			dev.set("devicetype", strconv.Itoa(g.between(1, 7))) // a number as a string
		case 8:
			r.set("tmax", pick(g, []any{0, "500", 120000, 99.5}))
		case 9:
			dev.set("os", pick(g, []any{7, true, "i O S"}))
		case 10:
			if site == nil {
				continue
			}
			site.set("cat", pick(g, []any{"IAB12", 12, []any{"IAB12", 1, nil}}))
		case 11:
			r.set("bcat", []any{"IAB25", 26, "IAB7-39", obj{}}) // numbers among the strings
		case 12:
			imp := r.get("imp").([]any)[0].(*obj)
			imp.set("secure", pick(g, []any{true, "1", 2}))
		case 13:
			dev.set("ua", g.between(1, 1000))
		case 14:
			r.set("user", pick(g, []any{"u-1", []any{}, 5}))
		case 15:
			if geo == nil {
				continue
			}
			geo.set("region", pick(g, []any{5, "Île-de-France", []any{"CA"}}))
		case 16:
			if geo == nil {
				continue
			}
			geo.set("city", strings.Repeat("Llanfairpwllgwyngyll", 15)) // 300 bytes
		default:
			if site == nil {
				continue
			}
			site.set("page", obj{{"url", "https://x.example/"}})
		}
		return
	}
}

// osNames are operating systems as some exchanges write them.
var osNames = map[string]string{"ios": "iOS", "android": "Android", "windows": "Windows", "macos": "macOS", "linux": "Linux"}

// openrtbGeo returns a body's country in ISO 3166-1 alpha-3 (when it is one
// of the generated countries) and its region without the country prefix, as
// OpenRTB writes them (prefixed when keepPrefix).
func openrtbGeo(q url.Values, keepPrefix bool) (country, region string) {
	c, region := q.Get("country"), q.Get("region")
	country = c
	if a3, ok := alpha3[strings.ToUpper(c)]; ok {
		country = a3
	}
	if prefix := c + "-"; c != "" && !keepPrefix && len(region) > len(prefix) && strings.EqualFold(region[:len(prefix)], prefix) {
		region = region[len(prefix):]
	}
	return country, region
}
