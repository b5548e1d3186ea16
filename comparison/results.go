package comparison

import (
	"fmt"
	"math"
	"strings"
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
	// RSSBytes is the server's peak resident set during the round (the
	// kernel's VmHWM, reset before the round through /proc/PID/clear_refs).
	RSSBytes int64 `json:"rss_peak_bytes"`
	// GC collections and their stop-the-world pause time during the round:
	// Go's from its go_gc_duration_seconds series, Java's from -Xlog:gc.
	GCCount   int64   `json:"gc_count"`
	GCPauseMs float64 `json:"gc_pause_ms"`
	// QuietWaitMs is how long the round waited, before it began, for every
	// server on the server CPU to go quiet (see settle).
	QuietWaitMs float64 `json:"quiet_wait_ms"`
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
	Servers     map[string]*Series `json:"servers"`
	// TargetRates are the open loop's offered rates by pair (scenario d
	// only), RateBasis says where each came from.
	TargetRates map[string]float64 `json:"target_rates,omitempty"`
	RateBasis   map[string]string  `json:"rate_basis,omitempty"`
	// Ratios are Go's medians over Java's, by pair and figure.
	Ratios map[string]map[string]float64 `json:"go_over_java"`
}

// GCStats counts collections and their pauses.
type GCStats struct {
	Count   int64   `json:"count"`
	PauseMs float64 `json:"pause_ms"`
}

func (a GCStats) minus(b GCStats) GCStats {
	return GCStats{Count: a.Count - b.Count, PauseMs: a.PauseMs - b.PauseMs}
}

// Runtime is what a Java or Go engineer checks first about a server's
// runtime.
type Runtime struct {
	Version     string `json:"version"`                // go1.26.8; 17.0.15+6-Debian-1deb12u1
	Heap        string `json:"heap"`                   // -Xms1g -Xmx1g; GOMEMLIMIT=1GiB
	GC          string `json:"gc"`                     // the collector
	GOMAXPROCS  int    `json:"gomaxprocs,omitempty"`   // as the running server reports it
	PGO         string `json:"pgo,omitempty"`          // on (profile) or off, from the binary's build info
	CommandLine string `json:"command_line,omitempty"` // the JVM's, from /proc
	JVMFlags    string `json:"jvm_flags,omitempty"`    // jcmd VM.flags: the flags in force, ergonomic ones included
	GCFlags     string `json:"gc_flags,omitempty"`     // the collector's own flags among JVMFlags
	Transport   string `json:"transport,omitempty"`    // the HTTP server's I/O model
	GCLog       string `json:"gc_log,omitempty"`
}

// ServerInfo describes one server of the headline rounds.
type ServerInfo struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	Lang     string `json:"lang"`
	Front    string `json:"front"`
	Pair     string `json:"pair,omitempty"`
	RatePair string `json:"rate_pair"`
	// Setting is a Java front end's thread setting (Tomcat's maxThreads,
	// Netty's event loops) and SettingFrom says how it was chosen.
	Setting     string `json:"setting,omitempty"`
	SettingFrom string `json:"setting_from,omitempty"`
	// Collector is a JVM's garbage collector, as it was asked for (its
	// name and flags), and CollectorFrom says how it was chosen; the
	// collector in force, as the JVM names it, is in Runtime.GC.
	Collector      *Collector `json:"collector,omitempty"`
	CollectorFrom  string     `json:"collector_from,omitempty"`
	Command        string     `json:"command"`
	Env            string     `json:"env"`
	StartupMs      float64    `json:"startup_to_first_bid_ms"`
	StartupLine    string     `json:"startup_line,omitempty"`
	Runtime        Runtime    `json:"runtime"`
	PeakRSSBytes   int64      `json:"peak_rss_bytes"`
	Threads        int        `json:"threads_at_end"`
	GC             GCStats    `json:"gc_total"` // over the process's life: start, parity, warm-up, every round
	StoppedCleanly bool       `json:"stopped_cleanly"`
}

// legend names a server with its setting and collector, for charts.
func (s ServerInfo) legend() string {
	var with []string
	if s.Setting != "" {
		with = append(with, s.Setting)
	}
	if s.Collector != nil {
		with = append(with, s.Collector.Name)
	}
	if len(with) == 0 {
		return s.Label
	}
	return s.Label + " (" + strings.Join(with, ", ") + ")"
}

// openRates gives each pair's open loop its offered rate: rateFactor of the
// slower of the pair's two servers in (b), rounded down to 100 requests/s,
// so that both servers of a pair get the same load and neither is pushed
// past what it sustains.
func openRates(b *ScenarioResult, servers []ServerInfo, rateFactor float64) (map[string]float64, map[string]string, error) {
	label := map[string]string{}
	for _, s := range servers {
		label[s.Name] = s.Label
	}
	rates, basis := map[string]float64{}, map[string]string{}
	for _, p := range pairs {
		g, j := b.Servers[p.Go], b.Servers[p.Java]
		if g == nil || j == nil {
			return nil, nil, fmt.Errorf("scenario d needs %s's and %s's capacity from scenario b", p.Go, p.Java)
		}
		slower, rps := p.Java, j.Median.RequestsPerSecond
		if g.Median.RequestsPerSecond < rps {
			slower, rps = p.Go, g.Median.RequestsPerSecond
		}
		rates[p.Key] = math.Floor(rps*rateFactor/100) * 100
		basis[p.Key] = fmt.Sprintf("%.0f%% of %s's %.0f req/s in (b), the slower of the pair", rateFactor*100, label[slower], rps)
		if rates[p.Key] <= 0 {
			return nil, nil, fmt.Errorf("scenario b measured no capacity for the %s pair", p.Key)
		}
	}
	return rates, basis, nil
}

// Warmth compares a server's first round of a scenario with its later
// ones: a JVM still compiling in round 1 shows as a ratio under 1.
type Warmth struct {
	Server          string  `json:"server"`
	Scenario        string  `json:"scenario"`
	Round1          float64 `json:"round1_requests_per_second"`
	Later           float64 `json:"later_median_requests_per_second"`
	Round1OverLater float64 `json:"round1_over_later"`
}

// warmth lists, for every server and scenario with two rounds or more,
// round 1's requests/s over the median of the later rounds'.
func warmth(servers []ServerInfo, scenarios []*ScenarioResult) []Warmth {
	var out []Warmth
	for _, sc := range scenarios {
		for _, s := range servers {
			series := sc.Servers[s.Name]
			if series == nil || len(series.Rounds) < 2 {
				continue
			}
			later := median(series.Rounds[1:]).RequestsPerSecond
			w := Warmth{Server: s.Name, Scenario: sc.Key, Round1: series.Rounds[0].RequestsPerSecond, Later: later}
			if later > 0 {
				w.Round1OverLater = w.Round1 / later
			}
			out = append(out, w)
		}
	}
	return out
}

// Report is the whole comparison, as report.json holds it.
type Report struct {
	Started  time.Time         `json:"started"`
	Took     string            `json:"took"`
	Machine  map[string]string `json:"machine"`
	Settings map[string]string `json:"settings"`
	Pairs    []Pair            `json:"pairs"`
	// Collectors are the JVM's answers about each collector the
	// comparison knows (Java runs on one of the supported ones).
	Collectors []CollectorSupport `json:"java_collectors,omitempty"`
	Sweeps     []*Sweep           `json:"sweeps,omitempty"`
	Servers    []ServerInfo       `json:"servers"`
	Scenarios  []*ScenarioResult  `json:"scenarios"`
	Warmth     []Warmth           `json:"round1_vs_later,omitempty"`
	Reference  Reference2016      `json:"reference_2016"`
	Notes      []string           `json:"notes"`
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
		return Median(v)
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
		RSSBytes:          int64(pick(func(s Sample) float64 { return float64(s.RSSBytes) })),
		GCCount:           int64(pick(func(s Sample) float64 { return float64(s.GCCount) })),
		GCPauseMs:         pick(func(s Sample) float64 { return s.GCPauseMs }),
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
		"rss":                 div(float64(a.RSSBytes), float64(b.RSSBytes)),
	}
}

// summarize fills in a scenario's medians and each pair's ratios from its
// rounds.
func (sc *ScenarioResult) summarize() {
	for _, series := range sc.Servers {
		series.Median = median(series.Rounds)
	}
	sc.Ratios = map[string]map[string]float64{}
	for _, p := range pairs {
		g, j := sc.Servers[p.Go], sc.Servers[p.Java]
		if g != nil && j != nil {
			sc.Ratios[p.Key] = ratios(g.Median, j.Median)
		}
	}
}
