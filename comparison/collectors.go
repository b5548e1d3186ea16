package comparison

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Collector is one of the JVM's garbage collectors as the comparison
// starts it: its flags are java-baseline/run.sh's JAVA_GC, the only JVM
// setting that differs between collectors (the heap, -Xms = -Xmx, and
// -XX:ActiveProcessorCount=1 stay as they are).
type Collector struct {
	Key   string `json:"key"`   // parallel, g1, zgc, shenandoah
	Name  string `json:"name"`  // Parallel, G1, generational ZGC, Shenandoah
	Flags string `json:"flags"` // e.g. -XX:+UseZGC -XX:+ZGenerational
}

// The collectors the comparison knows, in the order the sweep tries them.
const (
	gcParallel   = "parallel"
	gcG1         = "g1"
	gcZ          = "zgc"
	gcShenandoah = "shenandoah"
)

// collectorKeys are the collectors detectCollectors asks the JVM about.
var collectorKeys = []string{gcParallel, gcG1, gcZ, gcShenandoah}

// CollectorSupport says whether the JVM of run.sh starts with a collector:
// what the comparison asked it, and its answer.
type CollectorSupport struct {
	Collector
	Supported bool   `json:"supported"`
	Note      string `json:"note,omitempty"` // why not, or what was asked instead
	Tried     bool   `json:"tried"`          // in the sweep, or the one given without it
}

// javaFeature reads the feature release (17, 21, 25; 8 for 1.8) from the
// output of `java -version`: `openjdk version "17.0.15" 2025-04-15`.
func javaFeature(out string) (int, error) {
	for _, line := range strings.Split(out, "\n") {
		_, rest, ok := strings.Cut(line, ` version "`)
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(rest, `"`)
		v = strings.TrimPrefix(v, "1.") // 1.8.0_412: Java 8
		end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
		if end >= 0 {
			v = v[:end]
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("java -version: no feature release in %q", strings.TrimSpace(line))
		}
		return n, nil
	}
	return 0, errors.New("java -version: no version line")
}

// collectorFor is how a collector is selected on a JVM of the given
// feature release. Generational ZGC is -XX:+ZGenerational on JDK 21 and
// 22 and ZGC's only mode from JDK 23 (where the flag is deprecated, then
// removed in 24); before 21 ZGC has one generation, and the comparison
// tries that, under its own name, rather than no ZGC at all. A non-empty
// note says why the collector cannot run, or what was asked instead.
func collectorFor(key string, feature int) (Collector, string, error) {
	switch key {
	case gcParallel:
		return Collector{Key: key, Name: "Parallel", Flags: "-XX:+UseParallelGC"}, "", nil
	case gcG1:
		return Collector{Key: key, Name: "G1", Flags: "-XX:+UseG1GC"}, "", nil
	case gcZ:
		switch {
		case feature >= 23:
			return Collector{Key: key, Name: "generational ZGC", Flags: "-XX:+UseZGC"}, "", nil
		case feature >= 21:
			return Collector{Key: key, Name: "generational ZGC", Flags: "-XX:+UseZGC -XX:+ZGenerational"}, "", nil
		case feature >= 15:
			return Collector{Key: key, Name: "single-generation ZGC", Flags: "-XX:+UseZGC"},
				fmt.Sprintf("generational ZGC needs JDK 21; JDK %d's ZGC has one generation, tried instead", feature), nil
		}
		return Collector{Key: key, Name: "ZGC", Flags: "-XX:+UseZGC"}, fmt.Sprintf("ZGC is experimental before JDK 15 (this is JDK %d)", feature), nil
	case gcShenandoah:
		return Collector{Key: key, Name: "Shenandoah", Flags: "-XX:+UseShenandoahGC"}, "", nil
	}
	return Collector{}, "", fmt.Errorf("unknown collector %q (known: %s)", key, strings.Join(collectorKeys, ", "))
}

// probeVerdict reads the answer of `java FLAGS -version`: a JVM that
// started (status 0) without ignoring an option runs the collector;
// otherwise the note is the JVM's own words.
func probeVerdict(out string, runErr error) (bool, string) {
	var said []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, "Unrecognized VM option") || strings.Contains(line, "Ignoring option") ||
			strings.HasPrefix(line, "Error: VM option") || strings.Contains(line, "not supported") {
			said = append(said, line)
		}
	}
	if runErr == nil && len(said) == 0 {
		return true, ""
	}
	if len(said) == 0 {
		said = append(said, "the JVM did not start: "+runErr.Error())
	}
	return false, "not in this JVM: " + strings.Join(said, "; ")
}

// probeTimeout bounds one probe; the first one may compile the Java
// baseline (run.sh builds it when needed).
const probeTimeout = 3 * time.Minute

// probe starts run.sh's JVM with the collector flags gc ("" for run.sh's
// default), the run's heap and one CPU, and -version instead of the
// server: the very command line the servers get, up to the main class.
func probe(ctx context.Context, cfg *Config, gc string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.JavaRun)
	cmd.Env = append(cmd.Environ(), "JAVA_HEAP="+cfg.Heap, "JAVA_GC="+gc, "JAVA_OPTS="+cpuOpt+" -version")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// detectCollectors asks the JVM of run.sh which of the known collectors
// it runs: its version first (which ZGC to ask for), then each collector.
func detectCollectors(ctx context.Context, cfg *Config) ([]CollectorSupport, error) {
	out, err := probe(ctx, cfg, "")
	if err != nil {
		return nil, fmt.Errorf("java -version through %s: %w (%s)", cfg.JavaRun, err, strings.TrimSpace(out))
	}
	feature, err := javaFeature(out)
	if err != nil {
		return nil, err
	}
	var all []CollectorSupport
	for _, key := range collectorKeys {
		gc, note, err := collectorFor(key, feature)
		if err != nil {
			return nil, err
		}
		cs := CollectorSupport{Collector: gc, Note: note}
		out, err := probe(ctx, cfg, gc.Flags)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ok, why := probeVerdict(out, err)
		cs.Supported = ok
		if !ok {
			cs.Note = strings.TrimPrefix(strings.Join([]string{note, why}, "; "), "; ")
		}
		all = append(all, cs)
	}
	return all, nil
}

// candidates are the collectors of keys (in their order) that the JVM
// runs; the others are named in skipped. None at all is an error.
func candidates(support []CollectorSupport, keys []string) (gcs []Collector, skipped []string, err error) {
	for _, key := range keys {
		i := slices.IndexFunc(support, func(cs CollectorSupport) bool { return cs.Key == key })
		switch {
		case i < 0:
			return nil, nil, fmt.Errorf("collector %q was not asked about (known: %s)", key, strings.Join(collectorKeys, ", "))
		case support[i].Supported:
			gcs = append(gcs, support[i].Collector)
		default:
			skipped = append(skipped, fmt.Sprintf("%s (%s)", support[i].Name, support[i].Note))
		}
	}
	if len(gcs) == 0 {
		return nil, skipped, fmt.Errorf("none of the collectors %s runs on this JVM: %s", strings.Join(keys, ", "), strings.Join(skipped, "; "))
	}
	return gcs, skipped, nil
}

// gcLogTags is the -Xlog selection that logs a collector's pauses: the gc
// tag, and for ZGC, which logs its pauses as phases, gc+phases too.
func gcLogTags(gc Collector) string {
	if gc.Key == gcZ {
		return "gc,gc+phases"
	}
	return "gc"
}

var gcFlagNameRE = regexp.MustCompile(`^-XX:[+-]?(\w*GC\w*|G1\w+|Z[A-Z]\w*|Shenandoah\w+|(?:Max)?NewSize|OldSize|NewRatio|SurvivorRatio|SoftMaxHeapSize)(=|$)`)

// gcFlagsInForce picks the collector's flags out of `jcmd PID VM.flags`,
// ergonomic ones included: which collector, its threads, its generations
// or regions.
func gcFlagsInForce(flags string) string {
	var out []string
	for _, f := range strings.Fields(flags) {
		if gcFlagNameRE.MatchString(f) {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}
