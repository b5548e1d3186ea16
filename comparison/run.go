package comparison

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
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
	rep := &Report{Started: began.UTC(), Machine: machine(), Reference: reference2016, Settings: settings(&cfg), Pairs: pairs}

	gcs, err := javaCollectors(ctx, &cfg, rep)
	if err != nil {
		return nil, err
	}
	java := map[string]javaChoice{}
	for front, flag := range map[string]string{tomcat: "-max-threads", netty: "-event-loops"} {
		setting := cfg.MaxThreads
		if front == netty {
			setting = cfg.EventLoops
		}
		java[front] = javaChoice{setting: setting, gc: gcs[0], settingFrom: "given (" + flag + "; the sweep was skipped)",
			gcFrom: "given (-collector; the sweep was skipped)"}
	}
	if cfg.Sweep {
		sweeps, err := runSweeps(ctx, &cfg, in, post, gcs)
		if err != nil {
			return nil, err
		}
		rep.Sweeps = sweeps
		for _, sw := range sweeps {
			java[sw.Front] = javaChoice{setting: sw.Chosen, gc: sw.Collector, settingFrom: "the sweep: " + sw.Reason,
				gcFrom: "the sweep: " + sw.CollectorReason}
		}
	}

	servers, err := startAll(ctx, &cfg, post, rep, headline(&cfg, java), java)
	defer func() {
		for _, s := range servers {
			err := s.Stop()
			for i := range rep.Servers {
				if rep.Servers[i].Name == s.name {
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
		byName[s.name] = s
	}

	n := min(cfg.ParityN, len(corpus))
	for _, p := range pairs {
		cfg.Log("checking parity of %s and %s on %d requests of %s", p.Go, p.Java, n, cfg.Corpus)
		if err := checkParity(ctx, byName[p.Go], byName[p.Java], corpus[:n]); err != nil {
			return nil, fmt.Errorf("parity check failed, not measuring: %w", err)
		}
	}

	for _, s := range servers {
		cfg.Log("warming up %s: %s of a connection per request, then %s of keep-alive", s.name, cfg.Warmup/2, cfg.Warmup)
		if err := warmUpConnections(ctx, s, cfg.Warmup/2, in.post); err != nil {
			return nil, err
		}
		if err := warmUp(ctx, s, cfg.Warmup, corpus); err != nil {
			return nil, err
		}
		// Its JIT's queue drains before the next server's warm-up, not during it.
		if _, err := settleAll(ctx, servers); err != nil {
			return nil, err
		}
	}

	for _, sc := range scenarios {
		res := &ScenarioResult{Key: sc.Key, Short: sc.Short, Servers: map[string]*Series{}}
		if sc.Key == "d" {
			b := rep.scenario("b")
			if b == nil {
				return nil, errors.New("scenario d needs the capacities of scenario b")
			}
			if res.TargetRates, res.RateBasis, err = openRates(b, rep.Servers, cfg.RateFactor); err != nil {
				return nil, err
			}
		}
		res.Description = sc.describe(&cfg, res.TargetRates)
		runs := map[string][]*loadtest.Result{}
		for round := range cfg.Rounds {
			for _, s := range rotate(servers, round) {
				in.openRate = res.TargetRates[s.ratePair]
				cfg.Log("scenario %s, round %d/%d: %s", sc.Key, round+1, cfg.Rounds, s.name)
				sample, lr, err := measureQuiet(ctx, servers, s, sc.load(s.url(), in))
				if err != nil {
					return nil, fmt.Errorf("scenario %s on %s: %w", sc.Key, s.name, err)
				}
				if sample.QuietWaitMs > 1000 {
					cfg.Log("  waited %.1f s for the server CPU to go quiet", sample.QuietWaitMs/1000)
				}
				if res.Servers[s.name] == nil {
					res.Servers[s.name] = &Series{}
				}
				res.Servers[s.name].Rounds = append(res.Servers[s.name].Rounds, sample)
				runs[s.name] = append(runs[s.name], lr)
				cfg.Log("  %.0f req/s, p99 %.2f ms, %.1f µs CPU/request, %d GCs, %d failed %v, statuses %v", sample.RequestsPerSecond,
					sample.P99, sample.CPUMicrosPerReq, sample.GCCount, sample.Failed, sample.Errors, sample.StatusCodes)
			}
		}
		res.summarize()
		for name, series := range res.Servers {
			series.Curve = curve(runs[name])
		}
		rep.Scenarios = append(rep.Scenarios, res)
	}
	for i, s := range servers {
		rep.Servers[i].PeakRSSBytes = s.peakRSS()
		rep.Servers[i].Threads = s.threads()
		rep.Servers[i].GC, _ = s.gcStats(ctx)
	}
	rep.Warmth = warmth(rep.Servers, rep.Scenarios)
	rep.Took = time.Since(began).Round(time.Second).String()
	rep.Notes = notes(&cfg, rep.Collectors)
	return rep, nil
}

// javaCollectors asks the JVM which collectors it runs, records its
// answers in rep, and returns the ones the run tries: the sweep's, or the
// one given without it.
func javaCollectors(ctx context.Context, cfg *Config, rep *Report) ([]Collector, error) {
	cfg.Log("asking the JVM of %s which collectors it runs", cfg.JavaRun)
	support, err := detectCollectors(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("asking the JVM about its collectors: %w", err)
	}
	keys := []string{cfg.Collector}
	if cfg.Sweep {
		keys = cfg.SweepCollectors
	}
	gcs, skipped, err := candidates(support, keys)
	for i := range support {
		support[i].Tried = slices.ContainsFunc(gcs, func(gc Collector) bool { return gc.Key == support[i].Key })
	}
	rep.Collectors = support
	if err != nil {
		return nil, err
	}
	for _, s := range skipped {
		cfg.Log("  not tried: %s", s)
	}
	for _, gc := range gcs {
		cfg.Log("  tried: %s (%s)", gc.Name, gc.Flags)
	}
	return gcs, nil
}

// warmUp gives s unmeasured load: the corpus, keep-alive, 100 connections.
func warmUp(ctx context.Context, s *server, d time.Duration, corpus [][]byte) error {
	if _, err := loadtest.Run(ctx, loadtest.Config{URL: s.url(), Duration: d, Concurrency: 100,
		KeepAlive: true, Bodies: corpus, ContentType: formType, VariableLength: true}); err != nil {
		return fmt.Errorf("warm-up of %s: %w", s.name, err)
	}
	return nil
}

// warmUpConnections gives s unmeasured load of scenario (a)'s shape, a
// new connection per request: the accept, connection set-up and close
// paths are code a JIT compiles only when they run, and keep-alive load
// never runs them (a fresh Netty takes some 40,000 such requests to reach
// its pace).
func warmUpConnections(ctx context.Context, s *server, d time.Duration, post [][]byte) error {
	if d <= 0 {
		return nil
	}
	if _, err := loadtest.Run(ctx, loadtest.Config{URL: s.url(), Duration: d, Concurrency: 100,
		Bodies: post, ContentType: formType}); err != nil {
		return fmt.Errorf("warm-up of %s: %w", s.name, err)
	}
	return nil
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

// measure runs one load against s and reads the server's CPU time, peak
// RSS and collections around it.
// measureQuiet waits for every server on the server CPU to go quiet, then
// measures s under lc; the sample records the wait.
func measureQuiet(ctx context.Context, servers []*server, s *server, lc loadtest.Config) (Sample, *loadtest.Result, error) {
	quiet, err := settleAll(ctx, servers)
	if err != nil {
		return Sample{}, nil, err
	}
	sample, lr, err := measure(ctx, s, lc)
	sample.QuietWaitMs = float64(quiet.Milliseconds())
	return sample, lr, err
}

func measure(ctx context.Context, s *server, lc loadtest.Config) (Sample, *loadtest.Result, error) {
	reset := s.resetPeak()
	gcBefore, gcErr := s.gcStats(ctx)
	before, err := s.CPUTime()
	if err != nil {
		return Sample{}, nil, err
	}
	res, err := loadtest.Run(ctx, lc)
	if err != nil {
		return Sample{}, nil, err
	}
	after, err := s.CPUTime()
	if err != nil {
		return Sample{}, nil, err
	}
	sample := Sample{
		RequestsPerSecond: res.RequestsPerSecond, Complete: res.Complete, Failed: res.Failed, Non2xx: res.Non2xx,
		P50: res.Latency.P50, P90: res.Latency.P90, P99: res.Latency.P99, P999: res.Latency.P999, Max: res.Latency.Max,
		StatusCodes: res.StatusCodes, Errors: map[string]int64{},
	}
	if gcAfter, err := s.gcStats(ctx); gcErr == nil && err == nil {
		d := gcAfter.minus(gcBefore)
		sample.GCCount, sample.GCPauseMs = d.Count, d.PauseMs
	}
	sample.RSSBytes = s.windowPeak(reset)
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

// startAll starts every contender pinned to the server CPU and describes
// it. (The load driver, this process, is pinned by its caller: make runs it
// under taskset.)
func startAll(ctx context.Context, cfg *Config, post []byte, rep *Report, cs []contender, java map[string]javaChoice) ([]*server, error) {
	var servers []*server
	for _, c := range cs {
		cfg.Log("starting %s", c.name)
		gcLog := ""
		if c.lang == "java" {
			gcLog = gcLogPath(cfg.OutDir, c.name)
		}
		s, err := start(ctx, cfg, c, post, gcLog)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
		argv, env := s.command()
		info := ServerInfo{Name: c.name, Label: c.label, Lang: c.lang, Front: c.front, Pair: c.pair, RatePair: c.ratePair,
			Setting: settingName(c.front, c.setting), SettingFrom: java[c.front].settingFrom,
			Command: argv, Env: env, StartupMs: float64(s.startup.Microseconds()) / 1000}
		if c.lang == "java" {
			gc := c.gc
			info.Collector, info.CollectorFrom = &gc, java[c.front].gcFrom
		}
		info.Runtime, info.StartupLine = describeRuntime(ctx, cfg, s)
		rep.Servers = append(rep.Servers, info)
		cfg.Log("  %s answered its first bid %.0f ms after it was started", c.name, float64(s.startup.Milliseconds()))
	}
	return servers, nil
}
