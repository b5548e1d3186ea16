// Package smallfs gives tests a small file system of their own to fill:
// a tmpfs of a given size mounted for the test (as root; skipped
// otherwise, and failed under CI, where the tests run as root), and a
// filler that takes all its room but a few bytes. The full-disk tests of
// the state, the event log and dspd itself run on it.
package smallfs

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Mount mounts a tmpfs of size bytes on a new temporary directory and
// returns it; it is unmounted when the test ends. opts are further mount
// options ("ro").
func Mount(t testing.TB, size int, opts ...string) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("a full-disk test needs root to mount a small tmpfs")
		}
		t.Skip("a full-disk test needs root to mount a small tmpfs")
	}
	o := "size=" + strconv.Itoa(size)
	for _, x := range opts {
		o += "," + x
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", o, "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount a tmpfs: %s", out)
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// Filler takes the room of a file system with one file of zeros.
type Filler struct {
	t testing.TB
	f *os.File
}

// NewFiller returns a filler writing in dir.
func NewFiller(t testing.TB, dir string) *Filler {
	f, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return &Filler{t: t, f: f}
}

// Fill writes zeros until the file system is full, then frees spare bytes.
func (fl *Filler) Fill(spare int64) {
	chunk := make([]byte, 64<<10)
	for {
		if _, err := fl.f.Write(chunk); err != nil {
			require.ErrorIs(fl.t, err, syscall.ENOSPC)
			break
		}
	}
	fl.Free(spare)
}

// Free frees n more bytes.
func (fl *Filler) Free(n int64) {
	if n <= 0 {
		return
	}
	st, err := fl.f.Stat()
	require.NoError(fl.t, err)
	require.NoError(fl.t, fl.f.Truncate(max(0, st.Size()-n)))
	_, err = fl.f.Seek(0, io.SeekEnd)
	require.NoError(fl.t, err)
}
