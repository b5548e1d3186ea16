package bidder

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Limits of a campaigns file, beyond those the contract fixes.
const (
	maxCreatives  = 1000 // per campaign
	maxListLen    = 10000
	maxListString = 256
)

// validate checks every rule of the campaigns file for one campaign and
// returns the campaign, or the list of faults as "field: message".
func (fc *fileCampaign) validate(exchanges map[string]bool) (*Campaign, []string) {
	var v faults
	c := &Campaign{
		ID:          fc.ID,
		Advertiser:  fc.Advertiser,
		ADomain:     fc.ADomain,
		Cat:         fc.Cat,
		DailyBudget: NoDailyLimit,
		startMs:     minInt64,
		endMs:       maxInt64,
	}
	switch {
	case fc.ID == "":
		v.add("id", "required")
	case len(fc.ID) > 64 || !IsPrintableASCII(fc.ID):
		v.add("id", "must be 1–64 printable ASCII characters")
	}
	switch {
	case fc.Advertiser == "":
		v.add("advertiser", "required")
	case len(fc.Advertiser) > 128:
		v.add("advertiser", "must be 1–128 bytes")
	}
	v.stringList("adomain", fc.ADomain, true, nil)
	v.stringList("cat", fc.Cat, true, nil)
	switch fc.Status {
	case "active":
		c.Active = true
	case "paused":
	case "":
		v.add("status", "required")
	default:
		v.add("status", `must be "active" or "paused"`)
	}
	if fc.BidCPM == "" || fc.BidCPM == "null" {
		v.add("bid_cpm", "required")
	} else if m, ok := v.decimal("bid_cpm", fc.BidCPM); ok {
		if m == 0 {
			v.add("bid_cpm", "must be > 0")
		}
		c.BidCPM = m
	}
	if fc.DailyBudget != "" && fc.DailyBudget != "null" {
		c.DailyBudget, _ = v.decimal("daily_budget", fc.DailyBudget)
	}
	if fc.Start != "" {
		if t, err := time.Parse(time.RFC3339Nano, fc.Start); err != nil {
			v.add("start", "must be an RFC 3339 time")
		} else {
			c.Start, c.startMs = t, ceilMs(t)
		}
	}
	if fc.End != "" {
		if t, err := time.Parse(time.RFC3339Nano, fc.End); err != nil {
			v.add("end", "must be an RFC 3339 time")
		} else {
			c.End, c.endMs = t, ceilMs(t)
		}
	}
	if !c.Start.IsZero() && !c.End.IsZero() && !c.End.After(c.Start) {
		v.add("end", "must be after start")
	}
	switch fc.Pacing {
	case "", "asap":
	case "even":
		c.Pacing = PacingEven
	default:
		v.add("pacing", `must be "asap" or "even"`)
	}
	if fc.FreqCap != nil {
		c.FreqCap.Impressions = v.integer("freq_cap.impressions", fc.FreqCap.Impressions, 1, 1<<40)
		c.FreqCap.PeriodS = v.integer("freq_cap.period_s", fc.FreqCap.PeriodS, 1, MaxFreqPeriodS)
	}
	t := &fc.Targeting
	c.Targeting = Targeting{
		Countries:      v.stringList("targeting.countries", t.Countries, false, IsCountryCode[string]),
		Regions:        v.stringList("targeting.regions", t.Regions, false, IsRegionCode[string]),
		Cities:         v.stringList("targeting.cities", t.Cities, false, nil),
		OS:             v.stringList("targeting.os", t.OS, false, IsToken[string]),
		DevTypes:       v.intList("targeting.devtypes", t.DevTypes, 1, 7),
		Sites:          v.stringList("targeting.sites", t.Sites, false, nil),
		Bundles:        v.stringList("targeting.bundles", t.Bundles, false, nil),
		ExcludeSites:   v.stringList("targeting.exclude_sites", t.ExcludeSites, false, nil),
		ExcludeBundles: v.stringList("targeting.exclude_bundles", t.ExcludeBundles, false, nil),
		Cats:           v.stringList("targeting.cats", t.Cats, false, nil),
		Hours:          v.intList("targeting.hours", t.Hours, 0, 23),
		Exchanges:      v.exchangeList(t.Exchanges, exchanges),
	}
	switch {
	case len(fc.Creatives) == 0:
		v.add("creatives", "at least one creative is required")
	case len(fc.Creatives) > maxCreatives:
		v.add("creatives", fmt.Sprintf("at most %d creatives", maxCreatives))
	}
	ids := make(map[string]bool, len(fc.Creatives))
	for i := range fc.Creatives {
		fcr := &fc.Creatives[i]
		p := fmt.Sprintf("creatives[%d].", i)
		switch {
		case fcr.ID == "":
			v.add(p+"id", "required")
		case len(fcr.ID) > 64 || !IsPrintableASCII(fcr.ID):
			v.add(p+"id", "must be 1–64 printable ASCII characters")
		case ids[fcr.ID]:
			v.add(p+"id", "duplicate creative id "+strconv.Quote(fcr.ID))
		}
		ids[fcr.ID] = true
		c.Creatives = append(c.Creatives, v.creative(p, fcr))
	}
	c.Deals, c.DealsOnly = v.deals(fc.Deals), fc.OpenAuction != nil && !*fc.OpenAuction
	if c.DealsOnly && len(fc.Deals) == 0 {
		v.add("open_auction", "false needs at least one deal in deals")
	}
	if len(v) > 0 {
		return nil, v
	}
	return c, nil
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// faults collects "field: message" lines.
type faults []string

func (v *faults) add(field, msg string) { *v = append(*v, field+": "+msg) }

// decimal checks a JSON number with at most six fractional digits, no
// exponent and no sign.
func (v *faults) decimal(field string, raw rawNumber) (Micros, bool) {
	s := string(raw)
	if !isJSONNumber(s) {
		v.add(field, "must be a JSON number")
		return 0, false
	}
	switch {
	case strings.HasPrefix(s, "-"):
		v.add(field, "must not be negative")
		return 0, false
	case strings.ContainsAny(s, "eE"):
		v.add(field, "must be written without an exponent")
		return 0, false
	}
	m, err := ParseMicros(s)
	if err != nil {
		v.add(field, "must have at most 6 digits after the point and be at most "+MaxDecimalMicros.String())
		return 0, false
	}
	return m, true
}

// integer checks a JSON integer in [lo, hi].
func (v *faults) integer(field string, raw rawNumber, lo, hi int64) int64 {
	s := string(raw)
	if s == "" || s == "null" {
		v.add(field, "required")
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		v.add(field, fmt.Sprintf("must be an integer %d–%d", lo, hi))
		return 0
	}
	return n
}

func (v *faults) intList(field string, raws []rawNumber, lo, hi int64) []int {
	if len(raws) > maxListLen {
		v.add(field, fmt.Sprintf("at most %d entries", maxListLen))
		return nil
	}
	var out []int
	for i, r := range raws {
		out = append(out, int(v.integer(fmt.Sprintf("%s[%d]", field, i), r, lo, hi)))
	}
	return out
}

// stringList checks a list of non-empty strings of at most 256 bytes, each
// accepted by ok when ok is not nil.
func (v *faults) stringList(field string, list []string, required bool, ok func(string) bool) []string {
	if required && len(list) == 0 {
		v.add(field, "at least one entry is required")
	}
	if len(list) > maxListLen {
		v.add(field, fmt.Sprintf("at most %d entries", maxListLen))
		return nil
	}
	for i, s := range list {
		switch {
		case s == "":
			v.add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		case len(s) > maxListString:
			v.add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("must be at most %d bytes", maxListString))
		case ok != nil && !ok(s):
			v.add(fmt.Sprintf("%s[%d]", field, i), "malformed value "+strconv.Quote(s))
		}
	}
	return list
}

// exchangeList checks targeting.exchanges: ids of exchanges the server
// trades with.
func (v *faults) exchangeList(list []string, known map[string]bool) []string {
	v.stringList("targeting.exchanges", list, false, nil)
	for i, id := range list {
		if id != "" && !known[id] {
			v.add(fmt.Sprintf("targeting.exchanges[%d]", i), "unknown exchange "+strconv.Quote(id)+": no exchange declares it")
		}
	}
	return list
}

// url checks an absolute http(s) URL; https only when the creative is secure.
func (v *faults) url(field, s string, secure bool) {
	if s == "" {
		v.add(field, "required")
		return
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		v.add(field, "must be an absolute http or https URL")
		return
	}
	if secure && u.Scheme != "https" {
		v.add(field, "must be https on a secure creative")
	}
}

func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '-' || (c >= '0' && c <= '9')
}
