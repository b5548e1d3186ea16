// Command compare re-runs the 2016 Go-versus-Tomcat experiment with two
// pairs (see package comparison): idiomatic, dspd -http chi against
// Tomcat, and fastest, dspd -http fasthttp against Netty. It first asks
// the JVM which garbage collectors it runs, then sweeps Tomcat's
// maxThreads, Netty's event loops and the collectors (-sweep=false skips
// it), then runs every scenario on every server in alternating rounds and
// prints a side-by-side table; the report, the JSON and the charts go to
// -out. `make compare-java` builds everything and runs it pinned to the
// load CPU:
//
//	taskset -c 1 compare -dspd bin/dspd -n 10000 -duration 10s -rounds 3 -server-cpu 0
//
// (NOPGO=1 adds -dspd-nopgo bin/dspd-nopgo: the chi front end built with
// -pgo=off, in no pair.)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/recbid/dspd/comparison"
)

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2)
	}
	began := time.Now()
	cfg.Log = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%4.0fs "+format+"\n", append([]any{time.Since(began).Seconds()}, args...)...)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := comparison.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	files, err := comparison.WriteFiles(cfg.OutDir, rep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	fmt.Println()
	comparison.WriteTable(os.Stdout, rep)
	fmt.Println()
	for _, f := range files {
		fmt.Println("wrote", f)
	}
}

// parseFlags reads the command line into a configuration; errors (and
// -h) are written to w.
func parseFlags(args []string, w io.Writer) (comparison.Config, error) {
	cfg := comparison.DefaultConfig()
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(&cfg.DspdBin, "dspd", "bin/dspd", "dspd binary (built with cmd/dspd/default.pgo when present); serves both Go rows")
	fs.StringVar(&cfg.DspdNoPGOBin, "dspd-nopgo", "", "dspd binary built with -pgo=off, an extra chi row to show the PGO difference; empty to skip")
	fs.StringVar(&cfg.JavaRun, "java", cfg.JavaRun, "the Java baseline's run script (both Java rows)")
	fs.Int64Var(&cfg.Requests, "n", cfg.Requests, "requests of the 2016 scenario (N)")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "length of each timed scenario (DURATION)")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "alternating rounds per scenario and server (ROUNDS)")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured keep-alive load per server before round 1, after half as long of a connection per request; 0: as long as -duration")
	fs.IntVar(&cfg.ParityN, "parity", cfg.ParityN, "requests of the corpus each pair's servers must answer alike before measuring")
	fs.Float64Var(&cfg.RateFactor, "rate-factor", cfg.RateFactor, "scenario (d) runs each pair at this fraction of its slower server's requests/s in (b)")
	fs.StringVar(&cfg.Heap, "heap", cfg.Heap, "memory of each runtime: Java -Xms=-Xmx, Go GOMEMLIMIT")
	fs.IntVar(&cfg.ServerCPU, "server-cpu", cfg.ServerCPU, "CPU the servers are pinned to")
	fs.StringVar(&cfg.OutDir, "out", cfg.OutDir, "output directory")
	fs.BoolVar(&cfg.Sweep, "sweep", cfg.Sweep, "sweep Tomcat's maxThreads, Netty's event loops and the JVM's collectors first and use the fastest of each; false: use -max-threads, -event-loops and -collector")
	fs.DurationVar(&cfg.SweepWarmup, "sweep-warmup", cfg.SweepWarmup, "unmeasured load per sweep point (a fresh JVM) before measuring")
	fs.DurationVar(&cfg.SweepDuration, "sweep-duration", cfg.SweepDuration, "each measurement of a sweep point")
	fs.IntVar(&cfg.SweepRounds, "sweep-rounds", cfg.SweepRounds, "alternating rounds over the sweep's points; 0: as many as -rounds")
	fs.Var(&intList{&cfg.SweepThreads}, "sweep-max-threads", "Tomcat maxThreads values the sweep tries")
	fs.Var(&intList{&cfg.SweepLoops}, "sweep-event-loops", "Netty event-loop counts the sweep tries")
	fs.Var(&stringList{&cfg.SweepScenarios}, "sweep-scenarios", "scenarios the sweep measures (b, c, e)")
	fs.Var(&stringList{&cfg.SweepCollectors}, "sweep-collectors", "collectors the sweep tries, those the JVM runs (parallel, g1, zgc, shenandoah); the thread settings are tried under the first one first")
	fs.StringVar(&cfg.Collector, "collector", cfg.Collector, "the JVM's collector without the sweep (parallel, g1, zgc, shenandoah)")
	fs.IntVar(&cfg.MaxThreads, "max-threads", cfg.MaxThreads, "Tomcat's maxThreads without the sweep")
	fs.IntVar(&cfg.EventLoops, "event-loops", cfg.EventLoops, "Netty's event loops without the sweep")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
		fmt.Fprintln(w, "compare:", err)
		return cfg, err
	}
	return cfg, nil
}

// intList is a comma-separated list of positive integers.
type intList struct{ v *[]int }

func (l *intList) String() string {
	if l.v == nil {
		return ""
	}
	s := make([]string, len(*l.v))
	for i, n := range *l.v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(s string) error {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	*l.v = out
	return nil
}

// stringList is a comma-separated list of words.
type stringList struct{ v *[]string }

func (l *stringList) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}

func (l *stringList) Set(s string) error {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return fmt.Errorf("%q: empty list", s)
	}
	*l.v = out
	return nil
}
