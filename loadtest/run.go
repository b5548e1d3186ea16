package loadtest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Run drives the load described by cfg and returns what it measured. It
// stops early, returning what it has, when ctx is done.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	t, err := parseTarget(cfg.URL)
	if err != nil {
		return nil, err
	}
	reqs, err := prepare(t, &cfg)
	if err != nil {
		return nil, err
	}
	if cfg.WarmupDuration > 0 || cfg.WarmupRequests > 0 {
		warm := cfg
		warm.Requests, warm.TimeLimit, warm.Duration = cfg.WarmupRequests, 0, cfg.WarmupDuration
		warm.Progress = nil
		if warm.Requests > 0 && int64(warm.Concurrency) > warm.Requests {
			warm.Concurrency = int(warm.Requests)
		}
		if _, err := (&run{cfg: warm, target: t, reqs: reqs}).do(ctx); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return (&run{cfg: cfg, target: t, reqs: reqs}).do(ctx)
}

// run is one measured (or warm-up) pass.
type run struct {
	cfg     Config
	target  target
	reqs    []prepared
	sched   *schedule // nil: a closed loop
	tickets atomic.Int64
	done    atomic.Int64
	stop    atomic.Bool
	docLen  atomic.Int64
	conns   atomic.Int64
	shards  []*recorder
}

func (r *run) do(ctx context.Context) (*Result, error) {
	cfg := &r.cfg
	r.docLen.Store(-1)
	r.sched = newSchedule(cfg)
	r.shards = make([]*recorder, min(cfg.Concurrency, 4*runtime.GOMAXPROCS(0)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	start := time.Now()
	for i := range r.shards {
		r.shards[i] = newRecorder()
		r.shards[i].deadline, r.shards[i].origin, r.shards[i].width = cfg.Deadline, start, cfg.Timeline
	}
	if limit := cfg.stopAt(); limit > 0 {
		stopTimer := time.AfterFunc(limit, func() { r.stop.Store(true) })
		defer stopTimer.Stop()
	}
	if ctx.Err() != nil {
		r.stop.Store(true)
	}
	go func() { <-ctx.Done(); r.stop.Store(true) }()
	progressDone := r.progress(ctx)

	var wg sync.WaitGroup
	for w := range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(ctx, r.shards[w%len(r.shards)], start)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cancel()
	<-progressDone

	all := newRecorder()
	all.width = cfg.Timeline
	for _, s := range r.shards {
		all.merge(s)
	}
	return r.result(all, start, elapsed), nil
}

// worker sends requests until the tickets, the time or ctx run out. In an
// open loop, request i is due when the schedule says (start + i/rate at a
// single rate) and its latency counts from then, however late the worker
// gets to it; one the worker gets to later than SendWithin is dropped
// unsent, as an exchange skips a bidder none of whose connections is free.
func (r *run) worker(ctx context.Context, rec *recorder, start time.Time) {
	cfg := &r.cfg
	c := newClient(r.target.addr(), cfg.KeepAlive, cfg.Timeout)
	c.wantName = true
	defer func() {
		c.closeConn()
		r.conns.Add(c.opened)
	}()
	limit := cfg.stopAt()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for !r.stop.Load() {
		i := r.tickets.Add(1) - 1
		if cfg.Requests > 0 && i >= cfg.Requests {
			return
		}
		due := time.Time{}
		if r.sched != nil {
			offset, ok := r.sched.due(i)
			if !ok || (limit > 0 && offset >= limit) {
				return
			}
			due = start.Add(offset)
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-ctx.Done():
					return
				}
			} else if cfg.SendWithin > 0 && -wait > cfg.SendWithin {
				rec.drop(due)
				continue
			}
		}
		a := c.do(ctx, &r.reqs[int(i%int64(len(r.reqs)))])
		if a.server != "" {
			c.wantName = false
		}
		r.checkLength(&a)
		if due.IsZero() {
			due = a.timing.start
		}
		rec.add(&a, due)
		r.done.Add(1)
	}
}

// checkLength applies ab's rule: an answer whose document length differs
// from the first answer's is a failure, unless lengths may vary (-l).
func (r *run) checkLength(a *answer) {
	if a.kind != kindNone {
		return
	}
	if r.docLen.CompareAndSwap(-1, a.docLen) || r.cfg.VariableLength {
		return
	}
	if a.docLen != r.docLen.Load() {
		a.kind = kindLength
	}
}
