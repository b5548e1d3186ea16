package overload

import (
	"fmt"
	"io"
)

// WriteTable writes the rows as the Markdown table of docs/operations.md.
func WriteTable(w io.Writer, rows []Row, cfg Config) error {
	_ = cfg.defaults()
	if _, err := fmt.Fprintf(w, "tmax %s, %d connections, overload %s then half capacity %s; recovery resolution %s\n\n",
		cfg.Tmax, cfg.Conns, cfg.Overload, cfg.After, cfg.Slice); err != nil {
		return err
	}
	fmt.Fprintln(w, "| front end | capacity req/s | offered | goodput within tmax /s | shed /s | not sent /s | p99 ms | 5xx | RSS at capacity | RSS at end | recovery |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		rec := "never"
		if r.Recovery >= 0 {
			rec = "≤ " + (r.Recovery + cfg.Slice).String()
		}
		_, err := fmt.Fprintf(w, "| %s | %.0f | %.0f (%.1f×) | %.0f (%.2f× capacity) | %.0f | %.0f | %.1f | %d | %s | %s (%.2f×) | %s |\n",
			r.FrontEnd, r.Capacity, r.Offered, r.Factor, r.Goodput, r.Goodput/r.Capacity, r.Shed, r.Dropped, r.P99Ms,
			r.Errors5xx, mib(r.RSSCapacity), mib(r.RSSEnd), float64(r.RSSEnd)/float64(r.RSSCapacity), rec)
		if err != nil {
			return err
		}
	}
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
