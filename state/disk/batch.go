package disk

import (
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/bidder"
)

// addDay adds to a campaign's day counters, those of all exchanges, those
// of its own and those of its deal (under bidder.DealLabel).
func (s *Store) addDay(b *pebble.Batch, campaign, exchange, deal string, day bidder.Day, bids, wins int64, spend bidder.Micros) {
	v := sums(bids, wins, int64(spend))
	_ = b.Merge(dayKey(day, campaign, ""), v, nil)
	if exchange != "" {
		_ = b.Merge(dayKey(day, campaign, exchange), v, nil)
	}
	if deal != "" {
		_ = b.Merge(dayKey(day, campaign, bidder.DealLabel(deal)), v, nil)
	}
}

// addWin adds a win to its day and, for a frequency-capped bid, to its
// user's window, filed under the window's expiry as memory holds it (the
// bid reserved the counter; else a period from now).
func (s *Store) addWin(b *pebble.Batch, w bidder.Win, now time.Time) {
	s.addDay(b, w.CampaignID, w.Exchange, w.Deal, w.Day, 0, 1, w.Price)
	if w.User.IsZero() || w.PeriodS <= 0 {
		return
	}
	expires, ok := s.mem.ledger.FreqExpires(w.User, w.CampaignID, w.PeriodS, w.Window)
	if !ok {
		expires = now.Unix() + w.PeriodS
	}
	_ = b.Merge(freqKey(expires, w.User, w.PeriodS, w.Window, w.CampaignID), sums(1), nil)
}
