package comparison

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// describeRuntime reads what the report says about a started server's
// runtime, and a JVM's start-up line. Nothing here is load: it runs before
// the warm-up.
func describeRuntime(ctx context.Context, cfg *Config, s *server) (Runtime, string) {
	if s.lang == "go" {
		return goRuntime(ctx, cfg, s), ""
	}
	rt := Runtime{GCLog: s.gcLog}
	line := startupLine(s.LogPath)
	rt.Version = javaVersion(line)
	if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.PID()), "cmdline")); err == nil {
		rt.CommandLine = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		rt.Heap = heapFlags(rt.CommandLine)
	}
	if s.gcLog != "" {
		if b, err := os.ReadFile(s.gcLog); err == nil {
			rt.GC = javaGCName(string(b))
		}
	}
	gc := s.gc.Flags
	if gc == "" {
		gc = gcFlag(rt.CommandLine)
	}
	if gc != "" {
		rt.GC = strings.TrimSpace(rt.GC + " (" + gc + ")")
	}
	jctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(jctx, "jcmd", strconv.Itoa(s.PID()), "VM.flags").Output(); err == nil {
		rt.JVMFlags = jcmdFlags(string(out))
		rt.GCFlags = gcFlagsInForce(rt.JVMFlags)
	} else {
		rt.JVMFlags = "(jcmd VM.flags failed: " + err.Error() + ")"
	}
	switch s.front {
	case tomcat:
		rt.Transport = "Tomcat NIO connector (Http11NioProtocol): a poller thread, requests on the maxThreads pool"
	case netty:
		rt.Transport = nettyTransport(line)
	}
	return rt, line
}

func goRuntime(ctx context.Context, cfg *Config, s *server) Runtime {
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100 (default)"
	}
	rt := Runtime{Heap: "GOMEMLIMIT=" + goMemLimit(cfg.Heap),
		GC: "Go's concurrent mark and sweep, GOGC=" + gogc + ", GOMEMLIMIT=" + goMemLimit(cfg.Heap)}
	if bi, err := buildinfo.ReadFile(s.bin); err == nil {
		rt.Version = bi.GoVersion
		rt.PGO = pgoOf(bi.Settings)
	}
	if text, err := s.metrics(ctx); err == nil {
		if v, ok := metricValue(text, "go_sched_gomaxprocs_threads"); ok {
			rt.GOMAXPROCS = int(v)
		}
	}
	switch s.front {
	case "chi":
		rt.Transport = "net/http: a goroutine per connection on the runtime's netpoller (epoll)"
	case "fasthttp":
		rt.Transport = "valyala/fasthttp: pooled worker goroutines per connection on the runtime's netpoller (epoll)"
	}
	return rt
}

// pgoOf reads profile-guided optimisation from a binary's build settings:
// the -pgo setting names the profile it was built with.
func pgoOf(settings []debug.BuildSetting) string {
	for _, s := range settings {
		if s.Key == "-pgo" && s.Value != "" && s.Value != "off" {
			if wd, err := os.Getwd(); err == nil {
				if rel, err := filepath.Rel(wd, s.Value); err == nil && !strings.HasPrefix(rel, "..") {
					return "on (" + rel + ")"
				}
			}
			return "on (" + s.Value + ")"
		}
	}
	return "off"
}

// startupLine is the Java baseline's "listening" line from its log.
func startupLine(logPath string) string {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "java-baseline listening on") {
			return line
		}
	}
	return ""
}

// javaVersion is the JVM version ending the start-up line: "…, 17.0.15+6-Debian-1deb12u1)".
func javaVersion(line string) string {
	line = strings.TrimSuffix(strings.TrimSpace(line), ")")
	if i := strings.LastIndex(line, ", "); i >= 0 {
		return line[i+2:]
	}
	return ""
}

var nettyRE = regexp.MustCompile(`netty [^,]+`)

// nettyTransport is the Netty part of the start-up line, e.g. "netty
// 4.1.48.Final nio (native epoll unavailable)".
func nettyTransport(line string) string {
	return nettyRE.FindString(line)
}

var heapRE = regexp.MustCompile(`(^| )(-Xm[sx]\S+)`)

func heapFlags(cmdline string) string {
	var out []string
	for _, m := range heapRE.FindAllStringSubmatch(cmdline, -1) {
		out = append(out, m[2])
	}
	return strings.Join(out, " ")
}

var gcFlagRE = regexp.MustCompile(`-XX:\+Use\w+GC`)

func gcFlag(cmdline string) string {
	all := gcFlagRE.FindAllString(cmdline, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1] // the last one wins, as the JVM reads them
}

// jcmdFlags is the flags line of `jcmd PID VM.flags` (its first line is
// the PID).
func jcmdFlags(out string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, ":") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}
