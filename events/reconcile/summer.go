package reconcile

import (
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
)

// Key names a campaign's counters: for one exchange, or for all of them
// when Exchange is "".
type Key struct {
	Campaign string
	Exchange string
}

// Counts are what the log holds of a campaign's day.
type Counts struct {
	Bids        int64         // bids made in the day (their request time), test bids left out
	Wins        int64         // wins of the bids made in the day (bid_time)
	Spend       bidder.Micros // the sum of those wins' clearing prices
	Billings    int64         // billing notices received in the day (their own time)
	Impressions int64         // impressions tracked in the day (their own time)
	Clicks      int64         // clicks tracked in the day (their own time)
}

// Stats returns the counters the books keep too.
func (c Counts) Stats() bidder.DayStats {
	return bidder.DayStats{Bids: c.Bids, Wins: c.Wins, Spend: c.Spend}
}

// Sums are one day's counts.
type Sums struct {
	Day bidder.Day
	// Counts holds every campaign's counts for all exchanges (Key.Exchange
	// "") and for each exchange.
	Counts map[Key]Counts
	// Records is how many records were read, of any day and type;
	// Counted, how many of them were counted.
	Records, Counted int64
	// Duplicates is how many records were dropped as repeats of one
	// counted already (the same type and bid id).
	Duplicates int64
	// TestBids is how many test bids of the day were left out.
	TestBids int64
}

// Summer sums the records of one UTC day. It is not safe for concurrent
// use.
type Summer struct {
	sums Sums
	seen map[seenKey]struct{}
}

type seenKey struct {
	t  events.Type
	id bidder.BidID
}

// NewSummer returns a Summer of day.
func NewSummer(day bidder.Day) *Summer {
	return &Summer{sums: Sums{Day: day, Counts: map[Key]Counts{}}, seen: map[seenKey]struct{}{}}
}

// AddLine reads one record (ParseRecord) and adds it.
func (s *Summer) AddLine(line []byte) error {
	r, err := ParseRecord(line)
	if err != nil {
		return err
	}
	s.Add(&r)
	return nil
}

// Add counts r when it belongs to the day (see the package's doc), once
// per type and bid id.
func (s *Summer) Add(r *Record) {
	s.sums.Records++
	var day bidder.Day
	switch r.Type {
	case events.TypeBid, events.TypeBilling, events.TypeImpression, events.TypeClick:
		day = bidder.DayOfTime(r.Time)
	case events.TypeWin:
		day = bidder.DayOfTime(r.BidTime)
	default:
		return
	}
	if day != s.sums.Day {
		return
	}
	if r.Test && r.Type == events.TypeBid {
		s.sums.TestBids++
		return
	}
	k := seenKey{r.Type, r.BidID}
	if _, dup := s.seen[k]; dup {
		s.sums.Duplicates++
		return
	}
	s.seen[k] = struct{}{}
	s.sums.Counted++
	s.count(Key{Campaign: r.Campaign}, r)
	if r.Exchange != "" {
		s.count(Key{Campaign: r.Campaign, Exchange: r.Exchange}, r)
	}
	if r.Deal != "" { // the books count a deal's bids and wins under its label too
		s.count(Key{Campaign: r.Campaign, Exchange: bidder.DealLabel(r.Deal)}, r)
	}
}

func (s *Summer) count(k Key, r *Record) {
	c := s.sums.Counts[k]
	switch r.Type {
	case events.TypeBid:
		c.Bids++
	case events.TypeWin:
		c.Wins++
		c.Spend += r.Price
	case events.TypeBilling:
		c.Billings++
	case events.TypeImpression:
		c.Impressions++
	case events.TypeClick:
		c.Clicks++
	}
	s.sums.Counts[k] = c
}

// Sums returns the sums so far (their map is the Summer's: read it, do
// not keep adding while it is read).
func (s *Summer) Sums() Sums { return s.sums }
