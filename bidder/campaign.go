package bidder

import "time"

// Campaign is one advertiser campaign as the decision sees it: validated,
// with money in micros and flight times in Unix milliseconds.
type Campaign struct {
	ID          string
	Advertiser  string
	ADomain     []string // as written in the file (echoed in bids)
	Cat         []string // as written in the file (echoed in bids)
	Active      bool     // status "active"; paused campaigns never bid
	BidCPM      Micros
	DailyBudget Micros // NoDailyLimit, or the daily budget (0: the campaign never bids)
	Start, End  time.Time
	FreqCap     FreqCap
	Pacing      Pacing
	Targeting   Targeting
	Creatives   []Creative
	// Deals are the ids of the deals the campaign may bid in (OpenRTB
	// imp.pmp.deals); DealsOnly (the file's "open_auction": false) keeps it
	// out of the open auction. A campaign that bids only in deals never
	// answers the form endpoint, which has no deals.
	Deals     []string
	DealsOnly bool

	startMs, endMs int64      // flight as [startMs, endMs) in request-time milliseconds
	pace           *paceSlot  // the pacing throttle, when the campaign is paced and attached (Engine.Pace)
	tally          *tallySlot // its tally, once attached (Engine.Pace)
}

// NoDailyLimit is the DailyBudget of a campaign without a daily budget.
const NoDailyLimit Micros = -1

// Limited reports whether the campaign has a daily budget.
func (c *Campaign) Limited() bool { return c.DailyBudget != NoDailyLimit }

// MaxFreqPeriodS is the longest frequency period, 365 days.
const MaxFreqPeriodS = 31_536_000

// FreqCap limits the wins per user and campaign in a time window. The zero
// value means no cap.
type FreqCap struct {
	Impressions int64
	PeriodS     int64
}

// Capped reports whether the cap applies at all.
func (f FreqCap) Capped() bool { return f.Impressions > 0 && f.PeriodS > 0 }

// Window returns the frequency window a request time (Unix ms) falls in.
func (f FreqCap) Window(requestMs int64) int64 { return f.WindowAt(floorDiv(requestMs, 1000)) }

// WindowAt returns the frequency window a request time in Unix seconds falls in.
func (f FreqCap) WindowAt(requestS int64) int64 { return floorDiv(requestS, f.PeriodS) }

// Targeting holds the campaign's targeting lists. An empty list does not
// restrict.
type Targeting struct {
	Countries, Regions, Cities []string
	OS                         []string
	DevTypes                   []int
	Sites, Bundles             []string
	ExcludeSites               []string
	ExcludeBundles             []string
	Cats                       []string
	Hours                      []int
	Exchanges                  []string // exchange ids; empty: any exchange
}

// CreativeKind is what a creative is: a banner (the default), a video or a
// native ad.
type CreativeKind uint8

// The kinds of creative.
const (
	Banner CreativeKind = iota
	Video
	Native
)

var kindNames = [...]string{"banner", "video", "native"}

// String returns the kind as the campaigns file spells it.
func (k CreativeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Creative is one ad of a campaign. W and H are a banner's or a video's
// size; a native ad has none of its own (its images have theirs).
type Creative struct {
	ID       string
	Kind     CreativeKind
	W, H     int
	Secure   bool
	ImageURL string // the banner, or the native ad's main image
	ClickURL string

	// video
	DurationS   int
	Mime        string
	MediaURL    string
	BitrateKbps int
	VASTVersion string // "2.0", "3.0", "4.0", "4.1" or "4.2"

	// native
	Title, Body, Sponsored, CTA string
	ImageW, ImageH              int
	IconURL                     string // "": no icon
	IconW, IconH                int
}

// DefaultVASTVersion is the VAST version of a video creative that names
// none.
const DefaultVASTVersion = "4.2"

// HasDeal reports whether the campaign may bid in the deal.
func (c *Campaign) HasDeal(deal string) bool {
	for _, d := range c.Deals {
		if d == deal {
			return true
		}
	}
	return false
}

// InFlight reports whether the request time (Unix ms) lies inside the
// campaign's flight: start inclusive, end exclusive.
func (c *Campaign) InFlight(requestMs int64) bool {
	return requestMs >= c.startMs && requestMs < c.endMs
}

// Day is a UTC calendar day, counted in days since 1970-01-01.
type Day int32

// DayOf returns the UTC day of a Unix millisecond time.
func DayOf(ms int64) Day { return Day(floorDiv(ms, 86_400_000)) }

// DayOfSec returns the UTC day of a Unix time in seconds.
func DayOfSec(s int64) Day { return Day(floorDiv(s, 86_400)) }

// DayOfTime returns the UTC day of t.
func DayOfTime(t time.Time) Day { return DayOf(t.UnixMilli()) }

// Time returns midnight UTC at the start of d.
func (d Day) Time() time.Time { return time.UnixMilli(int64(d) * 86_400_000).UTC() }

// String formats d as YYYY-MM-DD.
func (d Day) String() string { return d.Time().Format(time.DateOnly) }

// ParseDay parses YYYY-MM-DD.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, err
	}
	return DayOfTime(t), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ceilMs converts t to Unix milliseconds rounding up, so that a request at
// millisecond m is at or after t exactly when m >= ceilMs(t).
func ceilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}
