package comparison

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{39412.53, 39400.12}, 39406.325},
	} {
		in := append([]float64(nil), tc.v...)
		assert.Equal(t, tc.want, Median(in), "%v", tc.v)
		assert.Equal(t, tc.v, []float64(in), "left as it was")
	}
}

func TestParseStatCPU(t *testing.T) {
	ticks := func(n int64) time.Duration { return time.Duration(n*1000/clockTicks) * time.Millisecond }
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
		wantErr    string
	}{
		{"utime and stime", "4242 (dspd) S 1 4242 4242 0 -1 4194560 900 0 0 0 150 50 0 0 20 0 9 0 100 0 0",
			ticks(200), ""},
		{"a command with spaces and parentheses", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", ticks(7), ""},
		{"no command", "4242 dspd S 1", 0, "malformed /proc stat"},
		{"short", "4242 (dspd) S 1 2 3", 0, "short /proc stat"},
		{"not numbers", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 a b 0 0 20 0 1 0 1 0 0", 0, "/proc stat:"},
	} {
		got, err := parseStatCPU([]byte(tc.stat))
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestStartPinned(t *testing.T) {
	dir := t.TempDir()
	p, err := StartPinned("sleeper", "0", []string{"sleep", "60"}, []string{"X=1"}, filepath.Join(dir, "sleeper.log"))
	require.NoError(t, err)
	assert.Equal(t, []string{"taskset", "-c", "0", "sleep", "60"}, p.Args())
	_, err = p.CPUTime()
	require.NoError(t, err)
	assert.EqualError(t, p.Stop(), "signal: terminated")
	<-p.Done()
	assert.EqualError(t, p.Stop(), "signal: terminated", "stopping a stopped process returns its status at once")

	q, err := StartPinned("quick", "0", []string{"true"}, nil, filepath.Join(dir, "quick.log"))
	require.NoError(t, err)
	<-q.Done()
	assert.NoError(t, q.Err())
	assert.NoError(t, q.Stop())

	_, err = StartPinned("none", "0", nil, nil, filepath.Join(dir, "none.log"))
	assert.EqualError(t, err, "start none: no command")
	_, err = StartPinned("nowhere", "0", []string{"true"}, nil, filepath.Join(dir, "no", "such", "dir.log"))
	assert.ErrorContains(t, err, "start nowhere:")
}
