package synth

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The request window: every generated request has a ts in [TSStart, TSEnd),
// so decisions depend only on the request and the server's state, never on
// the clock.
const (
	// TSStart is 2026-11-02T00:00:00Z in Unix milliseconds, the first ts.
	TSStart int64 = 1_793_577_600_000
	// TSEnd is 2026-11-09T00:00:00Z in Unix milliseconds, just past the last ts.
	TSEnd int64 = 1_794_182_400_000
)

// request is one bid request before encoding. Empty strings and zero ints
// are absent keys.
type request struct {
	id, impID, tmax, test, secure string
	ts                            int64
	w, h                          int
	floor                         string
	floorMicros                   int64
	cur                           string
	site, bundle                  string
	cat, bcat, badv               []string
	os                            string
	devtype                       int
	country, region, city         string
	emptyRegion, emptyCity        bool
	uid                           string
}

// target is a campaign that targeted requests are built for, with its flight
// clipped to the request window, in Unix milliseconds.
type target struct {
	c      *Campaign
	lo, hi int64
	bid    int64
}

// requestGen holds what request generation draws on besides the word lists.
type requestGen struct {
	g        *rng
	sizes    []size   // creative sizes of the campaigns, with multiplicity
	adomains []string // advertiser domains of the campaigns
	uids     []string // the user population
	hot      []string // heavy users, a small part of uids seen many times a day
	targets  []target // active campaigns in flight during the window
	niches   []target // the niche campaigns (see nicheCampaign)
}

// Requests returns n url-encoded bid request bodies derived from seed, keys in
// a fixed realistic order. About 60 % are app and 40 % web traffic; slot sizes
// mostly come from the creatives of cs; about 10 % copy the targeting of an
// active, in-flight campaign of cs so that they can win it. Every body has a
// ts in [TSStart, TSEnd).
func Requests(n int, seed uint64, cs []Campaign) []string {
	if n <= 0 {
		return []string{}
	}
	rg := newRequestGen(newRNG(seed, requestStream), n, cs)
	out := make([]string, n)
	for i := range out {
		r := rg.base()
		switch k := rg.g.intn(1000); {
		case k < 30 && len(rg.niches) > 0:
			rg.aimNiche(&r, pick(rg.g, rg.niches))
		case k < 36 && len(rg.targets) > 0:
			// An exchange in a hurry: a tmax within dspd's default 5 ms
			// safety margin makes a request that could bid time out.
			rg.aim(&r, rg.targets[rg.g.intn(len(rg.targets))])
			r.tmax = pick(rg.g, []string{"3", "4", "5"})
		case k < 136 && len(rg.targets) > 0:
			rg.aim(&r, rg.targets[rg.g.intn(len(rg.targets))])
		}
		out[i] = rg.encode(&r)
	}
	return out
}

// newRequestGen collects the sizes, domains and targets of cs and draws a
// user population for n requests.
func newRequestGen(g *rng, n int, cs []Campaign) *requestGen {
	rg := &requestGen{g: g}
	seen := map[string]bool{}
	for i := range cs {
		c := &cs[i]
		for _, cr := range c.Creatives {
			rg.sizes = append(rg.sizes, size{cr.W, cr.H})
		}
		for _, d := range c.Adomain {
			if !seen[d] {
				seen[d] = true
				rg.adomains = append(rg.adomains, d)
			}
		}
		if t, ok := targetOf(c); ok {
			rg.targets = append(rg.targets, t)
			if isNiche(c) {
				rg.niches = append(rg.niches, t)
			}
		}
	}
	rg.uids = make([]string, max(20, n/4))
	for i := range rg.uids {
		rg.uids[i] = rg.uid()
	}
	rg.hot = rg.uids[:max(5, n/200)]
	return rg
}

// user picks a user id: about a third of the time one of the heavy users,
// who come back several times a day and so run into frequency caps.
func (rg *requestGen) user() string {
	if rg.g.chance(300) {
		return pick(rg.g, rg.hot)
	}
	return pick(rg.g, rg.uids)
}

// targetOf reports whether c is active and in flight at some time of the
// request window, and returns it with its flight clipped to the window.
// Tiny-budget campaigns qualify: the requests aimed at them exercise the
// budget stage.
func targetOf(c *Campaign) (target, bool) {
	t := target{c: c, lo: TSStart, hi: TSEnd}
	bid, ok := parseMicros(string(c.BidCPM))
	if !ok || c.Status != "active" || len(c.Creatives) == 0 {
		return t, false
	}
	t.bid = bid
	if c.Start != "" {
		s, err := time.Parse(time.RFC3339, c.Start)
		if err != nil {
			return t, false
		}
		t.lo = max(t.lo, s.UnixMilli())
	}
	if c.End != "" {
		e, err := time.Parse(time.RFC3339, c.End)
		if err != nil {
			return t, false
		}
		t.hi = min(t.hi, e.UnixMilli())
	}
	return t, t.lo < t.hi
}

// uid returns a user id as exchanges send them: a device advertising id, a
// hex or base64 cookie id, or an exchange's own token; 16–40 characters.
func (rg *requestGen) uid() string {
	g := rg.g
	switch g.weighted([]int{35, 15, 25, 15, 10}) {
	case 0: // Android advertising id
		return uuid(g)
	case 1: // iOS IDFA
		return strings.ToUpper(uuid(g))
	case 2:
		return g.hex(32)
	case 3: // base64 cookie id, may contain '+', '/' and '='
		b := make([]byte, g.between(12, 27))
		for i := range b {
			b[i] = byte(g.intn(256))
		}
		return base64.StdEncoding.EncodeToString(b)
	default:
		return "u_" + g.chars(g.between(14, 38), "abcdefghijklmnopqrstuvwxyz0123456789")
	}
}

// uuid returns a random version 4 UUID in lowercase.
func uuid(g *rng) string {
	h := g.hex(32)
	variant := "89ab"[g.intn(4)]
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + string(variant) + h[17:20] + "-" + h[20:]
}

// base draws a request without regard to any campaign.
func (rg *requestGen) base() request {
	g := rg.g
	var r request
	if g.chance(500) {
		r.id = g.hex(32)
	} else {
		r.id = uuid(g)
	}
	switch g.weighted([]int{70, 10, 20}) {
	case 0:
		r.impID = "1"
	case 1:
		r.impID = "2"
	default:
		r.impID = pick(g, []string{"imp-", "i", "slot_", ""}) + g.chars(g.between(3, 8), "abcdefghijklmnopqrstuvwxyz0123456789")
	}
	switch g.weighted([]int{51, 34, 10, 5}) {
	case 0:
		r.tmax = pick(g, []string{"100", "120", "150", "200", "250", "300"})
	case 1:
		r.tmax = strconv.Itoa(g.between(100, 300))
	case 3:
		r.tmax = pick(g, []string{"500", "800", "1000"})
	}
	r.ts = TSStart + g.r.Int64N(TSEnd-TSStart)
	switch g.weighted([]int{1, 20, 79}) {
	case 0:
		r.test = "1"
	case 1:
		r.test = "0"
	}
	switch g.weighted([]int{50, 20, 30}) {
	case 0:
		r.secure = "1"
	case 1:
		r.secure = "0"
	}
	var s size
	switch common := g.chance(700); {
	case common && len(rg.sizes) > 0:
		s = pick(g, rg.sizes)
	case common:
		s = creativeSizes[g.weighted(creativeSizeWeights)]
	default:
		s = pick(g, uncommonSizes)
	}
	r.w, r.h = s.w, s.h
	rg.floor(&r)
	switch g.weighted([]int{70, 28, 1, 1}) {
	case 1:
		r.cur = "USD"
	case 2:
		r.cur = "EUR"
	case 3:
		r.cur = "CNY"
	}

	var inv inventoryItem
	if g.chance(600) { // app
		inv = pick(g, bundles)
		r.bundle = inv.name
		r.os = mobileOSes[g.weighted([]int{65, 35})]
		r.devtype = []int{4, 5, 1}[g.weighted([]int{70, 15, 15})]
	} else { // web
		inv = pick(g, sites)
		r.site = inv.name
		r.os = allOSes[g.weighted([]int{25, 15, 40, 15, 5})]
		r.devtype = 4
		if contains(desktopOSes, r.os) {
			r.devtype = 2
		}
	}
	if g.chance(900) {
		r.cat = pageCats(g, inv.cat)
	}
	if g.chance(300) {
		r.bcat = sample(g, blockedCats, g.between(1, 4))
	}
	if len(rg.adomains) > 0 && g.chance(150) {
		r.badv = sample(g, rg.adomains, g.between(1, 3))
	}

	if g.chance(900) {
		c := countries[g.weighted(countryWeights)]
		r.country = c.code
		if g.chance(440) {
			r.region = pick(g, c.regions)
			if cs := citiesIn(c.code, r.region); len(cs) > 0 && g.chance(500) {
				r.city = pick(g, cs).name
			}
		} else if cs := citiesIn(c.code, ""); g.chance(70) {
			r.city = pick(g, cs).name
		}
	}
	r.emptyRegion = r.region == "" && g.chance(30)
	r.emptyCity = r.city == "" && g.chance(30)
	if g.chance(750) {
		r.uid = rg.user()
	}
	return r
}

// floor sets a floor: absent or 0 on ~10 %, 10–50 USD on ~8 %, else 0.05–2.00
// USD with at most 4 fractional digits, sometimes written with a trailing zero
// ("1.50") as some exchanges do.
func (rg *requestGen) floor(r *request) {
	g := rg.g
	switch g.weighted([]int{10, 8, 82}) {
	case 0:
		r.floorMicros = 0
		r.floor = ""
		if g.chance(200) {
			r.floor = "0"
		}
	case 1:
		r.floorMicros = g.between64(1_000, 5_000) * 10_000
		r.floor = FormatMicros(r.floorMicros)
	default:
		quantum := []int64{10_000, 1_000, 100}[g.weighted([]int{50, 30, 20})]
		r.floorMicros = g.between64(50_000/quantum, 2_000_000/quantum) * quantum
		r.floor = FormatMicros(r.floorMicros)
		if quantum == 10_000 && g.chance(300) {
			r.floor = formatMicrosFixed(r.floorMicros, 2)
		}
	}
}

// pageCats returns 1–3 page categories around an inventory item's category.
func pageCats(g *rng, cat string) []string {
	top := "IAB" + strconv.Itoa(catTop(cat))
	var out []string
	switch {
	case cat != top && g.chance(600):
		out = []string{top, cat}
	case cat == top && g.chance(400):
		out = []string{top, subcat(g, catTop(top))}
	default:
		out = []string{cat}
	}
	if g.chance(200) {
		other := "IAB" + strconv.Itoa(pick(g, contentTops))
		if !contains(out, other) {
			out = append(out, other)
		}
	}
	return out
}

// aim rewrites r so that it matches t's campaign: request time, geography,
// os, devtype, inventory, categories, size and secure flag are copied from
// its targeting and creatives, and blocks, floor and currency are eased.
func (rg *requestGen) aim(r *request, t target) {
	g := rg.g
	c := t.c
	tg := &c.Targeting

	r.ts = t.lo + g.r.Int64N(t.hi-t.lo)
	for try := 0; len(tg.Hours) > 0 && try < 100; try++ {
		ts := t.lo + g.r.Int64N(t.hi-t.lo)
		if contains(tg.Hours, int(ts/3_600_000%24)) {
			r.ts = ts
			break
		}
	}

	switch {
	case len(tg.Cities) > 0:
		ct, _ := cityByName(pick(g, tg.Cities))
		r.city, r.region, r.country = ct.name, ct.region, regionCountry(ct.region)
	case len(tg.Regions) > 0:
		r.region = pick(g, tg.Regions)
		r.country = regionCountry(r.region)
		r.city = ""
		if cs := citiesIn(r.country, r.region); len(cs) > 0 && g.chance(500) {
			r.city = pick(g, cs).name
		}
	case len(tg.Countries) > 0 && !contains(tg.Countries, r.country):
		r.country = pick(g, tg.Countries)
		r.region, r.city = "", ""
	}

	if len(tg.OS) > 0 {
		r.os = pick(g, tg.OS)
	}
	if len(tg.Sites)+len(tg.Bundles) > 0 {
		if k := g.intn(len(tg.Sites) + len(tg.Bundles)); k < len(tg.Sites) {
			r.site, r.bundle = tg.Sites[k], ""
		} else {
			r.site, r.bundle = "", tg.Bundles[k-len(tg.Sites)]
		}
	} else if r.bundle != "" && contains(desktopOSes, r.os) {
		r.site, r.bundle = pick(g, sites).name, ""
	}
	for try := 0; contains(tg.ExcludeSites, r.site) && try < 20; try++ {
		r.site = pick(g, sites).name
	}
	for try := 0; contains(tg.ExcludeBundles, r.bundle) && try < 20; try++ {
		r.bundle = pick(g, bundles).name
	}
	if len(tg.Devtypes) > 0 {
		var fit []int
		for _, d := range tg.Devtypes {
			if (d == 2) == contains(desktopOSes, r.os) {
				fit = append(fit, d)
			}
		}
		if len(fit) == 0 {
			fit = tg.Devtypes
		}
		r.devtype = pick(g, fit)
	} else if contains(desktopOSes, r.os) {
		r.devtype = 2
	} else if r.devtype == 2 {
		r.devtype = 4
	}

	if len(tg.Cats) > 0 {
		cat := pick(g, tg.Cats)
		if !strings.Contains(cat, "-") && g.chance(500) {
			cat = subcat(g, catTop(cat))
		}
		r.cat = []string{cat}
		if g.chance(300) {
			if other := "IAB" + strconv.Itoa(pick(g, contentTops)); other != cat {
				r.cat = append(r.cat, other)
			}
		}
	}
	var bcat []string
	for _, b := range r.bcat {
		if !coversAny(b, c.Cat) {
			bcat = append(bcat, b)
		}
	}
	r.bcat = bcat
	var badv []string
	for _, d := range r.badv {
		if !contains(c.Adomain, d) {
			badv = append(badv, d)
		}
	}
	r.badv = badv

	var fits []Creative
	for _, cr := range c.Creatives {
		if r.secure != "1" || cr.Secure {
			fits = append(fits, cr)
		}
	}
	if len(fits) == 0 {
		r.secure = pick(g, []string{"", "0"})
		fits = c.Creatives
	}
	cr := pick(g, fits)
	r.w, r.h = cr.W, cr.H

	if r.floorMicros > t.bid || g.chance(100) {
		r.floorMicros = t.bid * int64(g.between(20, 95)) / 100 / 10_000 * 10_000
		r.floor = FormatMicros(r.floorMicros)
		if r.floorMicros == 0 {
			r.floor = ""
		}
	}
	if r.cur != "USD" {
		r.cur = pick(g, []string{"", "USD"})
	}
	if c.FreqCap != nil && r.uid == "" && g.chance(500) {
		r.uid = rg.user()
	}
	r.emptyRegion = r.region == "" && r.emptyRegion
	r.emptyCity = r.city == "" && r.emptyCity
}

func isNiche(c *Campaign) bool {
	if len(c.Creatives) != 1 || len(c.Targeting.Sites) == 0 {
		return false
	}
	s := size{c.Creatives[0].W, c.Creatives[0].H}
	return s == nicheCappedSize || s == nicheBudgetSize
}

// aimNiche rewrites r to buy t's niche campaign: its site or app, its size,
// a floor below its bid and no blocks. Four in five requests for a capped
// niche carry no user id, so they end at the frequency stage.
func (rg *requestGen) aimNiche(r *request, t target) {
	g := rg.g
	c := t.c
	r.ts = t.lo + g.r.Int64N(t.hi-t.lo)
	if g.chance(500) {
		r.site, r.bundle = c.Targeting.Sites[0], ""
	} else {
		r.site, r.bundle = "", c.Targeting.Bundles[0]
	}
	r.w, r.h = c.Creatives[0].W, c.Creatives[0].H
	r.floorMicros = t.bid / 2 / 10_000 * 10_000
	r.floor = FormatMicros(r.floorMicros)
	r.cur = pick(g, []string{"", "USD"})
	r.bcat, r.badv = nil, nil
	if c.FreqCap != nil && g.chance(800) {
		r.uid = ""
	}
}

// coversAny reports whether category x covers any of cats: a category covers
// itself and its subcategories.
func coversAny(x string, cats []string) bool {
	for _, y := range cats {
		if strings.EqualFold(x, y) || (len(y) > len(x) && strings.EqualFold(y[:len(x)], x) && y[len(x)] == '-') {
			return true
		}
	}
	return false
}

// encode renders r, adding the keys exchanges send that the contract ignores
// (slot position, page URL, app name, user agent, IP, device details,
// coordinates, GDPR flag).
func (rg *requestGen) encode(r *request) string {
	g := rg.g
	d := deviceFor(g, r.os, r.devtype, r.bundle != "")
	var page, ref string
	if r.site != "" && g.chance(700) {
		page = fmt.Sprintf("https://%s/%s/%s-%d.html", r.site, pick(g, []string{"2026/11", "article", "story", "p", "video"}),
			pick(g, []string{"top-10-picks", "how-to-save-money", "weekend-guide", "live-updates", "review", "best-deals"}), g.between(1000, 999999))
		if g.chance(300) {
			page += "?utm_source=" + pick(g, []string{"twitter", "newsletter", "push", "facebook"}) + "&utm_medium=social"
		}
		if g.chance(400) {
			ref = "https://" + pick(g, []string{"www.google.com/", "search.example.com/?q=" + strings.ReplaceAll(pick(g, []string{"cheap flights", "running shoes", "weather today", "news"}), " ", "+"), "t.co/" + g.chars(10, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")})
		}
	}
	var pos, appName, ifa, lmt, carrier, gdpr string
	if g.chance(400) {
		pos = pick(g, []string{"0", "1", "1", "3", "4", "7"})
	}
	if r.bundle != "" {
		if g.chance(600) {
			appName = bundleTitle(r.bundle)
		}
		if g.chance(700) {
			ifa = uuid(g)
			if r.os == "ios" {
				ifa = strings.ToUpper(ifa)
			}
			lmt = pick(g, []string{"0", "0", "0", "0", "1"})
		}
	}
	if contains(gdprCountries, r.country) {
		gdpr = "1"
	} else if g.chance(200) {
		gdpr = "0"
	}
	var lang, ip, lat, lon, conn string
	if k, ok := countryByCode(r.country); ok {
		ip = ipv4(g, pick(g, k.ipFirst))
		if g.chance(600) {
			lang = k.lang
		}
	} else {
		ip = ipv4(g, g.between(1, 223))
	}
	if ct, ok := cityByName(r.city); ok && g.chance(400) {
		lat = formatDegrees(ct.lat + g.between(-500, 500))
		lon = formatDegrees(ct.lon + g.between(-500, 500))
	}
	if r.bundle != "" && g.chance(700) {
		conn = pick(g, connTypes)
		if cs := carriers[r.country]; conn != "2" && len(cs) > 0 && g.chance(600) {
			carrier = pick(g, cs)
		}
	}
	return encodeForm([]field{
		{key: "id", value: r.id},
		{key: "imp_id", value: r.impID},
		{key: "tmax", value: r.tmax},
		{key: "ts", value: strconv.FormatInt(r.ts, 10)},
		{key: "test", value: r.test},
		{key: "secure", value: r.secure},
		{key: "w", value: strconv.Itoa(r.w)},
		{key: "h", value: strconv.Itoa(r.h)},
		{key: "pos", value: pos},
		{key: "floor", value: r.floor},
		{key: "cur", value: r.cur},
		{key: "site", value: r.site},
		{key: "page", value: page},
		{key: "ref", value: ref},
		{key: "bundle", value: r.bundle},
		{key: "app_name", value: appName},
		{key: "cat", value: strings.Join(r.cat, ",")},
		{key: "bcat", value: strings.Join(r.bcat, ",")},
		{key: "badv", value: strings.Join(r.badv, ",")},
		{key: "ua", value: d.ua},
		{key: "ip", value: ip},
		{key: "os", value: r.os},
		{key: "osv", value: d.osv},
		{key: "make", value: d.make},
		{key: "model", value: d.model},
		{key: "devtype", value: itoaOrEmpty(r.devtype)},
		{key: "ifa", value: ifa},
		{key: "lmt", value: lmt},
		{key: "connectiontype", value: conn},
		{key: "carrier", value: carrier},
		{key: "lang", value: lang},
		{key: "country", value: r.country},
		{key: "region", value: r.region, keepEmpty: r.emptyRegion},
		{key: "city", value: r.city, keepEmpty: r.emptyCity},
		{key: "lat", value: lat},
		{key: "lon", value: lon},
		{key: "gdpr", value: gdpr},
		{key: "uid", value: r.uid},
	})
}

func itoaOrEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func countryByCode(code string) (country, bool) {
	for _, c := range countries {
		if c.code == code {
			return c, true
		}
	}
	return country{}, false
}

// ipv4 returns a public-looking IPv4 address with the given first octet.
func ipv4(g *rng, first int) string {
	return fmt.Sprintf("%d.%d.%d.%d", first, g.between(0, 255), g.between(0, 255), g.between(1, 254))
}

// formatDegrees formats 1e-4 degrees as a decimal with 4 fractional digits.
func formatDegrees(v int) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%04d", sign, v/10_000, v%10_000)
}

// device is what a request says about the device beyond os and devtype.
type device struct {
	ua, osv, make, model string
}

// deviceFor returns a user agent, and for apps the os version, make and model,
// consistent with the os, the device type and the kind of inventory.
func deviceFor(g *rng, os string, devtype int, app bool) device {
	tablet := devtype == 5
	switch os {
	case "android":
		av := pick(g, androidVersions)
		if !app {
			mobile := "Mobile "
			if tablet {
				mobile = ""
			}
			return device{ua: fmt.Sprintf("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s.0.0.0 %sSafari/537.36", pick(g, desktopChrome), mobile)}
		}
		var dv androidDevice
		for try := 0; try < 20; try++ {
			dv = pick(g, androidDevices)
			if dv.tablet == tablet {
				break
			}
		}
		mobile := "Mobile "
		if dv.tablet {
			mobile = ""
		}
		return device{
			ua:  fmt.Sprintf("Mozilla/5.0 (Linux; Android %s; %s Build/%s; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/%s %sSafari/537.36", av, dv.model, dv.build, pick(g, chromeVersions), mobile),
			osv: av, make: dv.make, model: dv.model,
		}
	case "ios":
		v := pick(g, iosVersions)
		dot := strings.ReplaceAll(v, "_", ".")
		hw, model := "iPhone; CPU iPhone OS", pick(g, []string{"iPhone14,5", "iPhone15,2", "iPhone15,4", "iPhone16,1", "iPhone16,2", "iPhone17,3"})
		if tablet {
			hw, model = "iPad; CPU OS", pick(g, []string{"iPad13,18", "iPad14,3", "iPad16,3"})
		}
		if app {
			return device{
				ua:  fmt.Sprintf("Mozilla/5.0 (%s %s like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", hw, v),
				osv: dot, make: "Apple", model: model,
			}
		}
		major, minor, _ := strings.Cut(dot, ".")
		minor, _, _ = strings.Cut(minor, ".")
		return device{ua: fmt.Sprintf("Mozilla/5.0 (%s %s like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%s.%s Mobile/15E148 Safari/604.1", hw, v, major, minor)}
	case "macos":
		if g.chance(550) {
			return device{ua: fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%s Safari/605.1.15", pick(g, safariVersions))}
		}
		return device{ua: fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s.0.0.0 Safari/537.36", pick(g, desktopChrome))}
	case "linux":
		if g.chance(500) {
			v := pick(g, firefoxVersions)
			return device{ua: fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%s.0) Gecko/20100101 Firefox/%s.0", v, v)}
		}
		return device{ua: fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s.0.0.0 Safari/537.36", pick(g, desktopChrome))}
	default: // windows
		switch g.weighted([]int{75, 15, 10}) {
		case 0:
			return device{ua: fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s.0.0.0 Safari/537.36", pick(g, desktopChrome))}
		case 1:
			v := pick(g, desktopChrome)
			return device{ua: fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s.0.0.0 Safari/537.36 Edg/%s.0.0.0", v, v)}
		default:
			v := pick(g, firefoxVersions)
			return device{ua: fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:%s.0) Gecko/20100101 Firefox/%s.0", v, v)}
		}
	}
}
