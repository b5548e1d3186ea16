package bidder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBidIDHex(t *testing.T) {
	id := BidID{0xde, 0xad, 0xbe, 0xef, 15: 0x01}
	assert.Equal(t, "deadbeef000000000000000000000001", id.String())
	back, ok := ParseBidID("DEADBEEF000000000000000000000001")
	require.True(t, ok)
	assert.Equal(t, id, back)
	for _, bad := range []string{"", "deadbeef", "deadbeef00000000000000000000000g", "deadbeef0000000000000000000000011"} {
		_, ok := ParseBidID(bad)
		assert.False(t, ok, bad)
	}
	assert.NotEqual(t, RandomBidID(), RandomBidID())
}

func TestMemoryBidStoreClaim(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryBidStore(time.Minute, 100)
	rec := BidRecord{ID: BidID{1}, CampaignID: "c1", Price: 2_500_000}
	require.NoError(t, s.Save(ctx, rec, testNow))
	require.ErrorIs(t, s.Save(ctx, rec, testNow), ErrDuplicateBidID)

	tests := []struct {
		name  string
		id    BidID
		price Micros
		at    time.Time
		want  ClaimResult
		err   error
	}{
		{"unknown", BidID{2}, 1, testNow, 0, ErrUnknownBid},
		{"price above the bid", BidID{1}, 2_500_001, testNow, 0, ErrPriceAboveBid},
		{"expired", BidID{1}, 1, testNow.Add(time.Minute), 0, ErrUnknownBid},
		{"first claim", BidID{1}, 2_500_000, testNow.Add(time.Minute - 1), Claimed, nil},
		{"price checked before duplicate", BidID{1}, 9_000_000, testNow, 0, ErrPriceAboveBid},
		{"duplicate", BidID{1}, 1, testNow, Duplicate, nil},
	}
	for _, tt := range tests { // in order: each row sees the state the previous rows left
		got, res, err := s.Claim(ctx, tt.id, tt.price, tt.at)
		if tt.err != nil {
			assert.ErrorIs(t, err, tt.err, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, res, tt.name)
		assert.Equal(t, rec, got, tt.name)
	}
}

func TestMemoryBidStoreBounded(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryBidStore(time.Minute, memShards*2) // two records per shard
	for i := range 10 {
		require.NoError(t, s.Save(ctx, BidRecord{ID: BidID{0, byte(i)}}, testNow.Add(time.Duration(i))))
	}
	assert.Equal(t, 2, s.Len(), "all ids fall in shard 0, which holds two")
	_, evicted := s.Evictions()
	assert.Equal(t, int64(8), evicted)
	_, _, err := s.Claim(ctx, BidID{0, 0}, 0, testNow)
	assert.ErrorIs(t, err, ErrUnknownBid, "the oldest went first")
	_, res, err := s.Claim(ctx, BidID{0, 9}, 0, testNow)
	require.NoError(t, err)
	assert.Equal(t, Claimed, res)

	assert.Equal(t, 2, s.Sweep(testNow.Add(2*time.Minute)))
	assert.Equal(t, 0, s.Len())
	expired, _ := s.Evictions()
	assert.Equal(t, int64(2), expired)
}

func TestMemoryBidStoreExpiresOnSave(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryBidStore(time.Minute, 1000)
	for i := range 5 {
		require.NoError(t, s.Save(ctx, BidRecord{ID: BidID{0, byte(i)}}, testNow))
	}
	require.NoError(t, s.Save(ctx, BidRecord{ID: BidID{0, 99}}, testNow.Add(time.Minute)))
	assert.Equal(t, 1, s.Len())
}

func TestMemoryLedgerSweep(t *testing.T) {
	ctx := context.Background()
	now := testNow
	l := NewMemoryLedger(MemoryLedgerConfig{DayTTL: time.Hour, Clock: func() time.Time { return now }})
	require.NoError(t, l.RecordWin(ctx, Win{CampaignID: "c1", Day: 5, Price: 10, UID: "u", PeriodS: 60, Window: 1}))
	d, f := l.Sizes()
	assert.Equal(t, [2]int{1, 1}, [2]int{d, f})
	assert.Equal(t, 1, l.Sweep(now.Add(time.Minute)), "the frequency counter lives one period")
	assert.Equal(t, 0, l.Sweep(now.Add(59*time.Minute)))
	assert.Equal(t, 1, l.Sweep(now.Add(time.Hour)))
	_, ok, _ := l.Stats(ctx, "c1", 5)
	assert.False(t, ok)
}

func TestWinRules(t *testing.T) {
	ctx := context.Background()
	e, ledger, _ := newTestEngine()
	cat := NewCatalog([]*Campaign{camp("c1", usd(2.5), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 5, PeriodS: 3600} })})
	req := baseRequest()
	req.UID = "u1"
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	day := DayOf(req.TimeMs)
	window := FreqCap{PeriodS: 3600}.Window(req.TimeMs)

	_, err := e.Win(ctx, BidID{0xff}, 1)
	assert.ErrorIs(t, err, ErrUnknownBid)
	_, err = e.Win(ctx, d.BidID, usd(2.5)+1)
	assert.ErrorIs(t, err, ErrPriceAboveBid)
	st, _, _ := ledger.Stats(ctx, "c1", day)
	assert.Equal(t, DayStats{Bids: 1}, st, "rejected notices record nothing")

	out, err := e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.False(t, out.Duplicate)
	out, err = e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.True(t, out.Duplicate)

	st, _, _ = ledger.Stats(ctx, "c1", day)
	assert.Equal(t, DayStats{Bids: 1, Wins: 1, Spend: usd(1.75)}, st)
	qs := []UsageQuery{{CampaignID: "c1", Day: day, UID: "u1", PeriodS: 3600, Window: window}}
	require.NoError(t, ledger.Usage(ctx, qs))
	assert.Equal(t, int64(1), qs[0].Wins)
	assert.Equal(t, usd(1.75), qs[0].Spent)

	// A test bid records nothing on win, but is still claimed once.
	req.Test = true
	d = decide(e, cat, req)
	out, err = e.Win(ctx, d.BidID, usd(1))
	require.NoError(t, err)
	assert.False(t, out.Duplicate)
	assert.True(t, out.Record.Test)
	out, _ = e.Win(ctx, d.BidID, usd(1))
	assert.True(t, out.Duplicate)
	st, _, _ = ledger.Stats(ctx, "c1", day)
	assert.Equal(t, DayStats{Bids: 1, Wins: 1, Spend: usd(1.75)}, st)
}

func TestWinSurvivesReload(t *testing.T) {
	ctx := context.Background()
	e, ledger, _ := newTestEngine()
	before := NewCatalog([]*Campaign{camp("c1", usd(3), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 60} })})
	req := baseRequest()
	req.UID = "u1"
	d := decide(e, before, req)
	require.True(t, d.Bid())
	after := NewCatalog([]*Campaign{camp("c1", usd(1))}) // reloaded: price and cap changed
	_, err := e.Win(ctx, d.BidID, usd(2))
	require.NoError(t, err, "the record's price (3) bounds the notice, not the new campaign's")
	st, _, _ := ledger.Stats(ctx, "c1", DayOf(req.TimeMs))
	assert.Equal(t, usd(2), st.Spend)
	served := decide(e, after, req)
	assert.True(t, served.Bid(), "the reloaded set, without a cap, serves")
	// Reloaded again with the cap: the counters stayed with the id, so c1
	// still holds the win counted under the bid-time period.
	again := NewCatalog([]*Campaign{camp("c1", usd(3), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 1, PeriodS: 60} })})
	assert.Equal(t, ReasonFreqCap, decide(e, again, req).Reason)
}

// TestConcurrentWinsAreExact hammers the engine from many goroutines with
// bids and duplicate win notices; run under -race. Every bid's win must be
// recorded exactly once and the spend must be the exact sum.
func TestConcurrentWinsAreExact(t *testing.T) {
	ctx := context.Background()
	ledger := NewMemoryLedger(MemoryLedgerConfig{})
	bids := NewMemoryBidStore(time.Hour, 1_000_000)
	e := NewEngine(Config{}, ledger, bids)
	cat := NewCatalog([]*Campaign{camp("c1", usd(2.5))})
	const workers, perWorker, dupes = 8, 200, 3

	ids := make(chan BidID, workers*perWorker)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				req := baseRequest()
				req.TimeMs = testNow.UnixMilli() + int64(w*perWorker+i)
				d, err := e.Decide(ctx, cat, &req)
				if err != nil || !d.Bid() {
					t.Errorf("no bid: %v %v", d.Reason, err)
					return
				}
				ids <- d.BidID
			}
		}()
	}
	wg.Wait()
	close(ids)
	var all []BidID
	for id := range ids {
		all = append(all, id)
	}
	require.Len(t, all, workers*perWorker)

	var recorded, duplicates sync.Map
	for w := range workers * dupes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, id := range all {
				price := Micros(1_000_000 + i) // a distinct price per bid
				out, err := e.Win(ctx, id, price)
				if err != nil {
					t.Error(err)
					return
				}
				if out.Duplicate {
					duplicates.Store([2]int{w, i}, true)
				} else if _, dup := recorded.LoadOrStore(i, w); dup {
					t.Errorf("bid %d recorded twice", i)
				}
			}
		}()
	}
	wg.Wait()

	var want Micros
	for i := range all {
		want += Micros(1_000_000 + i)
	}
	st, ok, err := ledger.Stats(ctx, "c1", DayOf(testNow.UnixMilli()))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, DayStats{Bids: int64(len(all)), Wins: int64(len(all)), Spend: want}, st)
	n := 0
	duplicates.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, len(all)*(workers*dupes-1), n)
}

func TestMemoryLedgerCaps(t *testing.T) {
	ctx := context.Background()
	now := testNow
	l := NewMemoryLedger(MemoryLedgerConfig{MaxFreqCounters: memShards * 4, MaxDayCounters: memShards * 4,
		Clock: func() time.Time { return now }})
	for i := range 5000 {
		now = testNow.Add(time.Duration(i) * time.Second) // later users are written later
		require.NoError(t, l.RecordWin(ctx, Win{CampaignID: "c1", Day: Day(i % 3), Price: 1,
			UID: fmt.Sprintf("user-%d", i), PeriodS: 86400, Window: 1}))
	}
	days, freq := l.Sizes()
	assert.LessOrEqual(t, freq, memShards*4, "never above the cap")
	assert.Equal(t, 3, days)
	_, evicted := l.Evictions()
	assert.Equal(t, int64(5000-freq), evicted, "every counter that went is counted")
	qs := []UsageQuery{{CampaignID: "c1", Day: 1, UID: "user-4999", PeriodS: 86400, Window: 1},
		{CampaignID: "c1", Day: 1, UID: "user-0", PeriodS: 86400, Window: 1}}
	require.NoError(t, l.Usage(ctx, qs))
	assert.Equal(t, int64(1), qs[0].Wins, "the most recent user is kept")
	assert.Equal(t, int64(0), qs[1].Wins, "the least recently written went first")

	// Expired counters make room before live ones are evicted.
	l = NewMemoryLedger(MemoryLedgerConfig{MaxFreqCounters: memShards, Clock: func() time.Time { return now }})
	for i := range 2000 {
		now = testNow.Add(time.Duration(i) * time.Hour) // each past its one-hour period when the next comes
		require.NoError(t, l.RecordWin(ctx, Win{CampaignID: "c", Day: 1, Price: 1, UID: fmt.Sprint(i), PeriodS: 3600, Window: int64(i)}))
	}
	_, evicted = l.Evictions()
	assert.Equal(t, int64(0), evicted)
}

// TestMemoryBidStoreKeepsUserIDs saves far more records than the store
// holds, so that its user-id logs are compacted many times, and checks that
// every record still held gives back its own user id.
func TestMemoryBidStoreKeepsUserIDs(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryBidStore(time.Hour, memShards*40)
	id := func(i int) BidID { return BidID{byte(i), byte(i >> 8), byte(i >> 16), 15: 1} }
	uid := func(i int) string { return fmt.Sprintf("user-%d-%s", i, strings.Repeat("x", i%100)) }
	const n = 20000
	for i := range n {
		rec := BidRecord{ID: id(i), CampaignID: fmt.Sprintf("c-%d", i%7), CreativeID: "cr", UID: uid(i), Price: 5, TimeMs: int64(i)}
		require.NoError(t, s.Save(ctx, rec, testNow))
	}
	held := 0
	for i := range n {
		rec, _, err := s.Claim(ctx, id(i), 1, testNow)
		if errors.Is(err, ErrUnknownBid) {
			continue
		}
		require.NoError(t, err)
		held++
		require.Equal(t, uid(i), rec.UID)
		require.Equal(t, fmt.Sprintf("c-%d", i%7), rec.CampaignID)
		require.Equal(t, int64(i), rec.TimeMs)
	}
	assert.Equal(t, s.Len(), held)
	assert.Greater(t, held, 2000)
	for i := range s.shards {
		sh := &s.shards[i]
		assert.Less(t, len(sh.uids.buf), 64<<10, "shard %d's log keeps only about what its records need", i)
	}
}
