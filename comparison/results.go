package comparison

import (
	"slices"
	"time"
)

// Sample is what one round of one scenario measured on one server.
type Sample struct {
	RequestsPerSecond float64 `json:"requests_per_second"`
	Complete          int64   `json:"complete"`
	Failed            int64   `json:"failed"`
	Non2xx            int64   `json:"non_2xx"`
	P50               float64 `json:"p50_ms"`
	P90               float64 `json:"p90_ms"`
	P99               float64 `json:"p99_ms"`
	P999              float64 `json:"p99_9_ms"`
	Max               float64 `json:"max_ms"`
	CPUMicrosPerReq   float64 `json:"cpu_us_per_request"` // server user+system CPU per request
	// StatusCodes and Errors (by kind, as loadgen counts them) explain the
	// failures: a Length failure is an answer of another length than the
	// first, e.g. a no bid (204) where the scenario's request always bids.
	StatusCodes map[string]int64 `json:"status_codes,omitempty"`
	Errors      map[string]int64 `json:"errors,omitempty"`
}

// Series is one server's rounds of one scenario and their medians.
type Series struct {
	Rounds []Sample `json:"rounds"`
	Median Sample   `json:"median"`
	// Percentiles of all rounds' latencies together, for the charts.
	Curve []CurvePoint `json:"latency_curve"`
}

// CurvePoint is a latency at a percentile.
type CurvePoint struct {
	Percentile float64 `json:"percentile"`
	Ms         float64 `json:"ms"`
}

// ScenarioResult is one scenario across servers.
type ScenarioResult struct {
	Key         string             `json:"key"`
	Short       string             `json:"short"`
	Description string             `json:"description"`
	TargetRate  float64            `json:"target_rate,omitempty"`
	Servers     map[string]*Series `json:"servers"`
	// GoOverJava holds the ratios of the Go (PGO) medians to Java's.
	GoOverJava map[string]float64 `json:"go_over_java"`
}

// ServerInfo describes one contender.
type ServerInfo struct {
	Name           string  `json:"name"`
	Label          string  `json:"label"`
	Command        string  `json:"command"`
	Env            string  `json:"env"`
	StartupMs      float64 `json:"startup_to_first_bid_ms"`
	PeakRSSBytes   int64   `json:"peak_rss_bytes"`
	StoppedCleanly bool    `json:"stopped_cleanly"`
}

// Report is the whole comparison, as report.json holds it.
type Report struct {
	Started   time.Time         `json:"started"`
	Took      string            `json:"took"`
	Machine   map[string]string `json:"machine"`
	Settings  map[string]string `json:"settings"`
	Servers   []ServerInfo      `json:"servers"`
	Scenarios []*ScenarioResult `json:"scenarios"`
	Reference Reference2016     `json:"reference_2016"`
	Notes     []string          `json:"notes"`
}

// Reference2016 is the experiment being re-run, as published.
type Reference2016 struct {
	Setup   string  `json:"setup"`
	GoRPS   float64 `json:"go_requests_per_second"`
	JavaRPS float64 `json:"tomcat_requests_per_second"`
}

var reference2016 = Reference2016{
	Setup:   "Go 1.7 vs Tomcat 7 / JDK 1.8, default settings, ab -n 10000 -c 100 -p post.data, i5, 4 cores, 16 GB",
	GoRPS:   2693.39,
	JavaRPS: 6419.10,
}

// median takes the median of each field over the rounds.
func median(rounds []Sample) Sample {
	pick := func(f func(Sample) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = f(r)
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		} else {
			return (v[n/2-1] + v[n/2]) / 2
		}
	}
	return Sample{
		RequestsPerSecond: pick(func(s Sample) float64 { return s.RequestsPerSecond }),
		Complete:          int64(pick(func(s Sample) float64 { return float64(s.Complete) })),
		Failed:            int64(pick(func(s Sample) float64 { return float64(s.Failed) })),
		Non2xx:            int64(pick(func(s Sample) float64 { return float64(s.Non2xx) })),
		P50:               pick(func(s Sample) float64 { return s.P50 }),
		P90:               pick(func(s Sample) float64 { return s.P90 }),
		P99:               pick(func(s Sample) float64 { return s.P99 }),
		P999:              pick(func(s Sample) float64 { return s.P999 }),
		Max:               pick(func(s Sample) float64 { return s.Max }),
		CPUMicrosPerReq:   pick(func(s Sample) float64 { return s.CPUMicrosPerReq }),
	}
}

// ratios divides a's medians by b's.
func ratios(a, b Sample) map[string]float64 {
	div := func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	}
	return map[string]float64{
		"requests_per_second": div(a.RequestsPerSecond, b.RequestsPerSecond),
		"p50":                 div(a.P50, b.P50),
		"p99":                 div(a.P99, b.P99),
		"p99_9":               div(a.P999, b.P999),
		"cpu_us_per_request":  div(a.CPUMicrosPerReq, b.CPUMicrosPerReq),
	}
}
