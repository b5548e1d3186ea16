package overload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/loadtest"
)

func TestWithTmax(t *testing.T) {
	for in, want := range map[string]string{
		"id=1&tmax=120&ts=5": "id=1&tmax=50&ts=5",
		"tmax=120&id=1":      "tmax=50&id=1",
		"id=1&xtmax=9":       "id=1&xtmax=9", // another key ending in tmax is left alone
		"id=1&tmax=":         "id=1&tmax=50",
	} {
		assert.Equal(t, want, string(withTmax([]byte(in), 50*time.Millisecond)), in)
	}
}

// TestAnalyse: goodput counts the bids on time during the overload only;
// recovery is from the drop to the first slice from which every slice is
// all bids with p99 under the limit; a slice with a shed answer, a drop or
// a slow p99 after it pushes recovery later.
func TestAnalyse(t *testing.T) {
	bids := func(n int64, p99 float64) loadtest.Slice {
		return loadtest.Slice{Due: n, Statuses: map[string]int64{"200": n}, OnTime: map[string]int64{"200": n}, P99Ms: p99}
	}
	shedding := loadtest.Slice{Due: 10, Statuses: map[string]int64{"200": 4, "204": 6}, OnTime: map[string]int64{"200": 4, "204": 6}, P99Ms: 30}
	dropping := loadtest.Slice{Due: 10, Dropped: 3, Statuses: map[string]int64{"200": 7}, OnTime: map[string]int64{"200": 7}, P99Ms: 5}
	cfg := Config{Dspd: "x", Body: "y", Overload: 300 * time.Millisecond, Slice: 100 * time.Millisecond}
	require.NoError(t, cfg.defaults())
	tests := []struct {
		name     string
		timeline []loadtest.Slice
		goodput  float64
		recovery time.Duration
	}{
		{"normal at once", []loadtest.Slice{shedding, dropping, bids(10, 5), bids(10, 5), bids(10, 5)}, (4 + 7 + 10) / 0.3, 0},
		{"a shed slice after the drop", []loadtest.Slice{bids(10, 5), bids(10, 5), bids(10, 5), shedding, bids(10, 5)}, 30 / 0.3, 100 * time.Millisecond},
		{"a slow slice after the drop", []loadtest.Slice{bids(10, 5), bids(10, 5), bids(10, 5), bids(10, 5), bids(10, 60), bids(10, 5)}, 30 / 0.3, 200 * time.Millisecond},
		{"never", []loadtest.Slice{bids(10, 5), bids(10, 5), bids(10, 5), bids(10, 5), dropping}, 30 / 0.3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := Row{Recovery: -1}
			analyse(&row, &loadtest.Result{Timeline: tt.timeline, StatusCodes: map[string]int64{"200": 1, "503": 2}}, &cfg, 6)
			assert.InDelta(t, tt.goodput, row.Goodput, 1e-9)
			assert.Equal(t, tt.recovery, row.Recovery)
			assert.InDelta(t, 20.0, row.Shed, 1e-9, "dspd's count over the overload's seconds")
			assert.Equal(t, int64(2), row.Errors5xx)
		})
	}
}
