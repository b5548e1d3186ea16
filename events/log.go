package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/recbid/dspd/bidder"
)

// ErrUnavailable is the cause of Add's error while the log cannot take
// records: the disk is full, or more records wait than it holds. The
// server then makes no bids and refuses notices (503), to be retried.
var ErrUnavailable = errors.New("event log unavailable")

// ErrLocked: another process writes the directory.
var ErrLocked = errors.New("event log directory in use")

// errClosed: the log is closed.
var errClosed = errors.New("event log closed")

// Log is an open event log: one writer goroutine writing the records
// added, and those of the state's outbox, to the segment being written. It
// is safe for concurrent use.
type Log struct {
	cfg  Config
	lock *os.File

	mu     sync.Mutex
	cur    *batch // filling
	spare  *batch // the last one written, for its buffer
	closed bool

	wake    chan struct{}
	calls   chan func() // run on the writer goroutine (Sync, Rotate)
	quit    chan struct{}
	stopped chan struct{}

	// The writer goroutine's own, but for the atomics.
	f            *os.File
	fsync        SyncCloser                   // syncs and closes f: f itself, or Config.Files's
	seq          uint64                       // of the segment being written
	size         int64                        // its bytes written
	first        time.Time                    // its first record's time (zero: none yet)
	unacked      []bidder.OutboxID            // outbox records written and synced, not yet acknowledged
	taken        map[bidder.OutboxID]struct{} // the same, to skip them when the outbox lists them again
	compress     chan Segment
	compressed   chan struct{} // closed when the compressor stops
	lastMaintain time.Time
	outboxFull   int // the last write took a whole chunk of the outbox: more may wait

	durable atomic.Pointer[Position] // what is synced
	waiting atomic.Int64             // writes waiting for room
	full    atomic.Int64             // writes that found the disk full, ever
	dead    atomic.Bool
	shipped atomic.Pointer[Position]
	st      stats
}

// batch is the records of one write.
type batch struct {
	buf    []byte
	n      int // records
	counts [numTypes]int64
	urgent bool // a caller waits for it: no window
	done   *Flush
}

// Flush is the outcome of one write, known once it is synced.
type Flush struct {
	done chan struct{}
	err  error
}

// Wait waits for the write and returns its error, or ctx's.
func (f *Flush) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed once the write is synced (or failed).
func (f *Flush) Done() <-chan struct{} { return f.done }

// Position is a place in a directory's records: the bytes before Offset
// of segment Seq, and every earlier segment.
type Position struct {
	Seq    uint64
	Offset int64
}

// Before reports whether p comes before q.
func (p Position) Before(q Position) bool {
	return p.Seq < q.Seq || (p.Seq == q.Seq && p.Offset < q.Offset)
}

// Open locks dir (creating it when missing), repairs the segment a crash
// left open (cutting a torn last line), writes the outbox's records that
// segment does not hold yet, and starts the writer.
func Open(cfg Config) (*Log, error) {
	cfg = cfg.withDefaults()
	if cfg.Dir == "" {
		return nil, errors.New("events: Config.Dir is required")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	lock, err := lockDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	l := &Log{cfg: cfg, lock: lock, taken: map[bidder.OutboxID]struct{}{}, wake: make(chan struct{}, 1), calls: make(chan func()), quit: make(chan struct{}),
		stopped: make(chan struct{}), compress: make(chan Segment, 64), compressed: make(chan struct{})}
	if err := l.open(); err != nil {
		_ = lock.Close()
		return nil, err
	}
	l.cur = l.fresh(nil)
	go l.compressor()
	go l.loop()
	return l, nil
}

// lockDir takes the directory's lock.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("events: %s cannot be written: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s is written by another process; one dspd per event directory: %w", ErrLocked, dir, err)
	}
	return f, nil
}

// fresh returns an empty batch, on b's buffer when b is not nil.
func (l *Log) fresh(b *batch) *batch {
	if b == nil {
		b = &batch{}
	}
	b.buf, b.n = b.buf[:0], 0
	b.counts = [numTypes]int64{}
	b.urgent = false
	b.done = &Flush{done: make(chan struct{})}
	return b
}

// Instance returns the replica name the records carry.
func (l *Log) Instance() string { return l.cfg.Instance }

// Dir returns the log's directory.
func (l *Log) Dir() string { return l.cfg.Dir }

// Add encodes r (its Instance set to the log's) into the records waiting
// for their write and returns that write's Flush. With wait, the write
// does not wait for the window: the caller waits for it (a notice answered
// only once its record is synced). It fails with ErrUnavailable while the
// disk is full or too much waits.
func (l *Log) Add(r *Record, wait bool) (*Flush, error) {
	r.Instance = l.cfg.Instance
	l.mu.Lock()
	b := l.cur
	if err := l.admit(b); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	b.buf = Append(b.buf, r)
	return l.added(b, r.Type, wait)
}

// AddLine is Add for a record already encoded (by Append, with this log's
// Instance) of type t.
func (l *Log) AddLine(line []byte, t Type, wait bool) (*Flush, error) {
	l.mu.Lock()
	b := l.cur
	if err := l.admit(b); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	b.buf = append(b.buf, line...)
	return l.added(b, t, wait)
}

// admit refuses a record while the log cannot take it; l.mu is held.
func (l *Log) admit(b *batch) error {
	switch {
	case l.closed:
		return errClosed
	case l.Unavailable():
		return ErrUnavailable
	case len(b.buf) >= l.cfg.MaxWaitingBytes:
		l.st.refused.Add(1)
		return fmt.Errorf("%w: more than %d bytes of records wait for the disk", ErrUnavailable, l.cfg.MaxWaitingBytes)
	}
	return nil
}

// added counts a record put in b, releases l.mu and wakes the writer.
func (l *Log) added(b *batch, t Type, wait bool) (*Flush, error) {
	b.n++
	if t < numTypes {
		b.counts[t]++
	}
	wake := b.n == 1 || (wait && !b.urgent)
	if wait {
		b.urgent = true
	}
	done := b.done
	l.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return done, nil
}

// Unavailable reports whether the log refuses records: a write waits for
// room on a full disk, or the log stopped.
func (l *Log) Unavailable() bool { return l.waiting.Load() > 0 || l.dead.Load() }

// Durable returns the position up to which the records are synced: the
// shipper reads no further.
func (l *Log) Durable() Position { return *l.durable.Load() }

// Rotate writes what waits, finishes the segment being written (when it
// holds any record) and applies the retention: what the writer does by
// itself at a segment's size or age.
func (l *Log) Rotate() error {
	var err error
	if !l.call(func() {
		l.flush()
		if l.size > 0 && len(l.unacked) == 0 {
			err = l.rotate()
		}
		l.retain()
	}) {
		return errClosed
	}
	return err
}

// Flush writes and syncs what waits now, without waiting for its window.
func (l *Log) Flush() error {
	if !l.call(l.flushAll) {
		return errClosed
	}
	return nil
}

// Maintain runs the writer's periodic upkeep now: a segment past its age is
// finished, and the retention applied.
func (l *Log) Maintain() bool { return l.call(l.maintain) }

// call runs f on the writer goroutine and waits for it; false when the log
// is closed.
func (l *Log) call(f func()) bool {
	done := make(chan struct{})
	select {
	case l.calls <- func() { f(); close(done) }:
	case <-l.stopped:
		return false
	}
	<-done
	return true
}

// Close writes and syncs what waits, finishes nothing (the open segment
// stays open, to be continued at the next Open), and unlocks the
// directory. Writes waiting for room on a full disk give up first.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.quit)
	<-l.stopped
	close(l.compress)
	<-l.compressed
	var err error
	if l.f != nil {
		err = l.fsync.Close()
	}
	return errors.Join(err, l.lock.Close())
}
