package redis

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestKill9RedisCountsEveryWinOnce: Redis (appendonly yes, appendfsync
// always) is killed with SIGKILL in the middle of a stream of win notices
// from four senders and restarted on its files. Every notice acknowledged
// is counted exactly once, every notice refused (503) and retried after
// Redis returns is counted exactly once, and nothing is counted that was
// not acknowledged: the day's wins and spend and each user's frequency
// counter end exact.
func TestKill9RedisCountsEveryWinOnce(t *testing.T) {
	needRedis(t)
	r := &redisServer{T: t, Port: freePort(t), Extra: []string{"--appendonly", "yes", "--appendfsync", "always", "--dir", t.TempDir()}}
	r.Start()
	t.Cleanup(r.Stop)
	s := openOn(t, r, Config{Prefix: "kill9", OpTimeout: 500 * time.Millisecond, SpendStaleness: -1, BreakerAfter: 1 << 30})
	e := bidder.NewEngine(bidder.Config{HashKey: s.HashKey()}, s, s)
	cat := bidder.NewCatalog([]*bidder.Campaign{testCampaign("c1", func(c *bidder.Campaign) {
		c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 3600}
	})})
	const n, price = 400, bidder.Micros(1_000_000)
	bids := make(chan bidder.BidID, n)
	users := make([]bidder.Request, n)
	for i := range n {
		users[i] = testRequest(fmt.Sprint("user-", i))
		req := users[i]
		d, err := e.Decide(t.Context(), cat, &req)
		require.NoError(t, err)
		require.True(t, d.Bid(), d.Reason.String())
		bids <- d.BidID
	}
	close(bids)

	var acked, refused, sent atomic.Int64
	var mu sync.Mutex
	var retry []bidder.BidID
	third := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range bids {
				sent.Add(1)
				out, err := e.Win(t.Context(), id, price)
				if err != nil {
					require.True(t, errors.Is(err, ErrUnavailable), "a Redis failure, answered 503: %v", err)
					refused.Add(1)
					mu.Lock()
					retry = append(retry, id)
					mu.Unlock()
					continue
				}
				require.False(t, out.Duplicate, "a first notice")
				if acked.Add(1) == n/3 {
					once.Do(func() { close(third) })
				}
			}
		}()
	}
	<-third
	r.Stop() // SIGKILL, with notices in flight
	r.Start()
	wg.Wait()

	// The exchanges retry the refused notices: each is counted now, or
	// was counted before the kill took its answer (a duplicate).
	retried, duplicates := 0, 0
	for _, id := range retry {
		deadline := time.Now().Add(30 * time.Second)
		for {
			sent.Add(1)
			out, err := e.Win(t.Context(), id, price)
			if err == nil {
				retried++
				if out.Duplicate {
					duplicates++
				}
				break
			}
			require.True(t, time.Now().Before(deadline), "Redis did not come back: %v", err)
			time.Sleep(10 * time.Millisecond) // polling a server from outside: there is nothing to wait on
		}
	}
	t.Logf("redis kill -9 with %d notices from 4 senders: %d sent, %d acknowledged (204) at once, %d refused (503), "+
		"retried after the restart: %d acknowledged (%d of them already counted: duplicates)",
		n, sent.Load(), acked.Load(), refused.Load(), retried, duplicates)
	assert.Equal(t, int64(n), acked.Load()+int64(retried), "every notice acknowledged in the end")

	st, found, err := e.Stats(t.Context(), "c1", "", bidder.DayOfTime(time.Now()))
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, int64(n), st.Wins, "each win counted once")
	assert.Equal(t, bidder.Micros(n)*price, st.Spend)
	for i := range n {
		req := users[i]
		d, err := e.Decide(t.Context(), cat, &req)
		require.NoError(t, err)
		assert.Equal(t, bidder.ReasonFreqCap, d.Reason, "user %d's frequency counter holds its one win", i)
	}
	for range 3 { // and the notices once more: all duplicates, nothing counted
		for _, id := range retry {
			out, err := e.Win(t.Context(), id, price)
			require.NoError(t, err)
			assert.True(t, out.Duplicate)
		}
	}
	again, _, err := e.Stats(t.Context(), "c1", "", bidder.DayOfTime(time.Now()))
	require.NoError(t, err)
	assert.Equal(t, st, again)
}
