package loadtest

import (
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 µs to one hour at three significant digits, about
// 190 KB per histogram whatever the run length.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }

// recorder accumulates what a share of the workers measured.
type recorder struct {
	mu                                  sync.Mutex
	total, connect, waiting, processing *hdrhistogram.Histogram
	complete                            int64
	kinds                               [numKinds]int64
	statuses                            map[int]int64
	non2xx                              int64
	headerBytes, bodyBytes, docBytes    int64
	sentBytes, bodySent                 int64
	keptAlive                           int64 // answers that left the connection open
	docLen                              int64 // the first answer's document length, -1 before
	server                              string
	first, last                         time.Time

	// With a deadline (Config.Deadline): requests dropped unsent, and
	// answers on time by status.
	deadline time.Duration
	dropped  int64
	onTime   map[int]int64
	// The timeline (timeline.go): slices of width from origin.
	origin time.Time
	width  time.Duration
	slices []*slice
}

func newRecorder() *recorder {
	return &recorder{
		total: newHistogram(), connect: newHistogram(), waiting: newHistogram(), processing: newHistogram(),
		statuses: map[int]int64{}, onTime: map[int]int64{}, docLen: -1,
	}
}

func micros(d time.Duration) int64 {
	us := d.Microseconds()
	return min(max(us, histMin), histMax)
}

// add records one finished request. latencyFrom is when its latency counts
// from: its start, or its scheduled send time in an open loop.
func (r *recorder) add(a *answer, latencyFrom time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.complete++
	if r.first.IsZero() || a.timing.start.Before(r.first) {
		r.first = a.timing.start
	}
	if a.timing.done.After(r.last) {
		r.last = a.timing.done
	}
	if a.kind != kindConnect && a.kind != kindWrite {
		r.sentBytes += int64(a.reqBytes)
		r.bodySent += int64(a.bodySize)
	}
	t := &a.timing
	latency := t.done.Sub(latencyFrom)
	_ = r.total.RecordValue(micros(latency))
	_ = r.connect.RecordValue(micros(t.connected.Sub(t.start)))
	_ = r.waiting.RecordValue(micros(t.firstByte.Sub(t.written)))
	_ = r.processing.RecordValue(micros(t.done.Sub(t.connected)))
	sl := r.at(latencyFrom)
	if sl != nil {
		sl.due++
	}
	if a.kind != kindNone {
		r.kinds[a.kind]++
		if a.kind != kindLength { // a length failure still got its answer
			if sl != nil {
				sl.errors++
			}
			return
		}
	}
	r.statuses[a.status]++
	onTime := r.deadline > 0 && latency <= r.deadline
	if onTime {
		r.onTime[a.status]++
	}
	if sl != nil {
		sl.statuses[a.status]++
		if onTime {
			sl.onTime[a.status]++
		}
		_ = sl.hist.RecordValue(micros(latency))
	}
	if a.status < 200 || a.status > 299 {
		r.non2xx++
	}
	r.headerBytes += a.header
	r.bodyBytes += a.body
	r.docBytes += a.docLen
	if !a.close {
		r.keptAlive++
	}
	if a.server != "" {
		r.server = a.server
	}
}

// merge folds o into r.
func (r *recorder) merge(o *recorder) {
	r.total.Merge(o.total)
	r.connect.Merge(o.connect)
	r.waiting.Merge(o.waiting)
	r.processing.Merge(o.processing)
	r.complete += o.complete
	for k := range r.kinds {
		r.kinds[k] += o.kinds[k]
	}
	for s, n := range o.statuses {
		r.statuses[s] += n
	}
	r.non2xx += o.non2xx
	r.dropped += o.dropped
	for s, n := range o.onTime {
		r.onTime[s] += n
	}
	r.mergeTimeline(o)
	r.headerBytes += o.headerBytes
	r.bodyBytes += o.bodyBytes
	r.docBytes += o.docBytes
	r.sentBytes += o.sentBytes
	r.bodySent += o.bodySent
	r.keptAlive += o.keptAlive
	if r.server == "" {
		r.server = o.server
	}
	if !o.first.IsZero() && (r.first.IsZero() || o.first.Before(r.first)) {
		r.first = o.first
	}
	if o.last.After(r.last) {
		r.last = o.last
	}
}

func statusKey(s int) string { return strconv.Itoa(s) }
