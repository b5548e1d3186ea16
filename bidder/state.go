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
// exact: concurrent updates are never lost.
type Ledger interface {
	// Usage fills Spent and Wins of every query in one call, so that a
	// remote store can answer a whole decision in one round trip.
	Usage(ctx context.Context, qs []UsageQuery) error
	// RecordBid counts one (non-test) bid for the campaign's day.
	RecordBid(ctx context.Context, campaignID string, day Day) error
	// RecordWin adds one win and its price.
	RecordWin(ctx context.Context, w Win) error
	// Stats returns a campaign's counters for one day; ok is false when the
	// ledger holds nothing for it.
	Stats(ctx context.Context, campaignID string, day Day) (s DayStats, ok bool, err error)
}

// UsageQuery asks for the counters that one campaign's caps need.
type UsageQuery struct {
	CampaignID string
	Day        Day    // the budget day
	UID        string // "" when there is no frequency cap to check
	PeriodS    int64  // frequency period
	Window     int64  // frequency window number

	Spent Micros // out: sum of the win prices (CPM) on Day
	Wins  int64  // out: wins for (UID, campaign) in Window
}

// Win is one accepted win notice as the ledger records it.
type Win struct {
	CampaignID string
	Day        Day    // UTC day of the bid's request time
	Price      Micros // clearing CPM
	UID        string // "" when the bid had no user or no frequency cap
	PeriodS    int64
	Window     int64
}

// DayStats are a campaign's counters for one UTC day.
type DayStats struct {
	Bids  int64
	Wins  int64
	Spend Micros // sum of clearing CPM prices, in micros
}

// BidID identifies one bid: 128 random bits, written as 32 hex digits.
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
// notice or its time to live.
type BidRecord struct {
	ID         BidID
	CampaignID string
	CreativeID string
	UID        string
	TimeMs     int64 // the request time
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

// Errors of the win path.
var (
	ErrUnknownBid    = errors.New("unknown or expired bid")
	ErrPriceAboveBid = errors.New("price above the bid's own price")
)

// BidStore keeps bid records for their time to live, in bounded memory.
type BidStore interface {
	// Save keeps a record until now+ttl.
	Save(ctx context.Context, rec BidRecord, now time.Time) error
	// Claim finds the bid and marks it won exactly once. It fails with
	// ErrUnknownBid for an unknown or expired bid and with ErrPriceAboveBid
	// when price exceeds the bid's price, in both cases changing nothing.
	Claim(ctx context.Context, id BidID, price Micros, now time.Time) (BidRecord, ClaimResult, error)
	// Len returns the number of records held.
	Len() int
}
