package comparison

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Pair is two servers compared with each other: a Go front end and a Java
// one built in the same spirit.
type Pair struct {
	Key   string `json:"key"` // idiomatic, fastest
	Label string `json:"label"`
	Go    string `json:"go"`   // server name
	Java  string `json:"java"` // server name
}

// pairs are the comparison's two pairs: what a team writes by default on
// each side (net/http with chi; Tomcat with servlets), and what a team
// reaches for when throughput is the goal (fasthttp; Netty).
var pairs = []Pair{
	{Key: "idiomatic", Label: "idiomatic: dspd -http chi vs Tomcat", Go: goChi, Java: tomcat},
	{Key: "fastest", Label: "fastest: dspd -http fasthttp vs Netty", Go: goFasthttp, Java: netty},
}

// Server names.
const (
	goChi      = "go-chi"
	goFasthttp = "go-fasthttp"
	goChiNoPGO = "go-chi-nopgo"
	tomcat     = "tomcat"
	netty      = "netty"
)

// contender is one server of the headline rounds, or of the sweep.
type contender struct {
	name, label string
	lang        string    // go, java
	front       string    // chi, fasthttp, tomcat, netty
	pair        string    // its pair's key; "" for the extra no-PGO row
	ratePair    string    // whose open-loop rate it gets in (d)
	addr, admin string    // admin: dspd's admin listener
	bin         string    // dspd's binary
	setting     int       // Tomcat's maxThreads, Netty's event loops
	gc          Collector // a JVM's collector
}

// javaChoice is what a Java front end runs with in the headline rounds,
// and where each setting came from.
type javaChoice struct {
	setting     int
	gc          Collector
	settingFrom string
	gcFrom      string
}

// cpuOpt gives every JVM one CPU's worth of runtime, as GOMAXPROCS=1 gives
// dspd.
const cpuOpt = "-XX:ActiveProcessorCount=1"

// setting names a Java front end's thread setting.
func settingName(front string, v int) string {
	switch front {
	case tomcat:
		return fmt.Sprintf("maxThreads %d", v)
	case netty:
		if v == 1 {
			return "1 event loop"
		}
		return fmt.Sprintf("%d event loops", v)
	}
	return ""
}

// settingParam is what the sweep varies on a Java front end.
func settingParam(front string) string {
	if front == tomcat {
		return "maxThreads"
	}
	return "event loops"
}

// headline lists the servers of the headline rounds, each pair side by
// side, the no-PGO build last; java holds each Java front end's thread
// setting and collector.
func headline(cfg *Config, java map[string]javaChoice) []contender {
	cs := []contender{
		{name: goChi, label: "Go chi", lang: "go", front: "chi", pair: "idiomatic", addr: "127.0.0.1:19301", admin: "127.0.0.1:19401", bin: cfg.DspdBin},
		{name: tomcat, label: "Java Tomcat", lang: "java", front: tomcat, pair: "idiomatic", addr: "127.0.0.1:19303",
			setting: java[tomcat].setting, gc: java[tomcat].gc},
		{name: goFasthttp, label: "Go fasthttp", lang: "go", front: "fasthttp", pair: "fastest", addr: "127.0.0.1:19304", admin: "127.0.0.1:19404", bin: cfg.DspdBin},
		{name: netty, label: "Java Netty", lang: "java", front: netty, pair: "fastest", addr: "127.0.0.1:19305",
			setting: java[netty].setting, gc: java[netty].gc},
	}
	if cfg.DspdNoPGOBin != "" {
		cs = append(cs, contender{name: goChiNoPGO, label: "Go chi, no PGO", lang: "go", front: "chi", addr: "127.0.0.1:19302",
			admin: "127.0.0.1:19402", bin: cfg.DspdNoPGOBin, ratePair: "idiomatic"})
	}
	for i := range cs {
		if cs[i].ratePair == "" {
			cs[i].ratePair = cs[i].pair
		}
	}
	return cs
}

// sweepContender is the i-th point of a stage of a Java front end's
// sweep; the points of a stage run side by side, each on its own port.
func sweepContender(front string, stage, v int, gc Collector, i int) contender {
	label := "Java Tomcat"
	if front == netty {
		label = "Java Netty"
	}
	return contender{name: fmt.Sprintf("sweep/%s-%d-%s-%d", front, stage, gc.Key, v), label: label, lang: "java", front: front,
		addr: fmt.Sprintf("127.0.0.1:%d", 19310+i), setting: v, gc: gc}
}

// argv and env start c pinned to nothing yet (start adds taskset); gcLog
// is where a JVM logs its collections ("" for none).
func (c contender) argv(cfg *Config, gcLog string) (argv, env []string) {
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	// The same contract settings for every server.
	common := []string{"-campaigns", cfg.Campaigns, "-seat", "dsp", "-public-url", "http://127.0.0.1:9090",
		"-max-bids", fmt.Sprint(cfg.MaxBids), "-bid-ttl", cfg.BidTTL, "-clock-start", cfg.ClockStart}
	if c.lang == "go" {
		argv = append([]string{abs(c.bin), "-http", c.front, "-addr", c.addr, "-admin", c.admin}, common...)
		// -track=false: the contract's version 2 answer, byte for byte the
		// Java baseline's (which does not track); the memory state has no
		// event log.
		argv = append(argv, "-log-level", "warn", "-state", "memory", "-track=false")
		return argv, []string{"GOMAXPROCS=1", "GOMEMLIMIT=" + goMemLimit(cfg.Heap)}
	}
	argv = append([]string{abs(cfg.JavaRun), "-http", c.front, "-addr", c.addr}, common...)
	if c.front == tomcat {
		argv = append(argv, "-max-threads", fmt.Sprint(c.setting))
	} else {
		argv = append(argv, "-event-loops", fmt.Sprint(c.setting))
	}
	// The heap and the CPU count are every JVM's; the collector's flags
	// are the only JVM setting that differs.
	opts := cpuOpt
	if gcLog != "" {
		opts += " -Xlog:" + gcLogTags(c.gc) + ":file=" + gcLog + ":uptime,level,tags"
	}
	return argv, []string{"JAVA_HEAP=" + cfg.Heap, "JAVA_GC=" + c.gc.Flags, "JAVA_OPTS=" + opts}
}

// gcLogPath is where a JVM of the run logs its collections, or "" when the
// path cannot be passed in JAVA_OPTS (which run.sh splits at spaces).
func gcLogPath(outDir, name string) string {
	p, err := filepath.Abs(filepath.Join(outDir, name+"-gc.log"))
	if err != nil || strings.ContainsAny(p, " \t\n:") {
		return ""
	}
	return p
}

// goMemLimit turns a JVM heap size ("512m") into a GOMEMLIMIT ("512MiB").
func goMemLimit(heap string) string {
	h := strings.ToLower(heap)
	for suffix, unit := range map[string]string{"g": "GiB", "m": "MiB", "k": "KiB"} {
		if n, ok := strings.CutSuffix(h, suffix); ok {
			return n + unit
		}
	}
	return h
}
