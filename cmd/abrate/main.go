// Command abrate runs one A/B measurement of package abrate, described by
// a JSON file (scripts/abrate/NAME.json), with NAME=VALUE arguments over
// the description's variables:
//
//	abrate [-bin DIR] scripts/abrate/rate.json rounds=3 duration=5s conns=50
//
// It checks the description, installs the commands it needs from Debian
// when they are missing (as root), builds its binaries into bin/ from the
// tree in the working directory (with -bin DIR, it uses those already in
// DIR instead), then prints the table on standard output and the progress
// on standard error. make rate, exchange-rate, multicore, scaling, loadgen-vs-wrk,
// openrtb-rate and redis-rate run it from the repository's root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/recbid/dspd/abrate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line's.
type options struct {
	bin  string // "" to build into bin/
	file string
	vars map[string]string
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("abrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: abrate [-bin DIR] DESCRIPTION.json [NAME=VALUE ...]")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.bin, "bin", "", "use the binaries already built in DIR (dspd, bareserver, loadgen) instead of building them into bin/")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return o, errors.New("a description file is needed")
	}
	o.file = fs.Arg(0)
	vars, err := abrate.ParseVars(fs.Args()[1:])
	if err != nil {
		return o, err
	}
	o.vars = vars
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "abrate:", err)
		return 2
	}
	if err := measure(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "abrate:", err)
		return 1
	}
	return 0
}

func measure(ctx context.Context, o options, stdout, stderr io.Writer) error {
	d, err := abrate.Load(o.file)
	if err != nil {
		return err
	}
	if err := abrate.Check(d, o.vars); err != nil {
		return err
	}
	cfg := abrate.DefaultConfig()
	cfg.Vars, cfg.Stdout, cfg.Stderr = o.vars, stdout, stderr
	if cfg.ServerCPU == cfg.LoadCPU {
		fmt.Fprintln(stderr, "one CPU: server and load share it")
	}
	setup := abrate.DefaultSetup(stderr)
	if err := setup.Install(ctx, d.Needs); err != nil {
		return err
	}
	if o.bin == "" {
		if err := setup.Build(ctx, d.Build, cfg.Bin); err != nil {
			return err
		}
	} else {
		if err := abrate.HaveBinaries(d.Build, o.bin); err != nil {
			return err
		}
		cfg.Bin = o.bin
	}
	return abrate.Measure(ctx, d, cfg)
}
