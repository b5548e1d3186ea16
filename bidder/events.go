package bidder

import (
	"context"
	"errors"
	"time"
)

// The event log's view of the books (package events). A bid has at most
// one record of each of its once-only events (its win, its billing notice,
// its impression, its click, a video's progress events), however many
// times they arrive; the state decides which arrival is the first, as it
// decides which win notice books the win.

// OnceEvent is an event a bid has at most once, besides its win: a value
// of package tracker's Event for the trackers, or EventBilling.
type OnceEvent uint8

// EventBilling is the billing notice (OpenRTB burl); the tracker events
// take the values of tracker.Event, all below it.
const EventBilling OnceEvent = 255

// EventClaimer is a state that claims a bid's once-only events: ClaimEvent
// returns true for the first claim of (kind, id) and false for every later
// one until until (the end of the bid's tracking window), after which the
// claim may be forgotten. A durable state commits record (the event's
// log line, when not nil) in the same write as the claim, to its outbox
// (EventOutbox), so that the record exists exactly when the claim does. A
// bounded state full of live claims fails with ErrCapacity.
type EventClaimer interface {
	ClaimEvent(ctx context.Context, kind OnceEvent, id BidID, until time.Time, record []byte) (bool, error)
}

// EventOutbox is a durable state that commits event-log records with the
// books they describe (a win's record in the same batch as its claim and
// counters: see Win.Event; a tracker's with its claim), for the event log
// to take out. A record is known by the event and the bid it records,
// which the claims make unique.
type EventOutbox interface {
	// PendingEvents calls fn with the records committed and not yet
	// acknowledged, at most max of them, in no particular order; line is
	// valid only during the call.
	PendingEvents(max int, fn func(id OutboxID, line []byte)) error
	// AckEvents forgets records, durably: the event log has them, synced.
	AckEvents(ids []OutboxID) error
	// EventsWaiting is signalled when records are committed.
	EventsWaiting() <-chan struct{}
}

// OutboxID names one record of an outbox: the event and its bid.
type OutboxID struct {
	Event OnceEvent // EventWin for a win
	Bid   BidID
}

// EventWin is the win's OnceEvent in an outbox.
const EventWin OnceEvent = 254

// ErrEventClaims is the cause of ClaimEvent's error when a state keeps no
// claims of once-only events.
var ErrEventClaims = errors.New("the state keeps no event claims")

// ClaimEvent claims a once-only event of a bid in the engine's state (see
// EventClaimer).
func (e *Engine) ClaimEvent(ctx context.Context, kind OnceEvent, id BidID, until time.Time, record []byte) (bool, error) {
	c, ok := e.bids.(EventClaimer)
	if !ok {
		return false, ErrEventClaims
	}
	return c.ClaimEvent(ctx, kind, id, until, record)
}

// EventOutbox returns the state's outbox, or nil when the state commits no
// event records with its books.
func (e *Engine) EventOutbox() EventOutbox {
	o, _ := e.bids.(EventOutbox)
	return o
}
