package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/recbid/dspd/events"
)

// failWarnEvery: of a series of failures, one in so many is logged as a
// warning (at the longest backoff, one every minute or two).
const failWarnEvery = 20

// Shipper ships an event log's records to a Kafka topic. Run runs it;
// Stats may be called at any time.
type Shipper struct {
	cfg        Config
	cl         *kgo.Client
	prodCtx    context.Context // the records' context: canceled when the client closes
	prodCancel context.CancelFunc
	closeOnce  sync.Once
	started    atomic.Bool
	closing    atomic.Bool
	// save saves the shipped position: the log's SaveShipped (tests
	// replace it to simulate a crash before a save).
	save func(events.Position) error

	// Run's own.
	rd, cnt     *cursor // the records read, and counted ahead (lag.go)
	rnd         round
	full        bool      // the last round read stopped at its bounds, not at the durable position
	ahead       int64     // records counted past the last round read
	aheadOldest time.Time // the time of the first of them
	oldest      time.Time // the time of the round's first record not acknowledged
	acked       events.Position
	saved       events.Position
	lastSave    time.Time
	stalled     time.Time // since when nothing goes through, zero when it does
	tick        *time.Ticker

	st      counters
	changed signal
}

// New returns a Shipper for cfg. It does not connect: the brokers need not
// be reachable.
func New(cfg Config) (*Shipper, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("events/kafka: %w", err)
	}
	s := &Shipper{cfg: cfg, save: cfg.Log.SaveShipped}
	cl, err := s.newClient()
	if err != nil {
		return nil, err
	}
	s.cl = cl
	s.prodCtx, s.prodCancel = context.WithCancel(context.Background())
	return s, nil
}

// Close closes the Kafka client: that of a Shipper whose Run was never
// called; Run closes it when it returns. Records in flight are failed.
// It must not be called while Run runs (cancel Run's context instead).
func (s *Shipper) Close() {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		s.prodCancel()
		s.cl.Close()
	})
}

// Run ships the log's records until ctx is done, then saves the shipped
// position, closes the client and returns nil, or the error of that last
// save. A Shipper runs once.
func (s *Shipper) Run(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("events/kafka: Run called twice")
	}
	defer s.Close()
	start := s.cfg.Log.Shipped()
	s.acked, s.saved = start, start
	dir := s.cfg.Log.Dir()
	s.rd = newCursor(dir, start, s.skipped)
	s.cnt = newCursor(dir, start, func(events.Position, uint64) {}) // the reader reports them
	defer s.rd.close()
	defer s.cnt.close()
	s.tick = time.NewTicker(s.cfg.PollEvery)
	defer s.tick.Stop()
	s.publish()

	fails := 0
	for ctx.Err() == nil && !s.closing.Load() {
		d := s.cfg.Log.Durable()
		s.count(d)
		n, err := s.fill(d)
		if n > 0 && !s.ship(ctx) {
			break
		}
		if err != nil {
			fails++
			s.failed(err, fails)
			if !s.pause(ctx, s.backoff(fails)) {
				break
			}
			continue
		}
		fails = 0
		_ = s.maybeSave(false)
		if !s.full && !s.pause(ctx, 0) {
			break
		}
	}
	return s.maybeSave(true)
}

// fill reads the next round, from the position shipped up to d; it
// returns how many records it holds, and an error that stopped the reading
// (the records before it are shipped first).
func (s *Shipper) fill(d events.Position) (int, error) {
	r := &s.rnd
	r.reset()
	from := s.rd.pos
	s.full = false
	var err error
	if from != d {
		err = s.rd.read(d, func(line []byte) bool {
			r.add(line, s.rd.pos)
			s.full = r.len() >= s.cfg.MaxBatch || len(r.buf) >= s.cfg.MaxBatchBytes
			return !s.full
		})
	}
	r.end = s.rd.pos
	s.consumed(r.len(), r.end)
	if r.len() == 0 {
		s.acked = r.end // past the end of finished segments, or missing ones
		s.publish()
		return 0, err
	}
	r.build(s.cfg.Topic)
	s.oldest = r.oldest()
	s.publish()
	return r.len(), err
}

// ship produces the round until every record of it is acknowledged; false
// when ctx is done first.
func (s *Shipper) ship(ctx context.Context) bool {
	r := &s.rnd
	for fails := 0; ; {
		results, ok := s.produce(ctx, r.toSend())
		recs, bytes, err := r.settle(results)
		s.st.records.Add(recs)
		s.st.bytes.Add(bytes)
		if p, moved := r.shipped(); moved {
			s.acked = p
		}
		s.oldest = r.oldest()
		s.publish()
		if err == nil {
			s.flowing()
			return ok
		}
		if !ok {
			return false // failed by the stop
		}
		fails++
		s.st.brokerErrors.Add(1)
		s.failed(fmt.Errorf("%d records failed: %w", len(r.pending), err), fails)
		if !s.pause(ctx, s.backoff(fails)) {
			return false
		}
	}
}

// produce produces recs and waits for their outcome, counting the lag
// and saving the position meanwhile. When ctx is done first, it waits up
// to StopWait, then closes the client, which fails what is in flight; it
// then returns false.
func (s *Shipper) produce(ctx context.Context, recs []*kgo.Record) (kgo.ProduceResults, bool) {
	done := make(chan kgo.ProduceResults, 1)
	go func() { done <- s.cl.ProduceSync(s.prodCtx, recs...) }()
	errs := s.st.brokerErrors.Load()
	for {
		select {
		case res := <-done:
			return res, true
		case <-s.tick.C:
			s.count(s.cfg.Log.Durable())
			_ = s.maybeSave(false)
			if s.st.brokerErrors.Load() > errs {
				s.stalling()
			}
		case <-ctx.Done():
			wait := time.NewTimer(s.cfg.StopWait)
			defer wait.Stop()
			select {
			case res := <-done:
				return res, false
			case <-wait.C:
			}
			s.cfg.Logger.Warn("kafka: stopping with records in flight; the next start sends them again",
				"records", len(recs), "shipped", s.acked)
			s.Close()
			return <-done, false
		}
	}
}

// pause waits d (at least until the next tick when d is 0), counting the
// lag and saving the position meanwhile; false when ctx is done first.
func (s *Shipper) pause(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timeout:
			return true
		case <-s.tick.C:
			if d == 0 {
				return true
			}
			s.count(s.cfg.Log.Durable())
			_ = s.maybeSave(false)
		}
	}
}

// maybeSave saves the position acknowledged, when it moved and the last
// save is SaveEvery old (or force).
func (s *Shipper) maybeSave(force bool) error {
	if s.acked == s.saved || (!force && time.Since(s.lastSave) < s.cfg.SaveEvery) {
		return nil
	}
	if err := s.save(s.acked); err != nil {
		s.st.fail(err, time.Now())
		s.cfg.Logger.Warn("kafka: the shipped position cannot be saved; a restart sends more again", "err", err)
		return fmt.Errorf("events/kafka: %w", err)
	}
	s.saved, s.lastSave = s.acked, time.Now()
	s.publish()
	return nil
}

// failed reports an error of a round or of the reading; the first of a
// series, and every failWarnEvery-th, is logged as a warning.
func (s *Shipper) failed(err error, fails int) {
	s.st.fail(err, time.Now())
	s.changed.notify()
	lv := s.cfg.Logger.Debug
	if fails%failWarnEvery == 1 {
		lv = s.cfg.Logger.Warn
	}
	lv("kafka: shipping fails; the records wait in the log and are tried again", "err", err, "tries", fails,
		"lag_records", s.st.lag.Load())
	if s.stalled.IsZero() {
		s.stalled = time.Now()
	}
}

// stalling reports, once, that the brokers fail while a round waits.
func (s *Shipper) stalling() {
	if !s.stalled.IsZero() {
		return
	}
	s.stalled = time.Now()
	s.cfg.Logger.Warn("kafka: the brokers cannot be reached; the records wait in the log",
		"err", s.Stats().LastError, "lag_records", s.st.lag.Load())
}

// flowing reports the end of a stall.
func (s *Shipper) flowing() {
	if s.stalled.IsZero() {
		return
	}
	s.cfg.Logger.Info("kafka: shipping again", "stalled", time.Since(s.stalled).Round(time.Millisecond),
		"broker_errors", s.st.brokerErrors.Load(), "lag_records", s.st.lag.Load())
	s.stalled = time.Time{}
}

// skipped reports segments deleted before they were shipped.
func (s *Shipper) skipped(from events.Position, to uint64) {
	s.st.skipped.Add(int64(to - from.Seq))
	s.cfg.Logger.Error("kafka: segments were deleted before they were shipped; their records are not in Kafka (keep them with events.Config.KeepUnshipped)",
		"from", from, "next", to)
}
