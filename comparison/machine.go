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
	for key, glob := range map[string]string{"tomcat": "/usr/share/java/tomcat10-embed-core-*.jar", "jackson": "/usr/share/java/jackson-databind-*.jar",
		"netty": "/usr/share/java/netty-transport-[0-9]*.jar"} {
		if files, _ := filepath.Glob(glob); len(files) > 0 {
			m[key] = files[0]
		}
	}
	return m
}

func settings(c *Config) map[string]string {
	sweep := fmt.Sprintf("off: Tomcat %s, Netty %s, collector %s, as given", settingName(tomcat, c.MaxThreads), settingName(netty, c.EventLoops), c.Collector)
	if c.Sweep {
		sweep = fmt.Sprintf("on: Tomcat maxThreads %s, Netty event loops %s, collectors %s (those the JVM runs), on scenarios %s; in stages: the thread settings under %s, the collectors at the setting chosen, the thread settings again under the collector chosen when it is another; a fresh JVM per point, the points of a stage side by side, %s of warm-up each, then %s per scenario in %d alternating round(s)",
			joinInts(c.SweepThreads), joinInts(c.SweepLoops), strings.Join(c.SweepCollectors, ", "), strings.Join(c.SweepScenarios, ", "),
			c.SweepCollectors[0], c.SweepWarmup, c.SweepDuration, c.SweepRounds)
	}
	var ps []string
	for _, p := range pairs {
		ps = append(ps, p.Label)
	}
	return map[string]string{
		"N":              fmt.Sprint(c.Requests),
		"DURATION":       c.Duration.String(),
		"ROUNDS":         fmt.Sprint(c.Rounds),
		"pairs":          strings.Join(ps, "; "),
		"sweep":          sweep,
		"warmup":         fmt.Sprintf("per server before round 1: %s of post.data with a connection per request, then %s of the corpus with keep-alive, 100 connections each (the JIT's warm-up; the parity requests come before it)", c.Warmup/2, c.Warmup),
		"parity_sample":  fmt.Sprint(c.ParityN) + " requests, each pair's two servers",
		"rate_factor":    fmt.Sprint(c.RateFactor) + " of the slower server of each pair in (b)",
		"server_cpu":     fmt.Sprint(c.ServerCPU),
		"heap":           c.Heap + " (Java -Xms=-Xmx, whatever the collector; Go GOMEMLIMIT " + goMemLimit(c.Heap) + ")",
		"cpu_count":      "1 each (GOMAXPROCS=1; -XX:ActiveProcessorCount=1), every server pinned to the server CPU with taskset",
		"max_bids":       fmt.Sprint(c.MaxBids) + " bid records at most, every server",
		"bid_ttl":        c.BidTTL + " (every server: a run's records within it fit max_bids, so none refuses bids for capacity)",
		"clock_start":    c.ClockStart + " (every server's clock starts there, inside testdata's week)",
		"campaigns":      c.Campaigns,
		"load_driver":    "loadgen's engine (package loadtest), in this process",
		"latency_source": "HDR histograms, 1 µs–1 h, 3 significant digits",
		"java_gc_log":    "-Xlog:gc:file=OUT/NAME-gc.log, and gc+phases for ZGC, which logs its pauses there (pause events; counted per round)",
		"java_collector": "JAVA_GC of java-baseline/run.sh: the collector's flags, the only JVM setting that differs between collectors",
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// notes are the report's remarks on reading it; collectors are the JVM's
// answers about its collectors.
func notes(c *Config, collectors []CollectorSupport) []string {
	n := []string{
		"Two pairs ran in the same alternating rounds: idiomatic (dspd -http chi, net/http, against Tomcat with servlets: what each side writes by default) and fastest (dspd -http fasthttp against Netty: what each side reaches for when throughput is the goal). Ratios are Go over Java within a pair, medians of the rounds; absolute figures drift on this shared machine, ratios taken in one run hold.",
		fmt.Sprintf("The open loop (d) gives both servers of a pair the same offered rate: %.0f%% of the slower of the two in (b). Each pair gets its own rate because the pairs' capacities differ: one rate for all four would leave the faster pair lightly loaded, or push the slower one past its capacity, and its latencies would then measure the queue, not the server. Compare latencies within a pair in (d); across pairs compare (b), (c) and (e).", c.RateFactor*100),
		fmt.Sprintf("Before every measurement the runner waits until every server on the server CPU is quiet (under %g%% of a CPU over %d ms, at most %.0f s): a JVM keeps compiling for seconds after a warm-up or a new kind of load, and that CPU would otherwise be taken from whichever server is measured next. report.json gives each round's wait (quiet_wait_ms).", quietShare*100, quietWindow.Milliseconds(), quietLimit.Seconds()),
		"CPU µs/request is the server process's user+system CPU time (from /proc, all threads: GC and JIT included) over the requests it answered in the round.",
		"RSS in the scenario rows is the server's peak resident set during the round (VmHWM, reset through /proc/PID/clear_refs before each round); peak RSS in the server table is over the whole life, start and warm-up included.",
		"GC counts and pauses are per round: the JVM's from -Xlog:gc (the collector's pause events, time to safepoint not included; G1, ZGC and Shenandoah pause several times per cycle, and each pause counts), Go's from go_gc_duration_seconds (its stop-the-world pauses; Go's concurrent marking runs beside the requests and shows in CPU µs/request, not as pause). A concurrent collector that falls behind stalls the allocating threads instead of pausing them all: that shows in the latencies, not in the pauses.",
		"failed counts loadgen's failures as ab does; in the scenarios that replay post.data (which always bids) a Length failure is a no bid instead of a bid, in practice a timeout: the decision came later than tmax (120 ms) minus the 5 ms margin. report.json gives every round's status codes and errors by kind.",
		"Every server keeps its books in memory (dspd runs with -state memory; the Java baseline has no other state): the comparison measures the stacks, not a disk. make rate measures dspd's default disk state against memory.",
		"Netty runs on its NIO transport: Debian's libnetty-java ships no native epoll library, and the start-up line says so.",
		"The 2016 figures come from a different machine (i5, 4 cores) and naive ports; they are a labelled reference, not a ratio.",
		"Every campaign of the comparison is pacing asap (testdata's campaigns name no pacing): the Java baseline does not pace (it reads pacing even as asap), so every server makes the same decisions; dspd's even pacing is measured by make pacing-sim.",
	}
	if c.Sweep {
		n = append(n, fmt.Sprintf("The sweep picks each Java front end's thread setting and collector by the geometric mean of its requests/s over the swept scenarios, setting aside points where more than %g%% of requests failed: throughput decides, and the sweep's tables give each point's p99 and p99.9 beside it. A few seconds per point on a shared machine, so margins of a few percent are noise and any of those points would do.", maxFailedShare*100))
	}
	for _, cs := range collectors {
		if cs.Tried && cs.Key == gcZ && strings.HasPrefix(cs.Name, "single-generation") {
			n = append(n, "Single-generation ZGC maps its heap three times (one view per colour of its pointers), and the kernel counts a page once in each mapping it was touched through: its RSS can read up to three times the memory it holds. Generational ZGC (JDK 21 on) maps the heap once.")
		}
	}
	if c.DspdNoPGOBin == "" {
		n = append(n, "No build of dspd without PGO ran: both Go rows are the PGO build when cmd/dspd/default.pgo exists (the runtime table says which); make compare-java NOPGO=1 adds the chi front end built with -pgo=off, in no pair.")
	} else {
		n = append(n, "Go chi, no PGO is the chi front end built with -pgo=off, in no pair: it shows what profile-guided optimisation gives, and runs the idiomatic pair's open-loop rate.")
	}
	return n
}
