package bidder

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// downLedger fails every read, as a shared store does when it is down.
type downLedger struct{ *MemoryLedger }

var errDown = errors.New("store down")

func (downLedger) Usage(context.Context, []UsageQuery) error { return errDown }

func TestDecideWhenTheLedgerIsDown(t *testing.T) {
	e := NewEngine(Config{Clock: fixedClock},
		downLedger{NewMemoryLedger(MemoryLedgerConfig{Clock: fixedClock})}, NewMemoryBidStore(MemoryBidStoreConfig{}))
	budgeted := func(c *Campaign) { c.DailyBudget = usd(100) }
	tests := []struct {
		name      string
		campaigns []*Campaign
		want      string // winner, or "" for no bid
		reason    NoBidReason
	}{
		{"only campaigns with caps: no bid", []*Campaign{camp("a", usd(3), budgeted), camp("b", usd(2), budgeted)}, "", ReasonStateUnavailable},
		{"an uncapped campaign still bids", []*Campaign{camp("a", usd(3), budgeted), camp("b", usd(2))}, "b", ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := baseRequest()
			d, err := e.Decide(context.Background(), NewCatalog(tt.campaigns), &req)
			assert.ErrorIs(t, err, errDown, "the failure is reported beside the decision")
			require.Equal(t, tt.reason.String(), d.Reason.String())
			if tt.want != "" {
				assert.Equal(t, tt.want, d.Campaign.ID)
			}
		})
	}
}
