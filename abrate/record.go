package abrate

import "github.com/recbid/dspd/comparison"

// Sample is what one run of a driver measured.
type Sample struct {
	RequestsPerSecond float64
	Complete          int64   // requests answered
	P50, P99          float64 // latency percentiles in ms (loadgen only)
	// CPUMicrosPerReq is the run's server's CPU time (user and system)
	// per request, for a run that names its server.
	CPUMicrosPerReq float64
}

// record keeps every round's sample of every run, by key.
type record map[string][]Sample

func (r record) add(key string, s Sample) { r[key] = append(r[key], s) }

// median is the median of each figure over the key's rounds, and whether
// the key has any.
func (r record) median(key string) (Sample, bool) {
	rounds := r[key]
	if len(rounds) == 0 {
		return Sample{}, false
	}
	pick := func(f func(Sample) float64) float64 {
		v := make([]float64, len(rounds))
		for i, s := range rounds {
			v[i] = f(s)
		}
		return comparison.Median(v)
	}
	return Sample{
		RequestsPerSecond: pick(func(s Sample) float64 { return s.RequestsPerSecond }),
		Complete:          int64(pick(func(s Sample) float64 { return float64(s.Complete) })),
		P50:               pick(func(s Sample) float64 { return s.P50 }),
		P99:               pick(func(s Sample) float64 { return s.P99 }),
		CPUMicrosPerReq:   pick(func(s Sample) float64 { return s.CPUMicrosPerReq }),
	}, true
}
