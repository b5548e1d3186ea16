package loadtest

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Slice is one slice of a run's timeline: the requests due in it (by
// their scheduled send time in an open loop, their start otherwise) and
// what became of them.
type Slice struct {
	StartS   float64          `json:"start_s"` // from the start of the run
	Due      int64            `json:"due"`     // requests due: dropped, failed or answered
	Dropped  int64            `json:"dropped"` // not sent within -tmax of their due time
	Errors   int64            `json:"errors"`  // sent, no answer (connect, write, receive, timeout)
	Statuses map[string]int64 `json:"statuses"`
	OnTime   map[string]int64 `json:"on_time,omitempty"` // answered within -tmax of their due time, by status
	// Latency of the answers, from their due time, in milliseconds (at
	// about 6 % resolution).
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// slice accumulates one slice of the timeline.
type slice struct {
	due, dropped, errors int64
	statuses, onTime     map[int]int64
	hist                 *hdrhistogram.Histogram
}

// newSlice's histogram keeps one significant digit (a few KB), so that a
// timeline of a few hundred slices stays small.
func newSlice() *slice {
	return &slice{statuses: map[int]int64{}, onTime: map[int]int64{}, hist: hdrhistogram.New(histMin, histMax, 1)}
}

// at returns the slice of requests due at due, growing the timeline;
// nil without a timeline.
func (r *recorder) at(due time.Time) *slice {
	if r.width <= 0 {
		return nil
	}
	i := max(int(due.Sub(r.origin)/r.width), 0)
	for len(r.slices) <= i {
		r.slices = append(r.slices, newSlice())
	}
	return r.slices[i]
}

// drop records a request dropped unsent.
func (r *recorder) drop(due time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped++
	if s := r.at(due); s != nil {
		s.due++
		s.dropped++
	}
}

// mergeTimeline folds o's timeline into r's.
func (r *recorder) mergeTimeline(o *recorder) {
	for i, os := range o.slices {
		for len(r.slices) <= i {
			r.slices = append(r.slices, newSlice())
		}
		s := r.slices[i]
		s.due += os.due
		s.dropped += os.dropped
		s.errors += os.errors
		for k, n := range os.statuses {
			s.statuses[k] += n
		}
		for k, n := range os.onTime {
			s.onTime[k] += n
		}
		s.hist.Merge(os.hist)
	}
}

// histograms returns the slices' latency histograms.
func (r *recorder) histograms() []*hdrhistogram.Histogram {
	out := make([]*hdrhistogram.Histogram, len(r.slices))
	for i, s := range r.slices {
		out[i] = s.hist
	}
	return out
}

// timeline returns the recorded slices as a Result reports them.
func (r *recorder) timeline() []Slice {
	out := make([]Slice, 0, len(r.slices))
	for i, s := range r.slices {
		sum := summarize(s.hist)
		out = append(out, Slice{
			StartS: (time.Duration(i) * r.width).Seconds(), Due: s.due, Dropped: s.dropped, Errors: s.errors,
			Statuses: byStatus(s.statuses), OnTime: byStatus(s.onTime),
			P50Ms: sum.P50, P99Ms: sum.P99, MaxMs: sum.Max,
		})
	}
	return out
}

// byStatus keys counts by status code, as JSON keys.
func byStatus(m map[int]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for s, n := range m {
		out[statusKey(s)] = n
	}
	return out
}

// LatencyBetween returns the latency of the answers to the requests due
// between from and to (from the start of the run), from the timeline's
// slices (at their resolution); not ok when the result has no timeline in
// memory (it is not saved with the JSON).
func (res *Result) LatencyBetween(from, to time.Duration) (Summary, bool) {
	if len(res.sliceHists) == 0 || res.TimelineWidthS <= 0 {
		return Summary{}, false
	}
	width := time.Duration(res.TimelineWidthS * float64(time.Second))
	h := hdrhistogram.New(histMin, histMax, 1)
	for i, sh := range res.sliceHists {
		if at := time.Duration(i) * width; at >= from && at < to {
			h.Merge(sh)
		}
	}
	return summarize(h), true
}
