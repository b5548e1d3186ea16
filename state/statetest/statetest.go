// Package statetest is the conformance suite of the bidder's state
// interfaces: every bidder.Ledger and bidder.BidStore (state/memory,
// state/disk, state/redis on one server and on a cluster) must pass the
// same tables, so that the decision behaves the
// same whichever state it runs on.
package statetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// Flusher is implemented by ledgers that write some counters in the
// background (bid counts, for instance); the suite flushes before reading.
type Flusher interface {
	Flush(ctx context.Context) error
}

func flush(t *testing.T, l bidder.Ledger) {
	t.Helper()
	if f, ok := l.(Flusher); ok {
		require.NoError(t, f.Flush(context.Background()))
	}
}

// user returns the key of a user id under a fixed hash key.
func user(uid string) bidder.UserKey { return bidder.HashKey{1}.User(uid) }

// Ledger runs the ledger conformance tables; newLedger must return an empty
// ledger each time, isolated from the others (a fresh key prefix, say).
func Ledger(t *testing.T, newLedger func(t *testing.T) bidder.Ledger) {
	ctx := context.Background()
	const day bidder.Day = 20396

	t.Run("empty", func(t *testing.T) {
		l := newLedger(t)
		qs := []bidder.UsageQuery{{CampaignID: "c1", Day: day, User: user("u1"), PeriodS: 60, Window: 1, Spent: 9, Wins: 9}}
		require.NoError(t, l.Usage(ctx, qs))
		assert.Equal(t, bidder.Micros(0), qs[0].Spent, "outputs are reset")
		assert.Equal(t, int64(0), qs[0].Wins)
		_, ok, err := l.Stats(ctx, "c1", "", day)
		require.NoError(t, err)
		assert.False(t, ok)
	})

	t.Run("wins, spend and frequency", func(t *testing.T) {
		l := newLedger(t)
		wins := []bidder.Win{
			{CampaignID: "c1", Day: day, Price: 2_500_000, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, Price: 1_000_000, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, Price: 500_000, User: user("u2"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, Price: 1, User: user("u1"), PeriodS: 3600, Window: 8},
			{CampaignID: "c1", Day: day + 1, Price: 7},
			{CampaignID: "c2", Day: day, Price: 11, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, Price: 3},                   // no user: no frequency counter
			{CampaignID: "c1", Day: day, Price: 5, User: user("u3")}, // no period: no frequency counter
		}
		for _, w := range wins {
			require.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: w.CampaignID, Day: w.Day, User: w.User,
				PeriodS: w.PeriodS, Window: w.Window, Until: time.Now().Add(time.Hour)}))
			require.NoError(t, l.RecordWin(ctx, w))
		}
		// each Reserve counted a bid (6 for c1's day); one is taken back
		require.NoError(t, l.UncountBid(ctx, bidder.Room{CampaignID: "c1", Day: day}))
		flush(t, l)
		qs := []bidder.UsageQuery{
			{CampaignID: "c1", Day: day, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, User: user("u2"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, User: user("u1"), PeriodS: 3600, Window: 8},
			{CampaignID: "c1", Day: day, User: user("u1"), PeriodS: 60, Window: 7},
			{CampaignID: "c1", Day: day + 1},
			{CampaignID: "c2", Day: day, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c3", Day: day, User: user("u1"), PeriodS: 3600, Window: 7},
			{CampaignID: "c1", Day: day, User: user("u3"), PeriodS: 3600, Window: 7},
		}
		require.NoError(t, l.Usage(ctx, qs))
		got := make([][2]int64, len(qs))
		for i, q := range qs {
			got[i] = [2]int64{int64(q.Spent), q.Wins}
		}
		spent := int64(2_500_000 + 1_000_000 + 500_000 + 1 + 3 + 5)
		assert.Equal(t, [][2]int64{
			{spent, 2}, {spent, 1}, {spent, 1}, {spent, 0}, {7, 0}, {11, 1}, {0, 0}, {spent, 0},
		}, got)
		st, ok, err := l.Stats(ctx, "c1", "", day)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, bidder.DayStats{Bids: 5, Wins: 6, Spend: bidder.Micros(spent)}, st)
	})

	t.Run("by exchange", func(t *testing.T) {
		l := newLedger(t)
		for _, w := range []bidder.Win{
			{CampaignID: "c1", Exchange: "adx", Day: day, Price: 100},
			{CampaignID: "c1", Exchange: "adx", Day: day, Price: 20},
			{CampaignID: "c1", Exchange: "ox", Day: day, Price: 3},
		} {
			require.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: w.CampaignID, Exchange: w.Exchange, Day: w.Day}))
			require.NoError(t, l.RecordWin(ctx, w))
		}
		require.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: "c1", Exchange: "ox", Day: day})) // a bid not won
		flush(t, l)
		want := map[string]bidder.DayStats{
			"":    {Bids: 4, Wins: 3, Spend: 123},
			"adx": {Bids: 2, Wins: 2, Spend: 120},
			"ox":  {Bids: 2, Wins: 1, Spend: 3},
		}
		for exchange, w := range want {
			st, ok, err := l.Stats(ctx, "c1", exchange, day)
			require.NoError(t, err)
			require.True(t, ok, exchange)
			assert.Equal(t, w, st, "exchange %q", exchange)
		}
		_, ok, err := l.Stats(ctx, "c1", "other", day)
		require.NoError(t, err)
		assert.False(t, ok, "an exchange without bids")
		qs := []bidder.UsageQuery{{CampaignID: "c1", Day: day}}
		require.NoError(t, l.Usage(ctx, qs))
		assert.Equal(t, bidder.Micros(123), qs[0].Spent, "budgets count every exchange's spend")
	})

	t.Run("by deal", func(t *testing.T) {
		l := newLedger(t)
		for _, w := range []bidder.Win{
			{CampaignID: "c1", Exchange: "adx", Deal: "D1", Day: day, Price: 100},
			{CampaignID: "c1", Exchange: "adx", Deal: "D2", Day: day, Price: 20},
			{CampaignID: "c1", Exchange: "ox", Deal: "D1", Day: day, Price: 3},
			{CampaignID: "c1", Exchange: "ox", Day: day, Price: 4000},
		} {
			require.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: w.CampaignID, Exchange: w.Exchange, Deal: w.Deal, Day: w.Day}))
			require.NoError(t, l.RecordWin(ctx, w))
		}
		flush(t, l)
		want := map[string]bidder.DayStats{
			"":                     {Bids: 4, Wins: 4, Spend: 4123},
			"adx":                  {Bids: 2, Wins: 2, Spend: 120},
			"ox":                   {Bids: 2, Wins: 2, Spend: 4003},
			bidder.DealLabel("D1"): {Bids: 2, Wins: 2, Spend: 103},
			bidder.DealLabel("D2"): {Bids: 1, Wins: 1, Spend: 20},
		}
		for label, w := range want {
			st, ok, err := l.Stats(ctx, "c1", label, day)
			require.NoError(t, err)
			require.True(t, ok, label)
			assert.Equal(t, w, st, "%q", label)
		}
	})

	t.Run("exact under concurrency", func(t *testing.T) {
		l := newLedger(t)
		const workers, each = 8, 50
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					assert.NoError(t, l.RecordWin(ctx, bidder.Win{CampaignID: "c1", Day: day, Price: bidder.Micros(w*1000 + i),
						User: user("u1"), PeriodS: 3600, Window: 1}))
					assert.NoError(t, l.Reserve(ctx, bidder.Room{CampaignID: "c1", Day: day}))
				}
			}()
		}
		wg.Wait()
		flush(t, l)
		var want bidder.Micros
		for w := range workers {
			for i := range each {
				want += bidder.Micros(w*1000 + i)
			}
		}
		st, _, err := l.Stats(ctx, "c1", "", day)
		require.NoError(t, err)
		assert.Equal(t, bidder.DayStats{Bids: workers * each, Wins: workers * each, Spend: want}, st)
		qs := []bidder.UsageQuery{{CampaignID: "c1", Day: day, User: user("u1"), PeriodS: 3600, Window: 1}}
		require.NoError(t, l.Usage(ctx, qs))
		assert.Equal(t, int64(workers*each), qs[0].Wins)
	})
}

// PacingBook runs the pacing book's conformance tables against the ledger
// newLedger returns, which must also be a bidder.PacingBook.
func PacingBook(t *testing.T, newLedger func(t *testing.T) bidder.Ledger) {
	ctx := context.Background()
	const day bidder.Day = 20396
	book := func(t *testing.T) bidder.PacingBook {
		b, ok := newLedger(t).(bidder.PacingBook)
		require.True(t, ok, "the ledger keeps a pacing book")
		return b
	}
	counts := func(pairs ...int64) []int64 {
		c := make([]int64, bidder.PaceBuckets)
		for i := 0; i+1 < len(pairs); i += 2 {
			c[pairs[i]] = pairs[i+1]
		}
		return c
	}

	t.Run("traffic adds up by day", func(t *testing.T) {
		b := book(t)
		got, err := b.Traffic(ctx, day)
		require.NoError(t, err)
		assert.Nil(t, got, "a day without counts")
		require.NoError(t, b.AddTraffic(ctx, day, counts(0, 5, 100, 7, 287, 1)))
		require.NoError(t, b.AddTraffic(ctx, day, counts(100, 3)))
		require.NoError(t, b.AddTraffic(ctx, day+1, counts(1, 2)))
		got, err = b.Traffic(ctx, day)
		require.NoError(t, err)
		assert.Equal(t, counts(0, 5, 100, 10, 287, 1), got)
		got, err = b.Traffic(ctx, day+1)
		require.NoError(t, err)
		assert.Equal(t, counts(1, 2), got)
	})

	t.Run("the later tick's state is kept", func(t *testing.T) {
		b := book(t)
		out := make([]bidder.Pace, 2)
		require.NoError(t, b.Paces(ctx, []string{"c1", "c2"}, out))
		assert.Equal(t, []bidder.Pace{{}, {}}, out, "none stored")
		first := bidder.Pace{Tick: 1000, Day: day, Rate: 0.1 + 0.2, Spent: 12345.5, Requests: 8, Share: 1.0 / 3,
			SpendW: 1e-9, ReqW: 7, ReqS: 3e300, ShareS: 0.25}
		got, err := b.StorePace(ctx, "c1", first)
		require.NoError(t, err)
		assert.Equal(t, first, got, "stored, every float as it was")
		for _, p := range []bidder.Pace{{Tick: 1000, Rate: 0.5}, {Tick: 999, Rate: 0.9}} {
			got, err = b.StorePace(ctx, "c1", p)
			require.NoError(t, err)
			assert.Equal(t, first, got, "tick %d: the state of tick 1000 stays", p.Tick)
		}
		later := bidder.Pace{Tick: 1001, Day: day, Rate: 1}
		got, err = b.StorePace(ctx, "c1", later)
		require.NoError(t, err)
		assert.Equal(t, later, got)
		require.NoError(t, b.Paces(ctx, []string{"c2", "c1"}, out))
		assert.Equal(t, []bidder.Pace{{}, later}, out)
	})

	t.Run("of replicas ticking one minute, one state wins", func(t *testing.T) {
		b := book(t)
		const replicas = 8
		var wg sync.WaitGroup
		got := make([]bidder.Pace, replicas)
		for r := range replicas {
			wg.Go(func() {
				var err error
				got[r], err = b.StorePace(ctx, "c1", bidder.Pace{Tick: 5000, Day: day, Rate: float64(r+1) / replicas})
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		for r := range replicas {
			assert.Equal(t, got[0], got[r], "every replica steers by the same state")
		}
	})
}

// BidStore runs the bid-store conformance tables; newStore must return an
// empty store keeping records ttl, isolated from the others. A store keeps
// a record at least ttl and less than a second more.
func BidStore(t *testing.T, newStore func(t *testing.T, ttl time.Duration) bidder.BidStore) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	rec := bidder.BidRecord{CampaignID: "c-0001", CreativeID: "cr-0001-a", Exchange: "adx", Pricing: "hmac-sha1:0123456789abcdef",
		User: user("user:42/ü"), TimeS: 1793779200, Price: 2_500_000, PeriodS: 86400}

	t.Run("claim rules", func(t *testing.T) {
		s := newStore(t, time.Minute)
		id, err := s.Save(ctx, rec, now)
		require.NoError(t, err)
		rec := rec
		rec.ID = id
		test := rec
		test.Test, test.User, test.PeriodS = true, bidder.UserKey{}, 0
		test.ID, err = s.Save(ctx, test, now)
		require.NoError(t, err)
		require.NotEqual(t, rec.ID, test.ID, "every bid has its own id")
		deal := rec
		deal.Deal, deal.Price = "D-42", 1_750_000
		deal.ID, err = s.Save(ctx, deal, now)
		require.NoError(t, err)
		got, err := s.Peek(ctx, deal.ID, now)
		require.NoError(t, err)
		assert.Equal(t, deal, got, "a deal's bid keeps its deal")

		steps := []struct {
			name  string
			id    bidder.BidID
			price bidder.Micros
			at    time.Time
			want  bidder.ClaimResult
			err   error
			rec   bidder.BidRecord
		}{
			{"unknown", bidder.BidID{7}, 1, now, 0, bidder.ErrUnknownBid, bidder.BidRecord{}},
			{"price above the bid", rec.ID, rec.Price + 1, now, 0, bidder.ErrPriceAboveBid, bidder.BidRecord{}},
			{"expired", rec.ID, 1, now.Add(time.Minute + time.Second), 0, bidder.ErrUnknownBid, bidder.BidRecord{}},
			{"first claim at the bid price", rec.ID, rec.Price, now.Add(time.Minute - time.Millisecond), bidder.Claimed, nil, rec},
			{"price checked before the duplicate", rec.ID, rec.Price + 1, now, 0, bidder.ErrPriceAboveBid, bidder.BidRecord{}},
			{"duplicate", rec.ID, 0, now, bidder.Duplicate, nil, rec},
			{"a test bid", test.ID, 5, now, bidder.Claimed, nil, test},
		}
		peeked, err := s.Peek(ctx, rec.ID, now)
		require.NoError(t, err)
		assert.Equal(t, rec, peeked, "peek reads the record")
		_, err = s.Peek(ctx, bidder.BidID{7}, now)
		assert.ErrorIs(t, err, bidder.ErrUnknownBid)
		_, err = s.Peek(ctx, rec.ID, now.Add(time.Minute+time.Second))
		assert.ErrorIs(t, err, bidder.ErrUnknownBid, "expired")
		for _, st := range steps {
			got, res, err := s.Claim(ctx, st.id, st.price, st.at)
			if st.err != nil {
				assert.ErrorIs(t, err, st.err, st.name)
				continue
			}
			require.NoError(t, err, st.name)
			assert.Equal(t, st.want, res, st.name)
			assert.Equal(t, st.rec, got, st.name)
		}
		peeked, err = s.Peek(ctx, rec.ID, now)
		require.NoError(t, err)
		assert.Equal(t, rec, peeked, "a claimed bid can still be peeked (its duplicates are answered)")
	})

	t.Run("saved already expired", func(t *testing.T) {
		s := newStore(t, time.Minute)
		id, err := s.Save(ctx, rec, now.Add(-2*time.Minute))
		require.NoError(t, err)
		_, _, err = s.Claim(ctx, id, 1, now)
		assert.ErrorIs(t, err, bidder.ErrUnknownBid)
	})

	t.Run("exactly one claim under concurrency", func(t *testing.T) {
		s := newStore(t, time.Minute)
		const bids, claimers = 20, 8
		var ids []bidder.BidID
		for range bids {
			id, err := s.Save(ctx, rec, now)
			require.NoError(t, err)
			ids = append(ids, id)
		}
		var mu sync.Mutex
		claimed := map[bidder.BidID]int{}
		var wg sync.WaitGroup
		for range claimers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, id := range ids {
					_, res, err := s.Claim(ctx, id, 1, now)
					if !assert.NoError(t, err) {
						return
					}
					if res == bidder.Claimed {
						mu.Lock()
						claimed[id]++
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		require.Len(t, claimed, bids)
		for id, n := range claimed {
			assert.Equal(t, 1, n, fmt.Sprintf("bid %x claimed %d times", id, n))
		}
	})
}
