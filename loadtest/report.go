package loadtest

import (
	"fmt"
	"io"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// WriteReport writes res in ab's layout, section for section, with
// fractional milliseconds, the 99.9th percentile, the open-loop rates and
// the status codes added.
func WriteReport(w io.Writer, res *Result) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Server Software:        %s\n", res.ServerSoftware)
	p("Server Hostname:        %s\n", res.Host)
	p("Server Port:            %s\n", res.Port)
	p("\n")
	p("Document Path:          %s\n", res.Path)
	p("Document Length:        %d bytes\n", res.DocumentLength)
	p("\n")
	p("Concurrency Level:      %d\n", res.Concurrency)
	p("Time taken for tests:   %.3f seconds\n", res.DurationSeconds)
	p("Complete requests:      %d\n", res.Complete)
	p("Failed requests:        %d\n", res.Failed)
	e := res.Errors
	if res.Failed > 0 {
		p("   (Connect: %d, Receive: %d, Length: %d, Exceptions: %d)\n",
			e["connect"], e["receive"]+e["timeout"], e["length"], e["exceptions"])
	}
	if e["write"] > 0 {
		p("Write errors:           %d\n", e["write"])
	}
	if e["timeout"] > 0 {
		p("Timed out:              %d\n", e["timeout"])
	}
	if res.Non2xx > 0 {
		p("Non-2xx responses:      %d\n", res.Non2xx)
	}
	if res.KeepAlive {
		p("Keep-Alive requests:    %d\n", res.KeepAliveRequests)
	}
	p("Total transferred:      %d bytes\n", res.Bytes.Received)
	if res.Bytes.BodySent > 0 {
		p("Total body sent:        %d\n", res.Bytes.BodySent)
	}
	p("HTML transferred:       %d bytes\n", res.Bytes.Body)
	p("Requests per second:    %.2f [#/sec] (mean)\n", res.RequestsPerSecond)
	if res.Complete > 0 {
		per := res.DurationSeconds * 1000 / float64(res.Complete)
		p("Time per request:       %.3f [ms] (mean)\n", per*float64(res.Concurrency))
		p("Time per request:       %.3f [ms] (mean, across all concurrent requests)\n", per)
	}
	if res.DurationSeconds > 0 {
		recv := float64(res.Bytes.Received) / 1024 / res.DurationSeconds
		sent := float64(res.Bytes.Sent) / 1024 / res.DurationSeconds
		p("Transfer rate:          %.2f [Kbytes/sec] received\n", recv)
		if res.Bytes.BodySent > 0 {
			p("                        %.2f kb/s sent\n", sent)
			p("                        %.2f kb/s total\n", recv+sent)
		}
	}
	if res.OpenLoop {
		if len(res.Schedule) == 0 {
			p("Target rate:            %.2f [#/sec]\n", res.TargetRate)
		}
		for i, st := range res.Schedule {
			p("Target rate, step %-4d %.2f [#/sec] for %s\n", i+1, st.Rate, st.Duration)
		}
		p("Achieved rate:          %.2f [#/sec]\n", res.RequestsPerSecond)
		p("Latency counted from:   each request's scheduled send time (coordinated omission corrected)\n")
	}
	if res.hist.total != nil && res.hist.total.TotalCount() > 0 {
		p("\nConnection Times (ms)\n")
		p("              min   mean[+/-sd]  median     max\n")
		row := func(name string, h *hdrhistogram.Histogram) {
			s := summarize(h)
			p("%-11s %7.2f %7.2f %6.2f %7.2f %8.2f\n", name+":", s.Min, s.Mean, s.StdDev, s.P50, s.Max)
		}
		row("Connect", res.hist.connect)
		row("Processing", res.hist.processing)
		row("Waiting", res.hist.waiting)
		row("Total", res.hist.total)

		l := res.Latency
		p("\nPercentage of the requests served within a certain time (ms)\n")
		for _, q := range []struct {
			label string
			v     float64
		}{{"50%", l.P50}, {"66%", l.P66}, {"75%", l.P75}, {"80%", l.P80}, {"90%", l.P90},
			{"95%", l.P95}, {"98%", l.P98}, {"99%", l.P99}, {"99.9%", l.P999}} {
			p(" %5s %9.2f\n", q.label, q.v)
		}
		p("  100%% %9.2f (longest request)\n", l.Max)
	}
	if len(res.StatusCodes) > 0 {
		p("\nStatus codes:\n")
		for _, k := range res.sortedStatuses() {
			p("  %s  %d\n", k, res.StatusCodes[k])
		}
	}
	if res.DeadlineMs > 0 {
		var onTime int64
		for _, n := range res.OnTime {
			onTime += n
		}
		p("\nDeadline (-tmax):       %.2f ms\n", res.DeadlineMs)
		p("Dropped unsent:         %d (no connection free within the deadline)\n", res.Dropped)
		p("Answered on time:       %d", onTime)
		if res.DurationSeconds > 0 {
			p(" (%.2f [#/sec])", float64(onTime)/res.DurationSeconds)
		}
		p("\n")
		for _, k := range res.sortedStatuses() {
			if n, ok := res.OnTime[k]; ok {
				p("  %s  %d\n", k, n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
