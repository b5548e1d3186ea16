package disk

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
)

// errBacklog: more bid records wait for the disk than the writer holds.
var errBacklog = errors.New("too many bid records waiting for the disk")

// bidWriter writes bid records to the database in batches of its own, with
// their bid counts summed per campaign and day: one commit, one fsync and a
// few counter merges for every record that arrived since the last one.
//
// With a zero window, a bid waits for the commit that holds its record
// (group commit: the records that arrive while one commit is being synced
// go in the next). With a window W, a bid is answered at once and its
// record is committed at most W after the first record of its batch
// arrived: a crash loses at most the records of the bids answered in the
// last W, plus those of the commit being synced.
type bidWriter struct {
	s       *Store
	window  time.Duration
	max     int           // most records waiting; beyond, Save fails (closed)
	wake    chan struct{} // a batch got its first record
	quit    chan struct{} // write what waits, then stop
	stopped chan struct{}

	mu    sync.Mutex
	cur   *bidBatch // filling
	spare *bidBatch // the last one written, for its buffers
}

// bidBatch is the records of one commit, keys and values back to back.
type bidBatch struct {
	buf    []byte
	ents   []bidEntry
	counts map[dayCount]int64
	done   *flushed
}

type bidEntry struct{ key, end, val int } // buf[key:end] is the key, buf[end:val] the value

type dayCount struct {
	day                      bidder.Day
	campaign, exchange, deal string
}

// flushed is the outcome of one commit, known once done is closed.
type flushed struct {
	done chan struct{}
	err  error
}

func newBidWriter(s *Store, window time.Duration, max int) *bidWriter {
	w := &bidWriter{s: s, window: window, max: max, wake: make(chan struct{}, 1), quit: make(chan struct{}),
		stopped: make(chan struct{})}
	w.cur = w.fresh(nil)
	go w.loop()
	return w
}

// fresh returns an empty batch, on b's buffers when b is not nil.
func (w *bidWriter) fresh(b *bidBatch) *bidBatch {
	if b == nil {
		b = &bidBatch{counts: map[dayCount]int64{}}
	}
	b.buf, b.ents = b.buf[:0], b.ents[:0]
	clear(b.counts)
	b.done = &flushed{done: make(chan struct{})}
	return b
}

// add puts a record in the batch being filled and returns that batch's
// outcome, to wait for.
func (w *bidWriter) add(rec bidder.BidRecord, expires int64) (*flushed, error) {
	w.mu.Lock()
	b := w.cur
	if len(b.ents) >= w.max {
		w.mu.Unlock()
		return nil, fmt.Errorf("%w: %w (%d)", ErrUnavailable, errBacklog, w.max)
	}
	key := len(b.buf)
	b.buf = appendBidKey(b.buf, kindBid, expires, rec.ID)
	end := len(b.buf)
	b.buf = appendRecord(b.buf, rec, expires)
	b.ents = append(b.ents, bidEntry{key, end, len(b.buf)})
	if !rec.Test {
		b.counts[dayCount{bidder.DayOfSec(rec.TimeS), rec.CampaignID, rec.Exchange, rec.Deal}]++
	}
	first, done := len(b.ents) == 1, b.done
	w.mu.Unlock()
	if first {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return done, nil
}

func (w *bidWriter) loop() {
	defer close(w.stopped)
	var timer *time.Timer
	for {
		select {
		case <-w.wake:
		case <-w.quit:
			w.flush()
			return
		}
		if w.window > 0 {
			if timer == nil {
				timer = time.NewTimer(w.window)
			} else {
				timer.Reset(w.window)
			}
			select {
			case <-timer.C:
			case <-w.quit:
				w.flush()
				return
			}
		}
		w.flush()
	}
}

// flush commits the batch being filled, if it holds anything.
func (w *bidWriter) flush() {
	w.mu.Lock()
	b := w.cur
	if len(b.ents) == 0 {
		w.mu.Unlock()
		return
	}
	w.cur, w.spare = w.fresh(w.spare), nil
	w.mu.Unlock()

	batch := w.s.db.NewBatchWithSize(len(b.buf) + 64*len(b.counts) + 16*len(b.ents))
	for _, e := range b.ents {
		_ = batch.Set(b.buf[e.key:e.end], b.buf[e.end:e.val], nil)
	}
	for c, n := range b.counts {
		w.s.addDay(batch, c.campaign, c.exchange, c.deal, c.day, n, 0, 0)
	}
	b.done.err = w.s.commit(batch)
	close(b.done.done)

	w.mu.Lock()
	w.spare = b
	w.mu.Unlock()
}

// close writes what waits and stops the writer.
func (w *bidWriter) close() {
	close(w.quit)
	<-w.stopped
}
