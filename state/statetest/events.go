package statetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// EventClaims runs the conformance tables of bidder.EventClaimer: each
// (event, bid) is claimed once, however many claim it, concurrently or
// not, while its window lasts. newStore returns an empty store; now is
// its server clock.
func EventClaims(t *testing.T, now time.Time, newStore func(t *testing.T) bidder.EventClaimer) {
	ctx := context.Background()
	until := now.Add(24 * time.Hour)
	t.Run("once per event and bid", func(t *testing.T) {
		c := newStore(t)
		a, b := bidder.BidID{1, 2, 3}, bidder.BidID{4, 5, 6}
		for _, tc := range []struct {
			kind bidder.OnceEvent
			id   bidder.BidID
			want bool
		}{
			{1, a, true}, {1, a, false}, {2, a, true}, {bidder.EventBilling, a, true},
			{bidder.EventBilling, a, false}, {1, b, true}, {2, a, false},
		} {
			got, err := c.ClaimEvent(ctx, tc.kind, tc.id, until, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "event %d of bid %v", tc.kind, tc.id)
		}
	})
	t.Run("concurrent claimants", func(t *testing.T) {
		c := newStore(t)
		var first atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					ok, err := c.ClaimEvent(ctx, 1, bidder.BidID{7, byte(i)}, until, nil)
					if assert.NoError(t, err) && ok {
						first.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 50, first.Load(), "each of 50 bids claimed once among 8 claimants")
	})
}
