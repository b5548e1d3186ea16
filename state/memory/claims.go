package memory

import (
	"context"
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
)

// DefaultMaxEventClaims bounds the once-only event claims held (impressions,
// clicks, billing notices, video events): about 100 bytes each, so 200 MB
// when full. At a day's tracking window that is a sustained 23 fired events
// a second; a busy -state memory server raises it (-max-event-claims), a
// durable one keeps its claims on disk.
const DefaultMaxEventClaims = 2_000_000

// Claims are the once-only event claims of the memory state
// (bidder.EventClaimer): which (event, bid) pairs were seen, until the end
// of each one's window. They are bounded and fail closed: a full set of
// live claims refuses new ones (bidder.ErrCapacity), so that an event is
// never recorded twice for want of room.
type Claims struct {
	max    int // per shard
	clock  func() time.Time
	shards [memShards]claimShard
}

type claimKey struct {
	kind bidder.OnceEvent
	id   bidder.BidID
}

type claimShard struct {
	mu    sync.Mutex
	until map[claimKey]int64 // Unix seconds: live while now < until
	order []claimEntry       // in the order claimed, which is nearly the order they expire in
	head  int
	_     [32]byte
}

type claimEntry struct {
	key   claimKey
	until int64
}

// NewClaims returns an empty set holding at most max claims (0: the
// default), aging them by clock (nil: the wall clock), the server clock
// their windows are counted on.
func NewClaims(max int, clock func() time.Time) *Claims {
	if max <= 0 {
		max = DefaultMaxEventClaims
	}
	if clock == nil {
		clock = time.Now
	}
	c := &Claims{max: max/memShards + 1, clock: clock}
	for i := range c.shards {
		c.shards[i].until = map[claimKey]int64{}
	}
	return c
}

// ClaimEvent implements bidder.EventClaimer. The record is not kept: the
// memory state has no outbox (the caller writes it).
func (c *Claims) ClaimEvent(_ context.Context, kind bidder.OnceEvent, id bidder.BidID, until time.Time, _ []byte) (bool, error) {
	sh := &c.shards[id[len(id)-1]%memShards]
	k := claimKey{kind, id}
	now := c.clock().Unix()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if u, ok := sh.until[k]; ok && now < u {
		return false, nil
	}
	if len(sh.until) >= c.max {
		sh.drop(now)
		if len(sh.until) >= c.max {
			return false, bidder.ErrCapacity
		}
	}
	u := until.Unix()
	sh.until[k] = u
	sh.order = append(sh.order, claimEntry{k, u})
	return true, nil
}

// drop forgets the claims at the head of the order that have expired.
func (sh *claimShard) drop(now int64) int {
	n := 0
	for sh.head < len(sh.order) && sh.order[sh.head].until <= now {
		e := sh.order[sh.head]
		if sh.until[e.key] == e.until {
			delete(sh.until, e.key)
			n++
		}
		sh.head++
	}
	if sh.head > len(sh.order)/2 { // compact the queue
		sh.order = append(sh.order[:0], sh.order[sh.head:]...)
		sh.head = 0
	}
	return n
}

// Sweep forgets the claims expired at now and returns how many.
func (c *Claims) Sweep(now time.Time) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += sh.drop(now.Unix())
		sh.mu.Unlock()
	}
	return n
}

// Len returns the claims held.
func (c *Claims) Len() int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += len(sh.until)
		sh.mu.Unlock()
	}
	return n
}
