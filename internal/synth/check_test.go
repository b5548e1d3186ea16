package synth

// Independent checkers used by the tests: a validator of section 2 of the
// contract that reads the JSON generically, and a matcher of section 3 that
// decides a request against fresh state (no spend, no wins yet). They share
// no code with the generators on purpose.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// flightCache memoizes parsed flight times across decide calls.
var flightCache sync.Map

var (
	moneyRE = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$`)
	mimeRE  = regexp.MustCompile(`^[a-z]+/[a-z0-9.+-]+$`)
)

// validateCampaignsFile returns every violation of section 2 in a campaigns
// file, plus a few rules of this package's own (no empty lists, shortest
// money decimals).
func validateCampaignsFile(data []byte) []string {
	var errs []string
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var file map[string]any
	if err := dec.Decode(&file); err != nil {
		return []string{"file: " + err.Error()}
	}
	list, ok := file["campaigns"].([]any)
	if !ok || len(file) != 1 {
		return []string{`file: want exactly one key "campaigns" holding an array`}
	}
	ids := map[string]bool{}
	for i, raw := range list {
		c, ok := raw.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Sprintf("campaigns[%d]: not an object", i))
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Sprintf("campaign %v: ", c["id"])+fmt.Sprintf(format, args...))
		}
		for k := range c {
			switch k {
			case "id", "advertiser", "adomain", "cat", "status", "bid_cpm", "daily_budget", "start", "end", "freq_cap", "targeting", "creatives",
				"deals", "open_auction":
			default:
				bad("unknown key %q", k)
			}
		}
		id, _ := c["id"].(string)
		if !printableASCII(id, 64) {
			bad("id: must be 1–64 printable ASCII")
		}
		if ids[id] {
			bad("id: duplicate")
		}
		ids[id] = true
		if s, _ := c["status"].(string); s != "active" && s != "paused" {
			bad("status: %q", s)
		}
		if a, _ := c["advertiser"].(string); len(a) < 1 || len(a) > 128 {
			bad("advertiser: must be 1–128 bytes")
		}
		for _, k := range []string{"adomain", "cat"} {
			xs, ok := c[k].([]any)
			if !ok || len(xs) == 0 {
				bad("%s: at least one entry required", k)
			}
			for _, x := range xs {
				if s, ok := x.(string); !ok || s == "" {
					bad("%s: entries must be non-empty strings", k)
				}
			}
		}
		if n, ok := c["bid_cpm"].(json.Number); !ok || !moneyRE.MatchString(string(n)) || isZeroMoney(string(n)) || !shortestMoney(string(n)) {
			bad("bid_cpm: %v", c["bid_cpm"])
		}
		if v, present := c["daily_budget"]; present {
			if n, ok := v.(json.Number); !ok || !moneyRE.MatchString(string(n)) || !shortestMoney(string(n)) {
				bad("daily_budget: %v", v)
			}
		}
		var start, end time.Time
		for _, k := range []string{"start", "end"} {
			v, present := c[k]
			if !present {
				continue
			}
			s, _ := v.(string)
			tm, err := time.Parse(time.RFC3339, s)
			if err != nil {
				bad("%s: %v", k, err)
			}
			if k == "start" {
				start = tm
			} else {
				end = tm
			}
		}
		if !start.IsZero() && !end.IsZero() && !start.Before(end) {
			bad("start must be before end")
		}
		if v, present := c["freq_cap"]; present {
			fc, _ := v.(map[string]any)
			if len(fc) != 2 || jsonInt(fc["impressions"], 1, 1<<31) < 0 || jsonInt(fc["period_s"], 1, 1<<31) < 0 {
				bad("freq_cap: %v", v)
			}
		}
		if v, present := c["targeting"]; present {
			tg, ok := v.(map[string]any)
			if !ok {
				bad("targeting: not an object")
			}
			for k, list := range tg {
				xs, ok := list.([]any)
				if !ok || len(xs) == 0 {
					bad("targeting.%s: want a non-empty array (empty lists are omitted)", k)
					continue
				}
				for _, x := range xs {
					switch k {
					case "devtypes":
						if jsonInt(x, 1, 7) < 0 {
							bad("targeting.devtypes: %v", x)
						}
					case "hours":
						if jsonInt(x, 0, 23) < 0 {
							bad("targeting.hours: %v", x)
						}
					case "countries", "regions", "cities", "os", "sites", "bundles", "exclude_sites", "exclude_bundles", "cats":
						if s, ok := x.(string); !ok || s == "" {
							bad("targeting.%s: %v", k, x)
						}
					default:
						bad("targeting: unknown key %q", k)
					}
				}
			}
		}
		var deals []any
		if v, present := c["deals"]; present {
			deals, ok = v.([]any)
			if !ok || len(deals) == 0 || len(deals) > 256 {
				bad("deals: want 1–256 deal ids (an empty list is omitted)")
			}
			seen := map[string]bool{}
			for _, d := range deals {
				if s, _ := d.(string); !printableASCII(s, 64) || seen[s] {
					bad("deals: %v is not a unique id of 1–64 printable ASCII", d)
				} else {
					seen[s] = true
				}
			}
		}
		if v, present := c["open_auction"]; present {
			if b, ok := v.(bool); !ok {
				bad("open_auction: not a boolean")
			} else if !b && len(deals) == 0 {
				bad("open_auction: false needs deals")
			}
		}
		crs, ok := c["creatives"].([]any)
		if !ok || len(crs) == 0 {
			bad("creatives: at least one required")
		}
		crids := map[string]bool{}
		for j, raw := range crs {
			cr, _ := raw.(map[string]any)
			id, _ := cr["id"].(string)
			if id == "" || crids[id] {
				bad("creatives[%d].id: missing or duplicate", j)
			}
			crids[id] = true
			typ, _ := cr["type"].(string)
			if _, present := cr["type"]; present && typ != "video" && typ != "native" {
				bad("creatives[%d].type: %v (banners leave it out)", j, cr["type"])
			}
			allowed := map[string][]string{
				"":       {"id", "w", "h", "secure", "image_url", "click_url"},
				"video":  {"id", "type", "w", "h", "secure", "duration_s", "mime", "media_url", "bitrate_kbps", "vast_version", "click_url"},
				"native": {"id", "type", "secure", "title", "body", "sponsored", "cta", "image_url", "image_w", "image_h", "icon_url", "icon_w", "icon_h", "click_url"},
			}[typ]
			for k := range cr {
				if !contains(allowed, k) {
					bad("creatives[%d]: key %q on a %q creative", j, k, typ)
				}
			}
			if typ != "native" && (jsonInt(cr["w"], 1, 10000) < 0 || jsonInt(cr["h"], 1, 10000) < 0) {
				bad("creatives[%d].w/h: must be 1–10000", j)
			}
			urls := []string{"image_url", "click_url"}
			text := func(k string, lo, hi int) {
				s, ok := cr[k].(string)
				if _, present := cr[k]; (present || lo > 0) && (!ok || len(s) < lo || len(s) > hi) {
					bad("creatives[%d].%s: want %d–%d bytes", j, k, lo, hi)
				}
			}
			switch typ {
			case "video":
				urls = []string{"media_url", "click_url"}
				if jsonInt(cr["duration_s"], 1, 3600) < 0 || jsonInt(cr["bitrate_kbps"], 1, 100000) < 0 {
					bad("creatives[%d]: duration_s 1–3600 and bitrate_kbps 1–100000 required", j)
				}
				if m, _ := cr["mime"].(string); !mimeRE.MatchString(m) {
					bad("creatives[%d].mime: %q", j, m)
				}
				if v, present := cr["vast_version"]; present && !contains([]any{"2.0", "3.0", "4.0", "4.1", "4.2"}, v) {
					bad("creatives[%d].vast_version: %v", j, v)
				}
			case "native":
				text("title", 1, 140)
				text("body", 0, 500)
				text("sponsored", 1, 64)
				text("cta", 0, 32)
				if jsonInt(cr["image_w"], 1, 10000) < 0 || jsonInt(cr["image_h"], 1, 10000) < 0 {
					bad("creatives[%d].image_w/h: must be 1–10000", j)
				}
				if _, icon := cr["icon_url"]; icon {
					urls = append(urls, "icon_url")
					if jsonInt(cr["icon_w"], 1, 10000) < 0 || jsonInt(cr["icon_h"], 1, 10000) < 0 {
						bad("creatives[%d].icon_w/h: must be 1–10000", j)
					}
				} else if cr["icon_w"] != nil || cr["icon_h"] != nil {
					bad("creatives[%d]: icon_w/h without icon_url", j)
				}
			}
			secure := false
			if v, present := cr["secure"]; present {
				b, ok := v.(bool)
				if !ok {
					bad("creatives[%d].secure: not a boolean", j)
				}
				secure = b
			}
			for _, k := range urls {
				s, _ := cr[k].(string)
				u, err := url.Parse(s)
				if err != nil || !u.IsAbs() || u.Host == "" {
					bad("creatives[%d].%s: not an absolute URL: %q", j, k, s)
					continue
				}
				if secure && u.Scheme != "https" {
					bad("creatives[%d].%s: secure creative with %s URL", j, k, u.Scheme)
				}
			}
		}
	}
	return errs
}

func printableASCII(s string, maxLen int) bool {
	if len(s) < 1 || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// jsonInt returns v as an int in [lo, hi], or -1.
func jsonInt(v any, lo, hi int64) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return -1
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i < lo || i > hi {
		return -1
	}
	return i
}

func isZeroMoney(s string) bool { return strings.Trim(s, "0.") == "" }

// shortestMoney reports whether a decimal has no redundant trailing zeros.
func shortestMoney(s string) bool {
	_, frac, ok := strings.Cut(s, ".")
	return !ok || !strings.HasSuffix(frac, "0")
}

// testMicros parses a decimal of at most 6 fractional digits into micros.
func testMicros(s string) (int64, bool) {
	if !moneyRE.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	f, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	return w*1_000_000 + f, true
}

// covers reports whether category x covers category y (section 3).
func covers(x, y string) bool {
	x, y = strings.ToLower(x), strings.ToLower(y)
	return y == x || strings.HasPrefix(y, x+"-")
}

func inFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

// decision is the outcome of deciding a request against fresh state.
type decision struct {
	reason   string // "" when there is a bid
	campaign string
	creative string
	price    int64
}

// decide applies section 3 of the contract to a form body against campaigns
// that have spent nothing and won nothing yet: banners only, in the open
// auction (contract version 3: the form protocol serves nothing else).
func decide(body string, cs []Campaign) (decision, error) {
	q, err := url.ParseQuery(body)
	if err != nil {
		return decision{}, err
	}
	get := func(k string) string { return q.Get(k) } // first value; "" when absent or empty
	if cur := get("cur"); cur != "" && !strings.EqualFold(cur, "USD") {
		return decision{reason: "currency"}, nil
	}
	w, _ := strconv.Atoi(get("w"))
	h, _ := strconv.Atoi(get("h"))
	floor := int64(0)
	if f := get("floor"); f != "" {
		floor, _ = testMicros(f)
	}
	tsMillis, err := strconv.ParseInt(get("ts"), 10, 64)
	if err != nil {
		return decision{}, fmt.Errorf("ts: %w", err)
	}
	ts := time.UnixMilli(tsMillis).UTC()
	split := func(k string) []string {
		if v := get(k); v != "" {
			return strings.Split(v, ",")
		}
		return nil
	}
	cats, bcat, badv := split("cat"), split("bcat"), split("badv")
	secure := get("secure") == "1"

	flightTime := func(s string) time.Time {
		tm, ok := flightCache.Load(s)
		if !ok {
			parsed, _ := time.Parse(time.RFC3339, s)
			flightCache.Store(s, parsed)
			return parsed
		}
		return tm.(time.Time)
	}
	type cand struct {
		c  *Campaign
		cr string
	}
	var left []cand
	for i := range cs {
		c := &cs[i]
		t := c.Targeting
		if c.Status != "active" || (c.OpenAuction != nil && !*c.OpenAuction) { // the form protocol has no deals
			continue
		}
		if c.Start != "" && ts.Before(flightTime(c.Start)) {
			continue
		}
		if c.End != "" && !ts.Before(flightTime(c.End)) {
			continue
		}
		listOK := func(list []string, v string) bool { return len(list) == 0 || (v != "" && inFold(list, v)) }
		if !listOK(t.Countries, get("country")) || !listOK(t.Regions, get("region")) || !listOK(t.Cities, get("city")) || !listOK(t.OS, get("os")) {
			continue
		}
		if len(t.Devtypes) > 0 {
			d, err := strconv.Atoi(get("devtype"))
			found := false
			for _, x := range t.Devtypes {
				found = found || (err == nil && x == d)
			}
			if !found {
				continue
			}
		}
		site, bundle := get("site"), get("bundle")
		if len(t.Sites)+len(t.Bundles) > 0 && !(site != "" && inFold(t.Sites, site)) && !(bundle != "" && inFold(t.Bundles, bundle)) {
			continue
		}
		if (site != "" && inFold(t.ExcludeSites, site)) || (bundle != "" && inFold(t.ExcludeBundles, bundle)) {
			continue
		}
		if len(t.Cats) > 0 {
			found := false
			for _, x := range t.Cats {
				for _, y := range cats {
					found = found || covers(x, y)
				}
			}
			if !found {
				continue
			}
		}
		blocked := false
		for _, b := range bcat {
			for _, y := range c.Cat {
				blocked = blocked || covers(b, y)
			}
		}
		for _, b := range badv {
			blocked = blocked || inFold(c.Adomain, b)
		}
		if blocked {
			continue
		}
		if len(t.Hours) > 0 {
			found := false
			for _, x := range t.Hours {
				found = found || x == ts.Hour()
			}
			if !found {
				continue
			}
		}
		crid := ""
		for _, cr := range c.Creatives {
			if cr.Type == "" && cr.W == w && cr.H == h && (!secure || cr.Secure) { // banners only
				crid = cr.ID
				break
			}
		}
		if crid == "" {
			continue
		}
		left = append(left, cand{c, crid})
	}
	stage := func(reason string, keep func(cand) bool) bool {
		if len(left) == 0 {
			return false
		}
		var next []cand
		for _, x := range left {
			if keep(x) {
				next = append(next, x)
			}
		}
		left = next
		return len(left) == 0
	}
	bid := func(c *Campaign) int64 { b, _ := testMicros(string(c.BidCPM)); return b }
	if len(left) == 0 {
		return decision{reason: "no_match"}, nil
	}
	if stage("below_floor", func(x cand) bool { return bid(x.c) >= floor }) {
		return decision{reason: "below_floor"}, nil
	}
	if stage("freq_cap", func(x cand) bool { return x.c.FreqCap == nil || get("uid") != "" }) {
		return decision{reason: "freq_cap"}, nil
	}
	if stage("budget", func(x cand) bool {
		if x.c.DailyBudget == "" {
			return true // no daily limit
		}
		b, _ := testMicros(string(x.c.DailyBudget))
		return bid(x.c) <= b*1000 // a zero budget never bids
	}) {
		return decision{reason: "budget"}, nil
	}
	best := left[0]
	for _, x := range left[1:] {
		if bid(x.c) > bid(best.c) || (bid(x.c) == bid(best.c) && x.c.ID < best.c.ID) {
			best = x
		}
	}
	return decision{campaign: best.c.ID, creative: best.cr, price: bid(best.c)}, nil
}
