package comparison

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/recbid/dspd/internal/golden"
)

func TestMedianAndRatios(t *testing.T) {
	rounds := []Sample{
		{RequestsPerSecond: 100, P99: 9, CPUMicrosPerReq: 30, Failed: 1, RSSBytes: 300, GCCount: 7, GCPauseMs: 9},
		{RequestsPerSecond: 300, P99: 1, CPUMicrosPerReq: 10, RSSBytes: 100, GCCount: 3, GCPauseMs: 1},
		{RequestsPerSecond: 200, P99: 5, CPUMicrosPerReq: 20, RSSBytes: 200, GCCount: 5, GCPauseMs: 4},
	}
	m := median(rounds)
	assert.Equal(t, 200.0, m.RequestsPerSecond)
	assert.Equal(t, 5.0, m.P99)
	assert.Equal(t, 20.0, m.CPUMicrosPerReq)
	assert.Equal(t, int64(0), m.Failed)
	assert.Equal(t, int64(200), m.RSSBytes)
	assert.Equal(t, int64(5), m.GCCount)
	assert.Equal(t, 4.0, m.GCPauseMs)
	assert.Equal(t, 200.0, median(rounds[:2]).RequestsPerSecond, "even count: the mean of the middle two")

	r := ratios(Sample{RequestsPerSecond: 300, P99: 2, CPUMicrosPerReq: 10, RSSBytes: 50}, Sample{RequestsPerSecond: 100, P99: 4, CPUMicrosPerReq: 40, RSSBytes: 200})
	assert.Equal(t, 3.0, r["requests_per_second"])
	assert.Equal(t, 0.5, r["p99"])
	assert.Equal(t, 0.25, r["cpu_us_per_request"])
	assert.Equal(t, 0.25, r["rss"])
	assert.Equal(t, 0.0, r["p50"], "no division by zero")
}

func TestSummarizeRatiosByPair(t *testing.T) {
	sc := &ScenarioResult{Key: "b", Servers: map[string]*Series{
		goChi:      {Rounds: []Sample{{RequestsPerSecond: 30}, {RequestsPerSecond: 40}, {RequestsPerSecond: 50}}},
		tomcat:     {Rounds: []Sample{{RequestsPerSecond: 20}}},
		goFasthttp: {Rounds: []Sample{{RequestsPerSecond: 90}}},
		netty:      {Rounds: []Sample{{RequestsPerSecond: 60}}},
		goChiNoPGO: {Rounds: []Sample{{RequestsPerSecond: 1}}},
	}}
	sc.summarize()
	assert.Equal(t, 40.0, sc.Servers[goChi].Median.RequestsPerSecond)
	require.Len(t, sc.Ratios, 2, "one set of ratios per pair; the extra row is in none")
	assert.Equal(t, 2.0, sc.Ratios["idiomatic"]["requests_per_second"])
	assert.Equal(t, 1.5, sc.Ratios["fastest"]["requests_per_second"])

	delete(sc.Servers, netty)
	sc.summarize()
	assert.NotContains(t, sc.Ratios, "fastest", "a pair with a server missing has no ratios")
}

// points are sweep points of the given scores and failures, each of
// 10,000 requests.
func points(scores ...[2]float64) []SweepPoint {
	var out []SweepPoint
	for i, s := range scores {
		out = append(out, SweepPoint{Value: i + 1, Score: s[0],
			Samples: map[string]Sample{"b": {RequestsPerSecond: s[0], Complete: 10000, Failed: int64(s[1])}}})
	}
	return out
}

func TestPickBest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		points  []SweepPoint
		want    int // index
		because []string
	}{
		{"the highest score wins", points([2]float64{100, 0}, [2]float64{300, 0}, [2]float64{200, 0}), 1,
			[]string{"maxThreads 2: the highest geometric mean of requests/s (300)", "50.0% above the next best (maxThreads 3, 200)"}},
		{"the first of equal scores", points([2]float64{300, 0}, [2]float64{300, 0}), 0,
			[]string{"maxThreads 1", "0.0% above the next best (maxThreads 2, 300)"}},
		{"a point failing more than 0.1% is set aside", points([2]float64{100, 0}, [2]float64{300, 11}, [2]float64{200, 0}), 2,
			[]string{"maxThreads 3", "next best (maxThreads 1, 100)", "1 point(s) with more than 0.1% of requests failed set aside"}},
		{"a few failures (a GC pause) do not count", points([2]float64{100, 0}, [2]float64{300, 10}, [2]float64{200, 0}), 1,
			[]string{"maxThreads 2", "50.0% above the next best (maxThreads 3, 200)"}},
		{"when every point fails, the fastest", points([2]float64{100, 20}, [2]float64{300, 30}), 1,
			[]string{"maxThreads 2", "every point had more than 0.1% of requests failed"}},
		{"a single point", points([2]float64{100, 0}), 0, []string{"maxThreads 1: the highest geometric mean of requests/s (100)"}},
		{"the best comes last", points([2]float64{100, 0}, [2]float64{200, 0}, [2]float64{300, 0}), 2, []string{"next best (maxThreads 2, 200)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, why := pickBest(tc.points, func(p SweepPoint) string { return settingName(tomcat, p.Value) })
			assert.Equal(t, tc.want, i)
			for _, b := range tc.because {
				assert.Contains(t, why, b)
			}
		})
	}
	i, _ := pickBest(nil, func(SweepPoint) string { return "" })
	assert.Equal(t, -1, i)
}

func TestScore(t *testing.T) {
	s := map[string]Sample{"b": {RequestsPerSecond: 100}, "c": {RequestsPerSecond: 400}}
	assert.InDelta(t, 200.0, score(s, []string{"b", "c"}), 1e-9, "the geometric mean")
	assert.InDelta(t, 100.0, score(s, []string{"b"}), 1e-9)
	assert.Equal(t, 0.0, score(s, []string{"b", "e"}), "a scenario not measured scores 0")
	assert.Equal(t, 0.0, score(s, nil))
	// A point best on b but poor on c loses to an even one.
	even := score(map[string]Sample{"b": {RequestsPerSecond: 300}, "c": {RequestsPerSecond: 300}}, []string{"b", "c"})
	lopsided := score(map[string]Sample{"b": {RequestsPerSecond: 400}, "c": {RequestsPerSecond: 200}}, []string{"b", "c"})
	assert.Greater(t, even, lopsided)
}

func TestOpenRates(t *testing.T) {
	servers := []ServerInfo{{Name: goChi, Label: "Go chi"}, {Name: tomcat, Label: "Java Tomcat"},
		{Name: goFasthttp, Label: "Go fasthttp"}, {Name: netty, Label: "Java Netty"}}
	b := &ScenarioResult{Key: "b", Servers: map[string]*Series{
		goChi: {Median: Sample{RequestsPerSecond: 38053}}, tomcat: {Median: Sample{RequestsPerSecond: 36504}},
		goFasthttp: {Median: Sample{RequestsPerSecond: 41000}}, netty: {Median: Sample{RequestsPerSecond: 52999}},
	}}
	rates, basis, err := openRates(b, servers, 0.8)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"idiomatic": 29200, "fastest": 32800}, rates, "80% of the slower of each pair, down to 100")
	assert.Equal(t, "80% of Java Tomcat's 36504 req/s in (b), the slower of the pair", basis["idiomatic"])
	assert.Equal(t, "80% of Go fasthttp's 41000 req/s in (b), the slower of the pair", basis["fastest"])

	delete(b.Servers, netty)
	_, _, err = openRates(b, servers, 0.8)
	assert.ErrorContains(t, err, "netty")

	b.Servers[netty] = &Series{}
	_, _, err = openRates(b, servers, 0.8)
	assert.ErrorContains(t, err, "no capacity for the fastest pair")
}

func TestWarmth(t *testing.T) {
	servers := []ServerInfo{{Name: goChi}, {Name: tomcat}}
	one := []*ScenarioResult{{Key: "b", Servers: map[string]*Series{goChi: {Rounds: []Sample{{RequestsPerSecond: 1}}}}}}
	assert.Empty(t, warmth(servers, one), "one round: nothing to compare")

	sc := []*ScenarioResult{{Key: "b", Servers: map[string]*Series{
		goChi:  {Rounds: []Sample{{RequestsPerSecond: 100}, {RequestsPerSecond: 100}, {RequestsPerSecond: 100}}},
		tomcat: {Rounds: []Sample{{RequestsPerSecond: 80}, {RequestsPerSecond: 90}, {RequestsPerSecond: 110}}},
	}}}
	w := warmth(servers, sc)
	require.Len(t, w, 2)
	assert.Equal(t, Warmth{Server: goChi, Scenario: "b", Round1: 100, Later: 100, Round1OverLater: 1}, w[0])
	assert.Equal(t, tomcat, w[1].Server)
	assert.InDelta(t, 0.8, w[1].Round1OverLater, 1e-9, "round 1 over the median of rounds 2 and 3 (100)")
}

func TestRotateAlternates(t *testing.T) {
	mk := func(n string) *server { return &server{contender: contender{name: n}} }
	a, b, c := mk(goChi), mk(tomcat), mk(goFasthttp)
	names := func(ss []*server) string {
		var n []string
		for _, s := range ss {
			n = append(n, s.name)
		}
		return strings.Join(n, ",")
	}
	assert.Equal(t, "go-chi,tomcat,go-fasthttp", names(rotate([]*server{a, b, c}, 0)))
	assert.Equal(t, "tomcat,go-fasthttp,go-chi", names(rotate([]*server{a, b, c}, 1)))
	assert.Equal(t, "tomcat,go-chi", names(rotate([]*server{a, b}, 1)))
}

func TestGoMemLimit(t *testing.T) {
	for in, want := range map[string]string{"512m": "512MiB", "2g": "2GiB", "1024k": "1024KiB", "512M": "512MiB"} {
		assert.Equal(t, want, goMemLimit(in), in)
	}
}

func TestHeadlineAndArgv(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DspdBin, cfg.DspdNoPGOBin = "bin/dspd", "bin/dspd-nopgo"
	g1 := Collector{Key: gcG1, Name: "G1", Flags: "-XX:+UseG1GC"}
	z := Collector{Key: gcZ, Name: "single-generation ZGC", Flags: "-XX:+UseZGC"}
	cs := headline(&cfg, map[string]javaChoice{tomcat: {setting: 64, gc: g1}, netty: {setting: 2, gc: z}})
	byName := map[string]contender{}
	addrs := map[string]bool{}
	for _, c := range cs {
		byName[c.name] = c
		assert.False(t, addrs[c.addr], "%s: its own port", c.name)
		addrs[c.addr] = true
	}
	for _, p := range pairs {
		assert.Equal(t, p.Key, byName[p.Go].pair)
		assert.Equal(t, p.Key, byName[p.Java].pair)
		assert.Equal(t, "go", byName[p.Go].lang)
		assert.Equal(t, "java", byName[p.Java].lang)
	}
	assert.Equal(t, "", byName[goChiNoPGO].pair, "the no-PGO build is in no pair")
	assert.Equal(t, "idiomatic", byName[goChiNoPGO].ratePair)

	argv, env := byName[goFasthttp].argv(&cfg, "")
	assert.Contains(t, strings.Join(argv, " "), "-http fasthttp -addr 127.0.0.1:19304 -admin 127.0.0.1:19404")
	assert.Contains(t, strings.Join(argv, " "), "-state memory")
	assert.Equal(t, []string{"GOMAXPROCS=1", "GOMEMLIMIT=1GiB"}, env)

	argv, env = byName[tomcat].argv(&cfg, "/out/tomcat-gc.log")
	assert.Contains(t, strings.Join(argv, " "), "-http tomcat -addr 127.0.0.1:19303")
	assert.Contains(t, strings.Join(argv, " "), "-max-threads 64")
	assert.Equal(t, []string{"JAVA_HEAP=1g", "JAVA_GC=-XX:+UseG1GC", "JAVA_OPTS=-XX:ActiveProcessorCount=1 -Xlog:gc:file=/out/tomcat-gc.log:uptime,level,tags"}, env)

	argv, env = byName[netty].argv(&cfg, "")
	assert.Contains(t, strings.Join(argv, " "), "-http netty")
	assert.Contains(t, strings.Join(argv, " "), "-event-loops 2")
	assert.Equal(t, []string{"JAVA_HEAP=1g", "JAVA_GC=-XX:+UseZGC", "JAVA_OPTS=-XX:ActiveProcessorCount=1"}, env, "no GC log, no -Xlog")
	_, env = byName[netty].argv(&cfg, "/out/netty-gc.log")
	assert.Equal(t, "JAVA_OPTS=-XX:ActiveProcessorCount=1 -Xlog:gc,gc+phases:file=/out/netty-gc.log:uptime,level,tags", env[2], "ZGC logs its pauses as phases")

	// The collectors differ in JAVA_GC alone: the heap and the CPU count are every JVM's.
	for _, gc := range []Collector{{Key: gcParallel, Flags: "-XX:+UseParallelGC"}, g1, z, {Key: gcShenandoah, Flags: "-XX:+UseShenandoahGC"}} {
		c := sweepContender(tomcat, 2, 16, gc, 1)
		argv, env := c.argv(&cfg, "")
		assert.Equal(t, "127.0.0.1:19311", c.addr)
		assert.Equal(t, "sweep/tomcat-2-"+gc.Key+"-16", c.name)
		assert.Contains(t, strings.Join(argv, " "), "-max-threads 16")
		assert.Equal(t, []string{"JAVA_HEAP=1g", "JAVA_GC=" + gc.Flags, "JAVA_OPTS=-XX:ActiveProcessorCount=1"}, env, gc.Key)
	}

	cfg.DspdNoPGOBin = ""
	assert.Len(t, headline(&cfg, map[string]javaChoice{tomcat: {setting: 200}, netty: {setting: 1}}), 4)

	assert.Equal(t, "", gcLogPath("/tmp/with space", "tomcat"), "run.sh splits JAVA_OPTS at spaces")
	assert.Equal(t, "/tmp/out/netty-gc.log", gcLogPath("/tmp/out", "netty"))
	assert.Equal(t, "maxThreads 64", settingName(tomcat, 64))
	assert.Equal(t, "1 event loop", settingName(netty, 1))
	assert.Equal(t, "4 event loops", settingName(netty, 4))
}

func TestConfigCheck(t *testing.T) {
	base := func() Config {
		c := DefaultConfig()
		c.DspdBin = "bin/dspd"
		return c
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		err    string
	}{
		{"defaults", func(*Config) {}, ""},
		{"no sweep needs no sweep values", func(c *Config) { c.Sweep, c.SweepThreads = false, nil }, ""},
		{"sweep without values", func(c *Config) { c.SweepLoops = nil }, "event-loop counts"},
		{"sweep value 0", func(c *Config) { c.SweepThreads = []int{4, 0} }, "sweep value 0"},
		{"sweep of the open loop", func(c *Config) { c.SweepScenarios = []string{"b", "d"} }, `sweep scenario "d"`},
		{"short sweep", func(c *Config) { c.SweepDuration = time.Millisecond }, "at least 1s"},
		{"rate factor", func(c *Config) { c.RateFactor = 1.5 }, "rate factor"},
		{"max threads", func(c *Config) { c.Sweep, c.MaxThreads = false, 0 }, "maxThreads"},
		{"no dspd", func(c *Config) { c.DspdBin = "" }, "dspd binary"},
		{"a collector of the sweep", func(c *Config) { c.SweepCollectors = []string{"g1", "cms"} }, `sweep collector "cms"`},
		{"a collector twice", func(c *Config) { c.SweepCollectors = []string{"g1", "zgc", "g1"} }, `"g1": named twice`},
		{"no collectors", func(c *Config) { c.SweepCollectors = nil }, "needs collectors"},
		{"no sweep needs no collectors", func(c *Config) { c.Sweep, c.SweepCollectors = false, nil }, ""},
		{"the collector without the sweep", func(c *Config) { c.Sweep, c.Collector = false, "serial" }, `collector "serial"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.change(&c)
			err := c.check()
			if tc.err == "" {
				require.NoError(t, err)
				assert.Equal(t, c.Duration, c.Warmup, "the warm-up defaults to DURATION")
				assert.Equal(t, c.Rounds, c.SweepRounds, "the sweep has as many rounds as the headline")
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	mk := func(status int, header http.Header, body string) *http.Response {
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
	}
	o, err := OutcomeOf(mk(200, http.Header{}, `{"id":"x","seatbid":[{"seat":"dsp","bid":[{"id":"b","cid":"c-1","crid":"cr-1","price":2.50}]}]}`))
	require.NoError(t, err)
	assert.Equal(t, Outcome{Status: 200, CID: "c-1", CrID: "cr-1", Price: "2.50", Length: 95}, o)

	o, err = OutcomeOf(mk(204, http.Header{"X-Nobid-Reason": {"no_match"}}, ""))
	require.NoError(t, err)
	assert.Equal(t, Outcome{Status: 204, Reason: "no_match"}, o)

	o, err = OutcomeOf(mk(400, http.Header{}, `{"error":"invalid_field","field":"w","message":"m"}`))
	require.NoError(t, err)
	assert.Equal(t, "invalid_field/w", o.ErrorKey)

	_, err = OutcomeOf(mk(200, http.Header{}, `not json`))
	assert.Error(t, err)
}

func TestParseJavaGCLog(t *testing.T) {
	log := `[0.004s][info][gc] Using Parallel
[2.911s][info][gc] GC(0) Pause Young (Allocation Failure) 262M->14M(1004M) 7.125ms
[4.020s][info][gc] GC(1) Pause Young (Allocation Failure) 276M->15M(1004M) 2.500ms
[9.020s][info][gc] GC(2) Pause Full (Ergonomics) 600M->90M(1004M) 120.375ms
[9.100s][info][gc,heap] not a pause
[9.200s][info][gc] GC(3) Pause Young (Allocation Failure) 276M->15M(1004M) garbled
`
	st := parseJavaGCLog(log)
	assert.Equal(t, int64(3), st.Count)
	assert.InDelta(t, 130.0, st.PauseMs, 1e-9)

	g1 := `[0.010s][info][gc] Using G1
[1.500s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 51M->3M(1024M) 2.750ms
[5.100s][info][gc] GC(1) Pause Young (Concurrent Start) (G1 Humongous Allocation) 300M->200M(1024M) 4.250ms
[5.200s][info][gc] GC(2) Concurrent Mark Cycle 80.125ms
[5.210s][info][gc] GC(2) Pause Remark 210M->210M(1024M) 1.000ms
`
	assert.Equal(t, GCStats{Count: 3, PauseMs: 8}, parseJavaGCLog(g1), "the concurrent cycle is no pause")
	assert.Equal(t, "G1", javaGCName(g1))

	zgc := `[0.012s][info][gc,init] Initializing The Z Garbage Collector
[0.013s][info][gc] Using The Z Garbage Collector
[2.101s][info][gc,phases] GC(0) Pause Mark Start 0.125ms
[2.180s][info][gc,phases] GC(0) Concurrent Mark 78.000ms
[2.181s][info][gc,phases] GC(0) Pause Mark End 0.250ms
[2.190s][info][gc,phases] GC(0) Pause Relocate Start 0.125ms
[2.300s][info][gc] GC(0) Garbage Collection (Warmup) 104M(10%)->26M(3%)
[2.400s][info][gc] Allocation Stall (http-nio-19303-exec-1) 12.000ms
`
	assert.Equal(t, GCStats{Count: 3, PauseMs: 0.5}, parseJavaGCLog(zgc), "ZGC's pauses are phases; a stall is no pause")
	assert.Equal(t, "The Z Garbage Collector", javaGCName(zgc))

	shenandoah := `[0.011s][info][gc] Using Shenandoah
[1.000s][info][gc] Trigger: Learning 1 of 5. Free (716M) is below initial threshold (716M)
[1.001s][info][gc] GC(0) Concurrent reset 0.500ms
[1.002s][info][gc] GC(0) Pause Init Mark (unload classes) 0.250ms
[1.050s][info][gc] GC(0) Concurrent marking (unload classes) 48.000ms
[1.051s][info][gc] GC(0) Pause Final Mark (unload classes) 0.500ms
[1.080s][info][gc] GC(0) Pause Final Update Refs 0.250ms
[3.000s][info][gc] GC(1) Pause Degenerated GC (Mark) 900M->300M(1024M) 120.000ms
`
	assert.Equal(t, GCStats{Count: 4, PauseMs: 121}, parseJavaGCLog(shenandoah))
	assert.Equal(t, "Shenandoah", javaGCName(shenandoah))
	assert.Equal(t, GCStats{}, parseJavaGCLog(""))
	assert.Equal(t, "Parallel", javaGCName(log))
	assert.Equal(t, "", javaGCName("[0.1s][info][gc] GC(0) Pause Young 1ms"))
	assert.Equal(t, GCStats{Count: 2, PauseMs: 2.5}, GCStats{Count: 5, PauseMs: 10}.minus(GCStats{Count: 3, PauseMs: 7.5}))
}

func TestParseGoGCMetrics(t *testing.T) {
	text := `# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 1.4308e-05
go_gc_duration_seconds_sum 0.0125
go_gc_duration_seconds_count 42
go_sched_gomaxprocs_threads 1
`
	st, err := parseGoGCMetrics(text)
	require.NoError(t, err)
	assert.Equal(t, int64(42), st.Count)
	assert.InDelta(t, 12.5, st.PauseMs, 1e-9)
	_, err = parseGoGCMetrics("go_gc_duration_seconds_count 42\n")
	assert.Error(t, err, "the sum is needed too")

	v, ok := metricValue(text, "go_sched_gomaxprocs_threads")
	assert.True(t, ok)
	assert.Equal(t, 1.0, v)
	_, ok = metricValue(text, "go_threads")
	assert.False(t, ok)
}

func TestStatusField(t *testing.T) {
	status := "Name:\tjava\nVmHWM:\t  123456 kB\nVmRSS:\t  1000 kB\nThreads:\t18\n"
	v, err := statusField(status, "Threads")
	require.NoError(t, err)
	assert.Equal(t, "18", v)
	v, err = statusField(status, "VmHWM")
	require.NoError(t, err)
	assert.Equal(t, "123456 kB", v)
	_, err = statusField(status, "VmPeak")
	assert.Error(t, err)
}

func TestRuntimeHelpers(t *testing.T) {
	line := "java-baseline listening on 127.0.0.1:9092 (public-url http://localhost:9092, seat dsp, 1000 campaigns, exchange default (implicit, open, clear), netty 4.1.48.Final nio (native epoll unavailable), event-loops 2, max-bids 1432354, clock 2026-11-04T08:00:00.398Z, 17.0.15+6-Debian-1deb12u1)"
	assert.Equal(t, "17.0.15+6-Debian-1deb12u1", javaVersion(line))
	assert.Equal(t, "netty 4.1.48.Final nio (native epoll unavailable)", nettyTransport(line))
	assert.Equal(t, "", nettyTransport("java-baseline listening on x (maxThreads 200, 17)"))

	cmd := "/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xms1g -Xmx1g -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -XX:ActiveProcessorCount=1 -XX:+UseG1GC -cp a.jar:b.jar recbid.baseline.Main -http netty"
	assert.Equal(t, "-Xms1g -Xmx1g", heapFlags(cmd))
	assert.Equal(t, "-XX:+UseG1GC", gcFlag(cmd), "the last collector flag wins")
	assert.Equal(t, "", gcFlag("java -cp x Main"))
	assert.Equal(t, "java -Xms1g -cp … Main", classpathRE.ReplaceAllString("java -Xms1g -cp a.jar:b.jar Main", "-cp …"))

	assert.Equal(t, "-XX:CICompilerCount=2 -XX:+UseParallelGC", jcmdFlags("11285:\n-XX:CICompilerCount=2 -XX:+UseParallelGC\n"))

	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, "on (cmd/default.pgo)", pgoOf([]debug.BuildSetting{{Key: "-pgo", Value: filepath.Join(wd, "cmd/default.pgo")}}))
	assert.Equal(t, "on (/elsewhere/default.pgo)", pgoOf([]debug.BuildSetting{{Key: "CGO_ENABLED", Value: "1"}, {Key: "-pgo", Value: "/elsewhere/default.pgo"}}))
	assert.Equal(t, "off", pgoOf([]debug.BuildSetting{{Key: "CGO_ENABLED", Value: "1"}}), "no -pgo setting: built without a profile")
	assert.Equal(t, "off", pgoOf([]debug.BuildSetting{{Key: "-pgo", Value: "off"}}))
}

func TestDescribe(t *testing.T) {
	cfg := DefaultConfig()
	d, ok := scenarioByKey("d")
	require.True(t, ok)
	assert.Equal(t, "open loop at 80% of the slower server of each pair in (b) (idiomatic 29200 req/s, fastest 32800 req/s), 200 connections, 10s",
		d.describe(&cfg, map[string]float64{"idiomatic": 29200, "fastest": 32800}))
	a, _ := scenarioByKey("a")
	assert.Equal(t, "2016 run: -n 10000 -c 100 -p post.data, no keep-alive", a.describe(&cfg, nil))
	_, ok = scenarioByKey("z")
	assert.False(t, ok)
}

// fakeReport is a finished comparison with made-up numbers: both pairs,
// the no-PGO row, the sweeps, two rounds.
func fakeReport() *Report {
	cfg := DefaultConfig()
	cfg.DspdBin, cfg.DspdNoPGOBin, cfg.Rounds = "bin/dspd", "bin/dspd-nopgo", 2
	if err := cfg.check(); err != nil {
		panic(err)
	}
	rep := &Report{Started: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Took: "4m0s",
		Machine: map[string]string{"cpu": "test CPU", "go": "go1.26.8"}, Settings: settings(&cfg), Pairs: pairs, Reference: reference2016}
	gc := func(pgo string) Runtime {
		return Runtime{Version: "go1.26.8", Heap: "GOMEMLIMIT=1GiB", GC: "Go's concurrent mark and sweep, GOGC=100 (default), GOMEMLIMIT=1GiB",
			GOMAXPROCS: 1, PGO: pgo, Transport: "net/http"}
	}
	java := func(front string, gc Collector, named, flags string) Runtime {
		return Runtime{Version: "17.0.15+6-Debian-1deb12u1", Heap: "-Xms1g -Xmx1g", GC: named + " (" + gc.Flags + ")",
			CommandLine: "/usr/bin/java -Xms1g -Xmx1g " + gc.Flags + " -XX:ActiveProcessorCount=1 -cp a.jar:b.jar recbid.baseline.Main -http " + front,
			JVMFlags:    flags, GCFlags: gcFlagsInForce(flags), Transport: front + " transport", GCLog: "out/compare-java/" + front + "-gc.log"}
	}
	rep.Servers = []ServerInfo{
		{Name: goChi, Label: "Go chi", Lang: "go", Front: "chi", Pair: "idiomatic", RatePair: "idiomatic", Command: "taskset -c 0 bin/dspd -http chi",
			Env: "GOMAXPROCS=1", StartupMs: 30, Runtime: gc("on (cmd/dspd/default.pgo)"), PeakRSSBytes: 50 << 20, Threads: 7, GC: GCStats{Count: 900, PauseMs: 45}, StoppedCleanly: true},
		{Name: tomcat, Label: "Java Tomcat", Lang: "java", Front: tomcat, Pair: "idiomatic", RatePair: "idiomatic", Setting: "maxThreads 16",
			SettingFrom: "the sweep: under G1, maxThreads 16: …", Collector: &fakeG1, CollectorFrom: "the sweep: at maxThreads 64, G1: …",
			Command: "taskset -c 0 java-baseline/run.sh -http tomcat", Env: "JAVA_HEAP=1g JAVA_GC=-XX:+UseG1GC",
			StartupMs: 900, StartupLine: "java-baseline listening on 127.0.0.1:19303 (maxThreads 16, 17.0.15+6-Debian-1deb12u1)",
			Runtime:      java("tomcat", fakeG1, "G1", "-XX:CICompilerCount=2 -XX:ConcGCThreads=1 -XX:G1HeapRegionSize=1048576 -XX:+UseG1GC"),
			PeakRSSBytes: 300 << 20, Threads: 80, GC: GCStats{Count: 40, PauseMs: 120}, StoppedCleanly: true},
		{Name: goFasthttp, Label: "Go fasthttp", Lang: "go", Front: "fasthttp", Pair: "fastest", RatePair: "fastest", Command: "taskset -c 0 bin/dspd -http fasthttp",
			Env: "GOMAXPROCS=1", StartupMs: 31, Runtime: gc("on (cmd/dspd/default.pgo)"), PeakRSSBytes: 60 << 20, Threads: 6, GC: GCStats{Count: 800, PauseMs: 40}, StoppedCleanly: true},
		{Name: netty, Label: "Java Netty", Lang: "java", Front: netty, Pair: "fastest", RatePair: "fastest", Setting: "1 event loop",
			SettingFrom: "the sweep: under Parallel, 1 event loop: …", Collector: &fakeParallel, CollectorFrom: "the sweep: at 1 event loop, Parallel: …",
			Command: "taskset -c 0 java-baseline/run.sh -http netty", Env: "JAVA_HEAP=1g JAVA_GC=-XX:+UseParallelGC",
			StartupMs: 800, Runtime: java("netty", fakeParallel, "Parallel", "-XX:CICompilerCount=2 -XX:MaxNewSize=357564416 -XX:ParallelGCThreads=1 -XX:+UseParallelGC"),
			PeakRSSBytes: 280 << 20, Threads: 18, GC: GCStats{Count: 35, PauseMs: 100}, StoppedCleanly: true},
		{Name: goChiNoPGO, Label: "Go chi, no PGO", Lang: "go", Front: "chi", RatePair: "idiomatic", Command: "taskset -c 0 bin/dspd-nopgo -http chi",
			Env: "GOMAXPROCS=1", StartupMs: 29, Runtime: gc("off"), PeakRSSBytes: 52 << 20, Threads: 7, StoppedCleanly: false},
	}
	base := map[string]float64{goChi: 2000, tomcat: 1500, goFasthttp: 2600, netty: 2400, goChiNoPGO: 1900}
	for k, sc := range scenarios {
		res := &ScenarioResult{Key: sc.Key, Short: sc.Short, Servers: map[string]*Series{}}
		for i, s := range rep.Servers {
			for round := range 2 {
				f := float64(k+1) * (1 + 0.1*float64(round)) // round 2 is faster: a JVM warming up
				x := Sample{RequestsPerSecond: base[s.Name] * f, P50: 0.5 + float64(i), P90: 1 + float64(i), P99: 2 + float64(i)*f,
					P999: 5 + 10*float64(i)*f, Max: 50, CPUMicrosPerReq: 20 + 4*float64(i), RSSBytes: int64(100+40*i) << 20,
					GCCount: int64(10 * (i + 1)), GCPauseMs: float64(i) * 1.5, Complete: 1000}
				res.Servers[s.Name] = appendRound(res.Servers[s.Name], x)
			}
		}
		res.summarize()
		if sc.Key == "d" {
			res.TargetRates, res.RateBasis, _ = openRates(rep.scenario("b"), rep.Servers, 0.8)
		}
		res.Description = sc.describe(&cfg, res.TargetRates)
		for _, series := range res.Servers {
			m := series.Median
			series.Curve = []CurvePoint{{0, 0.1}, {50, m.P50}, {90, m.P90}, {99, m.P99}, {99.9, m.P999}, {100, m.Max}}
		}
		rep.Scenarios = append(rep.Scenarios, res)
	}
	rep.Collectors = fakeCollectors()
	rep.Sweeps = fakeSweeps(&cfg)
	rep.Warmth = warmth(rep.Servers, rep.Scenarios)
	rep.Notes = notes(&cfg, rep.Collectors)
	return rep
}

// The collectors of the fake JVM, a JDK 17: ZGC has one generation.
var (
	fakeParallel   = Collector{Key: gcParallel, Name: "Parallel", Flags: "-XX:+UseParallelGC"}
	fakeG1         = Collector{Key: gcG1, Name: "G1", Flags: "-XX:+UseG1GC"}
	fakeZ          = Collector{Key: gcZ, Name: "single-generation ZGC", Flags: "-XX:+UseZGC"}
	fakeShenandoah = Collector{Key: gcShenandoah, Name: "Shenandoah", Flags: "-XX:+UseShenandoahGC"}
)

func fakeCollectors() []CollectorSupport {
	return []CollectorSupport{
		{Collector: fakeParallel, Supported: true, Tried: true},
		{Collector: fakeG1, Supported: true, Tried: true},
		{Collector: fakeZ, Supported: true, Tried: true, Note: "generational ZGC needs JDK 21; JDK 17's ZGC has one generation, tried instead"},
		{Collector: fakeShenandoah, Supported: true, Tried: true},
	}
}

// fakeStage measures a stage's points with made-up figures: on Tomcat,
// maxThreads 200 is fastest in (b) under Parallel but fails 1% of (c); G1
// beats Parallel at maxThreads 64, and under G1 maxThreads 16 is best. On
// Netty one event loop is best and Parallel stays best.
func fakeStage(front string) stageRunner {
	type fig struct{ b, c, p99, p999 float64 }
	threads := map[string]map[int]fig{
		tomcat + gcParallel: {4: {30000, 29000, 3, 40}, 16: {33000, 29000, 3, 40}, 64: {35000, 29000, 3, 40}, 200: {36000, 29000, 3, 40}},
		tomcat + gcG1:       {4: {31000, 30000, 4, 12}, 16: {37000, 31000, 4, 12}, 64: {36000, 30000, 4, 12}, 200: {36500, 30000, 4, 12}},
		netty + gcParallel:  {1: {45000, 44000, 2, 30}, 2: {22500, 22000, 2, 30}, 4: {11250, 11000, 2, 30}},
	}
	collectors := map[string]map[string]fig{
		tomcat: {gcParallel: {35000, 29000, 3, 40}, gcG1: {36000, 30000, 4, 12}, gcZ: {25000, 24000, 2.5, 5}, gcShenandoah: {28000, 27000, 3.5, 8}},
		netty:  {gcParallel: {45000, 44000, 2, 30}, gcG1: {40000, 39000, 3, 10}, gcZ: {30000, 29000, 2.5, 4}, gcShenandoah: {35000, 34000, 3, 7}},
	}
	return func(n int, vary string, pts []SweepPoint) (SweepStage, error) {
		for i := range pts {
			pt := &pts[i]
			f, ok := threads[front+pt.Collector.Key][pt.Value]
			if vary == varyCollector {
				f, ok = collectors[front][pt.Collector.Key]
			}
			if !ok {
				return SweepStage{}, fmt.Errorf("no figures for %s, %s, %d", front, pt.Collector.Key, pt.Value)
			}
			failed := int64(0)
			if front == tomcat && pt.Collector.Key == gcParallel && pt.Value == 200 {
				failed = 290
			}
			pt.Samples = map[string]Sample{
				"b": {RequestsPerSecond: f.b, P99: f.p99, P999: f.p999, Complete: int64(f.b * 2), GCCount: 10, GCPauseMs: f.p999 / 2},
				"c": {RequestsPerSecond: f.c, P99: f.p99 * 2, P999: f.p999 * 2, Complete: int64(f.c * 2), Failed: failed, GCCount: 10, GCPauseMs: f.p999 / 2},
			}
			pt.Score = score(pt.Samples, []string{"b", "c"})
		}
		return pickStage(front, vary, pts), nil
	}
}

func fakeSweeps(cfg *Config) []*Sweep {
	var out []*Sweep
	gcs := []Collector{fakeParallel, fakeG1, fakeZ, fakeShenandoah}
	for _, front := range []string{tomcat, netty} {
		values := cfg.SweepThreads
		if front == netty {
			values = cfg.SweepLoops
		}
		sw := newSweep(cfg, front)
		if err := sweepFront(cfg, sw, values, gcs, fakeStage(front)); err != nil {
			panic(err)
		}
		out = append(out, sw)
	}
	return out
}

func appendRound(s *Series, x Sample) *Series {
	if s == nil {
		s = &Series{}
	}
	s.Rounds = append(s.Rounds, x)
	return s
}

// assertGolden compares got with testdata/NAME, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	rep := fakeReport()
	files, err := WriteFiles(dir, rep)
	require.NoError(t, err)
	assert.Equal(t, []string{"report.md", "report.json", "throughput.svg", "cpu.svg", "tail.svg", "rss.svg", "latency.svg"}, baseNames(files))

	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assertGolden(t, "report.golden.md", md)
	js, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	assertGolden(t, "report.golden.json", js)
	var b strings.Builder
	WriteTable(&b, rep)
	assertGolden(t, "table.golden.txt", []byte(b.String()))
}

// The report's shape, asserted apart from the golden files, so that a
// careless -update cannot hide a regression.
func TestReportShape(t *testing.T) {
	rep := fakeReport()
	var table strings.Builder
	WriteTable(&table, rep)
	var md strings.Builder
	writeMarkdown(&md, rep, []chartFile{{"throughput.svg", "t"}, {"latency.svg", "l"}})
	for _, out := range []string{table.String(), md.String()} {
		for _, s := range rep.Servers {
			assert.Contains(t, out, s.Label)
		}
		for _, sc := range rep.Scenarios {
			assert.Contains(t, out, "("+sc.Key+")")
		}
		assert.Contains(t, out, "idiomatic")
		assert.Contains(t, out, "fastest")
		assert.Contains(t, out, "maxThreads")
	}
	// Every scenario has a ratio row per pair in the table: 5 scenarios, 2 pairs, and the 2016 reference.
	assert.Equal(t, 5*2+1, strings.Count(table.String(), "Go / Java"))
	// (b): idiomatic, the median of 4000 and 4400 over that of 3000 and 3300.
	assert.Contains(t, table.String(), "1.33x")
	m := md.String()
	for _, want := range []string{
		"## Java settings sweep", "| 64 | Parallel | 35000 | 3.00 | 40.00 | 29000 | 6.00 | 80.00 | 0 | 20, 40.0 ms | 31859 | **chosen** |",
		// The collectors: the JVM's answers, each collector's tails in the sweep, the one in force and its flags.
		"| single-generation ZGC | `-XX:+UseZGC` | yes: generational ZGC needs JDK 21; JDK 17's ZGC has one generation, tried instead | yes |",
		"**Tomcat, stage 2: the collectors at maxThreads 64**", "| 64 | G1 | 36000 | 4.00 | 12.00 | 30000 | 8.00 | 24.00 | 0 | 20, 12.0 ms | 32863 | **chosen** |",
		"| 64 | Shenandoah | 28000 | 3.50 | 8.00 | 27000 | 7.00 | 16.00 | 0 | 20, 8.0 ms | 27495 |  |",
		"**Tomcat, stage 3: maxThreads again under G1**", "Tomcat gets **maxThreads 16** and **G1** (`-XX:+UseG1GC`).",
		"Netty gets **1 event loop** and **Parallel** (`-XX:+UseParallelGC`).",
		"| GC | Go's concurrent mark and sweep, GOGC=100 (default), GOMEMLIMIT=1GiB | G1 (-XX:+UseG1GC) |",
		"| collector, from | - | G1 (-XX:+UseG1GC), from the sweep: at maxThreads 64, G1: … |",
		"| GC flags in force | - | -XX:ConcGCThreads=1 -XX:G1HeapRegionSize=1048576 -XX:+UseG1GC | - | -XX:MaxNewSize=357564416 -XX:ParallelGCThreads=1 -XX:+UseParallelGC | - |",
		"Java Tomcat (maxThreads 16, G1)", "servlets, maxThreads 16, G1 collector", "Single-generation ZGC maps its heap three times",
		"## Runtimes", "| PGO | on (cmd/dspd/default.pgo) | - | on (cmd/dspd/default.pgo) | - | off |",
		"| heap | GOMEMLIMIT=1GiB | -Xms1g -Xmx1g |", "| GC | Go's concurrent mark and sweep", "Parallel (-XX:+UseParallelGC)",
		"-XX:ActiveProcessorCount=1", "GOMAXPROCS 1", "(classpath elided): `/usr/bin/java -Xms1g -Xmx1g -XX:+UseG1GC -XX:ActiveProcessorCount=1 -cp … recbid.baseline.Main -http tomcat`",
		"`jcmd PID VM.flags`", "## JIT warm-up", "| (b) keep-alive | 0.91 |",
		"fastest at 4,000 req/s", "idiomatic at 2,500 req/s", "80% of Java Tomcat's 3150 req/s in (b)",
		"80% of Java Netty's 5040 req/s in (b)", "maxThreads 64: the highest geometric mean of requests/s (31859), 3.0% above the next best (maxThreads 16, 30935); 1 point(s) with more than 0.1% of requests failed set aside",
		"Tomcat: G1: the highest geometric mean of requests/s (32863), 3.2% above the next best (Parallel, 31859).",
		"Tomcat 7", "![t](throughput.svg)",
	} {
		assert.Contains(t, m, want)
	}
	assert.NotContains(t, m, "a.jar", "the classpath is elided")

	// The terminal names each collector's tails too.
	tt := table.String()
	for _, want := range []string{
		"  collectors tried: Parallel, G1, single-generation ZGC, Shenandoah\n",
		"  Tomcat, stage 2: the collectors at maxThreads 64\n",
		"  collector            parallel         g1*       zgc  shenandoah\n",
		"  (b) p99.9 ms             40.00      12.00       5.00       8.00\n",
		"  Tomcat gets maxThreads 16, G1 (-XX:+UseG1GC)\n",
	} {
		assert.Contains(t, tt, want)
	}

	// Without the sweep: the JVM's collectors still, and the given one.
	rep.Sweeps = nil
	rep.Warmth = nil
	rep.Collectors[3].Supported, rep.Collectors[3].Tried, rep.Collectors[3].Note = false, false, "not in this JVM: Unrecognized VM option 'UseShenandoahGC'"
	md.Reset()
	writeMarkdown(&md, rep, nil)
	assert.Contains(t, md.String(), "| Shenandoah | `-XX:+UseShenandoahGC` | no: not in this JVM: Unrecognized VM option 'UseShenandoahGC' | no |\n\nSkipped (")
	assert.Contains(t, md.String(), "With a single round there is no later round")
	table.Reset()
	WriteTable(&table, rep)
	assert.True(t, strings.HasPrefix(table.String(), "Java settings sweep skipped: "))
}

func TestBarSlotsGroupPairs(t *testing.T) {
	rep := fakeReport()
	slots, width := barSlots(rep)
	var names []string
	for _, s := range slots {
		names = append(names, s.server.Name)
	}
	assert.Equal(t, []string{goChi, tomcat, goFasthttp, netty, goChiNoPGO}, names, "pair by pair, Go first, the extra row last")
	inPair := slots[1].offset - slots[0].offset
	between := slots[2].offset - slots[1].offset
	assert.InDelta(t, slots[3].offset-slots[2].offset, inPair, 1e-9)
	assert.Greater(t, between, inPair*1.4, "a gap between the pairs")
	assert.Less(t, width, inPair, "bars do not overlap")
	assert.Less(t, slots[len(slots)-1].offset+width/2, 0.5, "a scenario's bars stay within its slot")
	assert.Greater(t, slots[0].offset-width/2, -0.5)
}

func TestChartsLayout(t *testing.T) {
	// The longest legend: a JVM on single-generation ZGC.
	long := fakeReport()
	long.Servers[1].Setting, long.Servers[1].Collector = "maxThreads 200", &fakeZ
	for _, f := range charts(long) {
		c := vgsvg.NewWith(vgsvg.UseWH(f.width, f.height))
		dc := draw.New(c)
		_, box := f.layout(dc)
		assert.True(t, inside(box, dc.Rectangle), "%s: legend %v within the canvas %v", f.file, box, dc.Rectangle)
	}

	figs := charts(fakeReport())
	require.Len(t, figs, 5)
	for _, f := range figs {
		t.Run(f.file, func(t *testing.T) {
			c := vgsvg.NewWith(vgsvg.UseWH(f.width, f.height))
			dc := draw.New(c)
			panels, box := f.layout(dc)
			canvas := dc.Rectangle
			assert.True(t, inside(box, canvas), "legend %v within the canvas %v", box, canvas)
			for i, row := range f.rows {
				for j, p := range row {
					pc := panels[i][j]
					assert.True(t, inside(pc.Rectangle, canvas), "panel within the canvas")
					data := p.DataCanvas(pc).Rectangle
					assert.False(t, overlaps(box, data), "legend %v outside the plotted area %v", box, data)
					// The title is centred on its panel: it must fit it, with slack
					// for a renderer whose fallback font is wider.
					assert.Less(t, fallbackSlack*float64(p.Title.TextStyle.Width(p.Title.Text)), float64(pc.Size().X), "title %q fits", p.Title.Text)
				}
			}
			w, h := f.legend.size()
			assert.Greater(t, float64(w), 0.0)
			assert.Less(t, float64(box.Min.Y), float64(box.Max.Y))
			assert.InDelta(t, float64(h), float64(box.Size().Y), 1e-6)
		})
	}
	// Each pair's latency panel shares the latency axis.
	lat := figs[4]
	require.Len(t, lat.rows[0], 2)
	assert.Equal(t, lat.rows[0][0].Y.Min, lat.rows[0][1].Y.Min)
	assert.Equal(t, lat.rows[0][0].Y.Max, lat.rows[0][1].Y.Max)
	assert.Equal(t, "(d) idiomatic, 2,500 req/s", lat.rows[0][0].Title.Text)
}

func TestChartsWritten(t *testing.T) {
	dir := t.TempDir()
	rep := fakeReport()
	files, err := writeCharts(dir, rep)
	require.NoError(t, err)
	require.Len(t, files, 5)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.file))
		require.NoError(t, err)
		svg := string(b)
		assert.True(t, strings.HasPrefix(svg, "<?xml") || strings.HasPrefix(svg, "<svg"), f.file)
		for _, s := range rep.Servers {
			assert.Contains(t, svg, xmlEscape(s.legend()), "%s names %s in its legend", f.file, s.Name)
		}
		if f.file != "latency.svg" {
			panels := 1
			if f.file == "tail.svg" {
				panels = 2 // p99 and p99.9
			}
			assert.Equal(t, 5*2*panels, strings.Count(svg, "×</text>"), "%s writes the ratio over each pair in each scenario", f.file)
		}
		if f.file == "throughput.svg" {
			assert.Contains(t, svg, "1.33×", "the idiomatic pair's ratio in (b)")
		}
	}
	// A report without the open loop has no latency chart.
	rep.Scenarios = rep.Scenarios[:2]
	files, err = writeCharts(dir, rep)
	require.NoError(t, err)
	assert.Len(t, files, 4)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func inside(r, outer vg.Rectangle) bool {
	return r.Min.X >= outer.Min.X && r.Min.Y >= outer.Min.Y && r.Max.X <= outer.Max.X && r.Max.Y <= outer.Max.Y
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

func TestWholeTicks(t *testing.T) {
	for _, tc := range []struct {
		max    float64
		labels []string
	}{
		{296, []string{"0", "50", "100", "150", "200", "250"}},
		{15600, []string{"0", "2,000", "4,000", "6,000", "8,000", "10,000", "12,000", "14,000"}},
		{45, []string{"0", "10", "20", "30", "40"}},
		{1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
	} {
		var got []string
		for _, tk := range (wholeTicks{}).Ticks(0, tc.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		assert.Equal(t, tc.labels, got, "0–%g", tc.max)
	}
	assert.Nil(t, (wholeTicks{}).Ticks(0, 0))
}

// scriptedCPU returns its CPU times in turn, then the last one for ever.
type scriptedCPU struct {
	times []time.Duration
	calls int
}

func (s *scriptedCPU) CPUTime() (time.Duration, error) {
	i := min(s.calls, len(s.times)-1)
	s.calls++
	return s.times[i], nil
}

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, n := range v {
		out[i] = time.Duration(n) * time.Millisecond
	}
	return out
}

func TestSettle(t *testing.T) {
	noWait := func(context.Context, time.Duration) error { return nil }
	for _, tc := range []struct {
		name  string
		procs [][]time.Duration // each process's CPU time at each reading
		want  time.Duration
	}{
		{"quiet from the start", [][]time.Duration{ms(100, 100), ms(5, 6)}, 250 * time.Millisecond},
		{"a JVM still compiling for three windows", [][]time.Duration{ms(0, 0), ms(0, 250, 500, 700, 710)}, time.Second},
		{"25 ms in a window is the limit", [][]time.Duration{ms(0, 25)}, 250 * time.Millisecond},
		{"busy past the limit: measured anyway", [][]time.Duration{ms(0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000)}, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var procs []cpuReader
			for _, p := range tc.procs {
				procs = append(procs, &scriptedCPU{times: p})
			}
			waited, err := settle(context.Background(), procs, 250*time.Millisecond, 2*time.Second, 0.1, noWait)
			require.NoError(t, err)
			assert.Equal(t, tc.want, waited)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := settle(ctx, []cpuReader{&scriptedCPU{times: ms(0)}}, time.Millisecond, time.Second, 0.1, sleepCtx)
	assert.ErrorIs(t, err, context.Canceled)
}
