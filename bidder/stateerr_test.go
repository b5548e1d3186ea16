package bidder_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// downLedger fails every read, as a shared store does when it is down.
type downLedger struct{ *memory.Ledger }

var errDown = errors.New("store down")

func (downLedger) Usage(context.Context, []bidder.UsageQuery) error { return errDown }

func TestDecideWhenTheLedgerIsDown(t *testing.T) {
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock},
		downLedger{memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})}, memory.NewBidStore(memory.BidStoreConfig{}))
	budgeted := func(c *bidder.Campaign) { c.DailyBudget = usd(100) }
	tests := []struct {
		name      string
		campaigns []*bidder.Campaign
		want      string // winner, or "" for no bid
		reason    bidder.NoBidReason
	}{
		{"only campaigns with caps: no bid", []*bidder.Campaign{camp("a", usd(3), budgeted), camp("b", usd(2), budgeted)}, "", bidder.ReasonStateUnavailable},
		{"an uncapped campaign still bids", []*bidder.Campaign{camp("a", usd(3), budgeted), camp("b", usd(2))}, "b", bidder.ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := baseRequest()
			d, err := e.Decide(context.Background(), bidder.NewCatalog(tt.campaigns), &req)
			assert.ErrorIs(t, err, errDown, "the failure is reported beside the decision")
			require.Equal(t, tt.reason.String(), d.Reason.String())
			if tt.want != "" {
				assert.Equal(t, tt.want, d.Campaign.ID)
			}
		})
	}
}
