// Command compare re-runs the 2016 Go-versus-Tomcat experiment (see package
// comparison) and prints a side-by-side table; the report, the JSON and the
// charts go to -out. `make compare-java` builds everything and runs it
// pinned to the load CPU:
//
//	taskset -c 1 compare -dspd bin/dspd -dspd-nopgo bin/dspd-nopgo -n 10000 -duration 10s -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/recbid/dspd/comparison"
)

func main() {
	cfg := comparison.DefaultConfig()
	flag.StringVar(&cfg.DspdBin, "dspd", "bin/dspd", "dspd binary (built with cmd/dspd/default.pgo when present)")
	flag.StringVar(&cfg.DspdNoPGOBin, "dspd-nopgo", "", "dspd binary built with -pgo=off, to show the PGO difference; empty to skip")
	flag.StringVar(&cfg.JavaRun, "java", cfg.JavaRun, "the Java baseline's run script")
	flag.Int64Var(&cfg.Requests, "n", cfg.Requests, "requests of the 2016 scenario (N)")
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "length of each timed scenario (DURATION)")
	flag.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "alternating rounds per scenario and server (ROUNDS)")
	flag.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured load per server first")
	flag.IntVar(&cfg.ParityN, "parity", cfg.ParityN, "requests of the corpus both servers must answer alike before measuring")
	flag.StringVar(&cfg.Heap, "heap", cfg.Heap, "memory of each runtime: Java -Xms=-Xmx, Go GOMEMLIMIT")
	flag.IntVar(&cfg.ServerCPU, "server-cpu", cfg.ServerCPU, "CPU the servers are pinned to")
	flag.StringVar(&cfg.OutDir, "out", cfg.OutDir, "output directory")
	flag.Parse()
	cfg.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

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
