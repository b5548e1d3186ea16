// Command overload runs package overload's measurement and prints its
// table (make overload).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/recbid/dspd/overload"
)

func main() {
	var cfg overload.Config
	var fronts, factors string
	flag.StringVar(&cfg.Dspd, "dspd", "bin/dspd", "the dspd binary")
	flag.StringVar(&cfg.Body, "body", "testdata/post.data", "the recbid body (its tmax is set to -tmax)")
	flag.StringVar(&fronts, "http", "chi,fasthttp", "front ends, comma-separated")
	flag.StringVar(&factors, "factors", "1.5,2", "overloads as multiples of capacity, comma-separated")
	flag.IntVar(&cfg.Conns, "conns", 1000, "connections the load keeps open (the exchange's pool)")
	flag.DurationVar(&cfg.Tmax, "tmax", 0, "the requests' tmax and the load's deadline (default 50ms)")
	flag.DurationVar(&cfg.Capacity, "capacity", 0, "the capacity run (default 10s)")
	flag.DurationVar(&cfg.Overload, "overload", 0, "each overload (default 30s)")
	flag.DurationVar(&cfg.After, "after", 0, "the half-capacity run after it (default 10s)")
	flag.StringVar(&cfg.ServerCPU, "server-cpu", "0", "taskset CPU list for dspd")
	flag.Parse()
	cfg.FrontEnds = strings.Split(fronts, ",")
	for _, f := range strings.Split(factors, ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v <= 0 {
			fmt.Fprintf(os.Stderr, "overload: -factors: %q is not a positive number\n", f)
			os.Exit(2)
		}
		cfg.Factors = append(cfg.Factors, v)
	}
	cfg.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rows, err := overload.Measure(ctx, cfg)
	if len(rows) > 0 {
		if werr := overload.WriteTable(os.Stdout, rows, cfg); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		os.Exit(1)
	}
}
