package comparison

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// server is one running contender: a process pinned to the server CPU.
type server struct {
	contender
	*Process
	env     []string      // what start added to the environment
	gcLog   string        // a JVM's -Xlog:gc file; "" for Go
	startup time.Duration // from process start to its first bid
	peak    int64         // the largest VmHWM read before a reset
}

// start launches c pinned to cpu and waits for its first bid on post.data,
// timing it. Its output goes to logDir/NAME.log.
func start(ctx context.Context, cfg *Config, c contender, post []byte, gcLog string) (*server, error) {
	argv, env := c.argv(cfg, gcLog)
	logPath := filepath.Join(cfg.OutDir, c.name+".log")
	if gcLog != "" {
		_ = os.Remove(gcLog) // the JVM appends to rotated files; start afresh
	}
	began := time.Now()
	p, err := StartPinned(c.name, strconv.Itoa(cfg.ServerCPU), argv, env, logPath)
	if err != nil {
		return nil, err
	}
	s := &server{contender: c, Process: p, env: env, gcLog: gcLog}

	deadline := time.Now().Add(3 * time.Minute) // the first Java start compiles the baseline
	for {
		if ok, _ := s.bidOnce(ctx, post); ok {
			s.startup = time.Since(began)
			return s, nil
		}
		select {
		case <-s.Done():
			return nil, fmt.Errorf("%s exited before its first bid (%v); see %s", c.name, s.Err(), logPath)
		case <-ctx.Done():
			_ = s.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.Stop()
			return nil, fmt.Errorf("%s gave no bid within 3 minutes; see %s", c.name, logPath)
		}
	}
}

// command is how s was started, for the report.
func (s *server) command() (argv, env string) {
	return strings.Join(s.Args(), " "), strings.Join(s.env, " ")
}

var quickClient = &http.Client{Timeout: 2 * time.Second}

func (s *server) url() string { return "http://" + s.addr + "/dsp/recbid" }

func (s *server) bidOnce(ctx context.Context, body []byte) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url(), bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := quickClient.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// resetPeak starts a new peak-RSS window: it keeps the peak so far and
// asks the kernel to reset VmHWM to the current RSS (clear_refs 5). It
// reports whether the reset took.
func (s *server) resetPeak() bool {
	if hwm, err := s.StatusBytes("VmHWM"); err == nil {
		s.peak = max(s.peak, hwm)
	}
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.PID()), []byte("5"), 0) == nil
}

// windowPeak is the peak RSS since resetPeak (or, when the reset failed,
// the RSS now).
func (s *server) windowPeak(reset bool) int64 {
	field := "VmHWM"
	if !reset {
		field = "VmRSS"
	}
	v, _ := s.StatusBytes(field)
	return v
}

// peakRSS is the process's peak resident set over its whole life.
func (s *server) peakRSS() int64 {
	hwm, _ := s.StatusBytes("VmHWM")
	return max(s.peak, hwm)
}

func (s *server) threads() int {
	v, _ := s.Status("Threads")
	n, _ := strconv.Atoi(v)
	return n
}

// gcStats returns the collections so far: a JVM's from its -Xlog:gc file,
// dspd's from its admin listener's metrics.
func (s *server) gcStats(ctx context.Context) (GCStats, error) {
	if s.lang == "java" {
		if s.gcLog == "" {
			return GCStats{}, errors.New("no GC log")
		}
		b, err := os.ReadFile(s.gcLog)
		if err != nil {
			return GCStats{}, err
		}
		return parseJavaGCLog(string(b)), nil
	}
	text, err := s.metrics(ctx)
	if err != nil {
		return GCStats{}, err
	}
	return parseGoGCMetrics(text)
}

// metrics fetches dspd's Prometheus text from its admin listener.
func (s *server) metrics(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.admin+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := quickClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("metrics: %s", resp.Status)
	}
	return b.String(), nil
}

// parseJavaGCLog counts the pauses of a unified JVM log of the gc tag
// (-Xlog:gc), and of gc+phases, where ZGC logs its pauses (gcLogTags),
// lines such as
//
//	[3.021s][info][gc] GC(4) Pause Young (Allocation Failure) 275M->9M(981M) 2.512ms
//	[3.021s][info][gc] GC(4) Pause Init Mark (unload classes) 0.191ms
//	[3.021s][info][gc,phases] GC(4) Pause Mark Start 0.012ms
func parseJavaGCLog(log string) GCStats {
	var st GCStats
	for _, line := range strings.Split(log, "\n") {
		tagged := strings.Contains(line, "[gc]") || strings.Contains(line, "[gc,phases]")
		if !tagged || !strings.Contains(line, " Pause ") {
			continue
		}
		f := strings.Fields(line)
		ms, ok := strings.CutSuffix(f[len(f)-1], "ms")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(ms, 64)
		if err != nil {
			continue
		}
		st.Count++
		st.PauseMs += v
	}
	return st
}

// javaGCName reads the collector a JVM names in its log ("Using Parallel").
func javaGCName(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if _, after, ok := strings.Cut(line, "[gc] Using "); ok {
			return strings.TrimSpace(after)
		}
	}
	return ""
}

// parseGoGCMetrics reads the count and sum of go_gc_duration_seconds, the
// stop-the-world pauses of Go's collections.
func parseGoGCMetrics(text string) (GCStats, error) {
	var st GCStats
	var found int
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "go_gc_duration_seconds_count":
			st.Count = int64(v)
			found++
		case "go_gc_duration_seconds_sum":
			st.PauseMs = v * 1000
			found++
		}
	}
	if found != 2 {
		return GCStats{}, errors.New("no go_gc_duration_seconds in the metrics")
	}
	return st, nil
}

// metricValue reads an unlabelled gauge from Prometheus text.
func metricValue(text, name string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// cpuReader is what settle watches: a process's CPU time so far.
type cpuReader interface {
	CPUTime() (time.Duration, error)
}

// Quiet: a server is quiet when it used at most quietShare of a CPU over a
// window of quietWindow; settle waits at most quietLimit for every server
// to be.
const (
	quietWindow = 250 * time.Millisecond
	quietShare  = 0.1
	quietLimit  = 30 * time.Second
)

// settle waits until every process on the server CPU is quiet, so that no
// measurement shares the CPU with another server's leftover work: a JVM
// goes on compiling for seconds after a warm-up or a new kind of load ends
// (its JIT's queue), and would take that CPU from whichever server is
// measured next. It returns how long it waited; after limit it gives up
// and measures anyway. wait blocks for a window (time.Sleep in the runner,
// a fake clock in tests).
func settle(ctx context.Context, procs []cpuReader, window, limit time.Duration, share float64,
	wait func(context.Context, time.Duration) error) (time.Duration, error) {
	var waited time.Duration
	before := make([]time.Duration, len(procs))
	read := func(into []time.Duration) error {
		for i, p := range procs {
			t, err := p.CPUTime()
			if err != nil {
				return err
			}
			into[i] = t
		}
		return nil
	}
	if err := read(before); err != nil {
		return 0, err
	}
	after := make([]time.Duration, len(procs))
	for waited < limit {
		if err := wait(ctx, window); err != nil {
			return waited, err
		}
		waited += window
		if err := read(after); err != nil {
			return waited, err
		}
		busy := false
		for i := range procs {
			if float64(after[i]-before[i]) > share*float64(window) {
				busy = true
			}
		}
		if !busy {
			return waited, nil
		}
		copy(before, after)
	}
	return waited, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// settleAll waits for every server to be quiet, see settle.
func settleAll(ctx context.Context, servers []*server) (time.Duration, error) {
	procs := make([]cpuReader, len(servers))
	for i, s := range servers {
		procs[i] = s
	}
	return settle(ctx, procs, quietWindow, quietLimit, quietShare, sleepCtx)
}
