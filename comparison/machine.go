package comparison

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// machine describes where the comparison ran.
func machine() map[string]string {
	m := map[string]string{
		"go":      runtime.Version(),
		"os_arch": runtime.GOOS + "/" + runtime.GOARCH,
		"cpus":    fmt.Sprint(runtime.NumCPU()),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m["cpu"] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m["kernel"] = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if line, _, ok := strings.Cut(string(b), "\n"); ok {
			m["memory"] = strings.Join(strings.Fields(strings.TrimPrefix(line, "MemTotal:")), " ")
		}
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				m["load_driver_cpus"] = strings.TrimSpace(v)
			}
		}
	}
	if out, err := exec.Command("java", "-version").CombinedOutput(); err == nil {
		first, _, _ := strings.Cut(string(out), "\n")
		m["java"] = strings.TrimSpace(first)
	}
	for key, glob := range map[string]string{"tomcat": "/usr/share/java/tomcat10-embed-core-*.jar", "jackson": "/usr/share/java/jackson-databind-*.jar"} {
		if files, _ := filepath.Glob(glob); len(files) > 0 {
			m[key] = files[0]
		}
	}
	return m
}

func settings(c *Config) map[string]string {
	return map[string]string{
		"N":              fmt.Sprint(c.Requests),
		"DURATION":       c.Duration.String(),
		"ROUNDS":         fmt.Sprint(c.Rounds),
		"warmup":         c.Warmup.String() + " per server, keep-alive, 100 connections, corpus",
		"parity_sample":  fmt.Sprint(c.ParityN),
		"rate_factor":    fmt.Sprint(c.RateFactor),
		"server_cpu":     fmt.Sprint(c.ServerCPU),
		"heap":           c.Heap + " (Java -Xms=-Xmx; Go GOMEMLIMIT " + goMemLimit(c.Heap) + ")",
		"cpu_count":      "1 each (GOMAXPROCS=1; -XX:ActiveProcessorCount=1)",
		"max_bids":       fmt.Sprint(c.MaxBids) + " bid records at most, both servers",
		"bid_ttl":        c.BidTTL + " (both servers: a run's records within it fit max_bids, so neither refuses bids for capacity)",
		"clock_start":    c.ClockStart + " (both servers' clocks start there, inside testdata's week)",
		"campaigns":      c.Campaigns,
		"load_driver":    "loadgen's engine (package loadtest), in this process",
		"latency_source": "HDR histograms, 1 µs–1 h, 3 significant digits",
	}
}

func notes(c *Config, r *Report) []string {
	n := []string{
		"Ratios are Go (PGO build) over Java, medians of alternating rounds; absolute figures drift on this shared machine, ratios taken in one run hold.",
		"CPU µs/request is the server process's user+system CPU time (from /proc, all threads: GC and JIT included) over the requests it answered in the round.",
		"Peak RSS is the process's VmHWM at the end of the run.",
		"failed counts loadgen's failures as ab does; in the scenarios that replay post.data (which always bids) a Length failure is a no bid instead of a bid, in practice a timeout: the decision came later than tmax (120 ms) minus the 5 ms margin. report.json gives every round's status codes and errors by kind.",
		"Both servers keep their books in memory (dspd runs with -state memory; the Java baseline has no other state): the comparison measures the two stacks, not a disk. make rate measures dspd's default disk state against memory.",
		"The 2016 figures come from a different machine (i5, 4 cores) and naive ports; they are a labelled reference, not a ratio.",
		"Every campaign of the comparison is pacing asap (testdata's campaigns name no pacing): the Java baseline does not pace (it reads pacing even as asap), so both servers make the same decisions; dspd's even pacing is measured by make pacing-sim.",
	}
	if c.DspdNoPGOBin == "" {
		n = append(n, "No cmd/dspd/default.pgo was present: the Go build ran without profile-guided optimisation only.")
	}
	return n
}
