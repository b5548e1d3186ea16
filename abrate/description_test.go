package abrate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// minimal is a valid description; the tests below break it one way each.
// Its phases and their runs are named apart, for the tests that take them
// out whole.
const (
	minimalRuns = `[{"key": "a", "url": "http://127.0.0.1:1/a", "server": "s"},
             {"key": "b", "url": "http://127.0.0.1:1/b", "progress": "round {{.round}}: {{rps ` + "`a`" + `}} {{rps ` + "`b`" + `}}"}]`
	minimalPhases = `[{"name": "p", "driver": "wrk", "args": ["-c{{.conns}}"], "warmup": {},
    "runs": ` + minimalRuns + `}]`
	minimal = `{
  "vars": {"rounds": "2", "conns": "10"},
  "build": ["dspd"],
  "files": {"a.json": {"k": "{{.conns}}"}, "b.txt": "text {{.conns}}"},
  "servers": [{"name": "s", "command": "{{.bin}}/dspd", "args": ["-c", "{{.conns}}"], "ready": {"url": "http://127.0.0.1:1/readyz"}}],
  "phases": ` + minimalPhases + `,
  "table": ["{{ratio (rps ` + "`a`" + `) (rps ` + "`b`" + `)}}"]
}`
)

func TestParseMinimal(t *testing.T) {
	d, err := Parse(strings.NewReader(minimal), "min")
	require.NoError(t, err)
	assert.Equal(t, "min", d.Name)
	assert.Equal(t, []string{"dspd"}, d.Build)
	require.Len(t, d.Phases, 1)
	assert.Equal(t, "wrk", d.Phases[0].driver(1))
	assert.NotNil(t, d.Phases[0].Warmup)
	text, err := d.file("a.json")
	require.NoError(t, err)
	assert.Equal(t, "{\"k\": \"{{.conns}}\"}\n", text, "a JSON value is written as it stands")
	text, err = d.file("b.txt")
	require.NoError(t, err)
	assert.Equal(t, "text {{.conns}}", text, "a JSON string is the file's text")
	require.NoError(t, Check(d, nil))
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from, to  string // minimal with from replaced by to
		wantError []string
	}{
		{"not JSON", `{`, `[`, []string{"JSON:"}},
		{"unknown field", `"build"`, `"biuld"`, []string{`unknown field "biuld"`}},
		{"two values", "\n}", "\n} {}", []string{"more than one value"}},
		{"no rounds", `"rounds": "2", `, ``, []string{"vars: rounds is missing"}},
		{"bad var name", `"conns"`, `"Conns"`, []string{`vars: "Conns" is not a variable name`}},
		{"builtin var", `"conns": "10"`, `"conns": "10", "tmp": "x"`, []string{`vars: "tmp" is set by the runner`}},
		{"need without package", `"build"`, `"needs": [{"command": "wrk"}], "build"`, []string{"needs[0]: both command and package"}},
		{"bad build", `["dspd"]`, `["../dspd"]`, []string{`build: "../dspd" is not the name of a command`}},
		{"file in a directory", `"b.txt"`, `"x/b.txt"`, []string{`files: "x/b.txt" is not a plain file name`}},
		{"no servers", `"servers": [{"name": "s", "command": "{{.bin}}/dspd", "args": ["-c", "{{.conns}}"], "ready": {"url": "http://127.0.0.1:1/readyz"}}]`,
			`"servers": []`, []string{"servers: none", `server "s": no such server`}},
		{"server without name or command", `"name": "s", "command": "{{.bin}}/dspd"`, `"name": ""`,
			[]string{`servers[0] "": no name`, `servers[0] "": no command`}},
		{"bad cpu role", `"ready": {"url"`, `"cpus": ["server", "lod"], "ready": {"url"`, []string{`cpus: "lod" is no CPU role (server, load)`}},
		{"cpu role twice", `"ready": {"url"`, `"cpus": ["load", "load"], "ready": {"url"`, []string{`cpus: "load" twice`}},
		{"bad env", `"ready": {"url"`, `"env": ["GOMAXPROCS"], "ready": {"url"`, []string{`env: "GOMAXPROCS" is not NAME=VALUE`}},
		{"no ready", `"ready": {"url": "http://127.0.0.1:1/readyz"}`, `"ready": {}`, []string{"ready: give url or tcp"}},
		{"two readies", `"ready": {"url": "http://127.0.0.1:1/readyz"}`, `"ready": {"url": "u", "tcp": "t"}`, []string{"ready: give url or tcp"}},
		{"post without url", `"ready": {"url": "http://127.0.0.1:1/readyz"}`, `"ready": {"tcp": "t", "post": "x"}`, []string{"ready: post goes with url"}},
		{"capture without to", `"ready": {"url"`, `"capture": {"url": "u", "body": "b"}, "ready": {"url"`, []string{"capture: url, body and to are needed"}},
		{"capture into a directory", `"ready": {"url"`, `"capture": {"url": "u", "body": "b", "to": "../x"}, "ready": {"url"`,
			[]string{`capture: to "../x" is not a plain file name`}},
		{"no phases", `"phases": ` + minimalPhases, `"phases": []`, []string{"phases: none"}},
		{"phase without name", `"name": "p"`, `"name": ""`, []string{`phases[0] "": no name`}},
		{"unknown driver", `"driver": "wrk"`, `"driver": "ab"`, []string{`phases[0] "p": driver "ab": no such driver (wrk, loadgen)`,
			`runs[0] "a": driver "ab": no such driver`}},
		{"no driver", `"driver": "wrk", `, ``, []string{`runs[0] "a": no driver (set the phase's or the run's: wrk, loadgen)`}},
		{"set over a var", `"driver": "wrk"`, `"set": {"conns": "1"}, "driver": "wrk"`, []string{`set: "conns" is already a variable`}},
		{"warm-up of an unknown var", `"warmup": {}`, `"warmup": {"vars": {"duration": "2s"}}`, []string{`warmup: "duration" is not one of the description's vars`}},
		{"no runs", `"runs": ` + minimalRuns, `"runs": []`, []string{`phases[0] "p": no runs`}},
		{"run without key", `"key": "a"`, `"key": ""`, []string{`runs[0] "": no key`}},
		{"duplicate key", `"key": "b"`, `"key": "a"`, []string{`runs[1] "a": a second run of that key`}},
		{"run without url", `"url": "http://127.0.0.1:1/a", `, ``, []string{`runs[0] "a": no url`}},
		{"run of an unknown server", `"server": "s"`, `"server": "t"`, []string{`runs[0] "a": server "t": no such server`}},
		{"no table", `"table": ["{{ratio (rps ` + "`a`" + `) (rps ` + "`b`" + `)}}"]`, `"table": []`, []string{"table: no lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, minimal, tc.from)
			_, err := Parse(strings.NewReader(strings.Replace(minimal, tc.from, tc.to, 1)), "min")
			require.Error(t, err)
			for _, want := range tc.wantError {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestCheckErrors breaks the templates: the dry run finds each where it
// would fail.
func TestCheckErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from, to  string
		vars      map[string]string
		wantError []string
	}{
		{"unknown variable set", "", "", map[string]string{"con": "1"}, []string{`unknown variable "con": min has conns, rounds`}},
		{"rounds not a number", "", "", map[string]string{"rounds": "x"}, []string{`rounds="x": want a whole number, at least 1`}},
		{"no rounds", "", "", map[string]string{"rounds": "0"}, []string{`rounds="0"`}},
		{"unknown variable in args", `"-c{{.conns}}"`, `"-c{{.con}}"`, nil,
			[]string{`phase "p", run "a", args[0]`, `map has no entry for key "con"`}},
		{"unknown variable in a file", `text {{.conns}}`, `text {{.x}}`, nil, []string{`files "b.txt"`, `no entry for key "x"`}},
		{"unknown variable in a server", `"-c", "{{.conns}}"`, `"-c", "{{.cons}}"`, nil, []string{`server "s", args[2]`, `no entry for key "cons"`}},
		{"template syntax", "round {{.round}}:", "round {{.round}:", nil, []string{`phase "p", run "b", progress`, "bad character"}},
		{"unknown function", "{{ratio", "{{ration", nil, []string{"table line 1", `function "ration" not defined`}},
		{"unknown key", "{{ratio (rps `a`)", "{{ratio (rps `c`)", nil, []string{"table line 1", `no run has key "c"`}},
		{"percentile of wrk", "{{ratio (rps `a`)", "{{ratio (p99 `a`)", nil,
			[]string{`run "a" uses wrk, which gives no latency percentiles (loadgen does)`}},
		{"cpu of a run without server", "{{ratio (rps `a`) (rps `b`)", "{{ratio (rps `a`) (cpu `b`)", nil,
			[]string{`run "b" names no server whose CPU time to read`}},
		{"a figure before it is measured", `"url": "http://127.0.0.1:1/a", "server": "s"`,
			`"url": "http://127.0.0.1:1/a", "server": "s", "progress": "{{rps ` + "`b`" + `}}"`, nil,
			[]string{`phase "p", run "a", progress`, `run "b" is not measured in this round before this line`}},
		{"a figure of the phase itself in its args", `"-c{{.conns}}"`, "\"-c{{rps `a`}}\"", nil,
			[]string{`run "a" is not measured by the phases before "p"`}},
		{"a figure in a server's args", `"-c", "{{.conns}}"`, "\"-c\", \"{{rps `a`}}\"", nil,
			[]string{`run "a" is not measured before the servers start`}},
		{"round in the table", "{{ratio (rps `a`) (rps `b`)}}", "{{.round}}", nil, []string{"table line 1", `no entry for key "round"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, minimal, tc.from)
			d, err := Parse(strings.NewReader(strings.Replace(minimal, tc.from, tc.to, 1)), "min")
			require.NoError(t, err)
			err = Check(d, tc.vars)
			require.Error(t, err)
			for _, want := range tc.wantError {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestParseVars(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    map[string]string
		wantErr string
	}{
		{nil, map[string]string{}, ""},
		{[]string{"rounds=1", "duration=1s", "x="}, map[string]string{"rounds": "1", "duration": "1s", "x": ""}, ""},
		{[]string{"a=b=c"}, map[string]string{"a": "b=c"}, ""},
		{[]string{"rounds"}, nil, `"rounds": want NAME=VALUE`},
		{[]string{"=1"}, nil, `"=1": want NAME=VALUE`},
		{[]string{"a=1", "a=2"}, nil, "a is set twice"},
	} {
		got, err := ParseVars(tc.args)
		if tc.wantErr != "" {
			assert.EqualError(t, err, tc.wantErr, "%q", tc.args)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}
