package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
)

// eventKey is the key of a once-only event's claim: on the node of its
// bid (the bid id's tag), expiring at the end of the event's window.
func (s *Store) eventKey(kind bidder.OnceEvent, id bidder.BidID) string {
	return s.cfg.Prefix + ":ev:{" + tagOfID(id).String() + "}:" + strconv.Itoa(int(kind)) + ":" + id.String()
}

// ClaimEvent implements bidder.EventClaimer: SET NX with the window's end
// as its expiry, one step on the bid's node. Redis keeps no outbox: the
// record is the caller's to write (each replica writes its own log).
func (s *Store) ClaimEvent(ctx context.Context, kind bidder.OnceEvent, id bidder.BidID, until time.Time, _ []byte) (bool, error) {
	var first bool
	err := s.call(ctx, func(ctx context.Context) error {
		err := s.client.SetArgs(ctx, s.eventKey(kind, id), "1", goredis.SetArgs{Mode: "NX", ExpireAt: until}).Err()
		switch {
		case err == nil:
			first = true
			return nil
		case errors.Is(err, goredis.Nil):
			return nil // claimed before
		}
		return err
	})
	return first, err
}

var _ bidder.EventClaimer = (*Store)(nil)
