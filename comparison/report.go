package comparison

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// WriteFiles writes report.json, the charts and report.md into the output
// directory and returns their paths.
func WriteFiles(dir string, rep *Report) ([]string, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	charts, err := writeCharts(dir, rep)
	if err != nil {
		return nil, fmt.Errorf("charts: %w", err)
	}
	var md strings.Builder
	writeMarkdown(&md, rep, charts)
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644); err != nil {
		return nil, err
	}
	out := []string{filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json")}
	for _, c := range charts {
		out = append(out, filepath.Join(dir, c.file))
	}
	return out, nil
}

// group is one block of rows of a scenario: a pair (its Go and Java
// servers, then their ratios) or the servers in no pair.
type group struct {
	pair    *Pair
	servers []ServerInfo
}

// groups orders the report's servers by pair, Go first, then the servers
// in no pair.
func groups(rep *Report) []group {
	byName := map[string]ServerInfo{}
	for _, s := range rep.Servers {
		byName[s.Name] = s
	}
	var out []group
	for i := range rep.Pairs {
		p := &rep.Pairs[i]
		g := group{pair: p}
		for _, name := range []string{p.Go, p.Java} {
			if s, ok := byName[name]; ok {
				g.servers = append(g.servers, s)
			}
		}
		out = append(out, g)
	}
	var extra group
	for _, s := range rep.Servers {
		if s.Pair == "" {
			extra.servers = append(extra.servers, s)
		}
	}
	if len(extra.servers) > 0 {
		out = append(out, extra)
	}
	return out
}

func (g group) name() string {
	if g.pair == nil {
		return "(no pair)"
	}
	return g.pair.Key
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// WriteTable prints the side-by-side table for the terminal.
func WriteTable(out io.Writer, rep *Report) {
	var b strings.Builder
	writeTable(&b, rep)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if strings.HasSuffix(line, "\n") {
			trimmed += "\n"
		}
		io.WriteString(out, trimmed)
	}
}

func writeTable(w io.Writer, rep *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	writeSweepTable(w, rep)
	row := "%-10s %-15s %9s %10s %8s %8s %9s %8s %6s %8s %7s\n"
	p(row, "", "", "req/s", "CPU µs/req", "p50 ms", "p99 ms", "p99.9 ms", "RSS MB", "GCs", "GC ms", "failed")
	for _, sc := range rep.Scenarios {
		p("(%s) %s\n", sc.Key, sc.Description)
		for _, g := range groups(rep) {
			for i, s := range g.servers {
				series := sc.Servers[s.Name]
				if series == nil {
					continue
				}
				first := ""
				if i == 0 {
					first = g.name()
				}
				x := series.Median
				p(row, first, s.Label, f0(x.RequestsPerSecond), f1(x.CPUMicrosPerReq), f2(x.P50), f2(x.P99), f2(x.P999),
					f1(mb(x.RSSBytes)), strconv.FormatInt(x.GCCount, 10), f1(x.GCPauseMs), strconv.FormatInt(x.Failed, 10))
			}
			if g.pair != nil {
				if r := sc.Ratios[g.pair.Key]; r != nil {
					p(row, "", "Go / Java", fx(r["requests_per_second"]), fx(r["cpu_us_per_request"]), fx(r["p50"]), fx(r["p99"]),
						fx(r["p99_9"]), fx(r["rss"]), "", "", "")
				}
			}
		}
	}
	p("(2016) %s\n", rep.Reference.Setup)
	p(row, "", "Go 1.7 naive", f0(rep.Reference.GoRPS), "", "", "", "", "", "", "", "")
	p(row, "", "Tomcat 7", f0(rep.Reference.JavaRPS), "", "", "", "", "", "", "", "")
	p(row, "", "Go / Java", fx(rep.Reference.GoRPS/rep.Reference.JavaRPS), "", "", "", "", "", "", "", "")
	p("\n")
	srow := "%-15s %-15s %9s %11s %8s %7s %11s  %s\n"
	p(srow, "server", "setting", "start ms", "peak RSS MB", "threads", "GCs", "GC pause ms", "runtime")
	for _, s := range rep.Servers {
		setting := s.Setting
		if setting == "" {
			setting = "-"
		}
		p(srow, s.Label, setting, f0(s.StartupMs), f1(mb(s.PeakRSSBytes)), strconv.Itoa(s.Threads), strconv.FormatInt(s.GC.Count, 10),
			f1(s.GC.PauseMs), runtimeSummary(s))
	}
}

func frontName(front string) string {
	switch front {
	case tomcat:
		return "Tomcat"
	case netty:
		return "Netty"
	}
	return front
}

func f0(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
func fx(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "x" }

// thousands writes a whole number with commas: 36504 → 36,504.
func thousands(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// runtimeSummary is one line on a server's runtime for the terminal.
func runtimeSummary(s ServerInfo) string {
	rt := s.Runtime
	if s.Lang == "go" {
		return fmt.Sprintf("%s, GOMAXPROCS %d, PGO %s, %s", rt.Version, rt.GOMAXPROCS, rt.PGO, rt.Heap)
	}
	parts := []string{"JVM " + rt.Version, rt.Heap, rt.GC}
	if s.Front == netty && rt.Transport != "" {
		parts = append(parts, rt.Transport)
	}
	return strings.Join(parts, ", ")
}

var (
	classpathRE = regexp.MustCompile(`-cp \S+`)
	procsRE     = regexp.MustCompile(`-XX:ActiveProcessorCount=\d+`)
)

func writeMarkdown(w *strings.Builder, rep *Report, charts []chartFile) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	byName := map[string]ServerInfo{}
	for _, s := range rep.Servers {
		byName[s.Name] = s
	}
	p("# Go (dspd) vs Java: the 2016 experiment, re-run with two pairs\n\n")
	p("Run %s, took %s. Every figure is the median of %s alternating rounds (every server in turn, the order rotating each round); report.json holds every round.\n\n",
		rep.Started.Format("2006-01-02 15:04 MST"), rep.Took, rep.Settings["ROUNDS"])

	p("## The two pairs\n\n")
	for _, g := range groups(rep) {
		var names []string
		for _, s := range g.servers {
			names = append(names, describeServer(s))
		}
		if g.pair == nil {
			p("- **in no pair**: %s.\n", strings.Join(names, "; "))
			continue
		}
		p("- **%s**: %s.\n", g.pair.Key, strings.Join(names, " against "))
	}
	p("\nEvery server runs the same contract on the same campaigns, pinned to CPU %s with one CPU's worth of runtime each, the same memory bound (%s) and the same bid-store cap; the load driver runs on the other CPU. Before anything was measured, each pair's two servers answered the corpus's first requests alike (parity: %s).\n\n",
		rep.Settings["server_cpu"], rep.Settings["heap"], rep.Settings["parity_sample"])

	p("## Go / Java, by pair\n\n")
	p("| scenario | pair | Go req/s | Java req/s | Go / Java | CPU µs/req Go / Java | p99 ms Go / Java | p99.9 ms Go / Java | RSS MB Go / Java |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, sc := range rep.Scenarios {
		for i, pr := range rep.Pairs {
			g, j := sc.Servers[pr.Go], sc.Servers[pr.Java]
			if g == nil || j == nil {
				continue
			}
			name := ""
			if i == 0 {
				name = "(" + sc.Key + ") " + sc.Short
			}
			pair := pr.Key
			if rate := sc.TargetRates[pr.Key]; rate > 0 {
				pair += " at " + thousands(rate) + " req/s"
			}
			r := sc.Ratios[pr.Key]
			a, b := g.Median, j.Median
			p("| %s | %s | %s | %s | **%.2f×** | %.1f / %.1f (%.2f×) | %.2f / %.2f (%.2f×) | %.2f / %.2f (%.2f×) | %.0f / %.0f (%.2f×) |\n",
				name, pair, thousands(a.RequestsPerSecond), thousands(b.RequestsPerSecond), r["requests_per_second"],
				a.CPUMicrosPerReq, b.CPUMicrosPerReq, r["cpu_us_per_request"], a.P99, b.P99, r["p99"],
				a.P999, b.P999, r["p99_9"], mb(a.RSSBytes), mb(b.RSSBytes), r["rss"])
		}
	}
	p("| (2016 reference) | Go 1.7 naive vs Tomcat 7 | %s | %s | %.2f× | | | | |\n\n",
		thousands(rep.Reference.GoRPS), thousands(rep.Reference.JavaRPS), rep.Reference.GoRPS/rep.Reference.JavaRPS)
	if d := rep.scenario("d"); d != nil {
		var basis []string
		for _, pr := range rep.Pairs {
			if b := d.RateBasis[pr.Key]; b != "" {
				basis = append(basis, fmt.Sprintf("%s %s req/s, %s", pr.Key, thousands(d.TargetRates[pr.Key]), b))
			}
		}
		p("In (d) both servers of a pair get the same offered rate (%s): compare their latencies there, not their req/s.\n\n", strings.Join(basis, "; "))
	}

	p("## All results\n\n")
	p("| scenario | pair | server | req/s | CPU µs/req | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | RSS MB | GCs | GC pause ms | failed |\n")
	p("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, sc := range rep.Scenarios {
		firstRow := true
		for _, g := range groups(rep) {
			for i, s := range g.servers {
				series := sc.Servers[s.Name]
				if series == nil {
					continue
				}
				name, pair := "", ""
				if firstRow {
					name = "(" + sc.Key + ") " + sc.Description
					firstRow = false
				}
				if i == 0 {
					pair = g.name()
				}
				x := series.Median
				p("| %s | %s | %s | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %d | %.1f | %d |\n", name, pair, s.legend(),
					x.RequestsPerSecond, x.CPUMicrosPerReq, x.P50, x.P90, x.P99, x.P999, x.Max, mb(x.RSSBytes), x.GCCount, x.GCPauseMs, x.Failed)
			}
			if g.pair != nil {
				if r := sc.Ratios[g.pair.Key]; r != nil {
					p("| | | **Go / Java** | **%.2f×** | %.2f× | %.2f× | | %.2f× | %.2f× | | %.2f× | | | |\n", r["requests_per_second"],
						r["cpu_us_per_request"], r["p50"], r["p99"], r["p99_9"], r["rss"])
				}
			}
		}
	}
	p("\n")
	for _, c := range charts {
		p("![%s](%s)\n\n", c.alt, c.file)
	}

	writeSweepMarkdown(w, rep)

	p("## Runtimes\n\n")
	serverColumns(w, rep.Servers, " ", "---|")
	rtRow := func(title string, f func(ServerInfo) string) {
		p("| %s |", title)
		for _, s := range rep.Servers {
			p(" %s |", strings.ReplaceAll(f(s), "|", "\\|"))
		}
		p("\n")
	}
	rtRow("pair", func(s ServerInfo) string { return orDash(s.Pair) })
	rtRow("version", func(s ServerInfo) string { return orDash(s.Runtime.Version) })
	rtRow("HTTP server", func(s ServerInfo) string { return orDash(s.Runtime.Transport) })
	rtRow("threads setting", func(s ServerInfo) string {
		if s.Setting == "" {
			return "-"
		}
		return s.Setting + ", from " + s.SettingFrom
	})
	rtRow("CPUs", func(s ServerInfo) string {
		if s.Lang == "go" {
			return fmt.Sprintf("GOMAXPROCS %d", s.Runtime.GOMAXPROCS)
		}
		return orDash(procsRE.FindString(s.Runtime.CommandLine))
	})
	rtRow("heap", func(s ServerInfo) string { return orDash(s.Runtime.Heap) })
	rtRow("GC", func(s ServerInfo) string { return orDash(s.Runtime.GC) })
	rtRow("collector, from", func(s ServerInfo) string {
		if s.Collector == nil {
			return "-"
		}
		return s.Collector.Name + " (" + s.Collector.Flags + "), from " + s.CollectorFrom
	})
	rtRow("GC flags in force", func(s ServerInfo) string { return orDash(s.Runtime.GCFlags) })
	rtRow("PGO", func(s ServerInfo) string { return orDash(s.Runtime.PGO) })
	rtRow("GCs, pause (whole life)", func(s ServerInfo) string { return fmt.Sprintf("%d, %.1f ms", s.GC.Count, s.GC.PauseMs) })
	rtRow("threads at the end", func(s ServerInfo) string { return strconv.Itoa(s.Threads) })
	rtRow("start to first bid", func(s ServerInfo) string { return fmt.Sprintf("%.0f ms", s.StartupMs) })
	rtRow("peak RSS", func(s ServerInfo) string { return fmt.Sprintf("%.1f MB", mb(s.PeakRSSBytes)) })
	rtRow("stopped cleanly", func(s ServerInfo) string { return strconv.FormatBool(s.StoppedCleanly) })
	p("\n")
	for _, s := range rep.Servers {
		if s.Lang != "java" {
			continue
		}
		p("**%s**\n\n", s.Label)
		if s.Runtime.CommandLine != "" {
			p("- JVM command line (classpath elided): `%s`\n", classpathRE.ReplaceAllString(s.Runtime.CommandLine, "-cp …"))
		}
		if s.Collector != nil {
			p("- collector: %s, `%s`, from %s; in force, as its GC log names it: %s\n", s.Collector.Name, s.Collector.Flags, s.CollectorFrom, orDash(s.Runtime.GC))
		}
		if s.Runtime.GCFlags != "" {
			p("- the collector's flags in force: `%s`\n", s.Runtime.GCFlags)
		}
		if s.Runtime.JVMFlags != "" {
			p("- flags in force (`jcmd PID VM.flags`, ergonomic ones included): `%s`\n", s.Runtime.JVMFlags)
		}
		if s.StartupLine != "" {
			p("- start-up line: `%s`\n", s.StartupLine)
		}
		if s.Runtime.GCLog != "" {
			p("- GC log: `%s`\n", s.Runtime.GCLog)
		}
		p("\n")
	}

	p("## JIT warm-up\n\n")
	p("Warm-up, unmeasured, %s. The JVMs' JIT compilers (tiered, C1 then C2) compile the hot paths then, the connection paths of (a) included; Go, compiled ahead of time, only fills its pools and caches. ", rep.Settings["warmup"])
	if len(rep.Warmth) == 0 {
		p("With a single round there is no later round to compare round 1 with; ROUNDS=3 shows it.\n\n")
	} else {
		p("Round 1's req/s over the median of the later rounds (under 1: round 1 was slower):\n\n")
		serverColumns(w, rep.Servers, " scenario ", "---:|")
		byKey := map[string]map[string]Warmth{}
		for _, wm := range rep.Warmth {
			if byKey[wm.Scenario] == nil {
				byKey[wm.Scenario] = map[string]Warmth{}
			}
			byKey[wm.Scenario][wm.Server] = wm
		}
		for _, sc := range rep.Scenarios {
			p("| (%s) %s |", sc.Key, sc.Short)
			for _, s := range rep.Servers {
				if wm, ok := byKey[sc.Key][s.Name]; ok {
					p(" %.2f |", wm.Round1OverLater)
				} else {
					p(" |")
				}
			}
			p("\n")
		}
		p("\n")
	}

	p("## How to read it\n\n")
	p("- **req/s** is what each server sustained on one core; in (d) both servers of a pair get the same offered rate, so compare latencies there.\n")
	p("- **Latencies** come from HDR histograms; in the open loop (d) they count from each request's scheduled send time, so a server that falls behind shows its queue. The tables give medians of the rounds' percentiles; the latency chart puts all rounds together, so one bad round shows in its tail.\n")
	p("- **CPU µs/req** is the efficiency figure: server CPU time per answered request, independent of how busy the load driver was.\n")
	p("- **Ratios** are Go over Java within a pair: above 1 is Go ahead for req/s, behind for CPU, latency and RSS.\n")
	for _, n := range rep.Notes {
		p("- %s\n", n)
	}
	p("\n## Servers\n\n")
	for _, s := range rep.Servers {
		p("- **%s**: `%s` with `%s`\n", s.Label, classpathRE.ReplaceAllString(s.Command, "-cp …"), s.Env)
	}
	p("\n## Machine and settings\n\n| | |\n|---|---|\n")
	for _, m := range []map[string]string{rep.Machine, rep.Settings} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p("| %s | %s |\n", k, strings.ReplaceAll(m[k], "|", "\\|"))
		}
	}
}

// describeServer names a server for the pairs section.
func describeServer(s ServerInfo) string {
	switch s.Front {
	case "chi":
		if s.Pair == "" {
			return fmt.Sprintf("%s (`dspd -http chi` built with -pgo=off)", s.Label)
		}
		return fmt.Sprintf("%s (`dspd -http chi`: chi on net/http)", s.Label)
	case "fasthttp":
		return fmt.Sprintf("%s (`dspd -http fasthttp`: valyala/fasthttp)", s.Label)
	case tomcat:
		return fmt.Sprintf("%s (`java-baseline/run.sh -http tomcat`: embedded Tomcat 10.1, servlets, %s%s)", s.Label, s.Setting, collectorSuffix(s))
	case netty:
		return fmt.Sprintf("%s (`java-baseline/run.sh -http netty`: Netty 4.1, %s%s)", s.Label, s.Setting, collectorSuffix(s))
	}
	return s.Label
}

// collectorSuffix names a JVM's collector after its other settings.
func collectorSuffix(s ServerInfo) string {
	if s.Collector == nil {
		return ""
	}
	return ", " + s.Collector.Name + " collector"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// serverColumns writes a Markdown table's header with a column per server
// after a first one titled first, each server's column aligned by align.
func serverColumns(w io.Writer, servers []ServerInfo, first, align string) {
	fmt.Fprintf(w, "|%s|", first)
	for _, s := range servers {
		fmt.Fprintf(w, " %s |", s.Label)
	}
	fmt.Fprint(w, "\n|---|")
	for range servers {
		fmt.Fprint(w, align)
	}
	fmt.Fprint(w, "\n")
}
