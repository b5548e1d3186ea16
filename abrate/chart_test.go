package abrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bq writes a template's backquotes as quotes, so that it fits in a Go
// string.
func bq(s string) string { return strings.ReplaceAll(s, "'", "`") }

// chartPoints are the points of withChart's one series; y is the first's.
func chartPoints(y string) string {
	return bq(`[{"x": "{{rps 'a'}}", "y": "` + y + `"}, {"x": "{{rps 'b'}}", "y": "{{p99 'c'}}"}]`)
}

// withChart is twoPhases with a chart of c's figures against a's and b's
// rates, written to out.
func withChart(out, points string) string {
	chart := `,
  "vars": {"rounds": "2", "conns": "10", "duration": "5s", "out": "` + out + `"},
  "charts": [{"file": "{{.out}}/c.svg", "title": "c's cost", "x": "rate", "y": "µs",
    "series": [{"name": "c", "points": ` + points + `}]}]
}`
	s := strings.Replace(twoPhases, `  "vars": {"rounds": "2", "conns": "10", "duration": "5s"},`+"\n", "", 1)
	return strings.TrimSuffix(strings.TrimSpace(s), "}") + chart
}

func TestMeasureDrawsCharts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "charts")
	d, err := Parse(strings.NewReader(withChart(out, chartPoints(bq("{{cpu 'c'}}")))), "charted")
	require.NoError(t, err)
	require.NoError(t, Check(d, nil))
	_, err = os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "a check draws nothing")

	_, l, drv := newFakes()
	var stdout, stderr bytes.Buffer
	require.NoError(t, Measure(context.Background(), d, fakeConfig(l, drv, &stdout, &stderr)))
	svg, err := os.ReadFile(filepath.Join(out, "c.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
	assert.Contains(t, string(svg), "cost")
	assert.Contains(t, stderr.String(), "wrote "+filepath.Join(out, "c.svg"))
}

func TestChartProblems(t *testing.T) {
	for _, tc := range []struct{ name, y, want string }{
		{"a coordinate that is no number", "{{.conns}} ms", `is not a number`},
		{"a figure the run does not give", bq("{{cpu 'b'}}"), `names no server`},
		{"no such run", bq("{{rps 'z'}}"), `no run has key "z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(withChart(t.TempDir(), chartPoints(tc.y))), "charted")
			require.NoError(t, err)
			err = Check(d, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, tc := range []struct{ name, text, want string }{
		{"not an svg", strings.Replace(withChart("out", chartPoints("1")), "c.svg", "c.png", 1), `is not an .svg`},
		{"no points", withChart("out", "[]"), `no points`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.text), "charted")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
