package disk

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

// The pacing book on disk, beside the books:
//
//	'P' day            → request counts of the day's buckets (merged sums)
//	'C' campaign       → the campaign's controller state (bidder.Pace as text)
//
// Both are written without waiting for the disk (pebble.NoSync): they are
// not money, and a crash loses at most a minute of counts and one tick of
// a controller.
const (
	kindTraffic = 'P'
	kindPace    = 'C'
)

var _ bidder.PacingBook = (*ledger)(nil)

func trafficKey(day bidder.Day) []byte {
	return binary.BigEndian.AppendUint32([]byte{kindTraffic}, uint32(int64(day)+math.MaxInt32+1))
}

func paceKey(id string) []byte { return append([]byte{kindPace}, id...) }

// firstTrafficDay is the oldest day whose request counts are kept at now.
func firstTrafficDay(now time.Time) bidder.Day {
	return bidder.DayOfTime(now) - bidder.PaceTrafficDays + 1
}

// AddTraffic implements bidder.PacingBook: on disk, then in memory.
func (l *ledger) AddTraffic(ctx context.Context, day bidder.Day, counts []int64) error {
	s := (*Store)(l)
	if err := s.available(); err != nil {
		return err
	}
	if err := s.db.Merge(trafficKey(day), sums(counts...), pebble.NoSync); err != nil {
		return fmt.Errorf("disk state: traffic: %w", err)
	}
	return s.mem.ledger.AddTraffic(ctx, day, counts)
}

// Traffic implements bidder.PacingBook, from memory.
func (l *ledger) Traffic(ctx context.Context, day bidder.Day) ([]int64, error) {
	return (*Store)(l).mem.ledger.Traffic(ctx, day)
}

// Paces implements bidder.PacingBook, from memory.
func (l *ledger) Paces(ctx context.Context, ids []string, out []bidder.Pace) error {
	return (*Store)(l).mem.ledger.Paces(ctx, ids, out)
}

// StorePace implements bidder.PacingBook: in memory (one process holds the
// directory, so memory decides), then on disk when it was stored.
func (l *ledger) StorePace(ctx context.Context, id string, p bidder.Pace) (bidder.Pace, error) {
	s := (*Store)(l)
	if err := s.available(); err != nil {
		return p, err
	}
	stored, err := s.mem.ledger.StorePace(ctx, id, p)
	if err != nil || stored != p {
		return stored, err
	}
	if err := s.db.Set(paceKey(id), p.AppendText(nil), pebble.NoSync); err != nil {
		return stored, fmt.Errorf("disk state: pacing of %s: %w", id, err)
	}
	return stored, nil
}

// restorePacing reads the request counts of the days kept and the
// controller states not yet stale back into memory.
func restorePacing(db *pebble.DB, l *memory.Ledger, now time.Time) error {
	ctx := context.Background()
	err := scan(db, trafficKey(firstTrafficDay(now)), []byte{kindTraffic + 1}, func(k, v []byte) error {
		if len(k) != 5 {
			return fmt.Errorf("%w: traffic key %q", errCorrupt, k)
		}
		counts, err := readSums(v, bidder.PaceBuckets)
		if err != nil {
			return err
		}
		return l.AddTraffic(ctx, bidder.Day(int64(binary.BigEndian.Uint32(k[1:]))-math.MaxInt32-1), counts)
	})
	if err != nil {
		return fmt.Errorf("traffic: %w", err)
	}
	return scan(db, []byte{kindPace}, []byte{kindPace + 1}, func(k, v []byte) error {
		p, err := bidder.ParsePace(string(v))
		if err != nil {
			return fmt.Errorf("%w: %w", errCorrupt, err)
		}
		if !stalePace(p, now) {
			_, err = l.StorePace(ctx, string(k[1:]), p)
		}
		return err
	})
}

// stalePace: a controller state not ticked for bidder.PaceTrafficDays days
// belongs to a campaign no longer paced here.
func stalePace(p bidder.Pace, now time.Time) bool {
	return now.Unix()/60-p.Tick > bidder.PaceTrafficDays*24*60
}

// expirePacing deletes the request counts of the days no longer kept and
// the stale controller states.
func (s *Store) expirePacing(now time.Time) error {
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.DeleteRange([]byte{kindTraffic}, trafficKey(firstTrafficDay(now)), nil); err != nil {
		return err
	}
	err := scan(s.db, []byte{kindPace}, []byte{kindPace + 1}, func(k, v []byte) error {
		if p, err := bidder.ParsePace(string(v)); err != nil || stalePace(p, now) {
			return b.Delete(k, nil)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.db.Apply(b, pebble.NoSync)
}
