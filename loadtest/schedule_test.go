package loadtest

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in    string
		rate  float64
		steps []Step
		bad   bool
	}{
		{in: "2500", rate: 2500},
		{in: "0.5", rate: 0.5},
		{in: "30000:30s,7500:10s", steps: []Step{{30000, 30 * time.Second}, {7500, 10 * time.Second}}},
		{in: "100:1s", steps: []Step{{100, time.Second}}},
		{in: "fast", bad: true},
		{in: "-3", bad: true},
		{in: "100:", bad: true},
		{in: "100:0s", bad: true},
		{in: "0:1s", bad: true},
		{in: "100:1s,", bad: true},
		{in: "Inf", bad: true},
	}
	for _, tt := range tests {
		rate, steps, err := ParseRate(tt.in)
		if tt.bad {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.rate, rate, tt.in)
		assert.Equal(t, tt.steps, steps, tt.in)
	}
}

// TestScheduleDue: each step sends its rate for its duration, after the
// steps before it, and the schedule ends with the last.
func TestScheduleDue(t *testing.T) {
	s := newSchedule(&Config{Steps: []Step{{1000, time.Second}, {10, 2 * time.Second}}})
	require.NotNil(t, s)
	for _, tt := range []struct {
		i   int64
		at  time.Duration
		end bool
	}{
		{i: 0, at: 0}, {i: 1, at: time.Millisecond}, {i: 999, at: 999 * time.Millisecond},
		{i: 1000, at: time.Second}, {i: 1001, at: time.Second + 100*time.Millisecond},
		{i: 1019, at: 2*time.Second + 900*time.Millisecond}, {i: 1020, end: true},
	} {
		at, ok := s.due(tt.i)
		assert.Equal(t, !tt.end, ok, "request %d", tt.i)
		if ok {
			assert.Equal(t, tt.at, at, "request %d", tt.i)
		}
	}
	assert.Nil(t, newSchedule(&Config{}), "a closed loop has none")
}

// TestDeadlineDrops: with -tmax, the requests a stalled connection kept
// from being sent in time are dropped, not sent late, and the answers are
// told apart on time or late; the timeline accounts for every request.
func TestDeadlineDrops(t *testing.T) {
	var once sync.Once
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { time.Sleep(200 * time.Millisecond) }) // the stall under test: the first request is slow
		ok(w, r)
	})
	cfg := Config{URL: srv.URL, Steps: []Step{{Rate: 500, Duration: 600 * time.Millisecond}}, Concurrency: 1, KeepAlive: true,
		Deadline: 20 * time.Millisecond, Timeline: 100 * time.Millisecond}
	res, err := Run(t.Context(), cfg)
	require.NoError(t, err)
	assert.Equal(t, int64(300), res.Complete+res.Dropped, "every request is answered or dropped")
	assert.Equal(t, res.Complete, srv.requests.Load(), "a dropped request is never sent")
	// Due in the stall's first 180 ms, no request could be sent within 20 ms.
	assert.GreaterOrEqual(t, res.Dropped, int64(80))
	assert.Less(t, res.OnTime["200"], res.Complete, "the stalled one (at least) was late")
	assert.Positive(t, res.OnTime["200"])
	require.NotEmpty(t, res.Timeline)
	var due, dropped, answered int64
	for _, s := range res.Timeline {
		due += s.Due
		dropped += s.Dropped
		answered += s.Statuses["200"]
	}
	assert.Equal(t, int64(300), due)
	assert.Equal(t, res.Dropped, dropped)
	assert.Equal(t, res.Complete, answered)
	assert.Positive(t, res.Timeline[0].Dropped, "the drops are in the stall's slices")
	assert.Greater(t, res.Timeline[0].P99Ms, 100.0, "the stalled answer shows in its slice")
	first, ok := res.LatencyBetween(0, 100*time.Millisecond)
	require.True(t, ok)
	assert.Greater(t, first.Max, 150.0, "the stall, due in the first slice")
	last, _ := res.LatencyBetween(500*time.Millisecond, time.Second)
	assert.Less(t, last.Max, first.Max, "the slices after it are apart from it")
}

func TestScheduleConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Steps: []Step{{100, time.Second}}, Rate: 5},
		{Steps: []Step{{100, time.Second}}, Duration: time.Second},
		{Steps: []Step{{0, time.Second}}},
		{Timeline: time.Second, Requests: 10},
		{Deadline: -time.Second},
	} {
		assert.Error(t, cfg.normalize(), "%+v", cfg)
	}
	cfg := Config{Steps: []Step{{100, time.Second}, {10, 2 * time.Second}}}
	require.NoError(t, cfg.normalize())
	assert.Equal(t, 3*time.Second, cfg.Duration, "the run lasts the schedule")
}
