package bidder

import "slices"

// trafficCurve is the expected share of a day's requests by time of day:
// cum[b] is the share that arrives before five-minute bucket b, so cum[0]
// is 0 and cum[PaceBuckets] is 1. It is immutable.
type trafficCurve struct {
	cum     [PaceBuckets + 1]float64
	learned int // days it was learned from; 0: the uniform prior
}

// uniformCurve is the prior: as many requests in every bucket.
func uniformCurve() *trafficCurve {
	c := &trafficCurve{}
	for b := range c.cum {
		c.cum[b] = float64(b) / PaceBuckets
	}
	return c
}

// share returns the expected share of the day's requests that arrive before
// ms milliseconds into the day, interpolating linearly inside a bucket.
func (c *trafficCurve) share(msOfDay int64) float64 {
	switch {
	case msOfDay <= 0:
		return 0
	case msOfDay >= 86_400_000:
		return 1
	}
	b := msOfDay / paceBucketMs
	frac := float64(msOfDay%paceBucketMs) / paceBucketMs
	return c.cum[b] + (c.cum[b+1]-c.cum[b])*frac
}

// Learning: a day's counts are normalised and smoothed over smoothBuckets
// buckets (a circular moving average: the day wraps at midnight); the
// curve's density in a bucket is the median of the days' (the mean of the
// middle two for an even number of days), so that one unusual day (an
// outage, a spike of traffic) does not bend the days after it.
const (
	smoothBuckets   = 5    // 25 minutes
	minLearnedCount = 1000 // a day with fewer requests says little of the shape
)

// learnCurve builds the curve from the request counts of past days; a day
// without counts (nil) or with fewer than minLearnedCount is skipped.
func learnCurve(days [][]int64) *trafficCurve {
	var shapes [][PaceBuckets]float64
	for _, counts := range days {
		var total int64
		for _, n := range counts {
			total += max(n, 0)
		}
		if len(counts) != PaceBuckets || total < minLearnedCount {
			continue
		}
		var shape [PaceBuckets]float64
		for b := range shape {
			sum := 0.0
			for k := -smoothBuckets / 2; k <= smoothBuckets/2; k++ {
				sum += float64(max(counts[(b+k+PaceBuckets)%PaceBuckets], 0))
			}
			shape[b] = sum / smoothBuckets / float64(total)
		}
		shapes = append(shapes, shape)
	}
	if len(shapes) == 0 {
		return uniformCurve()
	}
	c := &trafficCurve{learned: len(shapes)}
	var density [PaceBuckets]float64
	total := 0.0
	column := make([]float64, len(shapes))
	for b := range density {
		for d := range shapes {
			column[d] = shapes[d][b]
		}
		slices.Sort(column)
		n := len(column)
		density[b] = (column[(n-1)/2] + column[n/2]) / 2
		total += density[b]
	}
	for b, d := range density {
		c.cum[b+1] = c.cum[b] + d/total
	}
	c.cum[PaceBuckets] = 1
	return c
}
