package abrate

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Measure performs the measurement d describes: it writes its files, starts
// its servers, runs its phases and prints its table on cfg.Stdout, the
// progress lines on cfg.Stderr. It checks d first (see Check), and stops
// every server it started before it returns.
func Measure(ctx context.Context, d *Description, cfg Config) error {
	if err := Check(d, cfg.Vars); err != nil {
		return err
	}
	cfg.fill()
	tmp, err := os.MkdirTemp("", "abrate-"+d.Name+"-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	r, err := newRunner(d, cfg, tmp, false)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// runner is one run of a description.
type runner struct {
	d      *Description
	cfg    Config
	tmp    string
	dry    bool
	vars   map[string]string
	rounds int
	runs   map[string]runInfo
	rec    record
	procs  map[string]Proc
}

func newRunner(d *Description, cfg Config, tmp string, dry bool) (*runner, error) {
	vars, rounds, err := d.resolve(cfg.Vars)
	if err != nil {
		return nil, err
	}
	if dry {
		rounds = 1
	}
	vars["bin"], vars["tmp"] = cfg.Bin, tmp
	vars["server_cpu"], vars["load_cpu"] = strconv.Itoa(cfg.ServerCPU), strconv.Itoa(cfg.LoadCPU)
	r := &runner{d: d, cfg: cfg, tmp: tmp, dry: dry, vars: vars, rounds: rounds,
		runs: map[string]runInfo{}, rec: record{}, procs: map[string]Proc{}}
	for _, p := range d.Phases {
		for j, run := range p.Runs {
			r.runs[run.Key] = runInfo{driver: p.driver(j), server: run.Server}
		}
	}
	return r, nil
}

func (r *runner) run(ctx context.Context) error {
	if err := r.writeFiles(); err != nil {
		return err
	}
	var started []Proc
	defer func() {
		for _, p := range slices.Backward(started) {
			_ = p.Stop() // a server killed by the signal exits non-zero
		}
	}()
	for _, s := range r.d.Servers {
		p, err := r.start(ctx, s)
		if err != nil {
			return err
		}
		started = append(started, p)
		r.procs[s.Name] = p
	}
	for i := range r.d.Phases {
		if err := r.phase(ctx, i); err != nil {
			return err
		}
	}
	if err := r.table(); err != nil {
		return err
	}
	return r.charts()
}

func (r *runner) writeFiles() error {
	for _, name := range sortedKeys(r.d.Files) {
		text, err := r.d.file(name)
		if err != nil {
			return err
		}
		content, err := expand(fmt.Sprintf("files %q", name), text, r.vars, r.noFigures())
		if err != nil {
			return err
		}
		if r.dry {
			continue
		}
		if err := os.WriteFile(filepath.Join(r.tmp, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("files: %w", err)
		}
	}
	return nil
}

// phase runs phase i: its set values, its warm-up, its rounds.
func (r *runner) phase(ctx context.Context, i int) error {
	p := &r.d.Phases[i]
	figures := r.before(i) // of its set, args and urls
	before := maps.Clone(r.vars)
	for _, k := range sortedKeys(p.Set) {
		v, err := expand(fmt.Sprintf("phase %q, set %s", p.Name, k), p.Set[k], before, figures)
		if err != nil {
			return err
		}
		r.vars[k] = v
	}
	if p.Warmup != nil {
		fmt.Fprintln(r.cfg.Stderr, "warming up")
		warm := maps.Clone(r.vars)
		for _, k := range sortedKeys(p.Warmup.Vars) {
			v, err := expand(fmt.Sprintf("phase %q, warmup %s", p.Name, k), p.Warmup.Vars[k], r.vars, r.noFigures())
			if err != nil {
				return err
			}
			warm[k] = v
		}
		for j := range p.Runs {
			if _, err := r.measure(ctx, i, j, warm, figures); err != nil {
				return fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	defer delete(r.vars, "round")
	for round := 1; round <= r.rounds; round++ {
		r.vars["round"] = strconv.Itoa(round)
		this := map[string]Sample{}
		for j, run := range p.Runs {
			s, err := r.measure(ctx, i, j, r.vars, figures)
			if err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
			this[run.Key] = s
			r.rec.add(run.Key, s)
			if run.Progress == "" {
				continue
			}
			line, err := expand(fmt.Sprintf("phase %q, run %q, progress", p.Name, run.Key), run.Progress, r.vars, r.thisRound(this))
			if err != nil {
				return err
			}
			fmt.Fprintln(r.cfg.Stderr, line)
		}
	}
	return nil
}

// measure runs run j of phase i once with the variables vars and the
// figures of the phases before it.
func (r *runner) measure(ctx context.Context, i, j int, vars map[string]string, figures view) (Sample, error) {
	p := &r.d.Phases[i]
	run := p.Runs[j]
	where := fmt.Sprintf("phase %q, run %q", p.Name, run.Key)
	args, err := expandAll(where+", args", slices.Concat(p.Args, run.Args), vars, figures)
	if err != nil {
		return Sample{}, err
	}
	url, err := expand(where+", url", run.URL, vars, figures)
	if err != nil {
		return Sample{}, err
	}
	proc := r.procs[run.Server] // nil for a run that names none
	var cpuBefore time.Duration
	if proc != nil {
		if cpuBefore, err = proc.CPUTime(); err != nil {
			return Sample{}, fmt.Errorf("%s: %w", where, err)
		}
	}
	s, err := r.cfg.Driver.Drive(ctx, Job{Driver: p.driver(j), Args: args, URL: url})
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", where, err)
	}
	if proc != nil {
		cpuAfter, err := proc.CPUTime()
		if err != nil {
			return Sample{}, fmt.Errorf("%s: %w", where, err)
		}
		if s.Complete > 0 {
			s.CPUMicrosPerReq = float64((cpuAfter - cpuBefore).Microseconds()) / float64(s.Complete)
		}
	}
	return s, nil
}

// table prints the table, once every line of it has been expanded.
func (r *runner) table() error {
	lines := make([]string, len(r.d.Table))
	for i, t := range r.d.Table {
		line, err := expand(fmt.Sprintf("table line %d", i+1), t, r.vars, r.medians(nil, "in any phase"))
		if err != nil {
			return err
		}
		lines[i] = line
	}
	_, err := fmt.Fprint(r.cfg.Stdout, strings.Join(lines, "\n")+"\n")
	return err
}
