// Command loadgen is an ab-compatible HTTP load driver. The line that was
// run against the 2016 bidders,
//
//	ab -n 10000 -c 100 -p post.data -T 'application/x-www-form-urlencoded' http://localhost:9090/dsp/recbid
//
// runs unchanged as `loadgen -n 10000 -c 100 -p post.data -T … URL` and prints
// ab's report, with latencies from HDR histograms. Beyond ab: -d (run for a
// duration), -rate (open loop at a fixed rate, latencies from each request's
// scheduled send time), -corpus (replay a file of bodies), -warmup, -o (JSON
// result) and `loadgen merge a.json b.json …` to combine the results of
// several machines.
//
// See README.md, section loadgen, for every flag.
package main

import (
	"bufio"
	"bytes"
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

	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/loadtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return merge(args[1:], stdout, stderr)
	}
	cfg, out, quiet, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	if !quiet {
		cfg.Progress = stderr
		fmt.Fprintf(stderr, "This is loadgen, an ab-compatible load driver\n\nBenchmarking %s (be patient)\n", cfg.URL)
	}
	res, err := loadtest.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	if !quiet {
		fmt.Fprintln(stderr)
	}
	if err := loadtest.WriteReport(stdout, res); err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	if out != "" {
		if err := res.Save(out); err != nil {
			fmt.Fprintln(stderr, "loadgen:", err)
			return 1
		}
	}
	return 0
}

// headers collects repeated -H flags.
type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func parseFlags(args []string, stderr io.Writer) (cfg loadtest.Config, out string, quiet bool, err error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: loadgen [options] http://host[:port]/path\n       loadgen merge [-o out.json] a.json b.json ...\nOptions are ab's, plus -d, -rate, -corpus, -warmup and -o:\n")
		fs.PrintDefaults()
	}
	var (
		postFile, corpus, warmup string
		hs                       headers
		timeLimit, timeout       int
	)
	fs.Int64Var(&cfg.Requests, "n", 0, "number of requests (exact: the server sees this many); default 1, or 50000 with -t, as ab")
	fs.IntVar(&cfg.Concurrency, "c", 1, "concurrency: requests in flight at once (one connection each)")
	fs.IntVar(&timeLimit, "t", 0, "time limit in seconds (implies -n 50000 unless -n is given, as ab)")
	fs.StringVar(&postFile, "p", "", "file to POST as the body of every request")
	fs.StringVar(&cfg.ContentType, "T", "", "Content-Type of the POST body, e.g. application/x-www-form-urlencoded")
	fs.Var(&hs, "H", "extra header, \"Name: value\" (repeatable)")
	fs.BoolVar(&cfg.KeepAlive, "k", false, "keep-alive: reuse connections (ab's default is a new connection per request)")
	fs.IntVar(&timeout, "s", 30, "seconds to wait for each answer")
	fs.BoolVar(&quiet, "q", false, "no progress lines")
	fs.BoolVar(&cfg.VariableLength, "l", false, "accept answers of varying length (not counted as Length failures)")
	fs.DurationVar(&cfg.Duration, "d", 0, "run for this long, e.g. 30s (no request limit unless -n)")
	fs.Func("rate", "open loop: send this many requests per second, latency counted from each scheduled send time; or steps RATE:DURATION,… one after the other (30000:30s,10000:10s)", func(v string) (err error) {
		cfg.Rate, cfg.Steps, err = loadtest.ParseRate(v)
		return err
	})
	fs.DurationVar(&cfg.Deadline, "tmax", 0, "as an exchange's tmax: count the answers that come within this of their due time, and drop a request not sent by then (see -send-within) (e.g. 100ms)")
	fs.DurationVar(&cfg.SendWithin, "send-within", 0, "with -rate: drop a request no connection can send within this of its due time (default -tmax)")
	fs.DurationVar(&cfg.Timeline, "timeline", 0, "report the run slice by slice, each this long (e.g. 100ms), in the JSON result (-o)")
	fs.StringVar(&corpus, "corpus", "", "file of request bodies, one per line, sent round robin (implies -l)")
	fs.StringVar(&warmup, "warmup", "", "unmeasured load first: a duration (10s) or a number of requests (1000)")
	fs.StringVar(&out, "o", "", "write the result as JSON to this file")
	if err = fs.Parse(args); err != nil {
		return cfg, "", false, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cfg, "", false, errors.New("exactly one URL is needed")
	}
	cfg.URL = fs.Arg(0)
	cfg.Headers = hs
	cfg.TimeLimit = clock.Seconds(int64(timeLimit)) // saturates: -t 9999999999 is "no limit", not a negative one
	cfg.Timeout = clock.Seconds(int64(timeout))
	switch {
	case postFile != "" && corpus != "":
		return cfg, "", false, errors.New("use -p or -corpus, not both")
	case postFile != "":
		body, err := os.ReadFile(postFile)
		if err != nil {
			return cfg, "", false, err
		}
		cfg.Bodies = [][]byte{body}
	case corpus != "":
		if cfg.Bodies, err = readCorpus(corpus); err != nil {
			return cfg, "", false, err
		}
		cfg.VariableLength = true
	}
	if warmup != "" {
		if d, err := time.ParseDuration(warmup); err == nil {
			cfg.WarmupDuration = d
		} else if n, err := strconv.ParseInt(warmup, 10, 64); err == nil && n > 0 {
			cfg.WarmupRequests = n
		} else {
			return cfg, "", false, fmt.Errorf("-warmup %q: want a duration (10s) or a number of requests", warmup)
		}
	}
	return cfg, out, quiet, nil
}

// readCorpus reads one body per non-empty line.
func readCorpus(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var bodies [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := bytes.TrimRight(sc.Bytes(), "\r"); len(line) > 0 {
			bodies = append(bodies, bytes.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(bodies) == 0 {
		return nil, fmt.Errorf("%s: no bodies", path)
	}
	return bodies, nil
}

func merge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the merged result as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "loadgen merge: name the result files to merge")
		return 2
	}
	var results []*loadtest.Result
	for _, path := range fs.Args() {
		r, err := loadtest.Load(path)
		if err != nil {
			fmt.Fprintln(stderr, "loadgen merge:", err)
			return 1
		}
		results = append(results, r)
	}
	m, err := loadtest.Merge(results...)
	if err == nil {
		err = loadtest.WriteReport(stdout, m)
	}
	if err == nil && *out != "" {
		err = m.Save(*out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen merge:", err)
		return 1
	}
	return 0
}
