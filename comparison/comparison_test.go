package comparison

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedianAndRatios(t *testing.T) {
	rounds := []Sample{
		{RequestsPerSecond: 100, P99: 9, CPUMicrosPerReq: 30, Failed: 1},
		{RequestsPerSecond: 300, P99: 1, CPUMicrosPerReq: 10},
		{RequestsPerSecond: 200, P99: 5, CPUMicrosPerReq: 20},
	}
	m := median(rounds)
	assert.Equal(t, 200.0, m.RequestsPerSecond)
	assert.Equal(t, 5.0, m.P99)
	assert.Equal(t, 20.0, m.CPUMicrosPerReq)
	assert.Equal(t, int64(0), m.Failed)
	assert.Equal(t, 200.0, median(rounds[:2]).RequestsPerSecond, "even count: the mean of the middle two")

	r := ratios(Sample{RequestsPerSecond: 300, P99: 2, CPUMicrosPerReq: 10}, Sample{RequestsPerSecond: 100, P99: 4, CPUMicrosPerReq: 40})
	assert.Equal(t, 3.0, r["requests_per_second"])
	assert.Equal(t, 0.5, r["p99"])
	assert.Equal(t, 0.25, r["cpu_us_per_request"])
	assert.Equal(t, 0.0, r["p50"], "no division by zero")
}

func TestRotateAlternates(t *testing.T) {
	a, b, c := &server{Name: "go"}, &server{Name: "java"}, &server{Name: "go-nopgo"}
	names := func(ss []*server) string {
		var n []string
		for _, s := range ss {
			n = append(n, s.Name)
		}
		return strings.Join(n, ",")
	}
	assert.Equal(t, "go,java,go-nopgo", names(rotate([]*server{a, b, c}, 0)))
	assert.Equal(t, "java,go-nopgo,go", names(rotate([]*server{a, b, c}, 1)))
	assert.Equal(t, "java,go", names(rotate([]*server{a, b}, 1)))
}

func TestGoMemLimit(t *testing.T) {
	for in, want := range map[string]string{"512m": "512MiB", "2g": "2GiB", "1024k": "1024KiB", "512M": "512MiB"} {
		assert.Equal(t, want, goMemLimit(in), in)
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

// fakeReport is a finished comparison with made-up numbers.
func fakeReport() *Report {
	rep := &Report{Started: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Took: "1m0s",
		Machine: map[string]string{"cpu": "test"}, Settings: map[string]string{"ROUNDS": "1"}, Reference: reference2016,
		Servers: []ServerInfo{{Name: "go", Label: "Go (dspd)", StartupMs: 30, PeakRSSBytes: 50 << 20},
			{Name: "java", Label: "Java (Tomcat)", StartupMs: 900, PeakRSSBytes: 300 << 20}}}
	for _, key := range []string{"a", "b", "d"} {
		sc := &ScenarioResult{Key: key, Description: "scenario " + key, TargetRate: 1000, Servers: map[string]*Series{}}
		for i, name := range []string{"go", "java"} {
			s := Sample{RequestsPerSecond: float64(2000 - 500*i), P50: float64(1 + i), P99: float64(3 + i), P999: float64(5 + i), CPUMicrosPerReq: float64(20 + 10*i)}
			sc.Servers[name] = &Series{Rounds: []Sample{s}, Median: s, Curve: []CurvePoint{{0, 0.1}, {50, s.P50}, {99, s.P99}, {99.9, s.P999}, {100, 9}}}
		}
		sc.GoOverJava = ratios(sc.Servers["go"].Median, sc.Servers["java"].Median)
		rep.Scenarios = append(rep.Scenarios, sc)
	}
	return rep
}

func TestWriteFilesAndTable(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteFiles(dir, fakeReport())
	require.NoError(t, err)
	assert.Equal(t, []string{"report.md", "report.json", "throughput.svg", "latency.svg"}, baseNames(files))
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	for _, want := range []string{"| (a) scenario a | Go (dspd) | 2000 |", "**1.33×**", "Tomcat 7 | 6419", "![throughput](throughput.svg)", "![latency](latency.svg)"} {
		assert.Contains(t, string(md), want)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "latency.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")

	var b strings.Builder
	WriteTable(&b, fakeReport())
	assert.Contains(t, b.String(), "Go / Java")
	assert.Contains(t, b.String(), "1.33x")
	assert.Contains(t, b.String(), "Go 1.7 (naive)")
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}
