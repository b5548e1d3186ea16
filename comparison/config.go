package comparison

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Config is one comparison run.
type Config struct {
	Requests   int64         // N: requests of the 2016 scenario
	Duration   time.Duration // DURATION: length of the timed scenarios
	Rounds     int           // ROUNDS: rounds per scenario and server (median reported)
	Warmup     time.Duration // unmeasured keep-alive load per server before measuring (after half as long of a connection per request); 0: as long as Duration
	ParityN    int           // requests of testdata/requests.txt checked on both servers of each pair first
	RateFactor float64       // scenario (d) runs each pair at this fraction of the slower server's capacity in (b)

	// The Java settings sweep, run before the headline rounds: a fresh JVM
	// per point, warmed up for SweepWarmup, then measured for SweepDuration
	// on each of SweepScenarios in SweepRounds alternating rounds (0: as
	// many as Rounds); the thread settings under the first of
	// SweepCollectors, then those collectors the JVM runs at the chosen
	// setting, then, when another collector won, the thread settings again
	// under it (see runSweeps). The fastest point of each front end serves
	// the headline rows. With Sweep false, MaxThreads, EventLoops and
	// Collector are used as given.
	Sweep          bool
	SweepRounds    int
	SweepWarmup    time.Duration
	SweepDuration  time.Duration
	SweepScenarios []string // keys of scenarios, "b" and "c" by default
	SweepThreads   []int    // Tomcat maxThreads values to try
	SweepLoops     []int    // Netty event-loop counts to try
	// SweepCollectors are the collectors to try (parallel, g1, zgc,
	// shenandoah), those the JVM does not run left out; the thread
	// settings are tried under the first one first.
	SweepCollectors []string
	MaxThreads      int    // Tomcat's maxThreads without the sweep
	EventLoops      int    // Netty's event loops without the sweep
	Collector       string // the JVM's collector without the sweep

	Campaigns string // campaigns file every server loads
	PostData  string // the 2016 request body
	Corpus    string // request bodies, one per line
	OutDir    string // where report.md, report.json and the charts go

	DspdBin      string // dspd built with default.pgo (when there is one): serves both Go rows
	DspdNoPGOBin string // dspd built with -pgo=off, an extra chi row; "" to leave it out
	JavaRun      string // java-baseline/run.sh: serves both Java rows
	Heap         string // fixed heap of every runtime, e.g. "1g"
	MaxBids      int    // -max-bids of every server, so that their bid stores fit the heap
	BidTTL       string // -bid-ttl of every server: the records a run makes within it must fit MaxBids
	ClockStart   string // -clock-start of every server, so that testdata's flights and hours hold

	ServerCPU int // the CPU the servers are pinned to (the caller pins this process, the load driver)
	Log       func(format string, args ...any)
}

// DefaultConfig returns the settings of `make compare-java`.
func DefaultConfig() Config {
	return Config{
		Requests: 10000, Duration: 10 * time.Second, Rounds: 3,
		ParityN: 2000, RateFactor: 0.8,
		Sweep: true, SweepWarmup: 8 * time.Second, SweepDuration: 2 * time.Second, SweepScenarios: []string{"b", "c"},
		SweepThreads: []int{4, 16, 64, 200}, SweepLoops: []int{1, 2, 4}, SweepCollectors: slices.Clone(collectorKeys),
		MaxThreads: 200, EventLoops: 1, // Tomcat's default; Netty's with one available processor
		Collector: gcParallel, // run.sh's default
		Campaigns: "testdata/campaigns.json", PostData: "testdata/post.data", Corpus: "testdata/requests.txt",
		OutDir: "out/compare-java", JavaRun: "java-baseline/run.sh", Heap: "1g", MaxBids: 1_000_000,
		BidTTL: "20s", ClockStart: "2026-11-04T08:00:00Z", ServerCPU: 0,
	}
}

func (c *Config) check() error {
	switch {
	case c.Requests < 100:
		return errors.New("N must be at least 100")
	case c.Duration < time.Second:
		return errors.New("DURATION must be at least 1s")
	case c.Rounds < 1:
		return errors.New("ROUNDS must be at least 1")
	case c.DspdBin == "" || c.JavaRun == "":
		return errors.New("the dspd binary and java-baseline/run.sh are needed")
	case c.RateFactor <= 0 || c.RateFactor > 1:
		return errors.New("the open loop's rate factor must be in (0, 1]")
	case c.MaxThreads < 1 || c.EventLoops < 1:
		return errors.New("Tomcat's maxThreads and Netty's event loops must be at least 1")
	case !slices.Contains(collectorKeys, c.Collector):
		return fmt.Errorf("collector %q: want one of %s", c.Collector, strings.Join(collectorKeys, ", "))
	}
	if c.Sweep {
		if c.SweepDuration < time.Second || c.SweepWarmup < 0 {
			return errors.New("the sweep's measurements must last at least 1s, its warm-up 0s or more")
		}
		if len(c.SweepThreads) == 0 || len(c.SweepLoops) == 0 || len(c.SweepScenarios) == 0 {
			return errors.New("the sweep needs maxThreads values, event-loop counts and scenarios")
		}
		for _, v := range append(slices.Clone(c.SweepThreads), c.SweepLoops...) {
			if v < 1 {
				return fmt.Errorf("sweep value %d: must be at least 1", v)
			}
		}
		if len(c.SweepCollectors) == 0 {
			return errors.New("the sweep needs collectors")
		}
		for i, k := range c.SweepCollectors {
			if !slices.Contains(collectorKeys, k) {
				return fmt.Errorf("sweep collector %q: want some of %s", k, strings.Join(collectorKeys, ", "))
			}
			if slices.Contains(c.SweepCollectors[:i], k) {
				return fmt.Errorf("sweep collector %q: named twice", k)
			}
		}
		for _, k := range c.SweepScenarios {
			if k != "b" && k != "c" && k != "e" {
				return fmt.Errorf("sweep scenario %q: only the closed-loop keep-alive scenarios b, c and e can be swept", k)
			}
		}
	}
	if c.Warmup == 0 {
		c.Warmup = c.Duration
	}
	if c.SweepRounds <= 0 {
		c.SweepRounds = c.Rounds
	}
	if c.Log == nil {
		c.Log = func(string, ...any) {}
	}
	return nil
}
