package pacingsim

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// shortWeek is the simulation the goals are asserted on: four days (the
// first learns the curve), the traffic stepping up 2× on the last, two even
// campaigns and an asap one, 100,000 requests a day each.
func shortWeek() Config {
	c := Default()
	c.Days, c.StepDay, c.Requests = 4, 4, 100_000
	c.Campaigns = []Campaign{
		{ID: "even-a", BidCPM: 4_000_000, Pacing: bidder.PacingEven, Oversupply: 2.5},
		{ID: "even-c", BidCPM: 1_200_000, Pacing: bidder.PacingEven, Oversupply: 2},
		{ID: "asap-d", BidCPM: 3_000_000, Pacing: bidder.PacingASAP, Oversupply: 2},
	}
	return c
}

// TestPacingGoals asserts the goals of even pacing on the short week, from
// the second day on: final daily spend within 97–100.5 % of the budget
// (overshoot, from notices in flight when the budget binds, at most
// 0.5 %); spend within ±5 points of the traffic-shaped target at every
// hour (the controller's, and the simulated traffic's on days without the
// step); after the 2× step, the rate within 5 % of its new level in at
// most 30 minutes with at most 10 % overshoot, and the spend never more
// than 5 points off the target.
func TestPacingGoals(t *testing.T) {
	if raceEnabled {
		t.Skip("1.2 million decisions take a minute under the race detector; make test runs this test without it")
	}
	cfg := shortWeek()
	cfg.KeepMinutes = true
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Zero(t, res.LostNotices)
	paced := 0
	for _, c := range res.Campaigns {
		if c.Pacing != "even" {
			continue
		}
		paced++
		for _, d := range c.Days[1:] {
			assert.GreaterOrEqual(t, d.FinalPct, 97.0, "%s day %d final spend", c.ID, d.Day)
			assert.LessOrEqual(t, d.FinalPct, 100.5, "%s day %d final spend", c.ID, d.Day)
			assert.LessOrEqual(t, d.OvershootPct, 0.5, "%s day %d overshoot", c.ID, d.Day)
			assert.LessOrEqual(t, math.Abs(d.WorstPP), 5.0, "%s day %d worst hour vs the target (%d:00)", c.ID, d.Day, d.WorstAt)
			if d.Day != cfg.StepDay {
				assert.LessOrEqual(t, math.Abs(d.WorstTruePP), 5.0, "%s day %d worst hour vs the traffic", c.ID, d.Day)
			}
			assert.Equal(t, 24.0, d.SpentOutAt, "%s day %d: the budget lasts the day", c.ID, d.Day)
		}
		s := c.Step
		require.NotNil(t, s, c.ID)
		assert.InDelta(t, s.RateBefore/cfg.StepFactor, s.RateAfter, 0.1*s.RateAfter, "%s: twice the traffic, half the rate", c.ID)
		assert.GreaterOrEqual(t, s.RateSettleMin, 0.0, "%s: the rate settles", c.ID)
		assert.LessOrEqual(t, s.RateSettleMin, 30.0, "%s: rate settling time", c.ID)
		assert.LessOrEqual(t, s.OvershootPct, 10.0, "%s: rate overshoot", c.ID)
		assert.LessOrEqual(t, math.Abs(s.WorstPP), 5.0, "%s: spend vs target after the step", c.ID)
		assert.LessOrEqual(t, s.BackWithinMin, 30.0, "%s: back within 5 points", c.ID)
		t.Logf("%s: day 2+ final %.2f–%.2f %%, step: rate %.3f → %.3f, settles in %.0f min, overshoot %.1f %%",
			c.ID, c.Days[1].FinalPct, c.Days[len(c.Days)-1].FinalPct, s.RateBefore, s.RateAfter, s.RateSettleMin, s.OvershootPct)
	}
	assert.Equal(t, 2, paced)
	asap := res.Campaigns[2]
	assert.Less(t, asap.Days[1].SpentOutAt, 20.0, "asap spends its budget early in the day, as before")
}

// TestASAPUnchanged: an asap campaign spends minute for minute what it
// spends on a server without pacing at all, beside paced campaigns or
// alone.
func TestASAPUnchanged(t *testing.T) {
	cfg := shortWeek()
	cfg.Days, cfg.StepDay, cfg.Requests, cfg.KeepMinutes = 2, 0, 20_000, true
	paced, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	control := cfg
	control.WithoutPacing = true
	control.Campaigns = cfg.Campaigns[2:]
	alone, err := Run(context.Background(), control)
	require.NoError(t, err)
	require.Equal(t, "asap-d", paced.Campaigns[2].ID)
	require.Equal(t, "asap-d", alone.Campaigns[0].ID)
	assert.Equal(t, alone.Campaigns[0].Days, paced.Campaigns[2].Days)
	assert.Equal(t, alone.Campaigns[0].Minutes, paced.Campaigns[2].Minutes)
}

// TestRepeatable: the same seed gives the same figures.
func TestRepeatable(t *testing.T) {
	cfg := shortWeek()
	cfg.Days, cfg.StepDay, cfg.Requests = 2, 0, 20_000
	a, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	b, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	cfg.Seed++
	c, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.NotEqual(t, a.Campaigns[0].Days, c.Campaigns[0].Days, "another seed, other traffic")
}

func TestWriteChartAndTable(t *testing.T) {
	cfg := shortWeek()
	cfg.Days, cfg.Requests, cfg.KeepMinutes = 2, 5_000, true
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "spend.svg")
	require.NoError(t, res.WriteChart(path))
	var table strings.Builder
	require.NoError(t, res.WriteTable(&table))
	assert.Contains(t, table.String(), "even-a   even     2")
	res.Campaigns[0].Minutes = nil
	assert.Error(t, res.WriteChart(path), "nothing to chart without the minutes")
}
