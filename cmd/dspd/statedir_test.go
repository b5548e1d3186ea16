package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	resp, err := c.Get(noticeURL(d.public, later.id, 1_000_000))
	if err == nil { // else the exit came first: no answer is no acknowledgement either
		resp.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "a win into a removed directory must not be acknowledged")
	}
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("dspd still running %v after its state directory was removed:\n%s", time.Since(removed), d.lastLines())
	}
	assert.Less(t, time.Since(removed), 2*time.Second)
	assert.Equal(t, 1, d.cmd.ProcessState.ExitCode())
	assert.Contains(t, d.lastLines(), "state directory removed or replaced")
}

// smallFS mounts a tmpfs of size bytes for the test (root only; skipped
// otherwise, except under CI, where it fails).
func smallFS(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("a full-disk test needs root to mount a small tmpfs")
		}
		t.Skip("a full-disk test needs root to mount a small tmpfs")
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount a tmpfs: %s", out)
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// filler fills the file system of dir with a file of zeros, leaving
// spare bytes free.
type filler struct {
	t *testing.T
	f *os.File
}

func newFiller(t *testing.T, dir string) *filler {
	f, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return &filler{t: t, f: f}
}

// fill writes zeros until the file system is full, then frees spare bytes.
func (fl *filler) fill(spare int64) {
	chunk := make([]byte, 64<<10)
	for {
		if _, err := fl.f.Write(chunk); err != nil {
			require.ErrorIs(fl.t, err, syscall.ENOSPC)
			break
		}
	}
	if spare > 0 {
		st, err := fl.f.Stat()
		require.NoError(fl.t, err)
		require.NoError(fl.t, fl.f.Truncate(st.Size()-spare))
		_, err = fl.f.Seek(0, io.SeekEnd)
		require.NoError(fl.t, err)
	}
}

// unavailable reads dspd_state_unavailable from the admin listener.
func unavailable(t *testing.T, admin string) bool {
	return strings.Contains(scrape(t, admin), "\ndspd_state_unavailable 1\n")
}

// TestFullDisk: on a disk with about 1 MiB free, dspd starts (a new WAL
// file's 18 MB of preallocation is not waited for). When the disk fills,
// the writes of its bid records wait for room and dspd is
// state_unavailable: win notices are refused (503, to be retried). 64 KiB
// of room is enough for dspd to serve again (it used to need the 18 MB),
// and the retried notice is acknowledged. When the disk fills again,
// SIGTERM ends dspd within its drain timeout (it used to wait for room
// forever, so that only SIGKILL ended it).
func TestFullDisk(t *testing.T) {
	fs := smallFS(t, 48<<20)
	fl := newFiller(t, fs)
	fl.fill(1 << 20)
	d := startChild(t, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-campaigns", copyFile(t, "../../testdata/campaigns.json"),
		"-state", "disk:"+filepath.Join(fs, "data"), "-clock-start", "2026-11-04T08:00:00Z", "-drain-timeout", "1s")
	c := &http.Client{Timeout: 30 * time.Second}
	// bidUntilFull bids (each bid's record is written within the bid
	// window) until the disk refuses a write and dspd stops bidding.
	bidUntilFull := func() {
		for i := 0; ; i++ {
			require.Less(t, i, 1_000_000, "the disk never filled")
			if _, ok := bid(t, c, d.public, "u-fill-"+strconv.Itoa(i)); !ok && unavailable(t, d.admin) {
				return
			}
		}
	}
	won, ok := bid(t, c, d.public, "u-won")
	require.True(t, ok)
	fl.fill(0)
	bidUntilFull()
	status, _ := notice(t, c, d.public, won.id, 1_000_000)
	assert.Equal(t, http.StatusServiceUnavailable, status, "a notice is refused while the disk is full, to be retried")

	require.NoError(t, fl.f.Truncate(mustSize(t, fl.f)-64<<10)) // room again: 64 KiB
	deadline := time.Now().Add(30 * time.Second)
	for unavailable(t, d.admin) {
		require.True(t, time.Now().Before(deadline), "dspd still state_unavailable with 64 KiB free:\n%s", d.lastLines())
		time.Sleep(10 * time.Millisecond) // polling a server from outside: there is nothing to wait on
	}
	status, _ = notice(t, c, d.public, won.id, 1_000_000)
	assert.Equal(t, http.StatusNoContent, status, "the retried notice is acknowledged once there is room")

	fl.fill(0)
	bidUntilFull()
	require.NoError(t, d.cmd.Process.Signal(syscall.SIGTERM))
	stopped := time.Now()
	select {
	case <-d.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("dspd still running %v after SIGTERM on a full disk:\n%s", time.Since(stopped), d.lastLines())
	}
	assert.Less(t, time.Since(stopped), 5*time.Second, "within the drain timeout and the close")
}

func mustSize(t *testing.T, f *os.File) int64 {
	st, err := f.Stat()
	require.NoError(t, err)
	return st.Size()
}
