package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

func TestLedgerSweep(t *testing.T) {
	ctx := context.Background()
	now := testNow
	l := NewLedger(LedgerConfig{Clock: func() time.Time { return now }})
	user := testHashKey.User("u")
	require.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: "c1", Day: 5, User: user, PeriodS: 60, Window: 1,
		Until: now.Add(time.Minute)}))
	require.NoError(t, l.RecordWin(ctx, bidder.Win{CampaignID: "c1", Day: 5, Price: 10, User: user, PeriodS: 60, Window: 1}))
	d, f := l.Sizes()
	assert.Equal(t, [2]int{1, 1}, [2]int{d, f})
	assert.Equal(t, 0, l.Sweep(now.Add(time.Minute)), "the frequency counter lives a little past its reservation")
	assert.Equal(t, 1, l.Sweep(now.Add(3*time.Minute)))
	assert.Equal(t, 0, l.Sweep(now.Add(MinDayTTL).Add(-time.Second)), "today's and yesterday's counters stay")
	assert.Equal(t, 1, l.Sweep(now.Add(DefaultDayTTL)))
	_, ok, _ := l.Stats(ctx, "c1", "", 5)
	assert.False(t, ok)
	assert.Equal(t, int64(2), l.Upkeep().Expired)
}

// TestLedgerFailsClosed fills the ledger's caps with live counters: a
// bid that needs a new one is refused (ErrCapacity), nothing held is
// dropped, and once counters expire there is room again.
func TestLedgerFailsClosed(t *testing.T) {
	ctx := context.Background()
	now := testNow
	const perShard = 2
	l := NewLedger(LedgerConfig{MaxFreqCounters: memShards * perShard, MaxDayCounters: memShards * perShard,
		Clock: func() time.Time { return now }})
	room := func(campaign, user string) bidder.Room {
		r := bidder.Room{CampaignID: campaign, Day: bidder.DayOfTime(now)}
		if user != "" {
			r.User, r.PeriodS, r.Window, r.Until = testHashKey.User(user), 3600, 1, now.Add(time.Hour)
		}
		return r
	}

	t.Run("frequency counters", func(t *testing.T) {
		var kept []string
		refused := 0
		for i := range 1000 {
			user := fmt.Sprintf("user-%d", i)
			switch err := l.Reserve(ctx, room("c1", user)); {
			case err == nil:
				kept = append(kept, user)
				require.NoError(t, l.RecordWin(ctx, bidder.Win{CampaignID: "c1", Day: bidder.DayOfTime(now), Price: 1,
					User: testHashKey.User(user), PeriodS: 3600, Window: 1}))
			case errors.Is(err, bidder.ErrCapacity):
				refused++
			default:
				require.NoError(t, err)
			}
		}
		_, freq := l.Sizes()
		assert.Equal(t, len(kept), freq)
		assert.LessOrEqual(t, freq, memShards*perShard)
		assert.Equal(t, 1000-len(kept), refused)
		st, _, err := l.Stats(ctx, "c1", "", bidder.DayOfTime(now))
		require.NoError(t, err)
		assert.Equal(t, int64(len(kept)), st.Bids, "a bid refused for its frequency counter's room is not counted")
		for _, user := range kept { // every counter held still counts its win
			qs := []bidder.UsageQuery{{CampaignID: "c1", User: testHashKey.User(user), PeriodS: 3600, Window: 1}}
			require.NoError(t, l.Usage(ctx, qs))
			require.Equal(t, int64(1), qs[0].Wins, user)
		}
		now = now.Add(2 * time.Hour) // every window and reservation has ended
		require.NoError(t, l.Reserve(ctx, room("c1", "late-user")), "expired counters make room")
	})

	t.Run("day counters", func(t *testing.T) {
		now = testNow
		spent := 0
		for i := range 1000 {
			c := fmt.Sprintf("c-%d", i)
			if err := l.Reserve(ctx, room(c, "")); err != nil {
				require.ErrorIs(t, err, bidder.ErrCapacity)
				continue
			}
			require.NoError(t, l.RecordWin(ctx, bidder.Win{CampaignID: c, Day: bidder.DayOfTime(now), Price: 7}))
			spent++
		}
		days, _ := l.Sizes()
		assert.LessOrEqual(t, days, memShards*perShard)
		assert.Positive(t, l.Upkeep().Refused)
		for i := range 1000 {
			st, ok, err := l.Stats(ctx, fmt.Sprintf("c-%d", i), "", bidder.DayOfTime(now))
			require.NoError(t, err)
			if ok && st.Wins > 0 {
				spent--
				assert.Equal(t, bidder.Micros(7), st.Spend)
			}
		}
		assert.Zero(t, spent, "every campaign that spent keeps its counter")
	})
}
