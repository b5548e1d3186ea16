package disk

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// A state directory removed (rm -rf) or replaced under a running store
// takes its books with it: the files the database still writes are
// unlinked, so every write acknowledged from then on is one a restart
// cannot find. The store checks the directory is still the one it opened,
// by its lock file's inode, after every commit (before what it wrote is
// acknowledged: a win, a batch of bid records) and every WatchEvery in the
// background, and on the first miss stops: wins are answered 503, bids get
// no bid, and Config.Fatal ends the process (exit 1, naming the cause).

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
		w.dev, w.ino, w.watchable = fileID(fi)
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
	if dev, ino, ok := fileID(fi); !ok || dev != w.dev || ino != w.ino {
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

// loseGrace is how long a lost store lets the answers already refused
// (503, to be retried) reach their clients before Fatal ends the process.
const loseGrace = 250 * time.Millisecond

// lose stops the store for good: from now on no write is acknowledged,
// and loseGrace later Fatal ends the process.
func (s *Store) lose(err error) {
	if s.dead.Swap(true) {
		return
	}
	time.AfterFunc(loseGrace, func() { s.cfg.Fatal(err.Error()) })
}
