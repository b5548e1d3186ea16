// Package clock is the server's clock and the time arithmetic that must not
// overflow: the wall clock, or (for tests and replays) a clock that starts
// at a given instant and runs at real speed from there, and conversions of
// counts of seconds or milliseconds to durations that saturate instead of
// wrapping around.
package clock

import (
	"math"
	"time"
)

// Clock returns the current time.
type Clock func() time.Time

// Wall is the system's wall clock.
func Wall() time.Time { return time.Now() }

// StartingAt returns a clock that reads start now and advances at real
// speed, measured on the monotonic clock, so that a step of the system's
// wall clock does not move it.
func StartingAt(start time.Time) Clock {
	began := time.Now()
	return func() time.Time { return start.Add(time.Since(began)) }
}

// Seconds returns n seconds as a duration, saturating at the largest and
// smallest durations instead of wrapping (time.Duration(n)*time.Second
// overflows above about 292 years).
func Seconds(n int64) time.Duration { return scaled(n, time.Second) }

// Milliseconds returns n milliseconds as a duration, saturating like Seconds.
func Milliseconds(n int64) time.Duration { return scaled(n, time.Millisecond) }

func scaled(n int64, unit time.Duration) time.Duration {
	switch {
	case n > int64(math.MaxInt64/unit):
		return math.MaxInt64
	case n < int64(math.MinInt64/unit):
		return math.MinInt64
	}
	return time.Duration(n) * unit
}
