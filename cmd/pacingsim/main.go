// Command pacingsim runs make pacing-sim's simulated week of even pacing
// (package pacingsim) and writes its figures: a table on standard output,
// and report.json and spend.svg in -out.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recbid/dspd/pacingsim"
)

func main() {
	cfg := pacingsim.Default()
	flag.IntVar(&cfg.Days, "days", cfg.Days, "simulated days")
	flag.IntVar(&cfg.Requests, "requests", cfg.Requests, "mean requests a day to each campaign")
	flag.IntVar(&cfg.StepDay, "step-day", cfg.StepDay, "day (1-based) on which the traffic steps up; 0: none")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	out := flag.String("out", "out/pacing-sim", "directory for report.json and spend.svg")
	flag.Parse()
	cfg.KeepMinutes = true
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "pacingsim:", err)
		os.Exit(1)
	}
}

func run(cfg pacingsim.Config, out string) error {
	res, err := pacingsim.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	chart := filepath.Join(out, "spend.svg")
	if err := res.WriteChart(chart); err != nil {
		return err
	}
	if err := res.WriteTable(os.Stdout); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s and %s\n", filepath.Join(out, "report.json"), chart)
	return nil
}
