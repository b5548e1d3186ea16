package bidder

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPaceControllerNext(t *testing.T) {
	cfg := PacingConfig{}.withDefaults()
	const day Day = 20400
	// est is a state whose weights say the campaign would spend
	// unthrottled per unit of share at rate 1, with 10,000 requests a unit
	// of share (3,000 by 30 %).
	est := func(rate, unthrottled float64) Pace {
		return Pace{Tick: 100, Day: day, Rate: rate, Spent: 3e8, Requests: 3000, Share: 0.3,
			SpendW: unthrottled, ReqW: 1e4, ReqS: 1e4, ShareS: 1}
	}
	steady := est(0.5, 2e9) // a 1e9 budget: half the requests
	in := func(spent, share, ahead float64) paceInput {
		return paceInput{tick: 101, day: day, budget: 1e9, spent: spent, requests: 3000, share: share, ahead: ahead}
	}
	tests := []struct {
		name  string
		p     Pace
		in    paceInput
		check func(t *testing.T, got Pace)
	}{
		{"new campaign: nothing to estimate, rate 1", Pace{}, in(0, 0.01, 0.05), func(t *testing.T, got Pace) {
			assert.Equal(t, 1.0, got.Rate)
			assert.Equal(t, int64(101), got.Tick)
			assert.Equal(t, day, got.Day)
		}},
		{"on target: half the requests", steady, in(3e8, 0.3, 0.34), func(t *testing.T, got Pace) {
			assert.InDelta(t, 0.5, got.Rate, 0.01)
		}},
		{"behind: more", steady, in(2.9e8, 0.3, 0.34), func(t *testing.T, got Pace) {
			assert.Greater(t, got.Rate, 0.55)
		}},
		{"ahead: less", steady, in(3.1e8, 0.3, 0.34), func(t *testing.T, got Pace) {
			assert.Less(t, got.Rate, 0.45)
		}},
		{"a step is at most ÷2", steady, in(3.3e8, 0.3, 0.34), func(t *testing.T, got Pace) {
			assert.Equal(t, 0.25, got.Rate, "ahead by more than the horizon's spend")
		}},
		{"a step is at most ×2", est(0.2, 2e9),
			in(1e8, 0.3, 0.34), func(t *testing.T, got Pace) { assert.InDelta(t, 0.4, got.Rate, 1e-12) }},
		{"traffic cannot fill the budget: 1", est(0.9, 5e8),
			in(1e8, 0.3, 0.34), func(t *testing.T, got Pace) { assert.Equal(t, 1.0, got.Rate) }},
		{"never below the least rate", est(MinPaceRate, 2e9),
			in(9e8, 0.3, 0.34), func(t *testing.T, got Pace) { assert.Equal(t, MinPaceRate, got.Rate) }},
		{"a new day keeps the rate and the estimate", steady, paceInput{tick: 2000, day: day + 1, budget: 1e9, requests: 10,
			share: 0.001, ahead: 0.04},
			func(t *testing.T, got Pace) {
				assert.Equal(t, day+1, got.Day)
				assert.Equal(t, 10.0, got.Requests, "the new day's requests, not yesterday's")
				assert.Greater(t, got.SpendW, 1e9, "the estimate carries over")
				assert.InDelta(t, 0.5, got.Rate, 0.05)
			}},
		{"a stored rate out of range counts as 1", Pace{Tick: 100, Day: day, Rate: math.NaN()}, in(0, 0.01, 0.05),
			func(t *testing.T, got Pace) { assert.Equal(t, 1.0, got.Rate) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, cfg.next(tt.p, tt.in)) })
	}
}

func TestTrafficCurve(t *testing.T) {
	u := uniformCurve()
	assert.Equal(t, 0.0, u.share(0))
	assert.InDelta(t, 0.25, u.share(6*3_600_000), 1e-12)
	assert.InDelta(t, 0.5+0.5/PaceBuckets, u.share(12*3_600_000+paceBucketMs/2), 1e-12, "inside a bucket, linear")
	assert.Equal(t, 1.0, u.share(86_400_000))

	day := func(f func(b int) int64) []int64 {
		c := make([]int64, PaceBuckets)
		for b := range c {
			c[b] = f(b)
		}
		return c
	}
	evening := day(func(b int) int64 { // three times the traffic after noon
		if b >= PaceBuckets/2 {
			return 300
		}
		return 100
	})
	c := learnCurve([][]int64{evening})
	assert.Equal(t, 1, c.learned)
	assert.InDelta(t, 0.25, c.share(12*3_600_000), 0.01, "a quarter of the requests by noon")
	assert.Equal(t, 1.0, c.share(86_400_000))

	spike := day(func(b int) int64 { return 100 + 10_000*int64(b/200) })
	c = learnCurve([][]int64{evening, nil, evening, spike, evening, day(func(int) int64 { return 1 })})
	assert.Equal(t, 4, c.learned, "days without counts or with too few are skipped")
	assert.InDelta(t, 0.25, c.share(12*3_600_000), 0.01, "the median keeps one odd day out")

	assert.Equal(t, uniformCurve(), learnCurve([][]int64{nil, nil}), "nothing learned: uniform")
	for b := 1; b <= PaceBuckets; b++ {
		assert.GreaterOrEqual(t, c.cum[b], c.cum[b-1], "the cumulative share never falls")
	}
}

func TestPaceText(t *testing.T) {
	for _, p := range []Pace{
		{},
		{Tick: 29_000_000, Day: 20396, Rate: 0.1 + 0.2, Spent: 1e15, Requests: 12345678, Share: 1.0 / 3,
			SpendW: 5e-324, ReqW: math.MaxFloat64, ReqS: 7, ShareS: 0.999999999},
		{Tick: -1, Day: -5, Rate: 1},
	} {
		got, err := ParsePace(string(p.AppendText(nil)))
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	for _, bad := range []string{"", "1 2 3", "x 1 1 1 1 1 1 1 1 1", "1 99999999999 1 1 1 1 1 1 1 1", "1 1 1 1 1 1 1 1 1 y", "1 1 1 1 1 1 1 1 1 1 1"} {
		_, err := ParsePace(bad)
		assert.ErrorIs(t, err, ErrBadPace, "%q", bad)
	}
}

// BenchmarkPacingPerDecision is what pacing adds to a decision: counting
// the request in its bucket, and for each paced campaign the decision
// reaches, a draw and a comparison with the rate.
func BenchmarkPacingPerDecision(b *testing.B) {
	p := newPacer(PacingConfig{}, nil, nil, nil)
	s := new(paceSlot)
	s.setRate(0.5)
	e := NewEngine(Config{}, nil, nil)
	ms := int64(1_793_700_000_000)
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.count(ms)
		}
	})
	b.Run("admit", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if s.admit(e.cfg.Rand()) {
				n++
			}
		}
		if n == 0 {
			b.Fatal("never admitted at rate 0.5")
		}
	})
	b.Run("count+admit/parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p.count(ms)
				s.admit(e.cfg.Rand())
			}
		})
	})
}
