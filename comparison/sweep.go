package comparison

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// runSweeps tries each Java front end's thread settings and collectors
// before the headline rounds, so that Java's rows run on its best settings
// rather than a guess: Tomcat's maxThreads, then Netty's event loops, and
// the collectors gcs (the JVM runs each; the first is the one the thread
// settings are tried under first). Each front end goes through up to three
// stages, each picking its point by pickBest's rule:
//
//  1. every thread setting under gcs[0] (Parallel, run.sh's default);
//  2. every collector at the setting stage 1 chose (when there are two
//     or more);
//  3. when stage 2 chose another collector than gcs[0], every thread
//     setting again under it, since a concurrent collector's threads
//     share the one CPU with the request threads.
//
// The points of a stage run side by side as the headline servers do: a
// fresh JVM per point, pinned like them, with their heap, CPU count and GC
// log (the collector's flags are the only JVM setting that differs), each
// warmed up for SweepWarmup (a fresh JVM on one CPU takes several seconds
// to compile its hot paths), then measured for SweepDuration on each of
// SweepScenarios in SweepRounds alternating rounds, so that a burst of
// noise on the machine does not decide. A point's figure is the median of
// its rounds.
func runSweeps(ctx context.Context, cfg *Config, in inputs, post []byte, gcs []Collector) ([]*Sweep, error) {
	if len(gcs) == 0 {
		return nil, errors.New("the sweep needs a collector")
	}
	if err := os.MkdirAll(filepath.Join(cfg.OutDir, "sweep"), 0o755); err != nil {
		return nil, err
	}
	short := *cfg
	short.Duration = cfg.SweepDuration
	in.cfg = &short
	var out []*Sweep
	for _, front := range []string{tomcat, netty} {
		values := cfg.SweepThreads
		if front == netty {
			values = cfg.SweepLoops
		}
		run := func(n int, vary string, pts []SweepPoint) (SweepStage, error) {
			return runStage(ctx, cfg, in, post, front, n, vary, pts)
		}
		sw := newSweep(cfg, front)
		err := sweepFront(cfg, sw, values, gcs, run)
		if err != nil {
			return nil, fmt.Errorf("sweep of %s: %w", front, err)
		}
		cfg.Log("sweep: %s gets %s (%s) and %s (%s)", front, settingName(front, sw.Chosen), sw.Reason, sw.Collector.Name, sw.CollectorReason)
		out = append(out, sw)
	}
	return out, nil
}

// newSweep is a front end's sweep before its stages.
func newSweep(cfg *Config, front string) *Sweep {
	return &Sweep{Front: front, Param: settingParam(front), Scenarios: cfg.SweepScenarios, Rounds: cfg.SweepRounds,
		Warmup: cfg.SweepWarmup.String(), Duration: cfg.SweepDuration.String()}
}

// stageRunner measures the points of stage n (numbered from 1) and picks
// one: runStage, or a fake in tests.
type stageRunner func(n int, vary string, pts []SweepPoint) (SweepStage, error)

// sweepFront runs the stages of one front end's sweep into sw (see
// runSweeps): the thread settings values under gcs[0], the collectors gcs
// at the setting chosen, and the thread settings again under the
// collector chosen when it is not gcs[0].
func sweepFront(cfg *Config, sw *Sweep, values []int, gcs []Collector, run stageRunner) error {
	threads := func(gc Collector) error {
		pts := make([]SweepPoint, len(values))
		for i, v := range values {
			pts[i] = SweepPoint{Value: v, Collector: gc}
		}
		st, err := run(len(sw.Stages)+1, sw.Param, pts)
		if err != nil {
			return err
		}
		sw.Stages = append(sw.Stages, st)
		sw.Chosen, sw.Reason = st.chosen().Value, "under "+gc.Name+", "+st.Reason
		return nil
	}
	base := gcs[0]
	if err := threads(base); err != nil {
		return err
	}
	sw.Collector, sw.CollectorReason = base, "the only collector swept"
	if len(gcs) < 2 {
		return nil
	}
	pts := make([]SweepPoint, len(gcs))
	for i, gc := range gcs {
		pts[i] = SweepPoint{Value: sw.Chosen, Collector: gc}
	}
	st, err := run(len(sw.Stages)+1, varyCollector, pts)
	if err != nil {
		return err
	}
	sw.Stages = append(sw.Stages, st)
	sw.Collector, sw.CollectorReason = st.chosen().Collector, "at "+settingName(sw.Front, sw.Chosen)+", "+st.Reason
	if sw.Collector.Key != base.Key && len(values) > 1 {
		cfg.Log("sweep: %s chose %s over %s: its thread settings again under it", sw.Front, sw.Collector.Name, base.Name)
		return threads(sw.Collector)
	}
	return nil
}

// runStage runs the points pts of stage n of a front end's sweep side by
// side and picks the best; vary is what the points differ in.
func runStage(ctx context.Context, cfg *Config, in inputs, post []byte, front string, n int, vary string, pts []SweepPoint) (SweepStage, error) {
	var servers []*server
	defer func() {
		for _, s := range servers {
			_ = s.Stop()
		}
	}()
	named := func(s *server) string { return settingName(front, s.setting) + ", " + s.gc.Name }
	points := map[string]*SweepPoint{}
	for i, pt := range pts {
		c := sweepContender(front, n, pt.Value, pt.Collector, i)
		cfg.Log("sweep stage %d: starting %s with %s, %s", n, front, settingName(front, pt.Value), pt.Collector.Name)
		s, err := start(ctx, cfg, c, post, gcLogPath(cfg.OutDir, c.name))
		if err != nil {
			return SweepStage{}, err
		}
		servers = append(servers, s)
		pt.Samples, pt.Rounds = map[string]Sample{}, map[string][]Sample{}
		pt.StartupMs = float64(s.startup.Microseconds()) / 1000
		points[s.name] = &pt
	}
	if cfg.SweepWarmup > 0 {
		for _, s := range servers {
			cfg.Log("sweep stage %d: warming up %s with %s for %s", n, front, named(s), cfg.SweepWarmup)
			if err := warmUp(ctx, s, cfg.SweepWarmup, in.corpus); err != nil {
				return SweepStage{}, err
			}
			// Its JIT's queue drains before the next point's warm-up, not during it.
			if _, err := settleAll(ctx, servers); err != nil {
				return SweepStage{}, err
			}
		}
	}
	for round := range cfg.SweepRounds {
		for _, s := range rotate(servers, round) {
			pt := points[s.name]
			for _, key := range cfg.SweepScenarios {
				sc, _ := scenarioByKey(key)
				sample, _, err := measureQuiet(ctx, servers, s, sc.load(s.url(), in))
				if err != nil {
					return SweepStage{}, fmt.Errorf("%s: %w", named(s), err)
				}
				pt.Rounds[key] = append(pt.Rounds[key], sample)
				cfg.Log("sweep stage %d round %d/%d, %s, (%s): %.0f req/s, p99 %.2f ms, p99.9 %.2f ms, %d GC pauses of %.1f ms, %d failed (after %.1f s of waiting for quiet)",
					n, round+1, cfg.SweepRounds, named(s), key, sample.RequestsPerSecond, sample.P99, sample.P999, sample.GCCount, sample.GCPauseMs,
					sample.Failed, sample.QuietWaitMs/1000)
			}
		}
	}
	measured := make([]SweepPoint, 0, len(servers))
	for _, s := range servers {
		pt := points[s.name]
		for key, rounds := range pt.Rounds {
			pt.Samples[key] = median(rounds)
		}
		pt.Score = score(pt.Samples, cfg.SweepScenarios)
		measured = append(measured, *pt)
	}
	return pickStage(front, vary, measured), nil
}

// pickStage picks the best of a stage's measured points by pickBest's
// rule, whatever the stage varies.
func pickStage(front, vary string, pts []SweepPoint) SweepStage {
	st := SweepStage{Vary: vary, Points: pts}
	st.Best, st.Reason = pickBest(pts, func(p SweepPoint) string { return st.name(front, p) })
	return st
}
