//go:build linux

package synchelper

import (
	"errors"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// SyncCloser is a file whose Sync and Close stand for an *os.File's.
type SyncCloser interface {
	Sync() error
	Close() error
}

// OSFile returns f with its fsyncs done by the helper, for files a program
// opens itself (the event log's segments): the caller keeps writing to f,
// syncs and closes it through the returned file. It falls back to f's own
// Sync as the database's files do.
func (h *Helper) OSFile(f *os.File, name string) SyncCloser {
	w, _ := h.wrap(osFile{f}, nil, name, false)
	return w
}

// errNoStat: an osFile is synced and closed through the helper, not stated.
var errNoStat = errors.New("sync helper: Stat on a program's own file")

// osFile is an *os.File as a vfs.File: the helper's file calls only its
// descriptor, its syncs and its Close.
type osFile struct{ *os.File }

func (f osFile) Preallocate(int64, int64) error { return nil }

// Stat is not used through SyncCloser.
func (f osFile) Stat() (vfs.FileInfo, error) { return nil, errNoStat }

func (f osFile) SyncData() error { return f.File.Sync() }

func (f osFile) SyncTo(int64) (bool, error) { return true, f.File.Sync() }

func (f osFile) Prefetch(int64, int64) error { return nil }

func (f osFile) Fd() uintptr { return f.File.Fd() }
