package abrate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoPhases has a closed-loop phase of two runs with a shorter warm-up,
// then an open-loop phase at half the median of the second run, reading
// its server's CPU time.
const twoPhases = `{
  "vars": {"rounds": "2", "conns": "10", "duration": "5s"},
  "files": {"f.txt": "n={{.conns}}"},
  "servers": [
    {"name": "s1", "command": "{{.bin}}/dspd", "args": ["-config", "{{.tmp}}/f.txt"], "ready": {"url": "http://127.0.0.1:1/"},
     "capture": {"url": "http://127.0.0.1:1/bid", "body": "post.data", "type": "form", "to": "resp.json"}},
    {"name": "s2", "command": "redis-server", "env": ["GOMAXPROCS=2"], "cpus": ["server", "load"], "ready": {"tcp": "127.0.0.1:2"}}
  ],
  "phases": [
    {"name": "closed", "driver": "wrk", "args": ["-c{{.conns}}", "-d{{.duration}}"], "warmup": {"vars": {"duration": "1s"}},
     "runs": [
       {"key": "a", "url": "http://127.0.0.1:1/a", "server": "s1"},
       {"key": "b", "url": "http://127.0.0.1:1/b", "progress": "round {{.round}}: a {{rps ` + "`a`" + `}}, b {{rps ` + "`b`" + `}}"}
     ]},
    {"name": "open", "driver": "loadgen", "set": {"half": "{{int (mul (rps ` + "`b`" + `) 0.5)}}"}, "args": ["-rate", "{{.half}}"],
     "runs": [
       {"key": "c", "url": "http://127.0.0.1:1/c", "server": "s2",
        "progress": "open round {{.round}} at {{.half}}: c p50 {{p50 ` + "`c`" + `}} p99 {{p99 ` + "`c`" + `}} cpu {{cpu ` + "`c`" + `}}"}
     ]}
  ],
  "table": [
    "a {{rps ` + "`a`" + `}} b {{rps ` + "`b`" + `}} a/b {{ratio (rps ` + "`a`" + `) (rps ` + "`b`" + `)}}",
    "{{printf ` + "`%-4s|%8.0f|`" + ` ` + "`c`" + ` (rps ` + "`c`" + `)}}",
    "half {{.half}} on CPU {{.server_cpu}}/{{.load_cpu}}, {{.rounds}} rounds"
  ]
}`

// events is what the fakes saw, in order.
type events struct{ log []string }

func (e *events) add(s string) { e.log = append(e.log, s) }

// fakeLauncher starts fakeProcs, each with its CPU times in turn.
type fakeLauncher struct {
	ev    *events
	cpu   map[string][]time.Duration
	fail  string // the server whose launch fails
	specs []ServerSpec
	files map[string]string // the contents of {{.tmp}}/f.txt at each launch
}

func (l *fakeLauncher) Launch(_ context.Context, s ServerSpec) (Proc, error) {
	l.ev.add("start " + s.Name)
	if s.Name == l.fail {
		return nil, errors.New("no port")
	}
	l.specs = append(l.specs, s)
	if len(s.Argv) == 3 {
		b, err := os.ReadFile(s.Argv[2])
		if err != nil {
			return nil, err
		}
		l.files[s.Name] = string(b)
	}
	return &fakeProc{name: s.Name, ev: l.ev, times: l.cpu[s.Name]}, nil
}

type fakeProc struct {
	name  string
	ev    *events
	times []time.Duration
	calls int
}

func (p *fakeProc) CPUTime() (time.Duration, error) {
	if len(p.times) == 0 {
		return 0, nil
	}
	t := p.times[min(p.calls, len(p.times)-1)]
	p.calls++
	return t, nil
}

func (p *fakeProc) Stop() error { p.ev.add("stop " + p.name); return nil }

// fakeDriver answers each URL's calls with its samples in turn.
type fakeDriver struct {
	ev      *events
	samples map[string][]Sample
	calls   map[string]int
	failAt  string // "URL#call" that fails
}

func (d *fakeDriver) Drive(_ context.Context, j Job) (Sample, error) {
	d.ev.add(j.Driver + " " + strings.Join(j.Args, " ") + " " + j.URL)
	n := d.calls[j.URL]
	d.calls[j.URL]++
	if d.failAt == j.URL+"#"+string(rune('0'+n)) {
		return Sample{}, errors.New("boom")
	}
	return d.samples[j.URL][n], nil
}

func newFakes() (*events, *fakeLauncher, *fakeDriver) {
	ev := &events{}
	l := &fakeLauncher{ev: ev, files: map[string]string{},
		cpu: map[string][]time.Duration{"s2": {0, 10 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond}}}
	d := &fakeDriver{ev: ev, calls: map[string]int{}, samples: map[string][]Sample{
		"http://127.0.0.1:1/a": {{RequestsPerSecond: 999}, {RequestsPerSecond: 100}, {RequestsPerSecond: 300}},
		"http://127.0.0.1:1/b": {{RequestsPerSecond: 999}, {RequestsPerSecond: 50}, {RequestsPerSecond: 150}},
		"http://127.0.0.1:1/c": {{RequestsPerSecond: 40, P50: 1, P99: 3, Complete: 1000}, {RequestsPerSecond: 60, P50: 2, P99: 5, Complete: 2000}},
	}}
	return ev, l, d
}

func fakeConfig(l Launcher, d Driver, stdout, stderr *bytes.Buffer) Config {
	return Config{Bin: "bin", ServerCPU: 0, LoadCPU: 1, Launcher: l, Driver: d, Stdout: stdout, Stderr: stderr}
}

func TestMeasure(t *testing.T) {
	d, err := Parse(strings.NewReader(twoPhases), "two")
	require.NoError(t, err)
	ev, l, drv := newFakes()
	var stdout, stderr bytes.Buffer
	require.NoError(t, Measure(context.Background(), d, fakeConfig(l, drv, &stdout, &stderr)))

	assert.Equal(t, []string{
		"start s1", "start s2",
		// the warm-up: every run once, with its own variables
		"wrk -c10 -d1s http://127.0.0.1:1/a", "wrk -c10 -d1s http://127.0.0.1:1/b",
		// the rounds: the runs in turn, round after round
		"wrk -c10 -d5s http://127.0.0.1:1/a", "wrk -c10 -d5s http://127.0.0.1:1/b",
		"wrk -c10 -d5s http://127.0.0.1:1/a", "wrk -c10 -d5s http://127.0.0.1:1/b",
		// the open loop at half b's median of 100
		"loadgen -rate 50 http://127.0.0.1:1/c", "loadgen -rate 50 http://127.0.0.1:1/c",
		"stop s2", "stop s1",
	}, ev.log)
	assert.Equal(t, "warming up\n"+
		"round 1: a 100.00, b 50.00\n"+
		"round 2: a 300.00, b 150.00\n"+
		"open round 1 at 50: c p50 1.00 p99 3.00 cpu 10.00\n"+
		"open round 2 at 50: c p50 2.00 p99 5.00 cpu 20.00\n", stderr.String())
	assert.Equal(t, "a 200.00 b 100.00 a/b 2.00\n"+
		"c   |      50|\n"+
		"half 50 on CPU 0/1, 2 rounds\n", stdout.String())

	require.Len(t, l.specs, 2)
	s1, s2 := l.specs[0], l.specs[1]
	tmp := filepath.Dir(s1.Argv[2])
	assert.Equal(t, []string{"bin/dspd", "-config", filepath.Join(tmp, "f.txt")}, s1.Argv)
	assert.Equal(t, "n=10", l.files["s1"], "the files are written before the servers start")
	assert.Equal(t, "0", s1.CPUs)
	assert.Equal(t, Ready{URL: "http://127.0.0.1:1/"}, s1.Ready)
	assert.Equal(t, &Capture{URL: "http://127.0.0.1:1/bid", Body: "post.data", Type: "form", To: filepath.Join(tmp, "resp.json")}, s1.Capture)
	assert.Equal(t, filepath.Join(tmp, "s1.log"), s1.LogPath)
	assert.Equal(t, []string{"redis-server"}, s2.Argv)
	assert.Equal(t, []string{"GOMAXPROCS=2"}, s2.Env)
	assert.Equal(t, "0,1", s2.CPUs)
	assert.Equal(t, Ready{TCP: "127.0.0.1:2"}, s2.Ready)
	_, err = os.Stat(tmp)
	assert.ErrorIs(t, err, os.ErrNotExist, "the temporary directory is removed")
}

func TestMeasureFailures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failStart string
		failDrive string
		wantErr   string
		wantLog   []string
	}{
		{"a server does not start: the one started is stopped, nothing is driven", "s2", "",
			`server "s2": no port`, []string{"start s1", "start s2", "stop s1"}},
		{"a load fails: the rounds stop, every server is stopped", "", "http://127.0.0.1:1/b#2",
			`round 2: phase "closed", run "b": boom`,
			[]string{"start s1", "start s2", "wrk -c10 -d1s http://127.0.0.1:1/a", "wrk -c10 -d1s http://127.0.0.1:1/b",
				"wrk -c10 -d5s http://127.0.0.1:1/a", "wrk -c10 -d5s http://127.0.0.1:1/b",
				"wrk -c10 -d5s http://127.0.0.1:1/a", "wrk -c10 -d5s http://127.0.0.1:1/b", "stop s2", "stop s1"}},
		{"a warm-up fails", "", "http://127.0.0.1:1/a#0", `warm-up: phase "closed", run "a": boom`,
			[]string{"start s1", "start s2", "wrk -c10 -d1s http://127.0.0.1:1/a", "stop s2", "stop s1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(twoPhases), "two")
			require.NoError(t, err)
			ev, l, drv := newFakes()
			l.fail, drv.failAt = tc.failStart, tc.failDrive
			var stdout, stderr bytes.Buffer
			err = Measure(context.Background(), d, fakeConfig(l, drv, &stdout, &stderr))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Equal(t, tc.wantLog, ev.log)
			assert.Empty(t, stdout.String(), "no table")
		})
	}
}

// TestMeasureChecksFirst: a bad variable, or a template that would fail
// only once every phase has run (the table's), stops Measure before
// anything starts.
func TestMeasureChecksFirst(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string // twoPhases with from replaced by to
		vars     map[string]string
		wantErr  string
	}{
		{"rounds not a number", "", "", map[string]string{"rounds": "many"}, `rounds="many"`},
		{"a table line of an unknown variable", "{{.rounds}} rounds", "{{.runds}} rounds", nil,
			`two: template: table line 3:1:55: executing "table line 3" at <.runds>: map has no entry for key "runds"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, twoPhases, tc.from)
			d, err := Parse(strings.NewReader(strings.Replace(twoPhases, tc.from, tc.to, 1)), "two")
			require.NoError(t, err)
			ev, l, drv := newFakes()
			cfg := fakeConfig(l, drv, &bytes.Buffer{}, &bytes.Buffer{})
			cfg.Vars = tc.vars
			require.ErrorContains(t, Measure(context.Background(), d, cfg), tc.wantErr)
			assert.Empty(t, ev.log, "nothing started")
		})
	}
}

func TestCPUList(t *testing.T) {
	for _, tc := range []struct {
		server, load int
		roles        []string
		want         string
	}{
		{0, 1, nil, "0"},
		{0, 1, []string{"server"}, "0"},
		{0, 1, []string{"load"}, "1"},
		{0, 1, []string{"server", "load"}, "0,1"},
		{0, 1, []string{"load", "server"}, "1,0"},
		{0, 0, []string{"server", "load"}, "0"}, // one CPU
	} {
		r := &runner{cfg: Config{ServerCPU: tc.server, LoadCPU: tc.load}}
		assert.Equal(t, tc.want, r.cpuList(tc.roles), "%v", tc.roles)
	}
}

func TestCPUs(t *testing.T) {
	for _, tc := range []struct{ n, server, load int }{{1, 0, 0}, {2, 0, 1}, {8, 0, 1}} {
		s, l := cpus(tc.n)
		assert.Equal(t, [2]int{tc.server, tc.load}, [2]int{s, l}, "%d CPUs", tc.n)
	}
}
