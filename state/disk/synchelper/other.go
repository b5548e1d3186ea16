//go:build !linux

package synchelper

import (
	"errors"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrUnsupported: the helper runs on Linux only; elsewhere fsync stays
// in-process.
var ErrUnsupported = errors.New("sync helper: Linux only")

// Helper is never started outside Linux.
type Helper struct{}

// Start fails with ErrUnsupported.
func Start(Config) (*Helper, error) { return nil, ErrUnsupported }

// FS returns fs.
func (*Helper) FS(fs vfs.FS) vfs.FS { return fs }

// Synced returns 0.
func (*Helper) Synced() int64 { return 0 }

// Close does nothing.
func (*Helper) Close() error { return nil }

// ServeIfHelper returns at once.
func ServeIfHelper() {}

// SyncCloser is a file whose Sync and Close stand for an *os.File's.
type SyncCloser interface {
	Sync() error
	Close() error
}

// OSFile returns f.
func (*Helper) OSFile(f *os.File, _ string) SyncCloser { return f }
