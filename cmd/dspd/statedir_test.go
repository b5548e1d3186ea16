package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/smallfs"
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

// unavailable reads dspd_state_unavailable and dspd_events_unavailable
// from the admin listener: either makes dspd refuse bids and notices.
func unavailable(t *testing.T, admin string) bool {
	m := scrape(t, admin)
	return strings.Contains(m, "\ndspd_state_unavailable 1\n") || strings.Contains(m, "\ndspd_events_unavailable 1\n")
}

// TestFullDisk: on a disk with about 1 MiB free, dspd starts (a new WAL
// file's 18 MB of preallocation is not waited for). When the disk fills,
// the writes of its bid records wait for room and dspd is
// state_unavailable: win notices are refused (503, to be retried). 64 KiB
// of room is enough for dspd to serve again (it used to need the 18 MB),
// and the retried notice is acknowledged. When the disk fills again,
// SIGTERM ends dspd within its drain timeout (it used to wait for room
// forever, so that only SIGKILL ended it). It runs with the event log in
// the state's directory (the default), whose writes meet the full disk
// too, and without it.
func TestFullDisk(t *testing.T) {
	for _, ev := range []string{"auto", "none"} {
		t.Run("-events "+ev, func(t *testing.T) { testFullDisk(t, ev) })
	}
}

func testFullDisk(t *testing.T, events string) {
	fs := smallfs.Mount(t, 48<<20)
	fl := smallfs.NewFiller(t, fs)
	fl.Fill(1 << 20)
	d := startChild(t, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-campaigns", copyFile(t, "../../testdata/campaigns.json"),
		"-state", "disk:"+filepath.Join(fs, "data"), "-clock-start", "2026-11-04T08:00:00Z", "-drain-timeout", "1s",
		"-events", events)
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
	fl.Fill(0)
	bidUntilFull()
	status, _ := notice(t, c, d.public, won.id, 1_000_000)
	assert.Equal(t, http.StatusServiceUnavailable, status, "a notice is refused while the disk is full, to be retried")

	fl.Free(64 << 10) // room again: 64 KiB
	deadline := time.Now().Add(30 * time.Second)
	for unavailable(t, d.admin) {
		require.True(t, time.Now().Before(deadline), "dspd still state_unavailable with 64 KiB free:\n%s", d.lastLines())
		time.Sleep(10 * time.Millisecond) // polling a server from outside: there is nothing to wait on
	}
	status, _ = notice(t, c, d.public, won.id, 1_000_000)
	assert.Equal(t, http.StatusNoContent, status, "the retried notice is acknowledged once there is room")

	fl.Fill(0)
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
