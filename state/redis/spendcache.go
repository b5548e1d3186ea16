package redis

import (
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
)

type dayKey struct {
	campaign string
	day      bidder.Day
}

// spendCache holds recently read daily spends, so that most decisions need
// no round trip for budgets.
type spendCache struct {
	mu sync.RWMutex
	m  map[dayKey]cachedSpend
}

type cachedSpend struct {
	spent bidder.Micros
	at    time.Time
}

func (c *spendCache) init() { c.m = make(map[dayKey]cachedSpend) }

func (c *spendCache) get(campaign string, day bidder.Day, now time.Time, staleness time.Duration) (bidder.Micros, bool) {
	if staleness < 0 {
		return 0, false
	}
	c.mu.RLock()
	v, ok := c.m[dayKey{campaign, day}]
	c.mu.RUnlock()
	return v.spent, ok && now.Sub(v.at) < staleness
}

func (c *spendCache) put(campaign string, day bidder.Day, spent bidder.Micros, now time.Time) {
	c.mu.Lock()
	if len(c.m) > 100_000 { // bounded: a fresh start costs one read per campaign
		clear(c.m)
	}
	c.m[dayKey{campaign, day}] = cachedSpend{spent, now}
	c.mu.Unlock()
}

// add counts this replica's own win in the cached spend at once.
func (c *spendCache) add(campaign string, day bidder.Day, price bidder.Micros) {
	c.mu.Lock()
	if v, ok := c.m[dayKey{campaign, day}]; ok {
		v.spent += price
		c.m[dayKey{campaign, day}] = v
	}
	c.mu.Unlock()
}
