package kafka

import (
	"time"

	"github.com/recbid/dspd/events"
)

// countBudget is how many bytes of records one counting step reads at
// most, so that counting a large backlog delays a round by little.
const countBudget = 32 << 20

// The lag in records is the round's records not yet acknowledged, plus
// those between the round's end and where a second cursor, counting lines
// ahead of the reader up to the durable position, has got to. Counting is
// exact, reads each byte once more (a compressed segment is inflated once
// more), and goes by steps between rounds and while one is in flight.

// count moves the counting cursor toward d by countBudget at most.
func (s *Shipper) count(d events.Position) {
	if s.cnt.pos == d {
		return
	}
	budget := countBudget
	before := s.ahead
	err := s.cnt.read(d, func(line []byte) bool {
		if s.ahead == 0 {
			s.aheadOldest = recordTime(line)
		}
		s.ahead++
		budget -= len(line) + 1
		return budget > 0
	})
	if err != nil {
		s.cfg.Logger.Debug("kafka: counting the lag", "err", err)
	}
	if s.ahead != before {
		s.publish()
	}
}

// consumed takes a round of n records read up to end out of the records
// counted ahead; when the reader went past the counter, the counter goes
// on from the reader's end. The oldest of the records left ahead is taken
// to be as old as the round's last (it is at most a record younger).
func (s *Shipper) consumed(n int, end events.Position) {
	if s.cnt.pos.Before(end) {
		s.ahead = 0
		s.cnt.seek(end)
	} else {
		s.ahead = max(0, s.ahead-int64(n))
	}
	switch {
	case s.ahead == 0:
		s.aheadOldest = time.Time{}
	case n > 0:
		last := s.rnd.spans[n-1]
		s.aheadOldest = recordTime(s.rnd.buf[last.start:last.end])
	}
}

// publish updates what Stats reads and wakes whoever waits for it.
func (s *Shipper) publish() {
	s.st.lag.Store(int64(s.rnd.unacked()) + s.ahead)
	oldest := s.oldest
	if s.rnd.unacked() == 0 {
		oldest = s.aheadOldest
	}
	var old int64
	if !oldest.IsZero() {
		old = oldest.UnixNano()
	}
	s.st.oldest.Store(old)
	s.st.mu.Lock()
	s.st.shipped, s.st.saved = s.acked, s.saved
	s.st.mu.Unlock()
	s.changed.notify()
}
