package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunRefusesAnUnusableState(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()
	held := t.TempDir()
	s, err := openState(t.Context(), testConfigWithState(t, "disk:"+held), time.Now, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer s.Close()
	for _, state := range []string{"mysql://x", "redis://" + closed + "/0", "redis://%zz", "disk:", "", "memory:x", "disk:" + held} {
		cfg := testConfig(t)
		cfg.state = state
		err := run(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, hooks{
			listening: func(net.Addr, net.Addr) { t.Errorf("listened with -state %s", state) },
		})
		assert.ErrorContains(t, err, "state", state)
	}
}

func testConfigWithState(t *testing.T, state string) config {
	cfg := testConfig(t)
	cfg.state = state
	return cfg
}

// TestOneDspdADirectory: a second dspd on a state directory in use refuses
// to start, naming the process that holds it.
func TestOneDspdADirectory(t *testing.T) {
	dir := t.TempDir()
	campaigns := copyFile(t, "../../testdata/campaigns.json")
	args := []string{"-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-campaigns", campaigns, "-state", "disk:" + dir}
	first := startChild(t, args...)
	second := exec.Command(os.Args[0], args...)
	second.Env = append(os.Environ(), asDspd+"=1")
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the second dspd must fail: %s", out)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, string(out), fmt.Sprintf("is held by process %d", first.cmd.Process.Pid))
}

// TestBadFilesStopDspdBeforeItsState: a campaigns file that cannot be
// loaded stops dspd before it opens its state: the state directory is not
// even created.
func TestBadFilesStopDspdBeforeItsState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := testConfigWithState(t, "disk:"+dir)
	cfg.campaigns = filepath.Join(t.TempDir(), "missing.json")
	err := run(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, hooks{
		listening: func(net.Addr, net.Addr) { t.Error("listened without campaigns") },
	})
	require.ErrorContains(t, err, "refusing to start")
	require.ErrorContains(t, err, "missing.json")
	_, statErr := os.Stat(dir)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "the state directory was created")
}
