package abrate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/recbid/dspd/loadtest"
)

// Pinned is the Driver of real runs: wrk (from PATH) or Bin/loadgen,
// pinned with taskset to one CPU, the URL last on its command line.
type Pinned struct {
	Bin string // where loadgen is
	CPU int    // the load CPU
}

// Drive runs l and reads what the driver measured.
func (p Pinned) Drive(ctx context.Context, l Job) (Sample, error) {
	switch l.Driver {
	case "wrk":
		out, err := p.exec(ctx, "wrk", l.Args, l.URL)
		if err != nil {
			return Sample{}, err
		}
		return parseWrk(out)
	case "loadgen":
		return p.loadgen(ctx, l)
	}
	return Sample{}, fmt.Errorf("no driver %q", l.Driver)
}

// loadgen runs loadgen quietly, its result written as JSON, and reads it
// back with package loadtest.
func (p Pinned) loadgen(ctx context.Context, l Job) (Sample, error) {
	f, err := os.CreateTemp("", "abrate-loadgen-*.json")
	if err != nil {
		return Sample{}, fmt.Errorf("loadgen: %w", err)
	}
	f.Close()
	defer os.Remove(f.Name())
	args := slices.Concat([]string{"-q", "-o", f.Name()}, l.Args)
	report, err := p.exec(ctx, filepath.Join(p.Bin, "loadgen"), args, l.URL)
	if err != nil {
		return Sample{}, err
	}
	res, err := loadtest.Load(f.Name())
	if err != nil {
		return Sample{}, fmt.Errorf("loadgen: %w", err)
	}
	if res.Failed > 0 || res.Non2xx > 0 {
		return Sample{}, fmt.Errorf("loadgen: %d failed requests, %d non-2xx answers:\n%s", res.Failed, res.Non2xx, report)
	}
	return Sample{RequestsPerSecond: res.RequestsPerSecond, Complete: res.Complete,
		P50: res.Latency.P50, P99: res.Latency.P99}, nil
}

// exec runs the driver pinned to the load CPU and returns its standard
// output.
func (p Pinned) exec(ctx context.Context, driver string, args []string, url string) (string, error) {
	argv := slices.Concat([]string{"-c", strconv.Itoa(p.CPU), driver}, args, []string{url})
	cmd := exec.CommandContext(ctx, "taskset", argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", driver, strings.Join(argv[3:], " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
