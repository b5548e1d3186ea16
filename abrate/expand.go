package abrate

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/template"
)

// Value is a figure in a template. It prints with two decimals, as the
// tables print rates, milliseconds and ratios; printf's number verbs
// (%10.0f) take it as the number it is.
type Value float64

// String formats v with two decimals.
func (v Value) String() string { return strconv.FormatFloat(float64(v), 'f', 2, 64) }

// runInfo is what a run can measure: wrk gives no percentiles, and only a
// run that names its server has a CPU time.
type runInfo struct{ driver, server string }

// view is what a template's figure functions read: the description's runs
// and the samples in scope (this round's so far, in a progress line; the
// medians of what was measured before, elsewhere).
type view struct {
	runs  map[string]runInfo
	scope func(key string) (Sample, bool)
	where string // the scope, for errors: "by the phases before this one"
	dry   bool   // a check: size reads no file
}

// figure is the template function giving one metric of a run.
func (v view) figure(metric string) func(key string) (Value, error) {
	return func(key string) (Value, error) {
		info, ok := v.runs[key]
		if !ok {
			return 0, fmt.Errorf("no run has key %q", key)
		}
		switch {
		case (metric == "p50" || metric == "p99") && info.driver != "loadgen":
			return 0, fmt.Errorf("run %q uses %s, which gives no latency percentiles (loadgen does)", key, info.driver)
		case metric == "cpu" && info.server == "":
			return 0, fmt.Errorf("run %q names no server whose CPU time to read", key)
		}
		s, ok := v.scope(key)
		if !ok {
			return 0, fmt.Errorf("run %q is not measured %s", key, v.where)
		}
		switch metric {
		case "p50":
			return Value(s.P50), nil
		case "p99":
			return Value(s.P99), nil
		case "cpu":
			return Value(s.CPUMicrosPerReq), nil
		}
		return Value(s.RequestsPerSecond), nil
	}
}

func (v view) funcs() template.FuncMap {
	return template.FuncMap{
		"rps":   v.figure("rps"),
		"p50":   v.figure("p50"),
		"p99":   v.figure("p99"),
		"cpu":   v.figure("cpu"),
		"ratio": func(a, b Value) Value { return a / b },
		"mul":   func(a Value, f float64) Value { return a * Value(f) },
		"int":   func(a Value) int64 { return int64(a) },
		"size":  v.size,
	}
}

// size is the size of a file in bytes.
func (v view) size(path string) (int64, error) {
	if v.dry {
		return 0, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("size: %w", err)
	}
	return fi.Size(), nil
}

// expand executes text as a template over the variables; where names it
// in errors.
func expand(where, text string, vars map[string]string, v view) (string, error) {
	t, err := template.New(where).Funcs(v.funcs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		return "", err
	}
	return b.String(), nil
}

// expandAll expands each of texts.
func expandAll(where string, texts []string, vars map[string]string, v view) ([]string, error) {
	out := make([]string, len(texts))
	for i, t := range texts {
		s, err := expand(fmt.Sprintf("%s[%d]", where, i), t, vars, v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}
