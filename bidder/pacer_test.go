package bidder_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// draws is a Rand of fixed draws, in turn, that counts how many it gave.
type draws struct {
	seq []uint32
	n   int
}

func (d *draws) next() uint32 {
	v := d.seq[d.n%len(d.seq)]
	d.n++
	return v
}

const half = 1 << 31 // a draw of half makes a rate of 0.5 hold back; just below it does not

func paced(id string, bid bidder.Micros, mods ...func(*bidder.Campaign)) *bidder.Campaign {
	return camp(id, bid, append([]func(*bidder.Campaign){func(c *bidder.Campaign) {
		c.Pacing, c.DailyBudget = bidder.PacingEven, usd(1000)
	}}, mods...)...)
}

func budget(m bidder.Micros) func(*bidder.Campaign) {
	return func(c *bidder.Campaign) { c.DailyBudget = m }
}

// pacedEngine is newTestEngine with a Rand of fixed draws.
func pacedEngine(clock func() time.Time, d *draws, cfg bidder.PacingConfig) (*bidder.Engine, *memory.Ledger) {
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: clock})
	e := bidder.NewEngine(bidder.Config{Clock: clock, HashKey: testHashKey, BidTTL: time.Minute, Rand: d.next, Pacing: cfg},
		ledger, newBidStore(time.Minute, 1000))
	return e, ledger
}

// setRate makes the book hold rate for the campaign at now's minute, and
// ticks: the engine takes it.
func setRate(t *testing.T, e *bidder.Engine, book bidder.PacingBook, id string, rate float64, now time.Time) {
	t.Helper()
	_, err := book.StorePace(context.Background(), id, bidder.Pace{Tick: now.Unix() / 60, Day: bidder.DayOfTime(now), Rate: rate})
	require.NoError(t, err)
	require.NoError(t, e.TickPacing(context.Background(), now))
}

func TestPacingHoldsBack(t *testing.T) {
	d := &draws{seq: []uint32{half - 1, half, math.MaxUint32, 0}}
	e, ledger := pacedEngine(fixedClock, d, bidder.PacingConfig{})
	cat := bidder.NewCatalog([]*bidder.Campaign{paced("even", usd(3)), camp("asap", usd(1))})
	e.Pace(cat)
	setRate(t, e, ledger, "even", 0.5, testNow)

	var got []string
	for range 4 {
		dec := decide(e, cat, baseRequest())
		got = append(got, dec.Campaign.ID)
	}
	assert.Equal(t, []string{"even", "asap", "asap", "even"}, got, "held back when the draw is not below the rate; the next campaign bids")
	assert.Equal(t, 4, d.n, "one draw a decision that reaches the paced campaign")

	onlyPaced := bidder.NewCatalog([]*bidder.Campaign{paced("even", usd(3))})
	e.Pace(onlyPaced)
	d.n = 1                                    // the next draw is half
	dec := decide(e, onlyPaced, baseRequest()) // held back
	require.False(t, dec.Bid())
	assert.Equal(t, bidder.ReasonPacing, dec.Reason)
	assert.Equal(t, "pacing", dec.Reason.String())
	st := e.PacingStatus()
	require.Len(t, st, 1)
	assert.Equal(t, 0.5, st[0].Rate, "the rate survives the reload: it is kept by campaign id")
}

func TestPacingReasonIsTheFurthestStage(t *testing.T) {
	d := &draws{seq: []uint32{math.MaxUint32}} // always held back
	e, ledger := pacedEngine(fixedClock, d, bidder.PacingConfig{})
	cat := bidder.NewCatalog([]*bidder.Campaign{
		paced("even", usd(3)),
		camp("broke", usd(2), func(c *bidder.Campaign) { c.DailyBudget = 0 }),
	})
	e.Pace(cat)
	setRate(t, e, ledger, "even", 0.5, testNow)
	dec := decide(e, cat, baseRequest())
	assert.Equal(t, bidder.ReasonPacing, dec.Reason, "pacing is a stage after budget")
}

func TestASAPCampaignsDrawNothing(t *testing.T) {
	d := &draws{seq: []uint32{0}}
	e, _ := pacedEngine(fixedClock, d, bidder.PacingConfig{})
	cat := bidder.NewCatalog([]*bidder.Campaign{camp("a", usd(3), func(c *bidder.Campaign) { c.DailyBudget = usd(10) }),
		camp("even-no-budget", usd(2), func(c *bidder.Campaign) { c.Pacing = bidder.PacingEven })})
	e.Pace(cat)
	require.NoError(t, e.TickPacing(context.Background(), testNow))
	for range 10 {
		dec := decide(e, cat, baseRequest())
		require.True(t, dec.Bid())
	}
	assert.Zero(t, d.n, "no campaign is paced: even without a budget paces nothing")
	assert.Empty(t, e.PacingStatus())
}

// TestPacingWithoutABook: over a ledger that keeps no pacing book, even
// bids as asap.
func TestPacingWithoutABook(t *testing.T) {
	d := &draws{seq: []uint32{math.MaxUint32}}
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock, Rand: d.next}, struct{ bidder.Ledger }{ledger}, newBidStore(time.Minute, 100))
	cat := bidder.NewCatalog([]*bidder.Campaign{paced("even", usd(3))})
	e.Pace(cat)
	require.NoError(t, e.TickPacing(context.Background(), testNow))
	dec := decide(e, cat, baseRequest())
	assert.True(t, dec.Bid())
	assert.Zero(t, d.n)
	assert.Nil(t, e.PacingStatus())
}

// TestPacingTickSteers: ticks count the requests into the book, set a new
// campaign's rate from its spend, and report target and spend.
func TestPacingTickSteers(t *testing.T) {
	ctx := context.Background()
	now := testNow
	clock := func() time.Time { return now }
	d := &draws{seq: []uint32{0}}
	e, ledger := pacedEngine(clock, d, bidder.PacingConfig{})
	c := paced("even", usd(3), budget(usd(0.2))) // 2e8 CPM micros: 200 wins at 0.5 are half of it
	cat := bidder.NewCatalog([]*bidder.Campaign{c})
	e.Pace(cat)
	require.NoError(t, e.TickPacing(ctx, now))
	require.Equal(t, 1.0, e.PacingStatus()[0].Rate, "a new campaign starts at 1")

	// A minute in which the campaign wins every request, at 0.5 CPM: far
	// more than the budget's pace (10:30 is 44 % of a uniform day; 200
	// wins are half the budget).
	for range 200 {
		dec := decide(e, cat, baseRequest())
		require.True(t, dec.Bid())
		_, err := e.Win(ctx, dec.BidID, usd(0.5))
		require.NoError(t, err)
	}
	now = now.Add(time.Minute)
	require.NoError(t, e.TickPacing(ctx, now))
	require.NoError(t, e.TickPacing(ctx, now.Add(time.Second)), "a minute ticked once")
	st := e.PacingStatus()[0]
	assert.Equal(t, 0.5, st.Rate, "ahead of its target: down, by at most half a tick")
	assert.Equal(t, usd(100), st.Spent, "200 wins at 0.5 CPM, in CPM micros")
	assert.Equal(t, c.DailyBudget*1000, st.Budget)
	uniform := float64(now.Sub(now.Truncate(24*time.Hour))) / float64(24*time.Hour)
	assert.InDelta(t, uniform*float64(st.Budget), float64(st.Target), 1, "the first day's curve is uniform")
	counts, err := ledger.Traffic(ctx, bidder.DayOfTime(now))
	require.NoError(t, err)
	bucket := (testNow.Hour()*60 + testNow.Minute()) / 5
	assert.Equal(t, int64(200), counts[bucket], "the requests, counted in their five-minute bucket")
	stored := make([]bidder.Pace, 1)
	require.NoError(t, ledger.Paces(ctx, []string{"even"}, stored))
	assert.Equal(t, now.Unix()/60, stored[0].Tick, "the state is kept in the book")
	assert.Equal(t, 0.5, stored[0].Rate)
}

// TestReplicasSteerAsOne: two engines over one book (replicas sharing a
// state) tick the same minute: the second takes the first's state, so both
// throttle at the same rate.
func TestReplicasSteerAsOne(t *testing.T) {
	ctx := context.Background()
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})
	var engines []*bidder.Engine
	var cats []*bidder.Catalog
	for range 2 {
		d := &draws{seq: []uint32{0}}
		e := bidder.NewEngine(bidder.Config{Clock: fixedClock, Rand: d.next}, ledger, newBidStore(time.Minute, 1000))
		cat := bidder.NewCatalog([]*bidder.Campaign{paced("even", usd(3), budget(usd(0.4)))}) // each replica loads its own file
		e.Pace(cat)
		engines, cats = append(engines, e), append(cats, cat)
	}
	for i := range 2 {
		require.NoError(t, engines[i].TickPacing(ctx, testNow))
	}
	for range 100 { // both bid, and the wins reach the shared books
		for i := range 2 {
			dec := decide(engines[i], cats[i], baseRequest())
			require.True(t, dec.Bid())
			_, err := engines[i].Win(ctx, dec.BidID, usd(1))
			require.NoError(t, err)
		}
	}
	next := testNow.Add(time.Minute)
	require.NoError(t, engines[0].TickPacing(ctx, next))
	require.NoError(t, engines[1].TickPacing(ctx, next.Add(20*time.Second)))
	r0, r1 := engines[0].PacingStatus()[0], engines[1].PacingStatus()[0]
	assert.Less(t, r0.Rate, 1.0)
	assert.Equal(t, r0.Rate, r1.Rate, "one rate for both")
	assert.Equal(t, usd(200), r1.Spent, "both read the shared spend")
}

// TestPacingFollowsRequestTime: with FollowRequests (-trust-request-ts),
// the pacing clock is the latest request time: a replayed day paces on
// its own clock.
func TestPacingFollowsRequestTime(t *testing.T) {
	ctx := context.Background()
	wall := func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }
	e, ledger := pacedEngine(wall, &draws{seq: []uint32{0}}, bidder.PacingConfig{FollowRequests: true})
	cat := bidder.NewCatalog([]*bidder.Campaign{paced("even", usd(3))})
	e.Pace(cat)
	assert.Equal(t, wall(), e.PacingNow(), "the server clock until a request comes")
	for _, at := range []time.Time{testNow, testNow.Add(90 * time.Second), testNow.Add(time.Minute)} {
		req := baseRequest()
		req.TimeMs = at.UnixMilli()
		decide(e, cat, req)
	}
	assert.Equal(t, testNow.Add(90*time.Second), e.PacingNow(), "the latest request time, not the last")
	require.NoError(t, e.TickPacing(ctx, e.PacingNow()))
	st := e.PacingStatus()[0]
	assert.Equal(t, testNow.Add(90*time.Second), st.At)
	counts, err := ledger.Traffic(ctx, bidder.DayOfTime(testNow))
	require.NoError(t, err)
	assert.Equal(t, int64(3), counts[(10*60+30)/5], "counted on the replayed day")
}

// BenchmarkDecidePacing is BenchmarkDecide's 1,000 campaigns and request
// mix three ways: over a ledger without a pacing book (no pacing at all),
// with one and every campaign asap, and with every budgeted campaign even
// at rate 1 (each decision that reaches one draws, and none is held back,
// so that the work is otherwise the same).
func BenchmarkDecidePacing(b *testing.B) {
	data := campaignsJSON(b, 1_000)
	for _, mode := range []string{"no-book", "asap", "even"} {
		b.Run(mode, func(b *testing.B) {
			cat, err := bidder.ParseCatalog(data)
			require.NoError(b, err)
			paced := 0
			if mode == "even" {
				for _, c := range cat.Campaigns() {
					if c.Limited() && c.DailyBudget > 0 {
						c.Pacing = bidder.PacingEven
						paced++
					}
				}
				require.Positive(b, paced)
			}
			ledger := memory.NewLedger(memory.LedgerConfig{})
			var books bidder.Ledger = ledger
			if mode == "no-book" {
				books = struct{ bidder.Ledger }{ledger}
			}
			e := bidder.NewEngine(bidder.Config{}, books, memory.NewBidStore(memory.BidStoreConfig{}))
			e.Pace(cat)
			require.NoError(b, e.TickPacing(context.Background(), time.Now()))
			reqs := mixRequests(b, 1_000)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				req := reqs[i%len(reqs)]
				if _, err := e.Decide(ctx, cat, &req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(paced), "paced")
		})
	}
}
