package comparison

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// runSweeps tries each Java front end's thread settings before the
// headline rounds, so that Java's rows use its best setting rather than a
// guess: Tomcat's maxThreads, then Netty's event loops. The points of a
// front end run side by side as the headline servers do: a fresh JVM per
// point, pinned like them, each warmed up for SweepWarmup (a fresh JVM on
// one CPU takes several seconds to compile its hot paths), then measured
// for SweepDuration on each of SweepScenarios in SweepRounds alternating
// rounds, so that a burst of noise on the machine does not decide. A
// point's figure is the median of its rounds.
func runSweeps(ctx context.Context, cfg *Config, in inputs, post []byte) ([]*Sweep, error) {
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
		sw, err := sweep(ctx, cfg, in, post, front, values)
		if err != nil {
			return nil, fmt.Errorf("sweep of %s: %w", front, err)
		}
		cfg.Log("sweep: %s gets %s (%s)", front, settingName(front, sw.Chosen), sw.Reason)
		out = append(out, sw)
	}
	return out, nil
}

func sweep(ctx context.Context, cfg *Config, in inputs, post []byte, front string, values []int) (*Sweep, error) {
	sw := &Sweep{Front: front, Param: settingParam(front), Scenarios: cfg.SweepScenarios, Rounds: cfg.SweepRounds,
		Warmup: cfg.SweepWarmup.String(), Duration: cfg.SweepDuration.String()}
	var servers []*server
	defer func() {
		for _, s := range servers {
			_ = s.Stop()
		}
	}()
	points := map[string]*SweepPoint{}
	for i, v := range values {
		cfg.Log("sweep: starting %s with %s", front, settingName(front, v))
		s, err := start(ctx, cfg, sweepContender(front, v, i), post, "")
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
		points[s.name] = &SweepPoint{Value: v, Samples: map[string]Sample{}, Rounds: map[string][]Sample{},
			StartupMs: float64(s.startup.Microseconds()) / 1000}
	}
	if cfg.SweepWarmup > 0 {
		for _, s := range servers {
			cfg.Log("sweep: warming up %s with %s for %s", front, settingName(front, s.setting), cfg.SweepWarmup)
			if err := warmUp(ctx, s, cfg.SweepWarmup, in.corpus); err != nil {
				return nil, err
			}
			// Its JIT's queue drains before the next point's warm-up, not during it.
			if _, err := settleAll(ctx, servers); err != nil {
				return nil, err
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
					return nil, fmt.Errorf("%s: %w", settingName(front, s.setting), err)
				}
				pt.Rounds[key] = append(pt.Rounds[key], sample)
				cfg.Log("sweep round %d/%d, %s, (%s): %.0f req/s, p99 %.2f ms, %d failed (after %.1f s of waiting for quiet)", round+1, cfg.SweepRounds,
					settingName(front, s.setting), key, sample.RequestsPerSecond, sample.P99, sample.Failed, sample.QuietWaitMs/1000)
			}
		}
	}
	for _, s := range servers {
		pt := points[s.name]
		for key, rounds := range pt.Rounds {
			pt.Samples[key] = median(rounds)
		}
		pt.Score = score(pt.Samples, cfg.SweepScenarios)
		sw.Points = append(sw.Points, *pt)
	}
	i, why := pickBest(sw.Param, sw.Points)
	sw.Chosen, sw.Reason = sw.Points[i].Value, why
	return sw, nil
}
