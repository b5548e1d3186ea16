package loadtest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/golden"
)

// fixedResult builds a result from fabricated answers, so that its report is
// the same on every machine.
func fixedResult(t *testing.T, keepAlive, openLoop bool) *Result {
	t.Helper()
	r := &run{cfg: Config{URL: "http://localhost:9090/dsp/recbid", Requests: 10, Concurrency: 2, KeepAlive: keepAlive,
		Bodies: [][]byte{[]byte("id=1")}, ContentType: "application/x-www-form-urlencoded"}}
	if openLoop {
		r.cfg.Rate = 100
	}
	require.NoError(t, r.cfg.normalize())
	var err error
	r.target, err = parseTarget(r.cfg.URL)
	require.NoError(t, err)
	r.reqs, err = prepare(r.target, &r.cfg)
	require.NoError(t, err)
	r.docLen.Store(786)
	r.conns.Store(2)
	rec := newRecorder()
	base := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for i := range 10 {
		start := base.Add(time.Duration(i) * 10 * time.Millisecond)
		a := answer{status: 200, header: 118, body: 786, docLen: 786, reqBytes: len(r.reqs[0].raw), bodySize: 4,
			server: "dspd", close: !keepAlive,
			timing: timing{start: start, connected: start.Add(100 * time.Microsecond), written: start.Add(120 * time.Microsecond),
				firstByte: start.Add(time.Duration(i+1) * time.Millisecond), done: start.Add(time.Duration(i+1)*time.Millisecond + 50*time.Microsecond)}}
		switch i {
		case 7:
			a.status = 503
		case 8:
			a.kind = kindConnect
		case 9:
			a.kind = kindLength
		}
		rec.add(&a, start)
	}
	res := r.result(rec, base, 100*time.Millisecond)
	res.Machines = []string{"test-machine"}
	return res
}

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), []byte(got))
}

func TestReportGolden(t *testing.T) {
	for _, tt := range []struct {
		name                string
		keepAlive, openLoop bool
	}{{"report.txt", false, false}, {"report-keepalive-openloop.txt", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, WriteReport(&b, fixedResult(t, tt.keepAlive, tt.openLoop)))
			assertGolden(t, tt.name, b.String())
		})
	}
}

func TestResultCounts(t *testing.T) {
	res := fixedResult(t, false, false)
	assert.Equal(t, int64(10), res.Complete)
	assert.Equal(t, int64(2), res.Failed, "connect and length")
	assert.Equal(t, int64(1), res.Non2xx)
	assert.Equal(t, map[string]int64{"200": 8, "503": 1}, res.StatusCodes, "a length failure still got its answer")
	assert.Equal(t, 100.0, res.RequestsPerSecond)
	assert.InDelta(t, 5.05, res.Latency.P50, 0.01, "HDR keeps 3 significant digits")
	assert.InDelta(t, 10.05, res.Latency.Max, 0.01)
}

func TestSaveLoadMerge(t *testing.T) {
	dir := t.TempDir()
	a, b := fixedResult(t, true, false), fixedResult(t, true, false)
	b.Machines = []string{"other-machine"}
	b.DurationSeconds = 0.2
	require.NoError(t, a.Save(filepath.Join(dir, "a.json")))
	require.NoError(t, b.Save(filepath.Join(dir, "b.json")))
	la, err := Load(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	lb, err := Load(filepath.Join(dir, "b.json"))
	require.NoError(t, err)
	assert.Equal(t, a.Latency, la.Latency, "the histograms survive the round trip")

	m, err := Merge(la, lb)
	require.NoError(t, err)
	assert.Equal(t, a.Complete+b.Complete, m.Complete)
	assert.Equal(t, a.Failed+b.Failed, m.Failed)
	assert.Equal(t, a.Non2xx+b.Non2xx, m.Non2xx)
	assert.Equal(t, map[string]int64{"200": 16, "503": 2}, m.StatusCodes)
	assert.Equal(t, a.Errors["connect"]+b.Errors["connect"], m.Errors["connect"])
	assert.Equal(t, a.Bytes.Received+b.Bytes.Received, m.Bytes.Received)
	assert.Equal(t, 0.2, m.DurationSeconds, "the longest run")
	assert.Equal(t, 100.0, m.RequestsPerSecond, "20 requests over 0.2 s")
	assert.Equal(t, a.Concurrency+b.Concurrency, m.Concurrency)
	assert.Equal(t, []string{"other-machine", "test-machine"}, m.Machines)
	assert.Equal(t, int64(20), m.hist.total.TotalCount(), "every finished request's latency, both machines")
	assert.Equal(t, a.Latency.P50, m.Latency.P50, "two equal distributions merge into the same")

	_, err = Merge()
	assert.Error(t, err)
}
