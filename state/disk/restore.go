package disk

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// restore builds the memory copy of what db holds: the budget counters of
// the days kept, the frequency counters and the bid records (with their
// claims) not yet expired. The counters and the slices of the records
// are read side by side, one goroutine each.
func (s *Store) restore(db *pebble.DB) (books, error) {
	now := s.cfg.Clock()
	mem := books{
		ledger: memory.NewLedger(memory.LedgerConfig{DayTTL: s.cfg.DayTTL, MaxDayCounters: s.cfg.MaxDayCounters,
			MaxFreqCounters: s.cfg.MaxFreqCounters, Clock: s.cfg.Clock, HashKey: s.hashKey}),
		bids: memory.NewBidStore(memory.BidStoreConfig{TTL: s.cfg.BidTTL, MaxBids: s.cfg.MaxBids}),
	}
	var g group
	g.Go(func() error {
		if err := s.restoreDays(db, mem.ledger, now); err != nil {
			return fmt.Errorf("budget counters: %w", err)
		}
		if err := s.restoreFreq(db, mem.ledger, now); err != nil {
			return fmt.Errorf("frequency counters: %w", err)
		}
		if err := restorePacing(db, mem.ledger, now); err != nil {
			return fmt.Errorf("pacing: %w", err)
		}
		return nil
	})
	for _, r := range s.bidRanges(now) {
		g.Go(func() error {
			if err := restoreBids(db, mem.bids, r[0], r[1], now); err != nil {
				return fmt.Errorf("bid records: %w", err)
			}
			return nil
		})
	}
	return mem, g.Wait()
}

// group runs functions side by side and joins their errors.
type group struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func (g *group) Go(fn func() error) {
	g.wg.Go(func() {
		if err := fn(); err != nil {
			g.mu.Lock()
			g.errs = append(g.errs, err)
			g.mu.Unlock()
		}
	})
}

func (g *group) Wait() error {
	g.wg.Wait()
	return errors.Join(g.errs...)
}

// bidRanges splits the minutes bid records live in into ranges read side
// by side: two for each processor, the last open-ended.
func (s *Store) bidRanges(now time.Time) [][2]uint32 {
	n := 2 * runtime.GOMAXPROCS(0)
	from := minute(now.Unix())
	span := uint32(s.cfg.BidTTL/time.Minute) + 2
	step := max(1, (span+uint32(n)-1)/uint32(n))
	var out [][2]uint32
	for lo := from; ; lo += step {
		if lo+step >= from+span || lo+step < lo {
			return append(out, [2]uint32{lo, math.MaxUint32})
		}
		out = append(out, [2]uint32{lo, lo + step})
	}
}

// scan calls fn on every entry of db in [lower, upper).
func scan(db *pebble.DB, lower, upper []byte, fn func(k, v []byte) error) error {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// firstDay is the oldest day whose counters are kept at now.
func (s *Store) firstDay(now time.Time) bidder.Day {
	return bidder.DayOfTime(now) - bidder.Day(s.cfg.DayTTL/(24*time.Hour))
}

func (s *Store) restoreDays(db *pebble.DB, l *memory.Ledger, now time.Time) error {
	from := dayKey(s.firstDay(now), "", "")[:5]
	return scan(db, from, []byte{kindDay + 1}, func(k, v []byte) error {
		day, campaign, exchange, err := parseDayKey(k)
		if err != nil {
			return err
		}
		n, err := readSums(v, 3)
		if err != nil {
			return err
		}
		l.RestoreDay(campaign, exchange, day, bidder.DayStats{Bids: n[0], Wins: n[1], Spend: bidder.Micros(n[2])})
		return nil
	})
}

func (s *Store) restoreFreq(db *pebble.DB, l *memory.Ledger, now time.Time) error {
	from := prefixUpTo(kindFreq, minute(now.Unix()))
	return scan(db, from, []byte{kindFreq + 1}, func(k, v []byte) error {
		expires, user, period, window, campaign, err := parseFreqKey(k)
		if err != nil {
			return err
		}
		n, err := readSums(v, 1)
		if err != nil {
			return err
		}
		l.RestoreFreq(user, campaign, period, window, n[0], time.Unix(expires, 0))
		return nil
	})
}

// restoreBids reads the live bid records of the minutes [from, to) and,
// in step with them (the same keys but for their kind), their claims.
func restoreBids(db *pebble.DB, b *memory.BidStore, from, to uint32, now time.Time) error {
	upper := func(kind byte) []byte {
		if to == math.MaxUint32 {
			return []byte{kind + 1}
		}
		return prefixUpTo(kind, to)
	}
	claims, err := db.NewIter(&pebble.IterOptions{LowerBound: prefixUpTo(kindClaim, from), UpperBound: upper(kindClaim)})
	if err != nil {
		return err
	}
	defer claims.Close()
	claims.First()
	var strs interned
	return scan(db, prefixUpTo(kindBid, from), upper(kindBid), func(k, v []byte) error {
		rec, expires, err := decodeRecordInterned(v, &strs)
		if err != nil {
			return err
		}
		if expires <= now.Unix() {
			return nil
		}
		copy(rec.ID[:], k[5:])
		for claims.Valid() && bytes.Compare(claims.Key()[1:], k[1:]) < 0 {
			claims.Next()
		}
		won := claims.Valid() && bytes.Equal(claims.Key()[1:], k[1:])
		if err := b.Restore(rec, time.Unix(expires, 0), won); err != nil {
			return fmt.Errorf("%w (raise -max-bids, or wait for the records to expire)", err)
		}
		return nil
	})
}

// expire deletes from db what has expired at now: the bid records, claims
// and frequency counters of the minutes past, and the budget counters of
// the days no longer kept.
func (s *Store) expire(db *pebble.DB, now time.Time, kinds ...byte) error {
	m := minute(now.Unix())
	if m > 0 {
		m-- // buckets wholly in the past
	}
	b := db.NewBatch()
	defer b.Close()
	for _, kind := range kinds {
		var err error
		switch kind {
		case kindBid, kindClaim, kindFreq, kindEvent:
			err = b.DeleteRange([]byte{kind}, prefixUpTo(kind, m), nil)
		case kindDay:
			err = b.DeleteRange([]byte{kindDay}, dayKey(s.firstDay(now), "", "")[:5], nil)
		}
		if err != nil {
			return err
		}
	}
	return db.Apply(b, pebble.NoSync) // losing a deletion only delays it
}
