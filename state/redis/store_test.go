package redis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/statetest"
)

func TestLedgerConformance(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) {
			r := start(t)
			statetest.Ledger(t, func(t *testing.T) bidder.Ledger {
				return openOn(t, r, Config{SpendStaleness: -1, OpTimeout: time.Second})
			})
		})
	}
}

func TestPacingBookConformance(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) {
			r := start(t)
			statetest.PacingBook(t, func(t *testing.T) bidder.Ledger {
				return openOn(t, r, Config{OpTimeout: time.Second})
			})
		})
	}
}

func TestBidStoreConformance(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) {
			r := start(t)
			statetest.BidStore(t, func(t *testing.T, ttl time.Duration) bidder.BidStore {
				return openOn(t, r, Config{BidTTL: ttl, OpTimeout: time.Second})
			})
		})
	}
}

func testCampaign(id string, mods ...func(*bidder.Campaign)) *bidder.Campaign {
	c := &bidder.Campaign{ID: id, Advertiser: "A", ADomain: []string{"a.example"}, Cat: []string{"IAB1"}, Active: true,
		BidCPM: 2_000_000, DailyBudget: bidder.NoDailyLimit, Creatives: []bidder.Creative{{ID: id + "-cr", W: 300, H: 250, ImageURL: "https://a/i", ClickURL: "https://a/"}}}
	for _, m := range mods {
		m(c)
	}
	return c
}

func testRequest(uid string) bidder.Request {
	return bidder.Request{ID: "r", ImpID: "1", W: 300, H: 250, UID: uid, TimeMs: time.Now().UnixMilli(), TMax: time.Second}
}

// replica is one dspd's engine on the shared store, wired as dspd wires
// it: the user hash key comes from the store.
func replica(t *testing.T, r target, prefix string) *bidder.Engine {
	s := openOn(t, r, Config{Prefix: prefix, OpTimeout: time.Second, SpendStaleness: -1})
	return bidder.NewEngine(bidder.Config{HashKey: s.HashKey()}, s, s)
}

// TestWinsAcrossReplicas: bids made on three replicas, whose win notices
// (six copies each) hit the three at once: every bid is claimed exactly
// once and the shared spend is exact, on one Redis and on a Redis Cluster.
func TestWinsAcrossReplicas(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) { winsAcrossReplicas(t, start(t)) })
	}
}

func winsAcrossReplicas(t *testing.T, r target) {
	ctx := context.Background()
	replicas := []*bidder.Engine{replica(t, r, "x"), replica(t, r, "x"), replica(t, r, "x")}
	cat := bidder.NewCatalog([]*bidder.Campaign{testCampaign("c1")})
	var ids []bidder.BidID
	for i := range 60 {
		req := testRequest("")
		d, err := replicas[i%3].Decide(ctx, cat, &req)
		require.NoError(t, err)
		require.True(t, d.Bid(), d.Reason.String())
		ids = append(ids, d.BidID)
	}
	var claimed, duplicates atomic.Int64
	var wg sync.WaitGroup
	for _, e := range replicas {
		for range 2 { // each replica gets every notice twice, concurrently
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, id := range ids {
					out, err := e.Win(ctx, id, bidder.Micros(1_000_000+i))
					if !assert.NoError(t, err) {
						return
					}
					if out.Duplicate {
						duplicates.Add(1)
					} else {
						claimed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	assert.Equal(t, int64(len(ids)), claimed.Load(), "each bid claimed once across replicas")
	assert.Equal(t, int64(5*len(ids)), duplicates.Load())
	var want bidder.Micros
	for i := range ids {
		want += bidder.Micros(1_000_000 + i)
	}
	require.NoError(t, replicas[0].Ledger().(*Store).Flush(ctx))
	require.NoError(t, replicas[1].Ledger().(*Store).Flush(ctx))
	require.NoError(t, replicas[2].Ledger().(*Store).Flush(ctx))
	st, ok, err := replicas[1].Stats(ctx, "c1", "", bidder.DayOf(time.Now().UnixMilli()))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, bidder.DayStats{Bids: int64(len(ids)), Wins: int64(len(ids)), Spend: want}, st)
}

// TestSharedCaps: a frequency cap and a budget reached through wins on
// other replicas stop the bids of a third.
func TestSharedCaps(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) { sharedCaps(t, start(t)) })
	}
}

func sharedCaps(t *testing.T, r target) {
	ctx := context.Background()
	a, b := replica(t, r, "caps"), replica(t, r, "caps")
	cat := bidder.NewCatalog([]*bidder.Campaign{
		testCampaign("capped", func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 2, PeriodS: 3600} }),
	})
	for range 2 {
		req := testRequest("u1")
		d, err := a.Decide(ctx, cat, &req)
		require.NoError(t, err)
		require.True(t, d.Bid())
		_, err = b.Win(ctx, d.BidID, 1_000_000) // the notice reaches the other replica
		require.NoError(t, err)
	}
	req := testRequest("u1")
	d, err := b.Decide(ctx, cat, &req)
	require.NoError(t, err)
	assert.Equal(t, bidder.ReasonFreqCap, d.Reason)

	budget := bidder.NewCatalog([]*bidder.Campaign{testCampaign("small", func(c *bidder.Campaign) { c.DailyBudget = 5000 })})
	for range 2 { // 5,000 micros a day = 5,000,000 CPM micros: two wins at 2 CPM leave 1,000,000
		req := testRequest("")
		d, err := a.Decide(ctx, budget, &req)
		require.NoError(t, err)
		require.True(t, d.Bid())
		_, err = b.Win(ctx, d.BidID, 2_000_000)
		require.NoError(t, err)
	}
	req = testRequest("")
	d, err = a.Decide(ctx, budget, &req)
	require.NoError(t, err)
	assert.Equal(t, bidder.ReasonBudget, d.Reason)
}

// TestRedisDownAndBack stops Redis while decisions run: they keep being
// answered quickly, with no bid, and bidding resumes by itself once Redis
// is back.
func TestRedisDownAndBack(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	s := openOn(t, r, Config{OpTimeout: 20 * time.Millisecond, BreakerPause: 200 * time.Millisecond})
	e := bidder.NewEngine(bidder.Config{}, s, s)
	cat := bidder.NewCatalog([]*bidder.Campaign{
		testCampaign("capped", func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 100, PeriodS: 3600} }),
	})
	decide := func() (bidder.Decision, time.Duration) {
		req := testRequest("u1")
		start := time.Now()
		d, _ := e.Decide(ctx, cat, &req)
		return d, time.Since(start)
	}
	d, _ := decide()
	require.True(t, d.Bid(), "bids while Redis is up")

	r.Stop()
	var slowest time.Duration
	reasons := map[bidder.NoBidReason]int{}
	for range 200 {
		d, took := decide()
		slowest = max(slowest, took)
		reasons[d.Reason]++
	}
	t.Logf("Redis down: %v, slowest decision %v", reasons, slowest)
	assert.Equal(t, 200, reasons[bidder.ReasonStateUnavailable], "no bid, reason state_unavailable")
	assert.Less(t, slowest, 500*time.Millisecond, "never hangs: each call gives up after its 20 ms timeout or at once")
	_, _, err := s.Claim(ctx, bidder.BidID{1}, 1, time.Now())
	assert.True(t, errors.Is(err, ErrUnavailable))

	r.Start()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if d, _ := decide(); d.Bid() {
			break
		}
		require.True(t, time.Now().Before(deadline), "bidding did not resume after Redis came back")
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHashKeyIsShared: every replica on one store, and every restart, reads
// the same user hash key (the first to start stores it), so a user's
// frequency counters are the same for all of them.
func TestHashKeyIsShared(t *testing.T) {
	r := startRedis(t)
	a := openOn(t, r, Config{Prefix: "hk", OpTimeout: time.Second})
	b := openOn(t, r, Config{Prefix: "hk", OpTimeout: time.Second})
	assert.NotEqual(t, bidder.HashKey{}, a.HashKey())
	assert.Equal(t, a.HashKey(), b.HashKey())
	require.NoError(t, a.Close())
	again := openOn(t, r, Config{Prefix: "hk", OpTimeout: time.Second})
	assert.Equal(t, a.HashKey(), again.HashKey(), "after a restart")
	other := openOn(t, r, Config{Prefix: "other", OpTimeout: time.Second})
	assert.NotEqual(t, a.HashKey(), other.HashKey(), "another store, another key")
	assert.Equal(t, "noeviction", a.EvictionPolicy(), "redis-server's default keeps the books")
}

// TestLongestPeriodKeepsItsCounter: a frequency counter written with the
// longest period a campaign may have (365 days), or one past what a
// time.Duration of seconds can hold, lives on in Redis: its expiry
// saturates instead of wrapping negative (which would delete it).
func TestLongestPeriodKeepsItsCounter(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	s := openOn(t, r, Config{Prefix: "period", OpTimeout: time.Second})
	user := s.HashKey().User("u1")
	for _, period := range []int64{bidder.MaxFreqPeriodS, 1 << 40} {
		w := bidder.Win{CampaignID: "c1", Day: 20761, Price: 1, User: user, PeriodS: period, Window: 0}
		require.NoError(t, s.RecordWin(ctx, w))
		qs := []bidder.UsageQuery{{CampaignID: "c1", Day: 20761, User: user, PeriodS: period, Window: 0}}
		require.NoError(t, s.Usage(ctx, qs))
		assert.Equal(t, int64(1), qs[0].Wins, "period %d: the counter is alive", period)
		ttl, err := s.client.TTL(ctx, s.freqKey(user, "c1", period, 0)).Result()
		require.NoError(t, err)
		assert.Greater(t, ttl, time.Duration(min(period, 1<<31))*time.Second/2, "period %d: expires far ahead (%v)", period, ttl)
	}
}

// TestNetworkFaults: between dspd and Redis, added latency beyond the
// store's timeout, connection resets and a partition: no decision fails
// otherwise than as state_unavailable (no 5xx), a win notice is refused
// retryably (503), none waits past the store's timeout (twice: a decision
// asks for counters, then saves its record), and bidding resumes when the
// network heals.
func TestNetworkFaults(t *testing.T) {
	r := startRedis(t)
	const timeout = 25 * time.Millisecond
	p := startFaultProxy(t, fmt.Sprintf("127.0.0.1:%d", r.Port), 4*timeout)
	s := openOn(t, p, Config{Prefix: "faults", OpTimeout: timeout, BreakerPause: 100 * time.Millisecond})
	e := bidder.NewEngine(bidder.Config{HashKey: s.HashKey()}, s, s)
	cat := bidder.NewCatalog([]*bidder.Campaign{
		testCampaign("capped", func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1000, PeriodS: 3600} }),
	})
	decide := func(user string) (bidder.Decision, time.Duration, error) {
		req := testRequest(user)
		start := time.Now()
		d, err := e.Decide(t.Context(), cat, &req)
		return d, time.Since(start), err
	}
	healed := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if d, _, _ := decide("u-heal"); d.Bid() {
				return
			}
			require.True(t, time.Now().Before(deadline), "bidding did not resume after the network healed")
			time.Sleep(10 * time.Millisecond) // polling a server from outside: there is nothing to wait on
		}
	}
	d, _, err := decide("u-0")
	require.NoError(t, err)
	require.True(t, d.Bid())
	for _, fault := range []struct {
		name string
		mode int32
	}{{"latency", faultLatency}, {"resets", faultReset}, {"partition", faultPartition}} {
		t.Run(fault.name, func(t *testing.T) {
			won, _, err := decide("u-" + fault.name)
			require.NoError(t, err)
			require.True(t, won.Bid())
			wins := func() int64 {
				st, _, err := e.Stats(t.Context(), "capped", "", bidder.DayOfTime(time.Now()))
				require.NoError(t, err)
				return st.Wins
			}
			before := wins()
			p.set(fault.mode)
			var took []time.Duration
			reasons := map[bidder.NoBidReason]int{}
			for i := range 200 {
				d, dt, err := decide(fmt.Sprint("u-", fault.name, "-", i))
				took = append(took, dt)
				reasons[d.Reason]++
				if err != nil {
					require.ErrorIs(t, err, ErrUnavailable, "a failure of the state, never of the request")
				}
			}
			_, err = e.Win(t.Context(), won.BidID, 1_000_000)
			require.ErrorIs(t, err, ErrUnavailable, "the notice is refused, to be retried (503)")
			slices.Sort(took)
			p99 := took[len(took)*99/100]
			t.Logf("%s: %v, decision p99 %v, slowest %v", fault.name, reasons, p99, took[len(took)-1])
			assert.Equal(t, 200, reasons[bidder.ReasonStateUnavailable], "no bid, reason state_unavailable")
			assert.Less(t, p99, 2*timeout+25*time.Millisecond, "within the store's timeout, twice")
			p.set(faultNone)
			healed()
			_, err = e.Win(t.Context(), won.BidID, 1_000_000)
			require.NoError(t, err, "the retried notice is acknowledged once the network heals")
			// Recorded now, or already by the refused notice whose answer the
			// fault took (the retry is then a duplicate): once either way.
			assert.Equal(t, before+1, wins())
		})
	}
}

// TestOldKeysAreFound: a Redis holding bid records of the earlier key
// scheme (tagged by bid id) is noticed at open, so that dspd can warn that
// it does not read them.
func TestOldKeysAreFound(t *testing.T) {
	r := startRedis(t)
	s := openOn(t, r, Config{Prefix: "old"})
	assert.False(t, s.OldKeys())
	c := goredis.NewClient(&goredis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.Port)})
	defer c.Close()
	require.NoError(t, c.HSet(t.Context(), "old:bid:{"+strings.Repeat("ab", 16)+"}", "p", "1").Err())
	again := openOn(t, r, Config{Prefix: "old"})
	assert.True(t, again.OldKeys())
}

// TestClaimWinChecksThePriceFirst: a notice above the bid's price is
// refused as such, even after the bid was won, as every store refuses it.
func TestClaimWinChecksThePriceFirst(t *testing.T) {
	r := startRedis(t)
	e := replica(t, r, "price")
	cat := bidder.NewCatalog([]*bidder.Campaign{testCampaign("c1")})
	req := testRequest("u1")
	d, err := e.Decide(t.Context(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	_, err = e.Win(t.Context(), d.BidID, 1_000_000)
	require.NoError(t, err)
	_, err = e.Win(t.Context(), d.BidID, 5_000_000)
	assert.ErrorIs(t, err, bidder.ErrPriceAboveBid)
	out, err := e.Win(t.Context(), d.BidID, 1_000_000)
	require.NoError(t, err)
	assert.True(t, out.Duplicate)
}

// TestWinPeeked: a notice's win recorded from the record its price was
// read by (no second read) is counted once, a repeat with the same stale
// record is a duplicate, and a price above the bid is refused.
func TestWinPeeked(t *testing.T) {
	r := startRedis(t)
	e := replica(t, r, "peeked")
	cat := bidder.NewCatalog([]*bidder.Campaign{testCampaign("c1", func(c *bidder.Campaign) {
		c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 3600}
	})})
	req := testRequest("u1")
	d, err := e.Decide(t.Context(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid())
	rec, err := e.Peek(t.Context(), d.BidID)
	require.NoError(t, err)
	_, err = e.WinPeeked(t.Context(), rec, 5_000_000)
	require.ErrorIs(t, err, bidder.ErrPriceAboveBid)
	for i, dup := range []bool{false, true, true} {
		out, err := e.WinPeeked(t.Context(), rec, 1_000_000)
		require.NoError(t, err)
		assert.Equal(t, dup, out.Duplicate, "notice %d", i)
	}
	st, _, err := e.Stats(t.Context(), "c1", "", bidder.DayOfTime(time.Now()))
	require.NoError(t, err)
	assert.Equal(t, bidder.DayStats{Bids: st.Bids, Wins: 1, Spend: 1_000_000}, st)
	again := testRequest("u1")
	d, err = e.Decide(t.Context(), cat, &again)
	require.NoError(t, err)
	assert.Equal(t, bidder.ReasonFreqCap, d.Reason, "the frequency counter holds the win")
}

func TestEventClaimsConformance(t *testing.T) {
	r := startRedis(t)
	n := 0
	statetest.EventClaims(t, time.Now(), func(t *testing.T) bidder.EventClaimer {
		n++
		// A test of exactness, not of timeouts: 8 claimants at once on a
		// loaded machine under the race detector take longer than 25 ms.
		return openOn(t, r, Config{Prefix: fmt.Sprintf("events-%d", n), OpTimeout: time.Second})
	})
}

func TestManagedConformance(t *testing.T) {
	for name, start := range targets(t) {
		t.Run(name, func(t *testing.T) {
			r := start(t)
			n := 0
			statetest.Managed(t, func(t *testing.T) managed.Store {
				n++
				return openOn(t, r, Config{Prefix: fmt.Sprintf("managed-%d", n)})
			}, func(t *testing.T, s managed.Store) managed.Store {
				return openOn(t, r, Config{Prefix: s.(*Store).cfg.Prefix})
			})
		})
	}
}
