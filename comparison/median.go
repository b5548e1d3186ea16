package comparison

import "slices"

// Median is the median of v: its middle value, or the mean of the middle
// two when there is an even number of them; 0 for none. v is left as it
// was.
func Median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
