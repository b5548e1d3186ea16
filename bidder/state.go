package bidder

import (
	"context"
	"encoding/hex"
	"errors"
	"time"
)

// Ledger holds the counters that decisions read and win notices write:
// spend and wins per campaign and UTC day, and wins per user, campaign and
// frequency window. Implementations must be safe for concurrent use and
// exact: concurrent updates are never lost. A bounded ledger never drops a
// counter the books still need: when it is full of them, Reserve fails with
// ErrCapacity and the bid is not made.
type Ledger interface {
	// Usage fills Spent and Wins of every query in one call, so that a
	// remote store can answer a whole decision in one round trip.
	Usage(ctx context.Context, qs []UsageQuery) error
	// Reserve makes room, when a bid is made, for the counters its win
	// will write, so that a win notice never needs new room, and counts
	// the (non-test) bid for the campaign's day, made for r.Exchange, in
	// r.Deal ("": the open auction): one visit to the counters for both.
	// It fails with ErrCapacity when a bounded ledger has no room, and
	// then counts nothing.
	Reserve(ctx context.Context, r Room) error
	// UncountBid takes back the count of a bid Reserve counted that was
	// then not made (its record could not be saved); the room stays, to
	// expire as unused room does.
	UncountBid(ctx context.Context, r Room) error
	// RecordWin adds one win and its price.
	RecordWin(ctx context.Context, w Win) error
	// Stats returns a campaign's counters for one day: of its bids for one
	// exchange, or for all when exchange is "", or in one deal when
	// exchange is DealLabel(deal); ok is false when the ledger holds
	// nothing for it.
	Stats(ctx context.Context, campaignID, exchange string, day Day) (s DayStats, ok bool, err error)
}

// UsageQuery asks for the counters that one campaign's caps need.
type UsageQuery struct {
	CampaignID string
	Day        Day     // the budget day
	User       UserKey // zero when there is no frequency cap to check
	PeriodS    int64   // frequency period
	Window     int64   // frequency window number

	Spent Micros // out: sum of the win prices (CPM) on Day
	Wins  int64  // out: wins for (User, campaign) in Window
}

// Room names the counters a bid's win will write: the campaign's day and,
// for a frequency-capped campaign and a known user, the user's window.
type Room struct {
	CampaignID string
	Exchange   string
	Deal       string // "": the open auction
	Day        Day
	User       UserKey // zero: no frequency counter
	PeriodS    int64
	Window     int64
	// Until is the server-clock time the frequency counter must live to at
	// least: the end of its window, and never before the bid's record
	// expires, so that the bid's win finds it.
	Until time.Time
}

// Win is one accepted win notice as the ledger records it.
type Win struct {
	BidID      BidID // the bid won: a durable ledger makes its claim durable with the counters
	CampaignID string
	Exchange   string  // the exchange the bid was made for
	Deal       string  // the deal it was made in ("": the open auction)
	Day        Day     // UTC day of the bid's request time
	Price      Micros  // clearing CPM
	User       UserKey // zero when the bid had no user or no frequency cap
	PeriodS    int64
	Window     int64
	// Event is the win's event-log record, when the log is on: a state that
	// is an EventOutbox commits it with the claim and the counters, so that
	// a booked win always has its record and never two.
	Event []byte
}

// DayStats are a campaign's counters for one UTC day.
type DayStats struct {
	Bids  int64
	Wins  int64
	Spend Micros // sum of clearing CPM prices, in micros
}

// BidID identifies one bid: 128 bits written as 32 hex digits. The bid
// store that keeps the record chooses it, with enough secret random bits
// that it cannot be guessed by anyone who would forge win notices.
type BidID [16]byte

// AppendHex appends the 32 lowercase hex digits of id.
func (id BidID) AppendHex(dst []byte) []byte { return hex.AppendEncode(dst, id[:]) }

// String returns the 32 lowercase hex digits of id.
func (id BidID) String() string { return hex.EncodeToString(id[:]) }

// ParseBidID parses 32 hex digits (either case).
func ParseBidID[S ~string | ~[]byte](s S) (BidID, bool) {
	var id BidID
	if len(s) != hex.EncodedLen(len(id)) {
		return id, false
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err == nil
}

// BidRecord is what the server keeps of each bid it made, until its win
// notice or its time to live: what the win's accounting needs, and no more.
type BidRecord struct {
	ID         BidID
	CampaignID string
	CreativeID string
	Exchange   string  // the exchange the bid was made for: only its win path may claim it
	Deal       string  // the deal it was made in ("": the open auction)
	Pricing    string  // the exchange's price rules when the bid was made (see Request.Pricing)
	User       UserKey // zero unless the campaign is frequency-capped and the request named a user
	TimeS      int64   // the request time, Unix seconds: it fixes the budget day and the frequency window
	Price      Micros
	Test       bool
	PeriodS    int64 // the campaign's frequency period at bid time; 0: no cap
}

// ClaimResult says what a win notice did to its bid.
type ClaimResult uint8

// The results of BidStore.Claim.
const (
	Claimed   ClaimResult = iota + 1 // the first valid notice: record it
	Duplicate                        // an earlier notice already claimed the bid
)

// Errors of the state stores.
var (
	ErrUnknownBid    = errors.New("unknown or expired bid")
	ErrPriceAboveBid = errors.New("price above the bid's own price")
	// ErrCapacity: a bounded store is full of records or counters the
	// books still need, so it takes no more; the bid is not made (no-bid
	// reason capacity). Nothing held is ever dropped to make room.
	ErrCapacity = errors.New("state store full of entries the books still need")
)

// BidStore keeps bid records for their time to live.
type BidStore interface {
	// Save keeps a record until at least now+ttl and returns the id it
	// chose for the bid (rec.ID is ignored). A bounded store that is full
	// of unexpired records fails with ErrCapacity.
	Save(ctx context.Context, rec BidRecord, now time.Time) (BidID, error)
	// Peek returns the record of a live bid without claiming it (a win
	// notice's price is read by the rules the bid was made under), or
	// ErrUnknownBid.
	Peek(ctx context.Context, id BidID, now time.Time) (BidRecord, error)
	// Claim finds the bid and marks it won exactly once. It fails with
	// ErrUnknownBid for an unknown or expired bid and with ErrPriceAboveBid
	// when price exceeds the bid's price, in both cases changing nothing.
	Claim(ctx context.Context, id BidID, price Micros, now time.Time) (BidRecord, ClaimResult, error)
	// Len returns the number of records held.
	Len() int
}

// Upkeep describes how a bounded in-memory store keeps its bound: what left
// at the end of its time to live, what was refused for want of room, and
// the longest time a sweep held one shard's lock.
type Upkeep struct {
	Expired  int64
	Refused  int64
	MaxPause time.Duration
}

// Bid record lifetimes, whatever the store.
const (
	// DefaultBidTTL is how long a bid record waits for its win notice.
	DefaultBidTTL = 10 * time.Minute
	// MaxBidTTL bounds the time to live: a win notice comes within minutes
	// of its bid, and a bid's budget day and frequency counters are kept
	// for at least a day after it.
	MaxBidTTL = 24 * time.Hour
)

// DealLabel is the label the books count a deal's bids, wins and spend
// under, beside the exchanges': Stats(ctx, campaign, DealLabel(deal), day)
// is a campaign's day in one deal. Exchange ids cannot hold ':', so the
// labels never meet.
func DealLabel(deal string) string { return "deal:" + deal }
