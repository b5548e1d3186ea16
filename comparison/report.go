package comparison

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
		out = append(out, filepath.Join(dir, c))
	}
	return out, nil
}

// WriteTable prints the side-by-side table for the terminal.
func WriteTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "%-4s %-20s %12s %9s %9s %9s %9s %10s %7s\n", "", "server", "req/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "CPU µs/req", "failed")
	for _, sc := range rep.Scenarios {
		fmt.Fprintf(w, "(%s) %s\n", sc.Key, sc.Description)
		for _, s := range rep.Servers {
			m := sc.Servers[s.Name]
			if m == nil {
				continue
			}
			x := m.Median
			fmt.Fprintf(w, "%-4s %-20s %12.0f %9.2f %9.2f %9.2f %9.2f %10.1f %7d\n", "", s.Label, x.RequestsPerSecond, x.P50, x.P90, x.P99, x.P999, x.CPUMicrosPerReq, x.Failed)
		}
		r := sc.GoOverJava
		fmt.Fprintf(w, "%-4s %-20s %11.2fx %8.2fx %9s %8.2fx %8.2fx %9.2fx\n", "", "Go / Java", r["requests_per_second"], r["p50"], "", r["p99"], r["p99_9"], r["cpu_us_per_request"])
	}
	fmt.Fprintf(w, "(2016) %s\n", rep.Reference.Setup)
	fmt.Fprintf(w, "%-4s %-20s %12.0f\n%-4s %-20s %12.0f\n%-4s %-20s %11.2fx\n", "", "Go 1.7 (naive)", rep.Reference.GoRPS,
		"", "Tomcat 7", rep.Reference.JavaRPS, "", "Go / Java", rep.Reference.GoRPS/rep.Reference.JavaRPS)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-20s %22s %14s\n", "server", "start to first bid ms", "peak RSS MB")
	for _, s := range rep.Servers {
		fmt.Fprintf(w, "%-20s %22.0f %14.1f\n", s.Label, s.StartupMs, float64(s.PeakRSSBytes)/(1<<20))
	}
}

func writeMarkdown(w *strings.Builder, rep *Report, charts []string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Go (dspd) vs Java (Tomcat + Jackson): the 2016 experiment, re-run\n\n")
	p("Run %s, took %s. Every figure is the median of %s alternating rounds; report.json holds every round.\n\n",
		rep.Started.Format("2006-01-02 15:04 MST"), rep.Took, rep.Settings["ROUNDS"])
	p("## Results\n\n")
	p("| scenario | server | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | CPU µs/req | failed |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, sc := range rep.Scenarios {
		for i, s := range rep.Servers {
			m := sc.Servers[s.Name]
			if m == nil {
				continue
			}
			name := ""
			if i == 0 {
				name = "(" + sc.Key + ") " + sc.Description
			}
			x := m.Median
			p("| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %d |\n", name, s.Label, x.RequestsPerSecond,
				x.P50, x.P90, x.P99, x.P999, x.Max, x.CPUMicrosPerReq, x.Failed)
		}
		r := sc.GoOverJava
		p("| | **Go / Java** | **%.2f×** | %.2f× | | %.2f× | %.2f× | | %.2f× | |\n", r["requests_per_second"], r["p50"], r["p99"], r["p99_9"], r["cpu_us_per_request"])
	}
	p("| (2016 reference) %s | Go 1.7, naive port | %.0f | | | | | | | |\n", rep.Reference.Setup, rep.Reference.GoRPS)
	p("| | Tomcat 7 | %.0f | | | | | | | |\n", rep.Reference.JavaRPS)
	p("| | **Go / Java** | **%.2f×** | | | | | | | |\n\n", rep.Reference.GoRPS/rep.Reference.JavaRPS)

	p("| server | start to first bid | peak RSS | stopped cleanly |\n|---|---:|---:|---|\n")
	for _, s := range rep.Servers {
		p("| %s | %.0f ms | %.1f MB | %v |\n", s.Label, s.StartupMs, float64(s.PeakRSSBytes)/(1<<20), s.StoppedCleanly)
	}
	p("\n")
	for _, c := range charts {
		p("![%s](%s)\n\n", strings.TrimSuffix(c, ".svg"), c)
	}
	p("## How to read it\n\n")
	p("- **req/s** is what each server sustained; in (d) every server gets the same offered rate, so compare latencies there.\n")
	p("- **Latencies** come from HDR histograms; in the open loop (d) they count from each request's scheduled send time, so a server that falls behind shows its queue. The table gives medians of the rounds' percentiles; the latency chart puts all rounds together, so one bad round shows in its tail.\n")
	p("- **CPU µs/req** is the efficiency figure: server CPU time per answered request, independent of how busy the load driver was.\n")
	for _, n := range rep.Notes {
		p("- %s\n", n)
	}
	p("\n## Servers\n\n")
	for _, s := range rep.Servers {
		p("- **%s**: `%s` with `%s`\n", s.Label, s.Command, s.Env)
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
