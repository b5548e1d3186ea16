package disk

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// fullFS is the file system under the database: a write that finds the
// disk full (ENOSPC, EDQUOT) does not fail, it waits and tries again every
// RetryEvery until it succeeds, and the store is out of service while any
// write waits. Pebble treats a failed WAL or MANIFEST write as fatal; on a
// full disk the store thus stalls instead and recovers by itself once
// there is room, with nothing written twice and nothing lost.
//
// A failed fsync is not retried (after one, Linux may have dropped the
// pages it could not write, and a second fsync can succeed without them):
// it reaches Pebble, which stops the process (Config.Fatal).
type fullFS struct {
	vfs.FS
	st *stall
}

// stall counts the writes waiting for room.
type stall struct {
	every   time.Duration
	stop    <-chan struct{}
	waiting atomic.Int64
	events  atomic.Int64 // writes that found the disk full
	onFull  func(error)  // the first write of a stall found the disk full
	onRoom  func()       // the last waiting write went through
}

// full reports whether a write is waiting for room.
func (s *stall) full() bool { return s.waiting.Load() > 0 }

// retry runs op until it succeeds, fails otherwise than for room, or the
// store stops.
func (s *stall) retry(op func() error) error {
	err := op()
	if !noSpace(err) {
		return err
	}
	s.events.Add(1)
	if s.waiting.Add(1) == 1 && s.onFull != nil {
		s.onFull(err)
	}
	t := time.NewTicker(s.every)
	defer t.Stop()
	for noSpace(err) {
		select {
		case <-s.stop:
			s.waiting.Add(-1)
			return err
		case <-t.C:
		}
		err = op()
	}
	if s.waiting.Add(-1) == 0 && s.onRoom != nil {
		s.onRoom()
	}
	return err
}

// noSpace reports whether err says the disk (or the user's quota) is full.
func noSpace(err error) bool {
	return err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT))
}

func (fs *fullFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &fullFile{File: f, st: fs.st}, nil
}

// Create implements vfs.FS.
func (fs *fullFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := fs.st.retry(func() (err error) { f, err = fs.FS.Create(name, category); return err })
	return fs.wrap(f, err)
}

// OpenReadWrite implements vfs.FS.
func (fs *fullFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	var f vfs.File
	err := fs.st.retry(func() (err error) { f, err = fs.FS.OpenReadWrite(name, category, opts...); return err })
	return fs.wrap(f, err)
}

// ReuseForWrite implements vfs.FS.
func (fs *fullFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := fs.st.retry(func() (err error) { f, err = fs.FS.ReuseForWrite(oldname, newname, category); return err })
	return fs.wrap(f, err)
}

// Link implements vfs.FS.
func (fs *fullFS) Link(oldname, newname string) error {
	return fs.st.retry(func() error { return fs.FS.Link(oldname, newname) })
}

// Rename implements vfs.FS.
func (fs *fullFS) Rename(oldname, newname string) error {
	return fs.st.retry(func() error { return fs.FS.Rename(oldname, newname) })
}

// MkdirAll implements vfs.FS.
func (fs *fullFS) MkdirAll(dir string, perm os.FileMode) error {
	return fs.st.retry(func() error { return fs.FS.MkdirAll(dir, perm) })
}

// Unwrap implements vfs.FS.
func (fs *fullFS) Unwrap() vfs.FS { return fs.FS }

// fullFile is a file of a fullFS.
type fullFile struct {
	vfs.File
	st *stall
}

// Write implements io.Writer: what a full disk did not take is written
// again from where it stopped.
func (f *fullFile) Write(p []byte) (int, error) {
	done := 0
	err := f.st.retry(func() error {
		n, err := f.File.Write(p[done:])
		done += n
		if err == nil && done < len(p) {
			err = io.ErrShortWrite
		}
		return err
	})
	return done, err
}

// WriteAt implements io.WriterAt, as Write.
func (f *fullFile) WriteAt(p []byte, off int64) (int, error) {
	done := 0
	err := f.st.retry(func() error {
		n, err := f.File.WriteAt(p[done:], off+int64(done))
		done += n
		if err == nil && done < len(p) {
			err = io.ErrShortWrite
		}
		return err
	})
	return done, err
}

// Preallocate implements vfs.File. Preallocation only reserves room ahead
// (Pebble asks for its memtable's size and a tenth, about 18 MB, for each
// WAL file); on a full disk it is skipped rather than waited for, so that
// the store needs room for what it writes, not for a whole WAL file, to
// serve again. The writes themselves still wait for room.
func (f *fullFile) Preallocate(offset, length int64) error {
	if err := f.File.Preallocate(offset, length); err != nil && !noSpace(err) {
		return err
	}
	return nil
}
