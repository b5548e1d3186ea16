package clock

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSecondsSaturates(t *testing.T) {
	tests := []struct {
		n    int64
		want time.Duration
	}{
		{0, 0},
		{1, time.Second},
		{31_536_000, 365 * 24 * time.Hour},
		{-5, -5 * time.Second},
		{math.MaxInt64 / int64(time.Second), time.Duration(math.MaxInt64/int64(time.Second)) * time.Second},
		{math.MaxInt64/int64(time.Second) + 1, math.MaxInt64},
		{1 << 40, math.MaxInt64}, // where time.Duration(n)*time.Second wraps negative
		{math.MaxInt64, math.MaxInt64},
		{math.MinInt64, math.MinInt64},
	}
	for _, tt := range tests {
		got := Seconds(tt.n)
		assert.Equal(t, tt.want, got, "Seconds(%d)", tt.n)
		assert.Equal(t, tt.n < 0, got < 0, "Seconds(%d) keeps its sign", tt.n)
	}
	assert.Equal(t, time.Duration(math.MaxInt64), Milliseconds(math.MaxInt64))
	assert.Equal(t, 1500*time.Millisecond, Milliseconds(1500))
}

func TestStartingAt(t *testing.T) {
	start := time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)
	c := StartingAt(start)
	first := c()
	assert.False(t, first.Before(start), "starts at the instant given")
	assert.Less(t, first.Sub(start), time.Minute, "not the wall clock (%v)", first)
	assert.False(t, c().Before(first), "runs forward")
}
