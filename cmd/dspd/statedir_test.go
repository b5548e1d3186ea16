package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemovedStateDirectory: rm -rf of the state directory under a running
// dspd: the next win notice is answered 503 (never 204: a restart could not
// find it), and dspd exits non-zero within two seconds, naming the cause.
func TestRemovedStateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d := startChild(t, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-campaigns", copyFile(t, "../../testdata/campaigns.json"),
		"-state", "disk:"+dir, "-clock-start", "2026-11-04T08:00:00Z")
	c := &http.Client{Timeout: 10 * time.Second}
	won, ok := bid(t, c, d.public, "u-before")
	require.True(t, ok)
	status, _ := notice(t, c, d.public, won.id, 1_000_000)
	require.Equal(t, http.StatusNoContent, status)
	later, ok := bid(t, c, d.public, "u-after")
	require.True(t, ok)

	require.NoError(t, os.RemoveAll(dir))
	removed := time.Now()
	status, _ = notice(t, c, d.public, later.id, 1_000_000)
	assert.Equal(t, http.StatusServiceUnavailable, status, "a win into a removed directory must not be acknowledged")
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("dspd still running %v after its state directory was removed:\n%s", time.Since(removed), d.lastLines())
	}
	assert.Less(t, time.Since(removed), 2*time.Second)
	assert.Equal(t, 1, d.cmd.ProcessState.ExitCode())
	assert.Contains(t, d.lastLines(), "state directory removed or replaced")
}
