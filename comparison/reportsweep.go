package comparison

import (
	"fmt"
	"io"
	"strings"
)

// stageTitle says what a stage of a sweep varied, under what.
func stageTitle(sw *Sweep, i int) string {
	st := sw.Stages[i]
	if len(st.Points) == 0 {
		return st.Vary
	}
	first := st.Points[0]
	if st.Vary == varyCollector {
		return "the collectors at " + settingName(sw.Front, first.Value)
	}
	again := ""
	if i > 0 {
		again = " again"
	}
	return sw.Param + again + " under " + first.Collector.Name
}

// sweepColumn heads a point's column in the terminal: its thread setting,
// or its collector's key.
func sweepColumn(st SweepStage, p SweepPoint) string {
	if st.Vary == varyCollector {
		return p.Collector.Key
	}
	return fmt.Sprint(p.Value)
}

// writeSweepTable writes the sweep for the terminal: a block per stage,
// a column per point, the chosen one starred.
func writeSweepTable(w io.Writer, rep *Report) {
	if len(rep.Sweeps) == 0 {
		fmt.Fprintf(w, "Java settings sweep skipped: %s\n\n", rep.Settings["sweep"])
		return
	}
	sw0 := rep.Sweeps[0]
	fmt.Fprintf(w, "Java settings sweep (scenarios %s; a fresh JVM per point, %s of warm-up, then %s per scenario, medians of %d round(s))\n",
		strings.Join(sw0.Scenarios, ", "), sw0.Warmup, sw0.Duration, sw0.Rounds)
	if tried, not := collectorLists(rep.Collectors); tried != "" {
		fmt.Fprintf(w, "  collectors tried: %s", tried)
		if not != "" {
			fmt.Fprintf(w, "; not on this JVM: %s", not)
		}
		fmt.Fprintln(w)
	}
	row := func(title string, st SweepStage, f func(SweepPoint) string) {
		fmt.Fprintf(w, "  %-19s", title)
		for _, pt := range st.Points {
			fmt.Fprintf(w, " %10s", f(pt))
		}
		fmt.Fprintln(w)
	}
	for _, sw := range rep.Sweeps {
		for i, st := range sw.Stages {
			fmt.Fprintf(w, "  %s, stage %d: %s\n", frontName(sw.Front), i+1, stageTitle(sw, i))
			fmt.Fprintf(w, "  %-19s", st.Vary)
			for j, pt := range st.Points {
				mark := " "
				if j == st.Best {
					mark = "*"
				}
				fmt.Fprintf(w, " %10s", sweepColumn(st, pt)+mark)
			}
			fmt.Fprintln(w)
			for _, key := range sw.Scenarios {
				row("("+key+") req/s", st, func(pt SweepPoint) string { return f0(pt.Samples[key].RequestsPerSecond) })
				row("("+key+") p99 ms", st, func(pt SweepPoint) string { return f2(pt.Samples[key].P99) })
				row("("+key+") p99.9 ms", st, func(pt SweepPoint) string { return f2(pt.Samples[key].P999) })
			}
			row("failed", st, func(pt SweepPoint) string { return fmt.Sprint(pt.failed()) })
			row("GC pause ms", st, func(pt SweepPoint) string { return f1(pt.gc().PauseMs) })
			row("score", st, func(pt SweepPoint) string { return f0(pt.Score) })
			fmt.Fprintf(w, "  * %s\n", st.Reason)
		}
		fmt.Fprintf(w, "  %s gets %s, %s (%s)\n", frontName(sw.Front), settingName(sw.Front, sw.Chosen), sw.Collector.Name, sw.Collector.Flags)
	}
	fmt.Fprintln(w)
}

// collectorLists names the collectors tried, and those the JVM does not
// run.
func collectorLists(all []CollectorSupport) (tried, not string) {
	var t, n []string
	for _, cs := range all {
		switch {
		case cs.Tried:
			t = append(t, cs.Name)
		case !cs.Supported:
			n = append(n, cs.Name)
		}
	}
	return strings.Join(t, ", "), strings.Join(n, ", ")
}

// writeSweepMarkdown writes the report's sweep section: the JVM's
// collectors, then each front end's stages.
func writeSweepMarkdown(w io.Writer, rep *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## Java settings sweep\n\n")
	if len(rep.Collectors) > 0 {
		p("The JVM's collectors, as `run.sh` starts it (the run's heap and CPU count, the collector's flags, `-version`); the flags are the only JVM setting that differs between collectors:\n\n")
		p("| collector | flags | this JVM | tried |\n|---|---|---|---|\n")
		for _, cs := range rep.Collectors {
			has := "yes"
			if !cs.Supported {
				has = "no"
			}
			if cs.Note != "" {
				has += ": " + cs.Note
			}
			p("| %s | `%s` | %s | %s |\n", cs.Name, cs.Flags, strings.ReplaceAll(has, "|", "\\|"), yesNo(cs.Tried))
		}
		p("\n")
	}
	if len(rep.Sweeps) == 0 {
		p("Skipped (%s).\n\n", rep.Settings["sweep"])
		return
	}
	sw0 := rep.Sweeps[0]
	p("Before the headline rounds, each Java front end's thread setting and collector were tried on scenarios %s, in stages: "+
		"the thread settings under the first collector; then every collector tried at the setting chosen; then, when another collector won, the thread settings again under it. "+
		"A fresh JVM per point with the headline's JVM settings, pinned the same way, the points of a stage running side by side; %s of warm-up each (the corpus, keep-alive, 100 connections), then %s per scenario in %d alternating round(s), the figures below being the medians. "+
		"Every stage keeps its fastest point (the highest geometric mean of its requests/s over those scenarios, setting aside points where more than 0.1%% of requests failed); the last stage's point serves the headline rows.\n\n",
		strings.Join(sw0.Scenarios, ", "), sw0.Warmup, sw0.Duration, sw0.Rounds)
	for _, sw := range rep.Sweeps {
		for i, st := range sw.Stages {
			p("**%s, stage %d: %s**\n\n", frontName(sw.Front), i+1, stageTitle(sw, i))
			p("| %s | collector |", sw.Param)
			for _, key := range sw.Scenarios {
				p(" (%s) req/s | (%s) p99 ms | (%s) p99.9 ms |", key, key, key)
			}
			p(" failed | GC pauses | score | |\n|---:|---|")
			for range sw.Scenarios {
				p("---:|---:|---:|")
			}
			p("---:|---:|---:|---|\n")
			for j, pt := range st.Points {
				p("| %d | %s |", pt.Value, pt.Collector.Name)
				for _, key := range sw.Scenarios {
					s := pt.Samples[key]
					p(" %.0f | %.2f | %.2f |", s.RequestsPerSecond, s.P99, s.P999)
				}
				chosen := ""
				if j == st.Best {
					chosen = "**chosen**"
				}
				gc := pt.gc()
				p(" %d | %d, %.1f ms | %.0f | %s |\n", pt.failed(), gc.Count, gc.PauseMs, pt.Score, chosen)
			}
			p("\n%s: %s.\n\n", frontName(sw.Front), st.Reason)
		}
		p("%s gets **%s** and **%s** (`%s`).\n\n", frontName(sw.Front), settingName(sw.Front, sw.Chosen), sw.Collector.Name, sw.Collector.Flags)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
