package synth

import (
	"encoding/json"
	"strings"
)

// The video, native and deal impressions of ExchangeTraffic: a rewrite of
// the impressions request() builds, drawn from a random stream of its own
// so that every other field keeps its value (ExchangeTraffic's doc comment
// gives the mix).

// mediaStream selects the PCG stream of the rewrite.
const mediaStream uint64 = 0x6d656469612d696d // "media-im"

// dealTerms is one deal the campaigns list, as the rewrite offers it.
type dealTerms struct {
	id       string
	kind     string     // "banner", "video" or "native": the kind of its campaigns' creatives
	bid      int64      // the highest bid of its campaigns, in micros
	sizes    []size     // its banner campaigns' sizes
	videos   []Creative // its video campaigns' creatives
	adomains []string
}

// dealBook returns the deals cs lists, by kind, in the order of first
// listing.
func dealBook(cs []Campaign) map[string][]*dealTerms {
	book := map[string][]*dealTerms{}
	byID := map[string]*dealTerms{}
	for i := range cs {
		c := &cs[i]
		if len(c.Deals) == 0 || len(c.Creatives) == 0 {
			continue
		}
		kind := c.Creatives[0].Type
		if kind == "" {
			kind = "banner"
		}
		bid, _ := parseMicros(string(c.BidCPM))
		for _, id := range c.Deals {
			d := byID[id]
			if d == nil {
				d = &dealTerms{id: id, kind: kind}
				byID[id] = d
				book[kind] = append(book[kind], d)
			}
			d.bid = max(d.bid, bid)
			for _, cr := range c.Creatives {
				switch s := (size{cr.W, cr.H}); {
				case kind == "banner" && !containsSize(d.sizes, s):
					d.sizes = append(d.sizes, s)
				case kind == "video":
					d.videos = append(d.videos, cr)
				}
			}
			for _, a := range c.Adomain {
				if !contains(d.adomains, a) {
					d.adomains = append(d.adomains, a)
				}
			}
		}
	}
	return book
}

// impKind is the kind dspd decides an impression as: a banner if it has
// one, else a video, else a native ad ("" for anything else).
func impKind(imp *obj) string {
	for _, k := range []string{"banner", "video", "native"} {
		if imp.get(k) != nil {
			return k
		}
	}
	return ""
}

// rewriteMedia rewrites r's impressions with m: the first one (the body's
// banner) into a video or a native one, the further video and native ones
// into others of the kinds exchanges send, deals added, and the premium
// sizes offered in some banners.
func (x *exchangeGen) rewriteMedia(r *obj, m *rng, book map[string][]*dealTerms) {
	imps := r.get("imp").([]any)
	app := x.q.Get("bundle") != "" && x.q.Get("site") == ""
	first := imps[0].(*obj)
	switch m.weighted([]int{75, 35, 890}) {
	case 0:
		v := videoObject(m, app)
		if m.chance(100) { // a multi-format slot: decided as a banner
			first.insertBefore("video", v, "displaymanager", "tagid")
		} else {
			first.replace("banner", "video", v)
		}
	case 1:
		first.replace("banner", "native", nativeObject(m))
	}
	for _, it := range imps[1:] {
		imp := it.(*obj)
		switch {
		case imp.get("video") != nil && m.chance(600):
			imp.set("video", videoObject(m, app))
		case imp.get("native") != nil && m.chance(600):
			imp.set("native", nativeObject(m))
		}
	}
	for _, it := range imps {
		imp := it.(*obj)
		kind := impKind(imp)
		chance := map[string]int{"banner": 50, "video": 150, "native": 90}[kind]
		switch {
		case kind == "":
		case m.chance(chance):
			addDeal(m, imp, kind, book)
		case kind == "banner" && m.chance(25): // a premium format in the open auction
			offerSize(imp, pick(m, premiumSizes))
		}
	}
}

// The video placements exchanges send, weighted.
var (
	videoMimes = [][]string{
		{"video/mp4"}, {"video/mp4", "video/webm"}, {"video/mp4", "video/webm", "application/javascript"},
		{"video/webm"}, {"video/mp4", "application/x-mpegURL", "video/3gpp"}, {"application/javascript"}, {"video/x-flv", "video/mp4"},
	}
	videoMimeWeights = []int{35, 25, 15, 5, 10, 5, 5}
	// durationBounds are minduration–maxduration pairs.
	durationBounds = [][2]int{{5, 30}, {15, 30}, {6, 60}, {0, 15}, {1, 120}, {15, 60}, {5, 15}}
	rqdDurs        = [][]int{{15, 30}, {6}, {30}, {15}, {6, 15, 30}, {60}}
	// videoProtocols: VAST 2.0–4.0 with wrappers (OpenRTB 2.5's usual
	// list), every version, up to 3.0 (a 4.x creative downgraded), 3.0
	// only, 4.x only (a 3.0 creative refused), 2.0 only, wrappers only
	// (nothing dspd answers), 3.0 and 4.0 inline, none listed (any).
	videoProtocols       = [][]int{{2, 3, 5, 6, 7, 8}, {2, 3, 5, 6, 7, 8, 11, 12, 13, 14}, {2, 3, 5, 6}, {3, 6}, {7, 8, 11, 12, 13, 14}, {2, 5}, {5, 6, 8}, {3, 7}, nil}
	videoProtocolWeights = []int{25, 20, 12, 5, 8, 3, 4, 5, 18}
	// playerSizes: 4:3, 16:9, a vertical interstitial, an outstream
	// player in a 300x250 slot, and none given.
	playerSizes       = []size{{640, 480}, {640, 360}, {1280, 720}, {1920, 1080}, {400, 300}, {320, 480}, {1024, 768}, {300, 250}, {0, 0}}
	playerSizeWeights = []int{20, 20, 15, 10, 5, 10, 5, 5, 10}
)

// videoObject draws an imp.video (AdCOM's video placement as OpenRTB 2.6
// writes it).
func videoObject(m *rng, app bool) *obj {
	v := &obj{}
	if !m.chance(10) { // mimes are required; a few exchanges forget them
		v.set("mimes", videoMimes[m.weighted(videoMimeWeights)])
	}
	switch m.weighted([]int{45, 20, 15, 20}) {
	case 0:
		b := pick(m, durationBounds)
		v.set("minduration", b[0])
		v.set("maxduration", b[1])
	case 1:
		v.set("rqddurs", pick(m, rqdDurs))
	case 2:
		v.set("maxduration", pick(m, []int{15, 30, 60, 90}))
	}
	if p := videoProtocols[m.weighted(videoProtocolWeights)]; p != nil {
		v.set("protocols", p)
	}
	if s := playerSizes[m.weighted(playerSizeWeights)]; s.w > 0 {
		v.set("w", s.w)
		v.set("h", s.h)
	}
	switch m.weighted([]int{60, 15, 5, 5, 15}) {
	case 0:
		v.set("startdelay", 0) // pre-roll
	case 1:
		v.set("startdelay", -1) // mid-roll
	case 2:
		v.set("startdelay", -2) // post-roll
	case 3:
		v.set("startdelay", 10)
	}
	if app {
		v.set("plcmt", []int{1, 3, 4}[m.weighted([]int{40, 40, 20})])
	} else {
		v.set("plcmt", []int{1, 2, 4}[m.weighted([]int{50, 30, 20})])
	}
	if m.chance(300) {
		v.set("placement", pick(m, []int{1, 3, 5})) // OpenRTB 2.5's, beside 2.6's plcmt
	}
	switch m.weighted([]int{85, 10, 5}) {
	case 0:
		v.set("linearity", 1)
	case 2:
		v.set("linearity", 2) // an overlay: dspd's videos are linear
	}
	if m.chance(500) {
		v.set("skip", 1)
		v.set("skipafter", 5)
	} else if m.chance(500) {
		v.set("skip", 0)
	}
	if m.chance(200) {
		switch b := pick(m, [][2]int{{300, 1500}, {500, 4000}, {0, 2500}, {1000, 0}}); {
		case b[0] > 0 && b[1] > 0:
			v.set("minbitrate", b[0])
			v.set("maxbitrate", b[1])
		case b[0] > 0:
			v.set("minbitrate", b[0])
		default:
			v.set("maxbitrate", b[1])
		}
	}
	v.set("playbackmethod", []int{pick(m, []int{1, 2, 6})})
	switch m.weighted([]int{50, 20, 30}) {
	case 0:
		v.set("api", []int{1, 2, 7})
	case 1:
		v.set("api", []int{7})
	}
	if m.chance(300) {
		v.set("pos", pick(m, []int{1, 7}))
	}
	return v
}

// nativeObject draws an imp.native: a Native 1.2 request as a JSON string
// (as OpenRTB 2.x has it), or in some as the object itself.
func nativeObject(m *rng) *obj {
	req := nativeRequestObject(m)
	var request any = req
	if m.chance(850) {
		b, err := json.Marshal(req)
		if err != nil {
			panic(err)
		}
		request = string(b)
	}
	n := &obj{{"request", request}, {"ver", "1.2"}}
	if m.chance(500) {
		n.set("api", []int{3, 5})
	}
	if m.chance(200) {
		n.set("battr", []int{1, 3, 8})
	}
	return n
}

// nativeRequestObject draws a native request: a title, a main image, an
// icon and data assets (sponsored, description, call to action, rating),
// each required or not, with the limits publishers set; rarely a video
// asset. Asset ids start at 1, 0 or 101. Event trackers for impressions
// (img and js) in most, none in 1.1's requests; a few wrapped as Native
// 1.0's {"native":{…}}.
func nativeRequestObject(m *rng) any {
	id := []int{1, 0, 101}[m.weighted([]int{70, 10, 20})]
	var assets []any
	asset := func(required bool, kind string, spec obj) {
		a := obj{{"id", id}}
		if required {
			a.set("required", 1)
		} else if m.chance(500) {
			a.set("required", 0)
		}
		a.set(kind, spec)
		assets = append(assets, a)
		id++
	}
	if m.chance(950) {
		spec := obj{}
		if l := []int{90, 140, 60, 25, 120, 0}[m.weighted([]int{45, 15, 15, 10, 10, 5})]; l > 0 {
			spec.set("len", l)
		}
		asset(m.chance(900), "title", spec)
	}
	if m.chance(900) {
		spec := obj{{"type", 3}} // a main image
		switch m.weighted([]int{35, 20, 15, 5, 10, 15}) {
		case 0:
			spec = append(spec, member{"wmin", 300}, member{"hmin", 250})
		case 1:
			spec = append(spec, member{"wmin", 1200}, member{"hmin", 627})
		case 2:
			spec = append(spec, member{"w", 1200}, member{"h", 627})
		case 3:
			spec = append(spec, member{"w", 600}, member{"h", 314}) // exact: no 1200x627 image fits
		case 4:
			spec = append(spec, member{"wmin", 627}, member{"hmin", 627})
		}
		if m.chance(300) {
			spec.set("mimes", []string{"image/jpeg", "image/png"})
		}
		asset(m.chance(850), "img", spec)
	}
	if m.chance(600) {
		spec := obj{{"type", 1}}
		switch m.weighted([]int{50, 35, 15}) {
		case 0:
			spec = append(spec, member{"w", 80}, member{"h", 80})
		case 1:
			spec = append(spec, member{"wmin", 50}, member{"hmin", 50})
		}
		asset(m.chance(250), "img", spec)
	}
	data := func(permille, requiredPermille, typ int, lens []int, weights []int) {
		if !m.chance(permille) {
			return
		}
		spec := obj{{"type", typ}}
		if l := lens[m.weighted(weights)]; l > 0 {
			spec.set("len", l)
		}
		asset(m.chance(requiredPermille), "data", spec)
	}
	data(700, 500, 1, []int{25, 0}, []int{60, 40})          // sponsored
	data(600, 200, 2, []int{140, 90, 0}, []int{60, 20, 20}) // description
	data(400, 150, 12, []int{15, 25, 0}, []int{60, 20, 20}) // call to action
	data(100, 150, 3, []int{0}, []int{1})                   // rating: never filled
	if m.chance(30) {
		asset(m.chance(500), "video", obj{{"mimes", []string{"video/mp4"}}, {"minduration", 5}, {"maxduration", 30}, {"protocols", []int{2, 3, 5, 6}}})
	}
	ver := "1.2"
	if m.chance(100) {
		ver = "1.1"
	}
	req := obj{{"ver", ver}, {"context", pick(m, []int{1, 2, 3})}, {"plcmttype", []int{1, 2, 3, 4}[m.weighted([]int{60, 20, 15, 5})]},
		{"plcmtcnt", 1}, {"seq", 0}, {"assets", assets}}
	if ver == "1.2" {
		switch m.weighted([]int{60, 15, 25}) {
		case 0:
			req.set("eventtrackers", []any{obj{{"event", 1}, {"methods", []int{1, 2}}}})
		case 1:
			req.set("eventtrackers", []any{obj{{"event", 1}, {"methods", []int{1}}}, obj{{"event", 2}, {"methods", []int{1}}}})
		}
		if m.chance(500) {
			req.set("privacy", 1)
		}
	}
	if m.chance(50) {
		return obj{{"native", req}}
	}
	return req
}

// addDeal adds one of the campaigns' deals of the impression's kind to its
// pmp (made, private or not, when it has none), with up to two deals of
// others, and for a banner deal, in most impressions, one of the deal's
// sizes to the banner's formats.
func addDeal(m *rng, imp *obj, kind string, book map[string][]*dealTerms) {
	pool := book[kind]
	if len(pool) == 0 {
		return
	}
	d := pick(m, pool)
	k := 1 + m.weighted([]int{70, 25, 5})
	ours := m.intn(k)
	var deals []any
	for i := range k {
		if i == ours {
			deals = append(deals, dealObject(m, d))
		} else {
			deals = append(deals, otherDeal(m, kind, book))
		}
	}
	if pmp, ok := imp.get("pmp").(*obj); ok {
		pmp.set("deals", append(pmp.get("deals").([]any), deals...))
	} else {
		pmp := &obj{}
		switch m.weighted([]int{45, 35, 20}) {
		case 0:
			pmp.set("private_auction", 1)
		case 1:
			pmp.set("private_auction", 0)
		}
		pmp.set("deals", deals)
		imp.insertBefore("pmp", pmp, "exp", "ext")
	}
	switch {
	case kind == "banner" && len(d.sizes) > 0 && m.chance(900):
		offerSize(imp, pick(m, d.sizes))
	case kind == "video" && len(d.videos) > 0 && m.chance(800):
		imp.set("video", dealVideoObject(m, pick(m, d.videos)))
	case kind == "native" && m.chance(600):
		imp.set("native", obj{{"request", feedRequest}, {"ver", "1.2"}})
	}
}

// dealVideoObject is an imp.video made for a deal's creative, as a
// publisher sets a deal up for the buyer's spot: its mime among the mimes,
// its duration within the bounds, its VAST version (or a newer one)
// among the protocols, the player's size of its aspect, or none.
func dealVideoObject(m *rng, cr Creative) *obj {
	v := &obj{}
	mimes := []string{cr.Mime}
	if m.chance(500) {
		mimes = []string{"video/mp4", "video/webm"}
	}
	v.set("mimes", mimes)
	v.set("minduration", min(5, cr.DurationS))
	v.set("maxduration", pick(m, []int{30, 60, 120}))
	if cr.DurationS > 30 {
		v.set("maxduration", 60)
	}
	if m.chance(700) {
		v.set("protocols", []int{2, 3, 5, 6, 7, 8, 11, 12, 13, 14})
	}
	if m.chance(700) {
		v.set("w", cr.W)
		v.set("h", cr.H)
	}
	v.set("startdelay", 0)
	v.set("plcmt", 1)
	v.set("linearity", 1)
	v.set("skip", m.intn(2))
	v.set("playbackmethod", []int{pick(m, []int{1, 2, 6})})
	v.set("api", []int{1, 2, 7})
	return v
}

// feedRequest is a standard in-feed native request, as a deal's
// placement has it: a title, a main image of at least 600x314, and an
// optional icon, sponsored text and description.
const feedRequest = `{"ver":"1.2","context":1,"plcmttype":1,"plcmtcnt":1,"assets":[` +
	`{"id":1,"required":1,"title":{"len":140}},{"id":2,"required":1,"img":{"type":3,"wmin":600,"hmin":314}},` +
	`{"id":3,"img":{"type":1,"wmin":50,"hmin":50}},{"id":4,"data":{"type":1,"len":25}},{"id":5,"data":{"type":2,"len":200}}],` +
	`"eventtrackers":[{"event":1,"methods":[1,2]}]}`

// dealObject writes a deal of the book: a floor below or above its
// campaigns' best bid, in USD, EUR or GBP; an auction type (a fixed price
// at 3, always with a floor, mostly one the campaigns can pay); and in
// some a list of seats or of advertisers, with dspd's and the campaigns'
// or without.
func dealObject(m *rng, d *dealTerms) obj {
	o := obj{{"id", d.id}}
	at := []int{0, 1, 2, 3}[m.weighted([]int{25, 35, 15, 25})]
	if at == 3 || m.chance(850) {
		pct := int64(m.between(30, 110))
		if at == 3 {
			pct = int64(m.between(40, 105))
		}
		usd := max(10_000, d.bid*pct/100/10_000*10_000)
		switch m.weighted([]int{70, 20, 10}) {
		case 0:
			o.set("bidfloor", json.Number(FormatMicros(usd)))
			if m.chance(500) {
				o.set("bidfloorcur", "USD")
			}
		case 1:
			o.set("bidfloor", json.Number(formatMicrosFixed(max(10_000, usd*926391/1_000_000/10_000*10_000), 2)))
			o.set("bidfloorcur", "EUR")
		default:
			o.set("bidfloor", json.Number(formatMicrosFixed(max(10_000, usd*782195/1_000_000/10_000*10_000), 2)))
			o.set("bidfloorcur", "GBP")
		}
	}
	if at > 0 {
		o.set("at", at)
	}
	switch m.weighted([]int{75, 10, 5, 10}) {
	case 1:
		o.set("wseat", []string{"dsp"})
	case 2:
		o.set("wseat", []string{"seat-" + m.hex(4), "dsp"})
	case 3:
		o.set("wseat", []string{"seat-" + m.hex(4)}) // for another buyer
	}
	switch m.weighted([]int{85, 10, 5}) {
	case 1:
		o.set("wadomain", []string{pick(m, d.adomains)})
	case 2:
		a := pick(m, advertisers)
		o.set("wadomain", []string{a.slug + "." + a.tlds[0], "brand.example"})
	}
	return o
}

// otherDeal is a deal of another buyer (an id no campaign lists, some
// shaped as the campaigns' are) or one of the campaigns' deals of a kind
// other than the impression's.
func otherDeal(m *rng, kind string, book map[string][]*dealTerms) obj {
	var id string
	switch m.weighted([]int{40, 25, 15, 20}) {
	case 0:
		id = "deal-" + m.hex(8)
	case 1:
		id = "PMP-" + strings.ToUpper(m.hex(6))
	case 2:
		id = "D-09" + m.chars(2, "0123456789")
	default:
		var kinds []string
		for _, k := range []string{"banner", "video", "native"} {
			if k != kind && len(book[k]) > 0 {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) == 0 {
			id = "deal-" + m.hex(8)
		} else {
			id = pick(m, book[pick(m, kinds)]).id
		}
	}
	return obj{{"id", id}, {"bidfloor", json.Number(FormatMicros(m.between64(50, 2000) * 10_000))},
		{"bidfloorcur", "USD"}, {"at", pick(m, []int{1, 3})}}
}

// offerSize adds s to a banner's formats (writing its w/h as the first
// format when it has none), unless it offers s already.
func offerSize(imp *obj, s size) {
	banner, ok := imp.get("banner").(*obj)
	if !ok {
		return
	}
	f := obj{{"w", s.w}, {"h", s.h}}
	num := func(v any) int {
		switch n := v.(type) {
		case int:
			return n
		case json.Number:
			i, _ := n.Int64()
			return int(i)
		}
		return 0
	}
	if num(banner.get("w")) == s.w && num(banner.get("h")) == s.h {
		return
	}
	formats, ok := banner.get("format").([]any)
	if !ok {
		banner.insertBefore("format", []any{obj{{"w", banner.get("w")}, {"h", banner.get("h")}}, f}, "pos", "api", "battr", "topframe")
		return
	}
	for _, x := range formats {
		if o, ok := x.(obj); ok && num(o.get("w")) == s.w && num(o.get("h")) == s.h {
			return
		}
	}
	banner.set("format", append(formats, f))
}
