package bidder

import (
	"context"
	"fmt"
	"time"
)

// WinOutcome says what a win notice did.
type WinOutcome struct {
	Record    BidRecord
	Duplicate bool // an earlier notice was already recorded; nothing changed
	// EventKept: the state committed the win's event record with the win
	// (an EventOutbox); otherwise the caller writes it, when it has one.
	EventKept bool
}

// Win records the exchange's win notice for a bid at the clearing price
// (CPM, micros). When the ledger cannot record it, the claim is undone
// (for stores that can) and the error returned, so that a retry succeeds. The first valid notice adds the price to the campaign's
// spend for the UTC day of the bid's request time and one win to the
// (uid, campaign) frequency window; a test bid records nothing; a repeated
// notice changes nothing. Accounting uses only the bid record, so a reload
// between bid and win changes nothing. It fails with ErrUnknownBid or
// ErrPriceAboveBid, recording nothing.
func (e *Engine) Win(ctx context.Context, id BidID, price Micros) (WinOutcome, error) {
	return e.win(ctx, id, nil, price, nil)
}

// WinPeeked is Win for the bid whose record the caller has just read with
// Peek (a win notice reads it to decode its price), so that a store that
// needs the record to record the win (Redis: the keys it writes) does not
// read it again.
func (e *Engine) WinPeeked(ctx context.Context, rec BidRecord, price Micros) (WinOutcome, error) {
	return e.win(ctx, rec.ID, &rec, price, nil)
}

// WinLogged is WinPeeked with the win's event-log record: a state that is
// an EventOutbox commits it with the win (WinOutcome.EventKept), so that
// the first notice that books the win, and only it, leaves the record.
func (e *Engine) WinLogged(ctx context.Context, rec BidRecord, price Micros, event []byte) (WinOutcome, error) {
	return e.win(ctx, rec.ID, &rec, price, event)
}

func (e *Engine) win(ctx context.Context, id BidID, peeked *BidRecord, price Micros, event []byte) (WinOutcome, error) {
	now := e.cfg.Clock()
	if wr, ok := e.bids.(WinRecorder); ok {
		_, outbox := e.bids.(EventOutbox)
		rec, res, err := wr.ClaimWin(ctx, id, price, now, peeked, func(rec BidRecord) Win {
			w := winOf(rec, price)
			w.Event = event
			return w
		})
		if err == nil && res == Claimed && !rec.Test {
			e.tally.win(rec, price)
		}
		return WinOutcome{Record: rec, Duplicate: res == Duplicate, EventKept: outbox && event != nil && res == Claimed && !rec.Test}, err
	}
	rec, res, err := e.bids.Claim(ctx, id, price, now)
	if err != nil {
		return WinOutcome{}, err
	}
	out := WinOutcome{Record: rec, Duplicate: res == Duplicate}
	if res != Claimed || rec.Test {
		return out, nil
	}
	if err := e.ledger.RecordWin(ctx, winOf(rec, price)); err != nil {
		// Nothing was recorded: give the claim back, where the store can,
		// so that the exchange's retry is not taken for a duplicate.
		if u, ok := e.bids.(unclaimer); ok {
			u.Unclaim(id, now)
		}
		return out, fmt.Errorf("record win: %w", err)
	}
	e.tally.win(rec, price)
	return out, nil
}

// unclaimer is implemented by bid stores that can undo a claim.
type unclaimer interface{ Unclaim(BidID, time.Time) }

// WinRecorder is implemented by a state that claims a bid and records its
// win in one step: a durable store, whose claim must be durable with the
// counters. ClaimWin claims the bid as Claim does and, for the first valid
// notice of a bid that is not a test, records win(record) in the ledger
// before it returns; when that fails, nothing is claimed or recorded.
// peeked, when not nil, is the bid's record as Peek just read it: the
// store may use it instead of reading the record again.
type WinRecorder interface {
	ClaimWin(ctx context.Context, id BidID, price Micros, now time.Time, peeked *BidRecord,
		win func(BidRecord) Win) (BidRecord, ClaimResult, error)
}

// winOf is what the ledger records of a bid's win at price.
func winOf(rec BidRecord, price Micros) Win {
	w := Win{BidID: rec.ID, CampaignID: rec.CampaignID, Exchange: rec.Exchange, Deal: rec.Deal, Day: DayOfSec(rec.TimeS), Price: price}
	if rec.PeriodS > 0 && !rec.User.IsZero() {
		w.User, w.PeriodS = rec.User, rec.PeriodS
		w.Window = FreqCap{Impressions: 1, PeriodS: rec.PeriodS}.WindowAt(rec.TimeS)
	}
	return w
}

// Peek returns the record of a live bid without claiming it, or
// ErrUnknownBid: what a win notice's price must be read by.
func (e *Engine) Peek(ctx context.Context, id BidID) (BidRecord, error) {
	return e.bids.Peek(ctx, id, e.cfg.Clock())
}

// Stats returns a campaign's counters for a day: for one exchange's bids, or
// for all when exchange is "".
func (e *Engine) Stats(ctx context.Context, campaignID, exchange string, day Day) (DayStats, bool, error) {
	return e.ledger.Stats(ctx, campaignID, exchange, day)
}

// sweeper is implemented by state stores that drop expired entries on a
// schedule.
type sweeper interface{ Sweep(time.Time) int }

// Sweep drops expired state from stores that support it and returns how
// many entries went. Pass the engine's clock (Now), so that a clock started
// at a given instant ages the state it wrote.
func (e *Engine) Sweep(now time.Time) int {
	n := 0
	for _, s := range []any{e.ledger, e.bids} {
		if sw, ok := s.(sweeper); ok {
			n += sw.Sweep(now)
		}
	}
	return n
}
