package comparison

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recbid/dspd/loadtest"
)

// Run performs the comparison and writes its report files; the returned
// report is also what report.json holds.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	began := time.Now()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	post, err := os.ReadFile(cfg.PostData)
	if err != nil {
		return nil, err
	}
	corpus, err := readLines(cfg.Corpus)
	if err != nil {
		return nil, err
	}
	in := inputs{cfg: &cfg, post: [][]byte{post}, corpus: corpus}

	rep := &Report{Started: began.UTC(), Machine: machine(), Reference: reference2016, Settings: settings(&cfg)}
	servers, err := startAll(ctx, &cfg, post, rep)
	defer func() {
		for _, s := range servers {
			err := s.stop()
			for i := range rep.Servers {
				if rep.Servers[i].Name == s.Name {
					rep.Servers[i].StoppedCleanly = err == nil
				}
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	byName := map[string]*server{}
	for _, s := range servers {
		byName[s.Name] = s
	}

	n := min(cfg.ParityN, len(corpus))
	cfg.Log("checking parity on %d requests of %s", n, cfg.Corpus)
	if err := checkParity(ctx, byName["go"], byName["java"], corpus[:n]); err != nil {
		return nil, fmt.Errorf("parity check failed, not measuring: %w", err)
	}

	for _, s := range servers {
		cfg.Log("warming up %s for %s", s.Name, cfg.Warmup)
		if _, err := loadtest.Run(ctx, loadtest.Config{URL: s.url(), Duration: cfg.Warmup, Concurrency: 100,
			KeepAlive: true, Bodies: corpus, ContentType: formType, VariableLength: true}); err != nil {
			return nil, fmt.Errorf("warm-up of %s: %w", s.Name, err)
		}
	}

	for _, sc := range scenarios {
		if sc.Key == "d" {
			b := rep.scenario("b")
			if b == nil || b.Servers["java"] == nil {
				return nil, errors.New("scenario d needs Java's capacity from scenario b")
			}
			in.openRate = float64(int(b.Servers["java"].Median.RequestsPerSecond*cfg.RateFactor/100)) * 100
		}
		res := &ScenarioResult{Key: sc.Key, Short: sc.Short, Description: sc.describe(in), Servers: map[string]*Series{}}
		if sc.Key == "d" {
			res.TargetRate = in.openRate
		}
		runs := map[string][]*loadtest.Result{}
		for round := range cfg.Rounds {
			for _, s := range rotate(servers, round) {
				cfg.Log("scenario %s, round %d/%d: %s", sc.Key, round+1, cfg.Rounds, s.Name)
				sample, lr, err := measure(ctx, s, sc.load(s.url(), in))
				if err != nil {
					return nil, fmt.Errorf("scenario %s on %s: %w", sc.Key, s.Name, err)
				}
				if res.Servers[s.Name] == nil {
					res.Servers[s.Name] = &Series{}
				}
				res.Servers[s.Name].Rounds = append(res.Servers[s.Name].Rounds, sample)
				runs[s.Name] = append(runs[s.Name], lr)
				cfg.Log("  %.0f req/s, p99 %.2f ms, %.1f µs CPU/request, %d failed %v, statuses %v", sample.RequestsPerSecond,
					sample.P99, sample.CPUMicrosPerReq, sample.Failed, sample.Errors, sample.StatusCodes)
			}
		}
		for name, series := range res.Servers {
			series.Median = median(series.Rounds)
			series.Curve = curve(runs[name])
		}
		res.GoOverJava = ratios(res.Servers["go"].Median, res.Servers["java"].Median)
		rep.Scenarios = append(rep.Scenarios, res)
	}
	for i, s := range servers {
		rep.Servers[i].PeakRSSBytes, _ = s.peakRSS()
	}
	rep.Took = time.Since(began).Round(time.Second).String()
	rep.Notes = notes(&cfg, rep)
	return rep, nil
}

func (r *Report) scenario(key string) *ScenarioResult {
	for _, s := range r.Scenarios {
		if s.Key == key {
			return s
		}
	}
	return nil
}

// rotate alternates who goes first, round by round, so that drift of the
// machine hits every server alike.
func rotate(servers []*server, round int) []*server {
	k := round % len(servers)
	return append(append([]*server{}, servers[k:]...), servers[:k]...)
}

// measure runs one load against s and reads the server's CPU time around it.
func measure(ctx context.Context, s *server, lc loadtest.Config) (Sample, *loadtest.Result, error) {
	before, err := s.cpuTime()
	if err != nil {
		return Sample{}, nil, err
	}
	res, err := loadtest.Run(ctx, lc)
	if err != nil {
		return Sample{}, nil, err
	}
	after, err := s.cpuTime()
	if err != nil {
		return Sample{}, nil, err
	}
	sample := Sample{
		RequestsPerSecond: res.RequestsPerSecond, Complete: res.Complete, Failed: res.Failed, Non2xx: res.Non2xx,
		P50: res.Latency.P50, P90: res.Latency.P90, P99: res.Latency.P99, P999: res.Latency.P999, Max: res.Latency.Max,
		StatusCodes: res.StatusCodes, Errors: map[string]int64{},
	}
	for k, n := range res.Errors {
		if n > 0 {
			sample.Errors[k] = n
		}
	}
	if res.Complete > 0 {
		sample.CPUMicrosPerReq = float64((after - before).Microseconds()) / float64(res.Complete)
	}
	return sample, res, nil
}

var curvePercentiles = []float64{0, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100}

func curve(runs []*loadtest.Result) []CurvePoint {
	m, err := loadtest.Merge(runs...)
	if err != nil {
		return nil
	}
	out := make([]CurvePoint, len(curvePercentiles))
	for i, p := range curvePercentiles {
		out[i] = CurvePoint{Percentile: p, Ms: m.LatencyAt(p)}
	}
	return out
}

func readLines(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) > 0 {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	return out, nil
}

// startAll starts every contender pinned to the server CPU. (The load
// driver, this process, is pinned by its caller: make runs it under taskset.)
func startAll(ctx context.Context, cfg *Config, post []byte, rep *Report) ([]*server, error) {
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	goEnv := []string{"GOMAXPROCS=1", "GOMEMLIMIT=" + goMemLimit(cfg.Heap)}
	// The same contract settings for every server.
	common := []string{"-campaigns", cfg.Campaigns, "-seat", "dsp", "-public-url", "http://127.0.0.1:9090",
		"-max-bids", fmt.Sprint(cfg.MaxBids), "-bid-ttl", cfg.BidTTL, "-clock-start", cfg.ClockStart}
	dspd := func(bin, addr, admin string) []string {
		return append(append([]string{abs(bin), "-addr", addr, "-admin", admin}, common...), "-log-level", "warn", "-state", "memory")
	}
	type spec struct {
		name, label, addr string
		argv, env         []string
	}
	specs := []spec{
		{"go", "Go (dspd)", "127.0.0.1:19301", dspd(cfg.DspdBin, "127.0.0.1:19301", "127.0.0.1:19401"), goEnv},
		{"java", "Java (Tomcat)", "127.0.0.1:19303", append([]string{abs(cfg.JavaRun), "-addr", "127.0.0.1:19303"}, common...),
			[]string{"JAVA_HEAP=" + cfg.Heap, "JAVA_OPTS=-XX:ActiveProcessorCount=1"}},
	}
	if cfg.DspdNoPGOBin != "" {
		specs = append(specs, spec{"go-nopgo", "Go (dspd, no PGO)", "127.0.0.1:19302",
			dspd(cfg.DspdNoPGOBin, "127.0.0.1:19302", "127.0.0.1:19402"), goEnv})
	}
	var servers []*server
	for _, sp := range specs {
		cfg.Log("starting %s", sp.name)
		s, err := start(ctx, sp.name, sp.label, sp.addr, sp.argv, sp.env, cfg.ServerCPU, post, cfg.OutDir)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
		rep.Servers = append(rep.Servers, ServerInfo{Name: sp.name, Label: sp.label,
			Command: "taskset -c " + fmt.Sprint(cfg.ServerCPU) + " " + strings.Join(sp.argv, " "),
			Env:     strings.Join(sp.env, " "), StartupMs: float64(s.startup.Microseconds()) / 1000})
		cfg.Log("  %s answered its first bid %.0f ms after it was started", sp.name, float64(s.startup.Milliseconds()))
	}
	return servers, nil
}

// goMemLimit turns a JVM heap size ("512m") into a GOMEMLIMIT ("512MiB").
func goMemLimit(heap string) string {
	h := strings.ToLower(heap)
	for suffix, unit := range map[string]string{"g": "GiB", "m": "MiB", "k": "KiB"} {
		if n, ok := strings.CutSuffix(h, suffix); ok {
			return n + unit
		}
	}
	return h
}
