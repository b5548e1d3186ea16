package disk

import (
	"context"
	"time"

	"github.com/recbid/dspd/bidder"
)

// ledger is the Store seen as a bidder.Ledger: reads and reservations in
// memory; wins written to disk first.
type ledger Store

// bids is the Store seen as a bidder.BidStore and bidder.WinRecorder.
type bids Store

var (
	_ bidder.Ledger      = (*ledger)(nil)
	_ bidder.BidStore    = (*bids)(nil)
	_ bidder.WinRecorder = (*bids)(nil)
)

// Usage implements bidder.Ledger.
func (l *ledger) Usage(ctx context.Context, qs []bidder.UsageQuery) error {
	s := (*Store)(l)
	if err := s.available(); err != nil {
		return err
	}
	return s.mem.ledger.Usage(ctx, qs)
}

// Reserve implements bidder.Ledger: room in memory, where the bid is
// counted too (the disk keeps what was won, and counts the bid with its
// record).
func (l *ledger) Reserve(ctx context.Context, r bidder.Room) error {
	s := (*Store)(l)
	if err := s.available(); err != nil {
		return err
	}
	return s.mem.ledger.Reserve(ctx, r)
}

// UncountBid implements bidder.Ledger. The disk counts a bid with its
// record (Save), so only memory has one to take back.
func (l *ledger) UncountBid(ctx context.Context, r bidder.Room) error {
	s := (*Store)(l)
	return s.mem.ledger.UncountBid(ctx, r)
}

// RecordWin implements bidder.Ledger: the counters on disk, then in memory.
// (The engine records wins through ClaimWin, which writes the claim with
// them.)
func (l *ledger) RecordWin(ctx context.Context, w bidder.Win) error {
	s := (*Store)(l)
	if err := s.available(); err != nil {
		return err
	}
	b := s.db.NewBatch()
	s.addWin(b, w, s.cfg.Clock())
	if err := s.commit(b); err != nil {
		return err
	}
	return s.mem.ledger.RecordWin(ctx, w)
}

// Stats implements bidder.Ledger.
func (l *ledger) Stats(ctx context.Context, campaignID, exchange string, day bidder.Day) (bidder.DayStats, bool, error) {
	s := (*Store)(l)
	return s.mem.ledger.Stats(ctx, campaignID, exchange, day)
}

// Sizes returns the counters held in memory.
func (l *ledger) Sizes() (days, freq int) {
	s := (*Store)(l)
	return s.mem.ledger.Sizes()
}

// Upkeep returns the memory ledger's upkeep.
func (l *ledger) Upkeep() bidder.Upkeep {
	s := (*Store)(l)
	return s.mem.ledger.Upkeep()
}

// Failures returns how many writes found the disk full so far.
func (l *ledger) Failures() int64 { return (*Store)(l).Failures() }

// Unavailable reports whether the store refuses bids and wins.
func (l *ledger) Unavailable() bool { return (*Store)(l).Unavailable() }

// Sweep drops the expired counters from memory and disk.
func (l *ledger) Sweep(now time.Time) int {
	s := (*Store)(l)
	n := s.mem.ledger.Sweep(now)
	if s.available() == nil {
		if err := s.expire(s.db, now, kindDay, kindFreq); err != nil {
			s.cfg.Logger.Warn("disk state: expired counters not deleted yet", "err", err)
		}
		if err := s.expirePacing(now); err != nil {
			s.cfg.Logger.Warn("disk state: old pacing state not deleted yet", "err", err)
		}
	}
	return n
}

// Save implements bidder.BidStore: the record in memory, then on disk by
// the bid writer, with the bid's count. With no window, the bid waits
// until its record is durable.
func (b *bids) Save(ctx context.Context, rec bidder.BidRecord, now time.Time) (bidder.BidID, error) {
	s := (*Store)(b)
	if err := s.available(); err != nil {
		return bidder.BidID{}, err
	}
	id, err := s.mem.bids.Save(ctx, rec, now)
	if err != nil {
		return id, err
	}
	rec.ID = id
	out, err := s.w.add(rec, s.mem.bids.ExpiresAt(now))
	if err != nil {
		s.mem.bids.Forget(id, now)
		return bidder.BidID{}, err
	}
	if s.cfg.BidWindow > 0 {
		return id, nil
	}
	<-out.done // within a commit's time; a full disk refuses new bids before they get here
	if out.err != nil {
		return bidder.BidID{}, out.err
	}
	return id, nil
}

// Peek implements bidder.BidStore.
func (b *bids) Peek(ctx context.Context, id bidder.BidID, now time.Time) (bidder.BidRecord, error) {
	s := (*Store)(b)
	if err := s.available(); err != nil {
		return bidder.BidRecord{}, err
	}
	return s.mem.bids.Peek(ctx, id, now)
}

// Claim implements bidder.BidStore, in memory only: the engine claims wins
// through ClaimWin, which makes the claim durable with its counters.
func (b *bids) Claim(ctx context.Context, id bidder.BidID, price bidder.Micros, now time.Time) (bidder.BidRecord, bidder.ClaimResult, error) {
	s := (*Store)(b)
	if err := s.available(); err != nil {
		return bidder.BidRecord{}, 0, err
	}
	return s.mem.bids.Claim(ctx, id, price, now)
}

// ClaimWin implements bidder.WinRecorder: the claim and the win's counters
// in one durable batch, then in memory. When the batch cannot be written,
// the claim is given back and nothing is recorded.
func (b *bids) ClaimWin(ctx context.Context, id bidder.BidID, price bidder.Micros, now time.Time,
	_ *bidder.BidRecord, win func(bidder.BidRecord) bidder.Win) (bidder.BidRecord, bidder.ClaimResult, error) {
	s := (*Store)(b)
	if err := s.available(); err != nil {
		return bidder.BidRecord{}, 0, err
	}
	rec, res, err := s.mem.bids.Claim(ctx, id, price, now)
	if err != nil || res != bidder.Claimed || rec.Test {
		return rec, res, err // a test bid's win records nothing, and its claim need not last
	}
	expires, _ := s.mem.bids.Expires(id, now)
	w := win(rec)
	batch := s.db.NewBatch()
	// The record with its claim: with a bid window, the bid writer may
	// not have written it yet, and a won bid must stay won.
	_ = batch.Set(bidKey(kindBid, expires, id), encodeRecord(rec, expires), nil)
	_ = batch.Set(bidKey(kindClaim, expires, id), nil, nil)
	s.addWin(batch, w, now)
	if w.Event != nil { // the win's event record, with the win (outbox.go)
		_ = batch.Set(outboxKey(bidder.OutboxID{Event: bidder.EventWin, Bid: id}), w.Event, nil)
	}
	if err := s.commit(batch); err != nil {
		s.mem.bids.Unclaim(id, now)
		return rec, res, err
	}
	if w.Event != nil {
		s.signalOutbox()
	}
	return rec, res, s.mem.ledger.RecordWin(ctx, w)
}

// Len implements bidder.BidStore.
func (b *bids) Len() int {
	s := (*Store)(b)
	return s.mem.bids.Len()
}

// Upkeep returns the memory bid store's upkeep.
func (b *bids) Upkeep() bidder.Upkeep {
	s := (*Store)(b)
	return s.mem.bids.Upkeep()
}

// Sweep drops the expired records from memory and disk.
func (b *bids) Sweep(now time.Time) int {
	s := (*Store)(b)
	n := s.mem.bids.Sweep(now)
	if s.available() == nil {
		if err := s.expire(s.db, now, kindBid, kindClaim, kindEvent); err != nil {
			s.cfg.Logger.Warn("disk state: expired bid records not deleted yet", "err", err)
		}
	}
	return n
}

// The disk state's optional abilities (bidder/storestats.go).
var (
	_ bidder.UpkeepReporter       = (*ledger)(nil)
	_ bidder.SizeReporter         = (*ledger)(nil)
	_ bidder.FailureCounter       = (*ledger)(nil)
	_ bidder.AvailabilityReporter = (*ledger)(nil)
	_ bidder.UpkeepReporter       = (*bids)(nil)
)
