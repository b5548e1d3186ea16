package bidder

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/countrand"
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

// newBidStore is a store of maxBids records of ttl with predictable ids.
func newBidStore(ttl time.Duration, maxBids int) *MemoryBidStore {
	return NewMemoryBidStore(MemoryBidStoreConfig{TTL: ttl, MaxBids: maxBids, Random: new(countrand.Reader)})
}

func TestMemoryBidStoreClaim(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 100)
	rec := BidRecord{CampaignID: "c1", CreativeID: "cr", User: testHashKey.User("u"), TimeS: 1_793_779_200,
		Price: 2_500_000, PeriodS: 3600}
	id, err := s.Save(ctx, rec, testNow)
	require.NoError(t, err)
	rec.ID = id
	forged := id
	forged[15] ^= 1 // the right place, another secret
	elsewhere := id
	elsewhere[3] ^= 1 // another slot, the same secret

	tests := []struct {
		name  string
		id    BidID
		price Micros
		at    time.Time
		want  ClaimResult
		err   error
	}{
		{"unknown", BidID{2}, 1, testNow, 0, ErrUnknownBid},
		{"forged secret", forged, 1, testNow, 0, ErrUnknownBid},
		{"the secret in another slot", elsewhere, 1, testNow, 0, ErrUnknownBid},
		{"price above the bid", id, 2_500_001, testNow, 0, ErrPriceAboveBid},
		{"expired", id, 1, testNow.Add(time.Minute), 0, ErrUnknownBid},
		{"first claim", id, 2_500_000, testNow.Add(time.Minute - time.Millisecond), Claimed, nil},
		{"price checked before duplicate", id, 9_000_000, testNow, 0, ErrPriceAboveBid},
		{"duplicate", id, 1, testNow, Duplicate, nil},
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

// TestMemoryBidStoreFailsClosed fills the store with live records: the next
// save is refused (ErrCapacity) and every record held stays claimable; once
// the records expire, saves succeed again.
func TestMemoryBidStoreFailsClosed(t *testing.T) {
	ctx := context.Background()
	const capacity = 3 * memShards
	s := newBidStore(time.Minute, capacity)
	var ids []BidID
	for i := range capacity {
		id, err := s.Save(ctx, BidRecord{CampaignID: "c", Price: 1, TimeS: int64(i)}, testNow)
		require.NoError(t, err, "record %d of %d", i+1, capacity)
		ids = append(ids, id)
	}
	_, err := s.Save(ctx, BidRecord{CampaignID: "c", Price: 1}, testNow.Add(59*time.Second))
	require.ErrorIs(t, err, ErrCapacity, "full of live records: refused, nothing evicted")
	assert.Equal(t, capacity, s.Len())
	for i, id := range ids {
		rec, res, err := s.Claim(ctx, id, 1, testNow.Add(59*time.Second))
		require.NoError(t, err, "record %d", i)
		assert.Equal(t, Claimed, res)
		assert.Equal(t, int64(i), rec.TimeS)
	}
	assert.Equal(t, Upkeep{Refused: 1}, s.Upkeep())

	_, err = s.Save(ctx, BidRecord{CampaignID: "c", Price: 1}, testNow.Add(time.Minute))
	require.NoError(t, err, "expired records make room")
	assert.Positive(t, s.Upkeep().Expired)
}

// TestMemoryBidStoreFillsEveryShard: the store refuses a record only when it
// holds MaxBids, however the ids fall into shards.
func TestMemoryBidStoreFillsEveryShard(t *testing.T) {
	for _, capacity := range []int{1, 2, 5, 64, 100, 1000} {
		s := NewMemoryBidStore(MemoryBidStoreConfig{TTL: time.Minute, MaxBids: capacity}) // random ids
		for i := range capacity {
			_, err := s.Save(context.Background(), BidRecord{CampaignID: "c"}, testNow)
			require.NoError(t, err, "cap %d: record %d", capacity, i+1)
		}
		_, err := s.Save(context.Background(), BidRecord{CampaignID: "c"}, testNow)
		assert.ErrorIs(t, err, ErrCapacity, "cap %d", capacity)
		assert.Equal(t, capacity, s.Len())
	}
}

// TestMemoryBidStoreStaleIDs: a slot reused by a new record does not answer
// to the id of the record that held it before.
func TestMemoryBidStoreStaleIDs(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 1)
	old, err := s.Save(ctx, BidRecord{CampaignID: "old", Price: 1}, testNow)
	require.NoError(t, err)
	later := testNow.Add(2 * time.Minute)
	fresh, err := s.Save(ctx, BidRecord{CampaignID: "new", Price: 1}, later)
	require.NoError(t, err)
	assert.Equal(t, old[:4], fresh[:4], "the same slot")
	_, _, err = s.Claim(ctx, old, 1, later)
	assert.ErrorIs(t, err, ErrUnknownBid)
	rec, _, err := s.Claim(ctx, fresh, 1, later)
	require.NoError(t, err)
	assert.Equal(t, "new", rec.CampaignID)
}

// TestBidRecordSize: a record is 48 bytes and there is no index, so a full
// store takes 48 bytes a record, measured on the heap.
func TestBidRecordSize(t *testing.T) {
	assert.Equal(t, uintptr(BidRecordBytes), unsafe.Sizeof(ringRecord{}))
	assert.LessOrEqual(t, BidRecordBytes, 64)
	const n = memShards * chunkSize // one whole chunk per shard
	before := liveHeap()
	s := newBidStore(time.Hour, n)
	for i := range n {
		_, err := s.Save(context.Background(), BidRecord{CampaignID: "c", CreativeID: "cr", User: UserKey{1},
			TimeS: int64(i), Price: 1}, testNow)
		require.NoError(t, err)
	}
	perRecord := float64(liveHeap()-before) / n
	t.Logf("%d records: %.1f bytes each on the heap", n, perRecord)
	assert.InDelta(t, BidRecordBytes, perRecord, 4)
	runtime.KeepAlive(s)
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestMemoryBidStoreSweep(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 10_000)
	for i := range 9_000 {
		_, err := s.Save(ctx, BidRecord{CampaignID: "c"}, testNow.Add(time.Duration(i)*time.Millisecond))
		require.NoError(t, err)
	}
	assert.Equal(t, 0, s.Sweep(testNow.Add(time.Minute-time.Second)))
	assert.Equal(t, 9_000, s.Sweep(testNow.Add(2*time.Minute)), "in batches, all of them")
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, int64(9_000), s.Upkeep().Expired)
}

func TestMemoryLedgerSweep(t *testing.T) {
	ctx := context.Background()
	now := testNow
	l := NewMemoryLedger(MemoryLedgerConfig{Clock: func() time.Time { return now }})
	user := testHashKey.User("u")
	require.NoError(t, l.Reserve(ctx, Room{CampaignID: "c1", Day: 5, User: user, PeriodS: 60, Window: 1,
		Until: now.Add(time.Minute)}))
	require.NoError(t, l.RecordWin(ctx, Win{CampaignID: "c1", Day: 5, Price: 10, User: user, PeriodS: 60, Window: 1}))
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
	st, _, _ := ledger.Stats(ctx, "c1", "", day)
	assert.Equal(t, DayStats{Bids: 1}, st, "rejected notices record nothing")

	out, err := e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.False(t, out.Duplicate)
	out, err = e.Win(ctx, d.BidID, usd(1.75))
	require.NoError(t, err)
	assert.True(t, out.Duplicate)

	st, _, _ = ledger.Stats(ctx, "c1", "", day)
	assert.Equal(t, DayStats{Bids: 1, Wins: 1, Spend: usd(1.75)}, st)
	qs := []UsageQuery{{CampaignID: "c1", Day: day, User: testHashKey.User("u1"), PeriodS: 3600, Window: window}}
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
	st, _, _ = ledger.Stats(ctx, "c1", "", day)
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
	st, _, _ := ledger.Stats(ctx, "c1", "", DayOf(req.TimeMs))
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
	bids := NewMemoryBidStore(MemoryBidStoreConfig{TTL: time.Hour, MaxBids: 1_000_000})
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
	st, ok, err := ledger.Stats(ctx, "c1", "", DayOf(testNow.UnixMilli()))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, DayStats{Bids: int64(len(all)), Wins: int64(len(all)), Spend: want}, st)
	n := 0
	duplicates.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, len(all)*(workers*dupes-1), n)
}

// TestMemoryLedgerFailsClosed fills the ledger's caps with live counters: a
// bid that needs a new one is refused (ErrCapacity), nothing held is
// dropped, and once counters expire there is room again.
func TestMemoryLedgerFailsClosed(t *testing.T) {
	ctx := context.Background()
	now := testNow
	const perShard = 2
	l := NewMemoryLedger(MemoryLedgerConfig{MaxFreqCounters: memShards * perShard, MaxDayCounters: memShards * perShard,
		Clock: func() time.Time { return now }})
	room := func(campaign, user string) Room {
		r := Room{CampaignID: campaign, Day: DayOfTime(now)}
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
				require.NoError(t, l.RecordWin(ctx, Win{CampaignID: "c1", Day: DayOfTime(now), Price: 1,
					User: testHashKey.User(user), PeriodS: 3600, Window: 1}))
			case errors.Is(err, ErrCapacity):
				refused++
			default:
				require.NoError(t, err)
			}
		}
		_, freq := l.Sizes()
		assert.Equal(t, len(kept), freq)
		assert.LessOrEqual(t, freq, memShards*perShard)
		assert.Equal(t, 1000-len(kept), refused)
		for _, user := range kept { // every counter held still counts its win
			qs := []UsageQuery{{CampaignID: "c1", User: testHashKey.User(user), PeriodS: 3600, Window: 1}}
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
				require.ErrorIs(t, err, ErrCapacity)
				continue
			}
			require.NoError(t, l.RecordWin(ctx, Win{CampaignID: c, Day: DayOfTime(now), Price: 7}))
			spent++
		}
		days, _ := l.Sizes()
		assert.LessOrEqual(t, days, memShards*perShard)
		assert.Positive(t, l.Upkeep().Refused)
		for i := range 1000 {
			st, ok, err := l.Stats(ctx, fmt.Sprintf("c-%d", i), "", DayOfTime(now))
			require.NoError(t, err)
			if ok && st.Wins > 0 {
				spent--
				assert.Equal(t, Micros(7), st.Spend)
			}
		}
		assert.Zero(t, spent, "every campaign that spent keeps its counter")
	})
}

// TestSpentBudgetStaysSpent: a campaign that has spent its budget stops
// writing its counter, and however many other campaigns then fill the
// ledger, it keeps answering budget (no eviction resets it to zero).
func TestSpentBudgetStaysSpent(t *testing.T) {
	ctx := context.Background()
	now := testNow
	clock := func() time.Time { return now }
	ledger := NewMemoryLedger(MemoryLedgerConfig{MaxDayCounters: memShards, Clock: clock})
	e := NewEngine(Config{Clock: clock}, ledger, newBidStore(time.Minute, 1000))
	broke := camp("broke", usd(2), func(c *Campaign) { c.DailyBudget = usd(0.002) }) // one bid's worth
	cat := NewCatalog([]*Campaign{broke})
	req := baseRequest()
	d := decide(e, cat, req)
	require.True(t, d.Bid())
	_, err := e.Win(ctx, d.BidID, usd(2))
	require.NoError(t, err)
	require.Equal(t, ReasonBudget, decide(e, cat, req).Reason)

	refused := 0
	for i := range 500 { // other campaigns' counters, written later
		now = testNow.Add(time.Duration(i) * time.Second)
		if err := ledger.Reserve(ctx, Room{CampaignID: fmt.Sprint("other-", i), Day: DayOfTime(now)}); errors.Is(err, ErrCapacity) {
			refused++
		}
	}
	assert.Positive(t, refused, "the cap was reached")
	req.TimeMs = now.UnixMilli()
	assert.Equal(t, ReasonBudget.String(), decide(e, cat, req).Reason.String(), "still spent")
}

// TestWinNeverNeedsRoom: the counters a bid's win writes are reserved when
// the bid is made, so a win is booked even when the ledger is full.
func TestWinNeverNeedsRoom(t *testing.T) {
	ctx := context.Background()
	ledger := NewMemoryLedger(MemoryLedgerConfig{MaxFreqCounters: memShards, MaxDayCounters: memShards, Clock: fixedClock})
	e := NewEngine(Config{Clock: fixedClock, HashKey: testHashKey}, ledger, newBidStore(time.Minute, 1000))
	cat := NewCatalog([]*Campaign{camp("c1", usd(2), func(c *Campaign) { c.FreqCap = FreqCap{Impressions: 5, PeriodS: 3600} })})
	req := baseRequest()
	req.UID = "the-user"
	d := decide(e, cat, req)
	require.True(t, d.Bid())

	for i := range 1000 { // fill the frequency counters' cap
		_ = ledger.Reserve(ctx, Room{CampaignID: "c1", Day: DayOf(req.TimeMs), User: testHashKey.User(fmt.Sprint(i)),
			PeriodS: 3600, Window: 1, Until: testNow.Add(time.Hour)})
	}
	req.UID = "someone-new"
	full, err := e.Decide(ctx, cat, &req)
	require.ErrorIs(t, err, ErrCapacity)
	require.Equal(t, ReasonCapacity.String(), full.Reason.String(), "the ledger is full")

	_, err = e.Win(ctx, d.BidID, usd(1))
	require.NoError(t, err, "the win is booked")
	st, _, _ := ledger.Stats(ctx, "c1", "", DayOf(req.TimeMs))
	assert.Equal(t, DayStats{Bids: 1, Wins: 1, Spend: usd(1)}, st)
	qs := []UsageQuery{{CampaignID: "c1", User: testHashKey.User("the-user"), PeriodS: 3600,
		Window: FreqCap{PeriodS: 3600}.Window(req.TimeMs)}}
	require.NoError(t, ledger.Usage(ctx, qs))
	assert.Equal(t, int64(1), qs[0].Wins, "and counted against the user's cap")
}
