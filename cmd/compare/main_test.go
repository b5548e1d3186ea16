package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/comparison"
)

func TestParseFlags(t *testing.T) {
	def := comparison.DefaultConfig()
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, c comparison.Config)
	}{
		{"defaults: the sweep on", nil, func(t *testing.T, c comparison.Config) {
			assert.True(t, c.Sweep)
			assert.Equal(t, []int{4, 16, 64, 200}, c.SweepThreads)
			assert.Equal(t, []int{1, 2, 4}, c.SweepLoops)
			assert.Equal(t, []string{"b", "c"}, c.SweepScenarios)
			assert.Equal(t, 2*time.Second, c.SweepDuration)
			assert.Equal(t, 8*time.Second, c.SweepWarmup)
			assert.Equal(t, []string{"parallel", "g1", "zgc", "shenandoah"}, c.SweepCollectors, "Parallel, run.sh's default, first")
			assert.Equal(t, "parallel", c.Collector)
			assert.Equal(t, "bin/dspd", c.DspdBin)
			assert.Equal(t, def.Duration, c.Duration)
		}},
		{"the sweep skipped, settings given", []string{"-sweep=false", "-max-threads", "64", "-event-loops", "2", "-collector", "g1"}, func(t *testing.T, c comparison.Config) {
			assert.False(t, c.Sweep)
			assert.Equal(t, 64, c.MaxThreads)
			assert.Equal(t, 2, c.EventLoops)
			assert.Equal(t, "g1", c.Collector)
		}},
		{"other collectors", []string{"-sweep-collectors", "g1, zgc"}, func(t *testing.T, c comparison.Config) {
			assert.Equal(t, []string{"g1", "zgc"}, c.SweepCollectors)
		}},
		{"other sweep points", []string{"-sweep-max-threads", "8, 32", "-sweep-event-loops", "1", "-sweep-scenarios", "b", "-sweep-duration", "3s", "-sweep-warmup", "12s"}, func(t *testing.T, c comparison.Config) {
			assert.Equal(t, []int{8, 32}, c.SweepThreads)
			assert.Equal(t, []int{1}, c.SweepLoops)
			assert.Equal(t, []string{"b"}, c.SweepScenarios)
			assert.Equal(t, 3*time.Second, c.SweepDuration)
			assert.Equal(t, 12*time.Second, c.SweepWarmup)
		}},
		{"the make line", []string{"-dspd", "bin/dspd", "-dspd-nopgo", "bin/dspd-nopgo", "-n", "2000", "-duration", "5s", "-rounds", "1", "-server-cpu", "0"},
			func(t *testing.T, c comparison.Config) {
				assert.Equal(t, "bin/dspd-nopgo", c.DspdNoPGOBin)
				assert.Equal(t, int64(2000), c.Requests)
				assert.Equal(t, 5*time.Second, c.Duration)
				assert.Equal(t, 1, c.Rounds)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestParseFlagsRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"-sweep-max-threads", "4,x"},
		{"-sweep-max-threads", "0"},
		{"-sweep-event-loops", ""},
		{"-sweep-scenarios", " , "},
		{"-sweep-collectors", ","},
		{"stray"},
		{"-no-such-flag"},
	} {
		var out strings.Builder
		_, err := parseFlags(args, &out)
		assert.Error(t, err, "%q", args)
		assert.NotEmpty(t, out.String(), "%q: says why", args)
	}
}
