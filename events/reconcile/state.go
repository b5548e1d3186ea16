package reconcile

import (
	"context"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/disk"
)

// StateLedger reads the books from the state directory of a stopped dspd
// (-state disk:DIR): every counter of the day, whatever the keys asked. It
// refuses a directory a running dspd holds (disk.ErrLocked): ask that
// dspd's admin listener instead (AdminLedger).
type StateLedger struct {
	Dir string
}

// DayStats implements Ledger.
func (s StateLedger) DayStats(_ context.Context, day bidder.Day, _ []Key) (map[Key]bidder.DayStats, error) {
	byCampaign, err := disk.ReadDayStats(s.Dir, day)
	if err != nil {
		return nil, err
	}
	out := map[Key]bidder.DayStats{}
	for campaign, byExchange := range byCampaign {
		for exchange, st := range byExchange {
			out[Key{Campaign: campaign, Exchange: exchange}] = st
		}
	}
	return out, nil
}
