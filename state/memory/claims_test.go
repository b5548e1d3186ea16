package memory

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/statetest"
)

func TestClaimsOncePerEventAndBid(t *testing.T) {
	c := NewClaims(0, nil)
	until := time.Now().Add(time.Hour)
	id := bidder.BidID{1}
	for _, tc := range []struct {
		kind bidder.OnceEvent
		id   bidder.BidID
		want bool
	}{
		{1, id, true}, {1, id, false}, {2, id, true}, {bidder.EventBilling, id, true},
		{bidder.EventBilling, id, false}, {1, bidder.BidID{2}, true},
	} {
		got, err := c.ClaimEvent(context.Background(), tc.kind, tc.id, until, nil)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%v %v", tc.kind, tc.id)
	}
}

func TestClaimsConcurrentOnce(t *testing.T) {
	c := NewClaims(0, nil)
	var first atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				ok, err := c.ClaimEvent(context.Background(), 1, bidder.BidID{byte(i), byte(i >> 8)}, time.Now().Add(time.Hour), nil)
				if assert.NoError(t, err) && ok {
					first.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 200, first.Load(), "each bid's event claimed once among 16 claimants")
}

// TestClaimsBoundedFailClosed: a set full of live claims refuses new ones
// (never forgets a live claim to make room); expired ones make room.
func TestClaimsBoundedFailClosed(t *testing.T) {
	c := NewClaims(memShards, nil) // one per shard
	live, gone := time.Now().Add(time.Hour), time.Now().Add(-time.Second)
	id := func(n byte) bidder.BidID { return bidder.BidID{n, 15: 7} } // all in one shard
	ok, err := c.ClaimEvent(context.Background(), 1, id(1), live, nil)
	require.NoError(t, err)
	require.True(t, ok)
	_, err = c.ClaimEvent(context.Background(), 1, id(2), live, nil)
	require.NoError(t, err, "the shard holds two (max/shards + 1)")
	_, err = c.ClaimEvent(context.Background(), 1, id(3), live, nil)
	require.ErrorIs(t, err, bidder.ErrCapacity)
	ok, err = c.ClaimEvent(context.Background(), 1, id(1), live, nil)
	require.NoError(t, err)
	assert.False(t, ok, "a live claim is kept: the repeat is still a repeat")

	c = NewClaims(memShards, nil)
	for n := byte(1); n <= 2; n++ {
		_, err := c.ClaimEvent(context.Background(), 1, id(n), gone, nil)
		require.NoError(t, err)
	}
	ok, err = c.ClaimEvent(context.Background(), 1, id(3), live, nil)
	require.NoError(t, err, "expired claims make room")
	assert.True(t, ok)
	assert.Equal(t, 1, c.Len())
	assert.Equal(t, 0, c.Sweep(time.Now()))
}

func TestEventClaimsConformance(t *testing.T) {
	statetest.EventClaims(t, time.Now(), func(t *testing.T) bidder.EventClaimer {
		return NewBidStore(BidStoreConfig{})
	})
}
