package abrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Check runs d dry, in one round, with no process and no load, as the
// command line's variables set would run it: every template is executed
// where it would be, so that an unknown variable or run, a figure that a
// run's driver does not give, or one read before it is measured, is found
// before anything starts.
func Check(d *Description, set map[string]string) error {
	cfg := Config{Vars: set, Bin: "bin", ServerCPU: 0, LoadCPU: 1, Launcher: dryLauncher{}, Driver: dryDriver{}}
	cfg.fill()
	r, err := newRunner(d, cfg, filepath.Join(os.TempDir(), "abrate-check"), true)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	if err := r.run(context.Background()); err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	return nil
}

// dryLauncher starts nothing: Check's servers.
type dryLauncher struct{}

func (dryLauncher) Launch(context.Context, ServerSpec) (Proc, error) { return dryProc{}, nil }

// dryProc is a server that never ran.
type dryProc struct{}

func (dryProc) CPUTime() (time.Duration, error) { return 0, nil }
func (dryProc) Stop() error                     { return nil }

// dryDriver sends nothing and measures ones: Check's loads.
type dryDriver struct{}

func (dryDriver) Drive(context.Context, Job) (Sample, error) {
	return Sample{RequestsPerSecond: 1, Complete: 1, P50: 1, P99: 1}, nil
}
