package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/clock"
)

// Usage implements bidder.Ledger: the counters of all the queries in one
// pipeline, daily spend from the cache while it is fresh.
func (s *Store) Usage(ctx context.Context, qs []bidder.UsageQuery) error {
	now := time.Now()
	var (
		spends []*goredis.StringCmd
		wins   []*goredis.StringCmd
		pipe   goredis.Pipeliner
	)
	for i := range qs {
		q := &qs[i]
		q.Spent, q.Wins = 0, 0
		var spend, win *goredis.StringCmd
		cached, fresh := s.spend.get(q.CampaignID, q.Day, now, s.cfg.SpendStaleness)
		if fresh {
			q.Spent = cached
		}
		if !fresh || !q.User.IsZero() {
			if pipe == nil {
				pipe = s.client.Pipeline()
			}
			if !fresh {
				spend = pipe.HGet(context.Background(), s.dayKey(q.CampaignID, q.Day), "s")
			}
			if !q.User.IsZero() {
				win = pipe.Get(context.Background(), s.freqKey(q.User, q.CampaignID, q.PeriodS, q.Window))
			}
		}
		spends = append(spends, spend)
		wins = append(wins, win)
	}
	if pipe == nil {
		return nil
	}
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	for i := range qs {
		if spends[i] != nil {
			v, _ := readInt(spends[i])
			qs[i].Spent = bidder.Micros(v)
			s.spend.put(qs[i].CampaignID, qs[i].Day, qs[i].Spent, now)
		}
		if wins[i] != nil {
			qs[i].Wins, _ = readInt(wins[i])
		}
	}
	return nil
}

// readInt reads an integer answer; a missing key is 0.
func readInt(c *goredis.StringCmd) (int64, error) {
	v, err := c.Result()
	if err == goredis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// Reserve implements bidder.Ledger. Redis holds what it is given: its
// memory is bounded by its own maxmemory, and with the noeviction policy a
// full Redis refuses writes (state_unavailable) instead of dropping counters
// (see Open). A counter is created by the win that writes it. Bid counts
// only feed /admin/stats, so they are added up here and written every
// FlushEvery; a crash loses at most that much of them.
func (s *Store) Reserve(_ context.Context, r bidder.Room) error {
	s.bids.add(r.CampaignID, r.Exchange, r.Deal, r.Day, 1)
	return nil
}

// UncountBid implements bidder.Ledger: the bid is taken off the counts not
// yet written (those written take -1 at the next flush).
func (s *Store) UncountBid(_ context.Context, r bidder.Room) error {
	s.bids.add(r.CampaignID, r.Exchange, r.Deal, r.Day, -1)
	return nil
}

// The fields of a campaign's day hash: bids, wins and spend of all
// exchanges (b, w, s), and of each (b:ID, w:ID, s:ID).
func dayField(name, exchange string) string {
	if exchange == "" {
		return name
	}
	return name + ":" + exchange
}

// RecordWin implements bidder.Ledger: atomic increments of the day's wins
// and spend and of the user's frequency counter, with their expiries.
func (s *Store) RecordWin(ctx context.Context, w bidder.Win) error {
	err := s.call(ctx, func(ctx context.Context) error {
		pipe := s.client.Pipeline()
		day := s.dayKey(w.CampaignID, w.Day)
		pipe.HIncrBy(ctx, day, "w", 1)
		pipe.HIncrBy(ctx, day, "s", int64(w.Price))
		if w.Exchange != "" {
			pipe.HIncrBy(ctx, day, dayField("w", w.Exchange), 1)
			pipe.HIncrBy(ctx, day, dayField("s", w.Exchange), int64(w.Price))
		}
		if w.Deal != "" {
			pipe.HIncrBy(ctx, day, dayField("w", bidder.DealLabel(w.Deal)), 1)
			pipe.HIncrBy(ctx, day, dayField("s", bidder.DealLabel(w.Deal)), int64(w.Price))
		}
		pipe.Expire(ctx, day, s.cfg.DayTTL)
		if !w.User.IsZero() && w.PeriodS > 0 {
			k := s.freqKey(w.User, w.CampaignID, w.PeriodS, w.Window)
			pipe.Incr(ctx, k)
			pipe.Expire(ctx, k, clock.Seconds(w.PeriodS))
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	s.spend.add(w.CampaignID, w.Day, w.Price)
	return nil
}

// Stats implements bidder.Ledger: what Redis holds, plus this replica's bid
// counts not yet written. It holds off this replica's flush while it reads,
// so a batch written in between is counted once, not twice or never.
func (s *Store) Stats(ctx context.Context, campaignID, exchange string, day bidder.Day) (bidder.DayStats, bool, error) {
	s.bids.flushing.Lock()
	defer s.bids.flushing.Unlock()
	var vals []any
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		vals, err = s.client.HMGet(ctx, s.dayKey(campaignID, day),
			dayField("b", exchange), dayField("w", exchange), dayField("s", exchange)).Result()
		return err
	})
	if err != nil {
		return bidder.DayStats{}, false, fmt.Errorf("redis: %w", err)
	}
	num := func(v any) (int64, bool) {
		str, ok := v.(string)
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(str, 10, 64)
		return n, err == nil
	}
	b, okB := num(vals[0])
	w, okW := num(vals[1])
	sp, okS := num(vals[2])
	pending := s.bids.pending(campaignID, exchange, day)
	st := bidder.DayStats{Bids: b + pending, Wins: w, Spend: bidder.Micros(sp)}
	return st, okB || okW || okS || pending > 0, nil
}

// Flush writes the batched bid counts now.
func (s *Store) Flush(ctx context.Context) error {
	s.bids.flushing.Lock()
	defer s.bids.flushing.Unlock()
	batch := s.bids.take()
	if len(batch) == 0 {
		return nil
	}
	err := s.call(ctx, func(ctx context.Context) error {
		pipe := s.client.Pipeline()
		for k, n := range batch {
			key := s.dayKey(k.campaign, k.day)
			pipe.HIncrBy(ctx, key, "b", n)
			if k.exchange != "" {
				pipe.HIncrBy(ctx, key, dayField("b", k.exchange), n)
			}
			if k.deal != "" {
				pipe.HIncrBy(ctx, key, dayField("b", bidder.DealLabel(k.deal)), n)
			}
			pipe.Expire(ctx, key, s.cfg.DayTTL)
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil {
		s.bids.lost.Add(int64(len(batch)))
		return fmt.Errorf("flush bid counts: %w", err)
	}
	return nil
}

func (s *Store) flushLoop() {
	defer s.done.Done()
	t := time.NewTicker(s.cfg.FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			_ = s.Flush(context.Background()) // a failure is counted in LostBidCounts
		}
	}
}

// LostBidCounts returns how many batches of bid counts could not be written.
func (s *Store) LostBidCounts() int64 { return s.bids.lost.Load() }
