package loadtest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Step is one stretch of an open loop's schedule: Rate requests per second
// for Duration.
type Step struct {
	Rate     float64       `json:"rate"`
	Duration time.Duration `json:"duration_ns"`
}

// ParseRate reads -rate: one rate ("20000"), or a schedule of steps, each
// a rate and how long it lasts ("30000:30s,10000:10s").
func ParseRate(s string) (rate float64, steps []Step, err error) {
	if !strings.Contains(s, ":") {
		rate, err = strconv.ParseFloat(s, 64)
		if err != nil || rate < 0 || math.IsInf(rate, 0) {
			return 0, nil, fmt.Errorf("-rate %q: want requests per second, or steps RATE:DURATION,…", s)
		}
		return rate, nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		r, d, ok := strings.Cut(part, ":")
		rate, rerr := strconv.ParseFloat(r, 64)
		dur, derr := time.ParseDuration(d)
		if !ok || rerr != nil || derr != nil || rate <= 0 || math.IsInf(rate, 0) || dur <= 0 {
			return 0, nil, fmt.Errorf("-rate %q: step %q: want RATE:DURATION, both above zero (20000:30s)", s, part)
		}
		steps = append(steps, Step{Rate: rate, Duration: dur})
	}
	return 0, steps, nil
}

// schedule maps an open loop's request numbers to their send times.
type schedule struct {
	steps []Step
	first []int64 // the number of each step's first request
	begin []time.Duration
	end   int64 // requests in the whole schedule; -1 when unbounded
}

// newSchedule returns cfg's schedule, or nil for a closed loop. A single
// rate is one step, as long as the run: unbounded when the run has no
// time limit (it ends at its request count).
func newSchedule(cfg *Config) *schedule {
	if len(cfg.Steps) == 0 {
		if cfg.Rate <= 0 {
			return nil
		}
		s := &schedule{steps: []Step{{Rate: cfg.Rate}}, first: []int64{0}, begin: []time.Duration{0}, end: -1}
		if d := cfg.stopAt(); d > 0 {
			s.end = int64(cfg.Rate * d.Seconds())
		}
		return s
	}
	s := &schedule{steps: cfg.Steps}
	var at time.Duration
	for _, st := range cfg.Steps {
		s.first, s.begin = append(s.first, s.end), append(s.begin, at)
		s.end += int64(st.Rate * st.Duration.Seconds())
		at += st.Duration
	}
	return s
}

// due returns when request i is due, from the start; not ok past the end
// of the schedule.
func (s *schedule) due(i int64) (time.Duration, bool) {
	if s.end >= 0 && i >= s.end {
		return 0, false
	}
	k := len(s.steps) - 1
	for k > 0 && i < s.first[k] {
		k--
	}
	offset := s.begin[k] + time.Duration(float64(i-s.first[k])/s.steps[k].Rate*float64(time.Second))
	return offset, true
}

// checkSteps checks a schedule's steps and returns how long it lasts.
func checkSteps(steps []Step) (time.Duration, error) {
	var total time.Duration
	for _, st := range steps {
		if st.Rate <= 0 || st.Duration <= 0 {
			return 0, errors.New("each step of a schedule needs a rate and a duration above zero")
		}
		total += st.Duration
	}
	return total, nil
}
