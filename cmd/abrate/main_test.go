package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{"a description", []string{"scripts/abrate/rate.json"}, options{file: "scripts/abrate/rate.json", vars: map[string]string{}}, ""},
		{"variables and -bin", []string{"-bin", "/tmp/base/bin", "rate.json", "rounds=1", "duration=1s"},
			options{bin: "/tmp/base/bin", file: "rate.json", vars: map[string]string{"rounds": "1", "duration": "1s"}}, ""},
		{"no description", nil, options{}, "a description file is needed"},
		{"not NAME=VALUE", []string{"rate.json", "rounds"}, options{}, `"rounds": want NAME=VALUE`},
		{"unknown flag", []string{"-rounds", "1", "rate.json"}, options{}, "flag provided but not defined: -rounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.args, &bytes.Buffer{})
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestRunStopsAtABadDescription: the description is checked before
// anything is installed, built or started.
func TestRunStopsAtABadDescription(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"vars": {"rounds": "1"}, "needs": [{"command": "no-such-command-x", "package": "x"}],
		"servers": [{"name": "s", "command": "s", "ready": {"tcp": "127.0.0.1:1"}}],
		"phases": [{"name": "p", "driver": "wrk", "runs": [{"key": "a", "url": "u"}]}], "table": ["{{rps `+"`b`"+`}}"]}`), 0o644))
	for _, tc := range []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{bad}, 1, `abrate: bad: template: table line 1`},
		{[]string{filepath.Join(dir, "none.json")}, 1, "abrate: description: open"},
		{[]string{bad, "rounds=x"}, 1, `rounds="x"`},
		{[]string{}, 2, "a description file is needed"},
		{[]string{"-h"}, 0, "Usage: abrate"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, tc.wantCode, run(context.Background(), tc.args, &stdout, &stderr), "%q", tc.args)
		assert.Contains(t, stderr.String(), tc.wantErr)
		assert.NotContains(t, stderr.String(), "installing", "nothing installed")
		assert.Empty(t, stdout.String())
	}
}
