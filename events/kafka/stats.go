package kafka

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/events"
)

// Stats is what a Shipper has done since New, for the metrics.
type Stats struct {
	Records int64 // records acknowledged by the brokers
	Bytes   int64 // their bytes (the lines, without their newlines)
	// BrokerErrors counts the failures talking to the brokers: failed
	// connections, requests without an answer (the client retries them),
	// and produce rounds whose records the client failed back (the shipper
	// retries them). An error a broker answers that the client retries by
	// itself (a write timed out, too few replicas) is not seen here: it
	// shows as lag.
	BrokerErrors int64
	// LagRecords is the records durable in the log but not acknowledged
	// yet; LagSeconds the age of the oldest of them, by its time and the
	// server clock (0 when there is none).
	LagRecords int64
	LagSeconds float64
	// SpoolBytes is the bytes on disk of the segments not wholly shipped
	// (the log's, as of its last retention pass).
	SpoolBytes int64
	// SkippedSegments counts segments that were deleted before they were
	// shipped (a retention without events.Config.KeepUnshipped).
	SkippedSegments int64
	Shipped         events.Position // acknowledged up to
	Saved           events.Position // saved up to
	LastError       string          // the last failure, "" when none
	LastErrorAt     time.Time
}

// counters are a Shipper's Stats as they go.
type counters struct {
	records, bytes, brokerErrors, skipped atomic.Int64
	lag                                   atomic.Int64
	oldest                                atomic.Int64 // unix nanoseconds of the oldest unacknowledged record, 0: unknown or none

	mu          sync.Mutex
	shipped     events.Position
	saved       events.Position
	lastErr     string
	lastErrTime time.Time
}

func (c *counters) fail(err error, now time.Time) {
	c.mu.Lock()
	c.lastErr, c.lastErrTime = err.Error(), now
	c.mu.Unlock()
}

// Stats returns the shipper's counters.
func (s *Shipper) Stats() Stats {
	c := &s.st
	st := Stats{Records: c.records.Load(), Bytes: c.bytes.Load(), BrokerErrors: c.brokerErrors.Load(),
		LagRecords: c.lag.Load(), SkippedSegments: c.skipped.Load(), SpoolBytes: s.cfg.Log.Stats().SpoolBytes}
	if old := c.oldest.Load(); old != 0 && st.LagRecords > 0 {
		st.LagSeconds = max(0, s.cfg.Clock().Sub(time.Unix(0, old)).Seconds())
	}
	c.mu.Lock()
	st.Shipped, st.Saved, st.LastError, st.LastErrorAt = c.shipped, c.saved, c.lastErr, c.lastErrTime
	c.mu.Unlock()
	return st
}

// signal wakes whoever waits for the shipper's next change (the tests).
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next notify.
func (g *signal) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	return g.ch
}

func (g *signal) notify() {
	g.mu.Lock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
	g.mu.Unlock()
}
