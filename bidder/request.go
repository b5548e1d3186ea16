package bidder

import "time"

// Request is one bid request, already validated by the transport. String
// values may alias the transport's buffers: the bidder copies what it keeps.
type Request struct {
	ID, ImpID    string
	W, H         int
	Floor        Micros
	Cur          string // "" means USD
	Site, Bundle string
	Cat          string // comma list of the page's categories
	BCat         string // comma list of blocked categories
	BAdv         string // comma list of blocked advertiser domains
	OS           string
	DevType      int // 0: absent
	Country      string
	Region       string
	City         string
	UID          string
	Exchange     string // the id of the exchange asking (campaigns may target exchanges)
	// Kind is the kind of creative the impression takes: a banner of size
	// W×H (the default), or a video or native ad, which Chooser picks.
	Kind CreativeKind
	// Chooser picks, for a video or native impression, the creative of a
	// campaign that fits it (nil for a banner).
	Chooser Chooser
	// Deal is the deal this decision is for ("": the open auction): only
	// the campaigns that list it bid, at their own price, or at FixedPrice
	// when the deal fixes one (OpenRTB's at 3; Floor is then that price).
	// DealADomains, a comma list, are the advertiser domains the deal is
	// for (OpenRTB's wadomain; "": any).
	Deal         string
	FixedPrice   Micros
	DealADomains string
	Pricing      string        // the exchange's price rules (a fingerprint), kept with the bid for its win notice
	TimeMs       int64         // request time, Unix ms: the server clock at arrival (see the transport for -trust-request-ts)
	TMax         time.Duration // the exchange's time limit; 0 means the engine's default
	Test, Secure bool
	// NoUser says there is no legal basis for user-level processing
	// (package consent): UID is empty, and frequency-capped campaigns,
	// which cannot keep their caps without the user's counter, drop out
	// with ReasonConsent instead of bidding uncounted.
	NoUser bool

	// Arrived is when the request reached the server; the decision deadline
	// counts from it. Zero means the engine's clock at Decide.
	Arrived time.Time

	// Held lists the bids already made for earlier impressions of the same
	// request (an OpenRTB request holds several): they count against the
	// frequency caps and the remaining budgets this decision sees, as if
	// each had been won at its bid price.
	Held []Held
}

// Chooser picks the creative of a campaign that fits a video or native
// impression, or -1 when none does. base is the slot of the campaign's
// first creative in its catalog (Catalog.EachCreative), for choosers that
// keep per-creative data by slot. It is called from the decision, once per
// candidate and once for the winner, and must not block.
type Chooser interface {
	Choose(c *Campaign, base int) int
}

// Held is one bid made earlier in the same request.
type Held struct {
	Campaign *Campaign
	Price    Micros
}

// held returns how many bids of the request c already holds, and their sum.
func (r *Request) held(c *Campaign) (n int64, sum Micros) {
	for _, h := range r.Held {
		if h.Campaign == c {
			n++
			sum += h.Price
		}
	}
	return n, sum
}

// NoBidReason says why a request got no bid.
type NoBidReason uint8

// The no-bid reasons, in the order of the decision's stages.
const (
	ReasonNone             NoBidReason = iota // a bid was made
	ReasonCurrency                            // the floor's currency is not USD
	ReasonNoMatch                             // no campaign's targeting matched
	ReasonBelowFloor                          // every match bids below the floor
	ReasonFreqCap                             // every remaining match hit its frequency cap
	ReasonConsent                             // no legal basis to bid, or to keep the remaining matches' frequency caps (package consent)
	ReasonBudget                              // every remaining match exhausted its daily budget
	ReasonPacing                              // every remaining match was held back by its pacing controller
	ReasonTimeout                             // the decision ran past tmax minus the safety margin
	ReasonStateUnavailable                    // the state store could not be read
	ReasonCapacity                            // the bounded state is full of what the books still need

	// NumReasons counts the reasons, ReasonNone included: arrays indexed
	// by a NoBidReason are [NumReasons]T.
	NumReasons
)

var reasonNames = [NumReasons]string{"", "currency", "no_match", "below_floor", "freq_cap", "consent", "budget", "pacing",
	"timeout", "state_unavailable", "capacity"}

// String returns the reason as the X-Nobid-Reason header spells it.
func (r NoBidReason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return "unknown"
}

// NoBidReasons lists every reason a request can get no bid for.
func NoBidReasons() []NoBidReason {
	out := make([]NoBidReason, 0, NumReasons-1)
	for r := ReasonCurrency; r < NumReasons; r++ {
		out = append(out, r)
	}
	return out
}
