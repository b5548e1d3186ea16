package events

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/recbid/dspd/bidder"
)

// outboxChunk is how many outbox records one write takes at most.
const outboxChunk = 4096

// loop is the writer goroutine: it writes a batch when one has records (at
// the end of its window, or at once when a caller waits), the outbox's
// records when the state signals them, and keeps the segments' age and the
// retention.
func (l *Log) loop() {
	defer close(l.stopped)
	var outbox <-chan struct{}
	if l.cfg.Outbox != nil {
		outbox = l.cfg.Outbox.EventsWaiting()
	}
	tick := time.NewTicker(l.cfg.MaintainEvery)
	defer tick.Stop()
	var window *time.Timer
	for {
		select {
		case <-l.quit:
			l.flushAll()
			return
		case <-tick.C:
			l.maintain()
			continue
		case f := <-l.calls:
			f()
			continue
		case <-outbox:
		case <-l.wake:
			if l.cfg.Window > 0 && !l.urgent() {
				if window == nil {
					window = time.NewTimer(l.cfg.Window)
				} else {
					window.Reset(l.cfg.Window)
				}
				if !l.waitWindow(window) {
					l.flushAll()
					return
				}
			}
		}
		l.flush()
	}
}

// flushAll writes what waits and every record the outbox holds, a chunk
// at a time: the last writes before a stop.
func (l *Log) flushAll() {
	for {
		l.flush()
		if l.outboxFull == 0 || l.Unavailable() {
			return
		}
	}
}

// urgent reports whether a caller waits for the batch being filled.
func (l *Log) urgent() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur.urgent
}

// waitWindow waits for the window to end, or for a caller to wait on the
// batch; false when the log closes meanwhile.
func (l *Log) waitWindow(window *time.Timer) bool {
	for {
		select {
		case <-window.C:
			return true
		case <-l.quit:
			window.Stop()
			return false
		case f := <-l.calls: // Rotate, Maintain: they write what waits first
			window.Stop()
			f()
			return true
		case <-l.wake:
			if l.urgent() {
				window.Stop()
				return true
			}
		}
	}
}

// flush writes and syncs the batch being filled and the outbox's pending
// records, then acknowledges those to the state.
func (l *Log) flush() {
	l.mu.Lock()
	b := l.cur
	l.cur, l.spare = l.fresh(l.spare), nil
	l.mu.Unlock()

	mark := len(l.unacked)
	l.takeOutbox(b)
	var err error
	if len(b.buf) > 0 {
		err = l.write(b.buf)
	}
	if err == nil {
		for t, n := range b.counts {
			l.st.records[t].Add(n)
		}
		l.st.bytes.Add(int64(len(b.buf)))
	} else {
		for _, id := range l.unacked[mark:] { // not written: taken again next time
			delete(l.taken, id)
		}
		l.unacked = l.unacked[:mark]
	}
	b.done.err = err
	close(b.done.done)
	if err == nil {
		l.ack()
	}
	l.mu.Lock()
	l.spare = b
	l.mu.Unlock()
	if time.Since(l.lastMaintain) >= l.cfg.MaintainEvery {
		l.maintain()
	}
}

// takeOutbox appends the outbox's records not yet written to b.
func (l *Log) takeOutbox(b *batch) {
	if l.cfg.Outbox == nil {
		return
	}
	n := 0
	err := l.cfg.Outbox.PendingEvents(outboxChunk+len(l.taken), func(id bidder.OutboxID, line []byte) {
		if _, ok := l.taken[id]; ok {
			return
		}
		b.buf = append(b.buf, line...)
		if len(line) == 0 || line[len(line)-1] != '\n' {
			b.buf = append(b.buf, '\n')
		}
		if t, ok := lineType(line); ok {
			b.counts[t]++
		}
		l.taken[id] = struct{}{}
		l.unacked = append(l.unacked, id)
		n++
	})
	if err != nil {
		l.cfg.Logger.Warn("event log: the state's outbox could not be read; its records wait", "err", err)
		return
	}
	l.outboxFull = 0
	if n >= outboxChunk {
		l.outboxFull = n
		// More may wait than one write takes: come back for them.
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// ack tells the state that the outbox's records written so far are synced.
// A failure leaves them to be acknowledged later; the segment is not
// finished while any is unacknowledged, so that Open finds them in the
// open segment after a crash.
func (l *Log) ack() {
	if len(l.unacked) == 0 {
		return
	}
	if err := l.cfg.Outbox.AckEvents(l.unacked); err != nil {
		l.cfg.Logger.Warn("event log: outbox records written but not acknowledged yet", "err", err)
		return
	}
	clear(l.taken)
	l.unacked = l.unacked[:0]
}

// write appends p (whole records) to the segment being written, after
// finishing it when p would take it past its size, and syncs. On a full
// disk it waits for room, resuming where it stopped.
func (l *Log) write(p []byte) error {
	if l.size > 0 && l.size+int64(len(p)) > l.cfg.SegmentBytes && len(l.unacked) == 0 {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	if l.first.IsZero() {
		l.first = l.cfg.Clock()
	}
	done := 0
	err := l.retry(func() error {
		n, err := l.f.Write(p[done:])
		done += n
		if err == nil && done < len(p) {
			err = io.ErrShortWrite
		}
		return err
	})
	l.size += int64(done)
	if err != nil {
		return l.fail("write", err)
	}
	if err := l.fsync.Sync(); err != nil {
		// After a failed fsync the kernel may have dropped the pages it
		// could not write: fail-stop, as the disk state does.
		return l.fail("fsync", err)
	}
	l.st.syncs.Add(1)
	l.durable.Store(&Position{Seq: l.seq, Offset: l.size})
	return nil
}

// fail stops the log on an I/O error that is not a full disk.
func (l *Log) fail(op string, err error) error {
	if noSpace(err) { // the log is closing while the disk is full
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
	}
	l.dead.Store(true)
	l.cfg.Fatal(fmt.Sprintf("event log %s: %s: %v", l.cfg.Dir, op, err))
	return fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
}

// retry runs op until it succeeds, fails otherwise than for room, or the
// log closes.
func (l *Log) retry(op func() error) error {
	err := op()
	if !noSpace(err) {
		return err
	}
	l.full.Add(1)
	if l.waiting.Add(1) == 1 {
		l.cfg.Logger.Error("event log: the disk is full; no bids (state_unavailable) and notices answered 503 until a write goes through",
			"dir", l.cfg.Dir, "err", err)
	}
	t := time.NewTicker(l.cfg.RetryEvery)
	defer t.Stop()
	for noSpace(err) {
		select {
		case <-l.quit:
			l.waiting.Add(-1)
			return err
		case <-t.C:
		}
		err = op()
	}
	if l.waiting.Add(-1) == 0 {
		l.cfg.Logger.Info("event log: writes go through again", "dir", l.cfg.Dir)
	}
	return err
}

// noSpace reports whether err says the disk (or the user's quota) is full.
func noSpace(err error) bool {
	return err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT))
}

// maintain finishes a segment past its age, and applies the retention.
func (l *Log) maintain() {
	l.lastMaintain = time.Now()
	l.ack() // an acknowledgement that failed: try it again
	if l.size > 0 && !l.first.IsZero() && l.cfg.Clock().Sub(l.first) >= l.cfg.SegmentAge && len(l.unacked) == 0 {
		if err := l.rotate(); err != nil {
			return
		}
	}
	l.retain()
}

// compile-time check that the writer's file is an *os.File (Fd, Sync).
var _ interface{ Fd() uintptr } = (*os.File)(nil)
