package disk

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// A state directory removed (rm -rf) or replaced under a running store
// takes its books with it: the files the database still writes are
// unlinked, so every write acknowledged from then on is one a restart
// cannot find. The store checks the directory is still the one it opened,
// by its lock file's inode, after every win it commits (before the win is
// acknowledged) and every WatchEvery in the background, and on the first
// miss stops: wins are answered 503, bids get no bid, and Config.Fatal
// ends the process (exit 1, naming the cause).

// ErrDirGone is the cause of the store's stop when its directory went.
var ErrDirGone = errors.New("state directory removed or replaced")

// dirWatch knows the state directory by its lock file's device and inode.
type dirWatch struct {
	fs        vfs.FS
	path      string
	dev, ino  uint64
	watchable bool // the file system reports inodes (the operating system's does)
}

func newDirWatch(fs vfs.FS, dir string) *dirWatch {
	w := &dirWatch{fs: fs, path: filepath.Join(dir, "dspd.lock")}
	if fi, err := fs.Stat(w.path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			w.dev, w.ino, w.watchable = uint64(st.Dev), st.Ino, true
		}
	}
	return w
}

// check fails, wrapping ErrDirGone, when the directory is no longer the
// one opened.
func (w *dirWatch) check() error {
	if !w.watchable {
		return nil
	}
	fi, err := w.fs.Stat(w.path)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrDirGone, filepath.Dir(w.path), err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(st.Dev) != w.dev || st.Ino != w.ino {
		return fmt.Errorf("%w: %s is another directory now", ErrDirGone, filepath.Dir(w.path))
	}
	return nil
}

// watchDir checks the directory every WatchEvery until the store closes.
func (s *Store) watchDir() {
	t := time.NewTicker(s.cfg.WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.watch.check(); err != nil {
				s.lose(err)
				return
			}
		}
	}
}

// lose stops the store for good: no more writes are acknowledged, and
// Fatal ends the process (on a goroutine of its own, so that the request
// that found it gets its 503 first).
func (s *Store) lose(err error) {
	if s.dead.Swap(true) {
		return
	}
	go s.cfg.Fatal(err.Error())
}
