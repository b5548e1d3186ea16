package main

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/loadtest"
)

func TestParseFlagsTakesAbsLine(t *testing.T) {
	cfg, out, quiet, err := parseFlags(strings.Fields(
		"-n 10000 -c 100 -p ../../testdata/post.data -T application/x-www-form-urlencoded -H X-A:1 -H X-B:2 -k -s 5 -q -o r.json http://localhost:9090/dsp/recbid"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(10000), cfg.Requests)
	assert.Equal(t, 100, cfg.Concurrency)
	require.Len(t, cfg.Bodies, 1)
	assert.Len(t, cfg.Bodies[0], 648)
	assert.Equal(t, "application/x-www-form-urlencoded", cfg.ContentType)
	assert.Equal(t, []string{"X-A:1", "X-B:2"}, cfg.Headers)
	assert.True(t, cfg.KeepAlive)
	assert.Equal(t, 5*time.Second, cfg.Timeout)
	assert.True(t, quiet)
	assert.Equal(t, "r.json", out)
	assert.Equal(t, "http://localhost:9090/dsp/recbid", cfg.URL)
}

func TestParseFlagsBeyondAb(t *testing.T) {
	cfg, _, _, err := parseFlags([]string{"-d", "30s", "-rate", "500", "-corpus", "../../testdata/requests.txt", "-warmup", "10s", "-t", "0", "http://h/"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, cfg.Duration)
	assert.Equal(t, 500.0, cfg.Rate)
	assert.Len(t, cfg.Bodies, 10000)
	assert.True(t, cfg.VariableLength, "-corpus implies -l")
	assert.Equal(t, 10*time.Second, cfg.WarmupDuration)

	cfg, _, _, err = parseFlags([]string{"-warmup", "1000", "-t", "3", "http://h/"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), cfg.WarmupRequests)
	assert.Equal(t, 3*time.Second, cfg.TimeLimit)

	// Seconds past what a time.Duration holds saturate instead of wrapping
	// negative (which would end the run at once, or never time out).
	cfg, _, _, err = parseFlags([]string{"-t", "10000000000", "-s", "10000000000", "http://h/"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(math.MaxInt64), cfg.TimeLimit)
	assert.Equal(t, time.Duration(math.MaxInt64), cfg.Timeout)

	for _, bad := range [][]string{
		{},
		{"http://a/", "http://b/"},
		{"-warmup", "soon", "http://h/"},
		{"-p", "x", "-corpus", "y", "http://h/"},
		{"-p", "/nonexistent", "http://h/"},
	} {
		_, _, _, err := parseFlags(bad, io.Discard)
		assert.Error(t, err, "%q", bad)
	}
}

func TestRunAndMerge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	for _, name := range []string{"a.json", "b.json"} {
		stdout.Reset()
		code := run(t.Context(), []string{"-n", "200", "-c", "4", "-k", "-p", "../../testdata/post.data",
			"-T", "application/x-www-form-urlencoded", "-o", filepath.Join(dir, name), srv.URL + "/dsp/recbid"}, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		assert.Contains(t, stdout.String(), "Complete requests:      200\n")
		assert.Contains(t, stdout.String(), "Percentage of the requests served within a certain time (ms)")
	}
	assert.Contains(t, stderr.String(), "Completed 200 requests")
	assert.Contains(t, stderr.String(), "Finished 200 requests")

	stdout.Reset()
	code := run(t.Context(), []string{"merge", "-o", filepath.Join(dir, "m.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "Complete requests:      400\n")
	m, err := loadtest.Load(filepath.Join(dir, "m.json"))
	require.NoError(t, err)
	assert.Equal(t, int64(400), m.Complete)
	assert.Equal(t, map[string]int64{"200": 400}, m.StatusCodes)

	stderr.Reset()
	code = run(t.Context(), []string{"-q", "-n", "3", srv.URL + "/"}, io.Discard, &stderr)
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr.String(), "-q is silent")

	assert.Equal(t, 1, run(t.Context(), []string{"merge", filepath.Join(dir, "missing.json")}, io.Discard, io.Discard))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644))
	assert.Equal(t, 1, run(t.Context(), []string{"merge", filepath.Join(dir, "bad.json")}, io.Discard, io.Discard))
}
