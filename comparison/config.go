package comparison

import (
	"errors"
	"time"
)

// Config is one comparison run.
type Config struct {
	Requests   int64         // N: requests of the 2016 scenario
	Duration   time.Duration // DURATION: length of the timed scenarios
	Rounds     int           // ROUNDS: rounds per scenario and server (median reported)
	Warmup     time.Duration // unmeasured load per server before measuring; 0: as long as Duration
	ParityN    int           // requests of testdata/requests.txt checked on both servers first
	RateFactor float64       // scenario (d) runs at this fraction of Java's keep-alive capacity

	Campaigns string // campaigns file both servers load
	PostData  string // the 2016 request body
	Corpus    string // request bodies, one per line
	OutDir    string // where report.md, report.json and the charts go

	DspdBin      string // dspd built with default.pgo (when there is one)
	DspdNoPGOBin string // dspd built with -pgo=off; "" to leave it out
	JavaRun      string // java-baseline/run.sh
	Heap         string // fixed heap of both runtimes, e.g. "1g"
	MaxBids      int    // -max-bids of both servers, so that their bid stores fit the heap
	BidTTL       string // -bid-ttl of both servers: the records a run makes within it must fit MaxBids
	ClockStart   string // -clock-start of both servers, so that testdata's flights and hours hold

	ServerCPU int // the CPU the servers are pinned to (the caller pins this process, the load driver)
	Log       func(format string, args ...any)
}

// DefaultConfig returns the settings of `make compare-java`.
func DefaultConfig() Config {
	return Config{
		Requests: 10000, Duration: 10 * time.Second, Rounds: 3,
		ParityN: 2000, RateFactor: 0.8,
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
	}
	if c.Warmup == 0 {
		c.Warmup = c.Duration
	}
	if c.Log == nil {
		c.Log = func(string, ...any) {}
	}
	return nil
}
