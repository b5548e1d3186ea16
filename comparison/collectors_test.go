package comparison

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJavaFeature(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want int
	}{
		{"openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\n", 17},
		{"openjdk version \"21.0.5\" 2024-10-15 LTS\n", 21},
		{"openjdk version \"25\" 2025-09-16\n", 25},
		{"openjdk version \"25.0.3\" 2026-04-21 LTS\n", 25},
		{"openjdk version \"23-ea\" 2024-09-17\n", 23},
		{"java version \"1.8.0_412\"\nJava(TM) SE Runtime Environment\n", 8},
		{"java-baseline: compiling 30 sources with /usr/lib/jvm/java-17-openjdk-amd64/bin/javac\nopenjdk version \"17.0.15\" 2025-04-15\n", 17},
	} {
		got, err := javaFeature(tc.out)
		require.NoError(t, err, tc.out)
		assert.Equal(t, tc.want, got, tc.out)
	}
	for _, out := range []string{"", "Error: Could not create the Java Virtual Machine.\n", "openjdk version \"x.y\"\n"} {
		_, err := javaFeature(out)
		assert.Error(t, err, "%q", out)
	}
}

func TestCollectorFor(t *testing.T) {
	for _, tc := range []struct {
		key     string
		feature int
		name    string
		flags   string
		note    string // a part of it; "" for none
	}{
		{gcParallel, 17, "Parallel", "-XX:+UseParallelGC", ""},
		{gcG1, 17, "G1", "-XX:+UseG1GC", ""},
		{gcShenandoah, 17, "Shenandoah", "-XX:+UseShenandoahGC", ""},
		{gcZ, 17, "single-generation ZGC", "-XX:+UseZGC", "generational ZGC needs JDK 21"},
		{gcZ, 21, "generational ZGC", "-XX:+UseZGC -XX:+ZGenerational", ""},
		{gcZ, 22, "generational ZGC", "-XX:+UseZGC -XX:+ZGenerational", ""},
		{gcZ, 23, "generational ZGC", "-XX:+UseZGC", ""},
		{gcZ, 25, "generational ZGC", "-XX:+UseZGC", ""},
		{gcZ, 11, "ZGC", "-XX:+UseZGC", "experimental before JDK 15"},
	} {
		gc, note, err := collectorFor(tc.key, tc.feature)
		require.NoError(t, err)
		assert.Equal(t, Collector{Key: tc.key, Name: tc.name, Flags: tc.flags}, gc, "%s on JDK %d", tc.key, tc.feature)
		if tc.note == "" {
			assert.Empty(t, note)
		} else {
			assert.Contains(t, note, tc.note)
		}
	}
	_, _, err := collectorFor("cms", 17)
	assert.ErrorContains(t, err, `unknown collector "cms"`)
}

func TestProbeVerdict(t *testing.T) {
	exit1 := errors.New("exit status 1")
	for _, tc := range []struct {
		name string
		out  string
		err  error
		ok   bool
		note string
	}{
		{"started", "openjdk version \"17.0.15\" 2025-04-15\n", nil, true, ""},
		{"an option this JVM lacks", "Unrecognized VM option 'ZGenerational'\nError: Could not create the Java Virtual Machine.\n", exit1,
			false, "not in this JVM: Unrecognized VM option 'ZGenerational'"},
		{"an experimental collector", "Error: VM option 'UseEpsilonGC' is experimental and must be enabled via -XX:+UnlockExperimentalVMOptions.\n", exit1,
			false, "Error: VM option 'UseEpsilonGC' is experimental"},
		{"a build without it", "OpenJDK 64-Bit Server VM warning: Option UseShenandoahGC not supported\n", exit1,
			false, "Option UseShenandoahGC not supported"},
		{"an option ignored: started, but not on the collector asked for",
			"OpenJDK 64-Bit Server VM warning: Ignoring option ZGenerational; support was removed in 24.0\nopenjdk version \"25.0.3\"\n", nil,
			false, "Ignoring option ZGenerational"},
		{"failed without a word", "", exit1, false, "the JVM did not start: exit status 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, note := probeVerdict(tc.out, tc.err)
			assert.Equal(t, tc.ok, ok)
			if tc.note == "" {
				assert.Empty(t, note)
			} else {
				assert.Contains(t, note, tc.note)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	support := fakeCollectors()
	support[3].Supported, support[3].Note = false, "not in this JVM: Unrecognized VM option 'UseShenandoahGC'"
	for _, tc := range []struct {
		name    string
		keys    []string
		want    []string // keys
		skipped []string // parts, in order
		err     string
	}{
		{"all four, the one the JVM lacks left out", collectorKeys, []string{gcParallel, gcG1, gcZ}, []string{"Shenandoah (not in this JVM"}, ""},
		{"the order asked for", []string{gcG1, gcParallel}, []string{gcG1, gcParallel}, nil, ""},
		{"one", []string{gcZ}, []string{gcZ}, nil, ""},
		{"only one the JVM lacks", []string{gcShenandoah}, nil, nil, "none of the collectors shenandoah runs on this JVM"},
		{"one never asked about", []string{"cms"}, nil, nil, `collector "cms" was not asked about`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gcs, skipped, err := candidates(support, tc.keys)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var keys []string
			for _, gc := range gcs {
				keys = append(keys, gc.Key)
			}
			assert.Equal(t, tc.want, keys)
			require.Len(t, skipped, len(tc.skipped))
			for i, s := range tc.skipped {
				assert.Contains(t, skipped[i], s)
			}
		})
	}
}

func TestCollectorLists(t *testing.T) {
	support := fakeCollectors()
	support[1].Tried = false // G1: on the JVM, not asked for
	support[3].Supported, support[3].Tried = false, false
	tried, not := collectorLists(support)
	assert.Equal(t, "Parallel, single-generation ZGC", tried)
	assert.Equal(t, "Shenandoah", not)
}

func TestGCLogTagsAndFlags(t *testing.T) {
	assert.Equal(t, "gc", gcLogTags(fakeParallel))
	assert.Equal(t, "gc", gcLogTags(fakeShenandoah))
	assert.Equal(t, "gc,gc+phases", gcLogTags(fakeZ), "ZGC logs its pauses as phases")

	flags := "-XX:CICompilerCount=2 -XX:ConcGCThreads=1 -XX:+ExitOnOutOfMemoryError -XX:InitialHeapSize=1073741824 -XX:MaxNewSize=357564416 " +
		"-XX:NewSize=357564416 -XX:OldSize=716177408 -XX:ParallelGCThreads=1 -XX:-UsePerfData -XX:+UseParallelGC -XX:ZCollectionInterval=0 " +
		"-XX:+ZGenerational -XX:ShenandoahGCHeuristics=adaptive -XX:G1HeapRegionSize=1048576 -XX:SoftMaxHeapSize=1073741824 -XX:+UseCompressedOops"
	assert.Equal(t, "-XX:ConcGCThreads=1 -XX:MaxNewSize=357564416 -XX:NewSize=357564416 -XX:OldSize=716177408 -XX:ParallelGCThreads=1 "+
		"-XX:+UseParallelGC -XX:ZCollectionInterval=0 -XX:+ZGenerational -XX:ShenandoahGCHeuristics=adaptive -XX:G1HeapRegionSize=1048576 "+
		"-XX:SoftMaxHeapSize=1073741824", gcFlagsInForce(flags))
	assert.Equal(t, "", gcFlagsInForce(""))
}

// threadsStage is a fake stage runner that gives every point the score
// of its collector and setting, and records the stages it was asked for.
type threadsStage struct {
	scores  map[string]map[int]float64 // by collector key, then setting
	failing string                     // a collector whose points fail 1% of their requests
	asked   []string                   // "vary: collector/setting…", stage by stage
}

func (f *threadsStage) run(n int, vary string, pts []SweepPoint) (SweepStage, error) {
	var what []string
	for i := range pts {
		pt := &pts[i]
		pt.Score = f.scores[pt.Collector.Key][pt.Value]
		pt.Samples = map[string]Sample{"b": {RequestsPerSecond: pt.Score, Complete: 1000}}
		if pt.Collector.Key == f.failing {
			pt.Samples["b"] = Sample{RequestsPerSecond: pt.Score, Complete: 1000, Failed: 10}
		}
		what = append(what, fmt.Sprintf("%s/%d", pt.Collector.Key, pt.Value))
	}
	f.asked = append(f.asked, vary+": "+strings.Join(what, " "))
	return pickStage(tomcat, vary, pts), nil
}

func TestSweepFrontStages(t *testing.T) {
	gcs := []Collector{fakeParallel, fakeG1, fakeZ, fakeShenandoah}
	flat := func(v float64) map[int]float64 { return map[int]float64{4: v, 16: v, 64: v, 200: v} }
	for _, tc := range []struct {
		name      string
		gcs       []Collector
		values    []int
		scores    map[string]map[int]float64
		failing   string
		asked     []string
		chosen    int
		collector string
		reasons   []string // parts of Reason, then of CollectorReason
	}{
		{"Parallel stays best: two stages", gcs, []int{4, 16, 64, 200},
			map[string]map[int]float64{gcParallel: {4: 100, 16: 300, 64: 200, 200: 100}, gcG1: flat(250), gcZ: flat(150), gcShenandoah: flat(200)}, "",
			[]string{"maxThreads: parallel/4 parallel/16 parallel/64 parallel/200", "collector: parallel/16 g1/16 zgc/16 shenandoah/16"},
			16, gcParallel, []string{"under Parallel, maxThreads 16: the highest", "at maxThreads 16, Parallel: the highest", "above the next best (G1, 250)"}},
		{"another collector wins: its thread settings again", gcs, []int{4, 16, 64, 200},
			map[string]map[int]float64{gcParallel: {4: 100, 16: 300, 64: 200, 200: 100}, gcG1: flat(250),
				gcZ: {4: 500, 16: 400, 64: 600, 200: 300}, gcShenandoah: flat(200)}, "",
			[]string{"maxThreads: parallel/4 parallel/16 parallel/64 parallel/200", "collector: parallel/16 g1/16 zgc/16 shenandoah/16",
				"maxThreads: zgc/4 zgc/16 zgc/64 zgc/200"},
			64, gcZ, []string{"under single-generation ZGC, maxThreads 64", "at maxThreads 16, single-generation ZGC: the highest geometric mean of requests/s (400)"}},
		{"a failing collector is set aside by the same rule", gcs[:2], []int{4, 16},
			map[string]map[int]float64{gcParallel: {4: 100, 16: 300}, gcG1: {4: 900, 16: 900}}, gcG1,
			[]string{"maxThreads: parallel/4 parallel/16", "collector: parallel/16 g1/16"},
			16, gcParallel, []string{"maxThreads 16", "Parallel: the highest geometric mean of requests/s (300); 1 point(s) with more than 0.1% of requests failed set aside"}},
		{"one collector: the thread settings alone", gcs[1:2], []int{4, 16},
			map[string]map[int]float64{gcG1: {4: 100, 16: 300}}, "",
			[]string{"maxThreads: g1/4 g1/16"}, 16, gcG1, []string{"under G1, maxThreads 16", "the only collector swept"}},
		{"one thread setting: no third stage", gcs[:2], []int{64},
			map[string]map[int]float64{gcParallel: {64: 100}, gcG1: {64: 200}}, "",
			[]string{"maxThreads: parallel/64", "collector: parallel/64 g1/64"}, 64, gcG1, []string{"under Parallel, maxThreads 64", "at maxThreads 64, G1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.DspdBin = "bin/dspd"
			require.NoError(t, cfg.check())
			f := &threadsStage{scores: tc.scores, failing: tc.failing}
			sw := newSweep(&cfg, tomcat)
			require.NoError(t, sweepFront(&cfg, sw, tc.values, tc.gcs, f.run))
			assert.Equal(t, tc.asked, f.asked)
			require.Len(t, sw.Stages, len(tc.asked))
			assert.Equal(t, tc.chosen, sw.Chosen)
			assert.Equal(t, tc.collector, sw.Collector.Key)
			assert.Contains(t, sw.Reason, tc.reasons[0])
			for _, r := range tc.reasons[1:] {
				assert.Contains(t, sw.Reason+" | "+sw.CollectorReason, r)
			}
		})
	}

	// A failing stage stops the sweep.
	cfg := DefaultConfig()
	failing := func(int, string, []SweepPoint) (SweepStage, error) {
		return SweepStage{}, errors.New("no bid within 3 minutes")
	}
	assert.ErrorContains(t, sweepFront(&cfg, newSweep(&cfg, netty), []int{1}, gcs, failing), "no bid")
}

func TestFailingCollectorSetAside(t *testing.T) {
	// Shenandoah fastest but failing 1% of its requests (timeouts under
	// its pauses): set aside, as a failing thread setting is.
	pts := []SweepPoint{
		{Value: 4, Collector: fakeParallel, Score: 100, Samples: map[string]Sample{"b": {RequestsPerSecond: 100, Complete: 1000}}},
		{Value: 4, Collector: fakeShenandoah, Score: 300, Samples: map[string]Sample{"b": {RequestsPerSecond: 300, Complete: 1000, Failed: 10}}},
		{Value: 4, Collector: fakeG1, Score: 200, Samples: map[string]Sample{"b": {RequestsPerSecond: 200, Complete: 1000}}},
	}
	st := pickStage(tomcat, varyCollector, pts)
	assert.Equal(t, 2, st.Best)
	assert.Equal(t, "G1: the highest geometric mean of requests/s (200), 100.0% above the next best (Parallel, 100); "+
		"1 point(s) with more than 0.1% of requests failed set aside", st.Reason)
	assert.Equal(t, "the collectors at maxThreads 4", stageTitle(&Sweep{Front: tomcat, Stages: []SweepStage{st}}, 0))
}

// TestDetectCollectorsOnThisJVM asks the Java baseline's own JVM (which
// make test's setup installs) about its collectors.
func TestDetectCollectorsOnThisJVM(t *testing.T) {
	cfg := DefaultConfig()
	cfg.JavaRun = "../java-baseline/run.sh"
	support, err := detectCollectors(context.Background(), &cfg)
	require.NoError(t, err)
	require.Len(t, support, len(collectorKeys))
	for i, cs := range support {
		assert.Equal(t, collectorKeys[i], cs.Key)
		assert.NotEmpty(t, cs.Name)
		assert.NotEmpty(t, cs.Flags)
		if !cs.Supported {
			assert.Contains(t, cs.Note, "not in this JVM", cs.Key)
		}
	}
	assert.True(t, support[0].Supported, "every HotSpot JVM runs Parallel: %+v", support[0])
	assert.True(t, support[1].Supported, "and G1: %+v", support[1])

	out, err := probe(context.Background(), &cfg, "")
	require.NoError(t, err, out)
	feature, err := javaFeature(out)
	require.NoError(t, err)
	zgc, _, err := collectorFor(gcZ, feature)
	require.NoError(t, err)
	assert.Equal(t, zgc, support[2].Collector, "the ZGC of JDK %d", feature)
	if feature < 21 {
		ok, note := probeVerdict(probe(context.Background(), &cfg, "-XX:+UseZGC -XX:+ZGenerational"))
		assert.False(t, ok, "JDK %d has no generational ZGC", feature)
		assert.Contains(t, note, "ZGenerational")
	}
}
