package disk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/bidder"
)

// The event log's side of the disk state (bidder.EventClaimer and
// bidder.EventOutbox): a once-only event is claimed, and its record put in
// the outbox, in one durable batch, as a win's record goes in its claim's
// batch; the event log takes the records out, writes and syncs them, and
// acknowledges them, which deletes them.
//
//	'T' expiry-minute event bid-id → an event claim (no value)
//	'O' event bid-id               → a record waiting for the event log

const (
	kindEvent  = 'T'
	kindOutbox = 'O'
)

// eventKey is the key of a once-only event's claim, in the minute its
// window ends: the same for every arrival of one event of one bid, and
// deleted by range once expired.
func eventKey(until time.Time, kind bidder.OnceEvent, id bidder.BidID) []byte {
	k := make([]byte, 0, 1+4+1+len(id))
	k = append(k, kindEvent)
	k = binary.BigEndian.AppendUint32(k, minute(until.Unix()))
	k = append(k, byte(kind))
	return append(k, id[:]...)
}

// outboxKey is the key of a record waiting for the event log.
func outboxKey(id bidder.OutboxID) []byte {
	k := make([]byte, 0, 1+1+len(id.Bid))
	k = append(k, kindOutbox, byte(id.Event))
	return append(k, id.Bid[:]...)
}

func parseOutboxKey(k []byte) (bidder.OutboxID, bool) {
	var id bidder.OutboxID
	if len(k) != 2+len(id.Bid) || k[0] != kindOutbox {
		return id, false
	}
	id.Event = bidder.OnceEvent(k[1])
	copy(id.Bid[:], k[2:])
	return id, true
}

// claimLocks serialise the claims of one bid's events (a read, then a
// write): two arrivals of one event cannot both find it unclaimed.
type claimLocks [64]sync.Mutex

func (c *claimLocks) of(id bidder.BidID) *sync.Mutex { return &c[id[len(id)-1]%64] }

// ClaimEvent implements bidder.EventClaimer: the claim and the record in
// one durable batch. It reads the disk, not memory: the claims of a day's
// tracking window are too many to keep in memory, and trackers are off
// the bidding path.
func (b *bids) ClaimEvent(_ context.Context, kind bidder.OnceEvent, id bidder.BidID, until time.Time, record []byte) (bool, error) {
	s := (*Store)(b)
	if err := s.available(); err != nil {
		return false, err
	}
	key := eventKey(until, kind, id)
	mu := s.claims.of(id)
	mu.Lock()
	defer mu.Unlock()
	_, closer, err := s.db.Get(key)
	switch {
	case err == nil:
		closer.Close()
		return false, nil
	case !errors.Is(err, pebble.ErrNotFound):
		return false, fmt.Errorf("read event claim: %w", err)
	}
	batch := s.db.NewBatch()
	_ = batch.Set(key, nil, nil)
	if record != nil {
		_ = batch.Set(outboxKey(bidder.OutboxID{Event: kind, Bid: id}), record, nil)
	}
	if err := s.commit(batch); err != nil {
		return false, err
	}
	if record != nil {
		s.signalOutbox()
	}
	return true, nil
}

// signalOutbox tells the event log that records wait.
func (s *Store) signalOutbox() {
	select {
	case s.outbox <- struct{}{}:
	default:
	}
}

// PendingEvents implements bidder.EventOutbox. It lists only records whose
// commit is durable: Pebble makes a batch visible to readers before its
// WAL sync ends, so a record read at once could reach the event log's file
// and then be lost with its win in a crash, the win then booked afresh by
// the exchange's retry, and its record written twice (seen once in CI's
// kill -9 test). So the records are read from a snapshot taken first, and
// a synced write (a WAL sync, which covers every commit before it) is made
// before any of them is handed over.
func (b *bids) PendingEvents(max int, fn func(id bidder.OutboxID, line []byte)) error {
	s := (*Store)(b)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{kindOutbox}, UpperBound: []byte{kindOutbox + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	if !it.First() {
		return it.Error()
	}
	if err := s.syncWAL(); err != nil {
		return fmt.Errorf("outbox: make its records durable: %w", err)
	}
	for n := 0; it.Valid() && n < max; it.Next() {
		if id, ok := parseOutboxKey(it.Key()); ok {
			fn(id, it.Value())
			n++
		}
	}
	return it.Error()
}

// syncWAL returns once every commit made before it is durable: an empty
// record in the WAL, synced (the WAL is written and synced in order).
func (s *Store) syncWAL() error {
	if s.syncHook != nil {
		s.syncHook()
	}
	return s.db.LogData(nil, pebble.Sync)
}

// AckEvents implements bidder.EventOutbox: the records go, durably, so
// that a restart does not offer them again once the log could have
// finished the segment that holds them.
func (b *bids) AckEvents(ids []bidder.OutboxID) error {
	s := (*Store)(b)
	batch := s.db.NewBatch()
	for _, id := range ids {
		_ = batch.Delete(outboxKey(id), nil)
	}
	return s.commit(batch)
}

// EventsWaiting implements bidder.EventOutbox.
func (b *bids) EventsWaiting() <-chan struct{} { return (*Store)(b).outbox }

var (
	_ bidder.EventClaimer = (*bids)(nil)
	_ bidder.EventOutbox  = (*bids)(nil)
)
