package comparison

import (
	"fmt"
	"math"
)

// Sweep is what one Java front end was tried with before the headline
// rounds: its thread settings and its collectors, in stages (see
// runSweeps), and what it got.
type Sweep struct {
	Front     string       `json:"front"` // tomcat, netty
	Param     string       `json:"param"` // maxThreads, event loops
	Scenarios []string     `json:"scenarios"`
	Rounds    int          `json:"rounds"`   // alternating rounds over a stage's points
	Warmup    string       `json:"warmup"`   // per point, before measuring
	Duration  string       `json:"duration"` // of each measurement
	Stages    []SweepStage `json:"stages"`
	// Chosen is the thread setting the headline rounds use, Reason why;
	// Collector is their collector, CollectorReason why.
	Chosen          int       `json:"chosen"`
	Reason          string    `json:"reason"`
	Collector       Collector `json:"collector"`
	CollectorReason string    `json:"collector_reason"`
}

// What a sweep stage varies besides the thread setting.
const varyCollector = "collector"

// SweepStage is one set of points run side by side, differing in one
// thing: the thread setting (Vary is the sweep's Param) under one
// collector, or the collector (Vary is "collector") at one thread setting.
type SweepStage struct {
	Vary   string       `json:"vary"`
	Points []SweepPoint `json:"points"`
	Best   int          `json:"best"` // index of the chosen point
	Reason string       `json:"reason"`
}

// SweepPoint is one thread setting and collector of a sweep, on a fresh
// JVM.
type SweepPoint struct {
	Value     int                 `json:"value"` // the thread setting
	Collector Collector           `json:"collector"`
	Samples   map[string]Sample   `json:"samples"` // by scenario key, the medians of the rounds
	Rounds    map[string][]Sample `json:"rounds,omitempty"`
	Score     float64             `json:"score"` // geometric mean of the scenarios' requests/s
	StartupMs float64             `json:"startup_to_first_bid_ms"`
}

// name is what a point differs in within its stage: its thread setting,
// or its collector.
func (st SweepStage) name(front string, p SweepPoint) string {
	if st.Vary == varyCollector {
		return p.Collector.Name
	}
	return settingName(front, p.Value)
}

// chosen is the stage's chosen point.
func (st SweepStage) chosen() SweepPoint { return st.Points[st.Best] }

func (p SweepPoint) failed() int64 {
	var n int64
	for _, s := range p.Samples {
		n += s.Failed
	}
	return n
}

// gc sums the collections and pauses of the point's medians over its
// scenarios.
func (p SweepPoint) gc() GCStats {
	var st GCStats
	for _, s := range p.Samples {
		st.Count += s.GCCount
		st.PauseMs += s.GCPauseMs
	}
	return st
}

// maxFailedShare is the share of failed requests above which a sweep
// point is set aside: a setting that breaks under the load (timeouts,
// refused connections), as opposed to the odd request caught in a GC pause.
const maxFailedShare = 0.001

// failing tells whether more than maxFailedShare of the point's requests
// failed.
func (p SweepPoint) failing() bool {
	var n int64
	for _, s := range p.Samples {
		n += s.Complete
	}
	failed := p.failed()
	return failed > 0 && float64(failed) > maxFailedShare*float64(n)
}

// score is the geometric mean of the requests/s of the given scenarios: a
// setting must be good on all of them, and no scenario dominates for its
// scale.
func score(samples map[string]Sample, keys []string) float64 {
	if len(keys) == 0 {
		return 0
	}
	sum := 0.0
	for _, k := range keys {
		s, ok := samples[k]
		if !ok || s.RequestsPerSecond <= 0 {
			return 0
		}
		sum += math.Log(s.RequestsPerSecond)
	}
	return math.Exp(sum / float64(len(keys)))
}

// pickBest chooses the point with the highest score among those whose
// failures stay under maxFailedShare (among all when none does), the first
// of equal scores, and says why, naming points with name. Every stage of
// the sweep, thread settings and collectors alike, picks by this rule.
func pickBest(points []SweepPoint, name func(SweepPoint) string) (int, string) {
	if len(points) == 0 {
		return -1, "no points"
	}
	clean := 0
	for _, p := range points {
		if !p.failing() {
			clean++
		}
	}
	best, next := -1, -1
	for i, p := range points {
		if clean > 0 && p.failing() {
			continue
		}
		switch {
		case best < 0 || p.Score > points[best].Score:
			best, next = i, best
		case next < 0 || p.Score > points[next].Score:
			next = i
		}
	}
	b := points[best]
	why := fmt.Sprintf("%s: the highest geometric mean of requests/s (%.0f)", name(b), b.Score)
	if next >= 0 && points[next].Score > 0 {
		why += fmt.Sprintf(", %.1f%% above the next best (%s, %.0f)", (b.Score/points[next].Score-1)*100,
			name(points[next]), points[next].Score)
	}
	if dropped := len(points) - clean; clean > 0 && dropped > 0 {
		why += fmt.Sprintf("; %d point(s) with more than %g%% of requests failed set aside", dropped, maxFailedShare*100)
	}
	if clean == 0 {
		why += fmt.Sprintf("; every point had more than %g%% of requests failed", maxFailedShare*100)
	}
	return best, why
}
