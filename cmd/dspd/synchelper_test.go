//go:build linux

package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/recbid/dspd/state/disk/synchelper"
)

// init serves as the disk state's fsync helper when this test binary was
// started as one: by a dspd run in-process (run, openState) or as a child
// (startChild). It comes before TestMain, which would run the tests.
func init() { synchelper.ServeIfHelper() }

// TestSyncHelperFlag: the helper is off by default (two Ps measured
// faster on one CPU); -sync-helper turns it on.
func TestSyncHelperFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-sync-helper=false"}, false},
		{[]string{"-sync-helper"}, true},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, cfg.syncHelper, "%v", tc.args)
	}
}

// TestOpenStateGOMAXPROCS: with the helper the disk state leaves
// GOMAXPROCS at 1; without it, it raises it to 2.
func TestOpenStateGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		helper bool
		want   int
	}{
		{true, 1},
		{false, 2},
	} {
		t.Run("sync-helper="+strconv.FormatBool(tc.helper), func(t *testing.T) {
			cfg := testConfig(t)
			cfg.syncHelper = tc.helper
			runtime.GOMAXPROCS(1)
			st, err := openState(t.Context(), cfg, time.Now, slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			defer st.Close()
			assert.Equal(t, tc.want, runtime.GOMAXPROCS(0))
		})
	}
}

// TestKill9LeavesNoSyncHelper: a dspd on disk runs its fsync helper, and
// the helper does not outlive a kill -9 of dspd.
func TestKill9LeavesNoSyncHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dspd processes")
	}
	c := startChild(t, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0",
		"-campaigns", copyFile(t, "../../testdata/campaigns.json"), "-state", "disk:"+t.TempDir(), "-sync-helper")
	helpers := syncHelpersOf(t, c.cmd.Process.Pid)
	require.Len(t, helpers, 1, "dspd runs one fsync helper")
	pidfd, err := unix.PidfdOpen(helpers[0], 0)
	if err == unix.ENOSYS {
		t.Skip("no pidfd_open to wait for a process that is not ours")
	}
	require.NoError(t, err)
	defer unix.Close(pidfd)

	require.NoError(t, c.cmd.Process.Kill())
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}} // readable once the process has exited
	var n int
	for { // a signal to this process (the runtime's preemption) interrupts the poll: poll again
		n, err = unix.Poll(fds, int(time.Minute/time.Millisecond)) // a liveness bound: it exits at once
		if err != unix.EINTR {
			break
		}
	}
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the helper outlived dspd by a minute")
}

// syncHelpersOf returns the fsync helpers among pid's children.
func syncHelpersOf(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var helpers []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read past its ')'.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		dir := filepath.Dir(path)
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err == nil && strings.HasPrefix(string(cmdline), "dspd-sync-helper\x00") {
			child, err := strconv.Atoi(filepath.Base(dir))
			require.NoError(t, err)
			helpers = append(helpers, child)
		}
	}
	return helpers
}
