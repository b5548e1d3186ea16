package reconcile

import (
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
)

// Win is a win record, as an invoice is compared with it.
type Win struct {
	BidID    bidder.BidID
	Exchange string
	Campaign string
	Price    bidder.Micros // the clearing price (CPM)
	Time     time.Time     // when the notice came
	BidTime  time.Time     // when the bid's request came
}

// Day returns the day the books count the win under: its bid's.
func (w Win) Day() bidder.Day { return bidder.DayOfTime(w.BidTime) }

// Wins gathers the log's win records, once per bid. It is not safe for
// concurrent use.
type Wins struct {
	byID map[bidder.BidID]Win
	// Duplicates is how many win records were dropped as repeats of one
	// gathered already (the same bid id).
	Duplicates int64
}

// NewWins returns an empty Wins.
func NewWins() *Wins { return &Wins{byID: map[bidder.BidID]Win{}} }

// AddLine reads one record (ParseRecord) and adds it when it is a win.
func (w *Wins) AddLine(line []byte) error {
	r, err := ParseRecord(line)
	if err != nil {
		return err
	}
	w.Add(&r)
	return nil
}

// Add keeps r when it is a win of a bid not seen yet.
func (w *Wins) Add(r *Record) {
	if r.Type != events.TypeWin {
		return
	}
	if _, dup := w.byID[r.BidID]; dup {
		w.Duplicates++
		return
	}
	w.byID[r.BidID] = Win{BidID: r.BidID, Exchange: r.Exchange, Campaign: r.Campaign, Price: r.Price,
		Time: r.Time, BidTime: r.BidTime}
}

// Len returns how many wins are kept.
func (w *Wins) Len() int { return len(w.byID) }
