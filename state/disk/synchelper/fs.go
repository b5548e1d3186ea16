//go:build linux

package synchelper

import (
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// FS returns fs with the syncs of the files it creates or opens for
// writing, and of the directories it opens, done by the helper. Files
// without a descriptor of the operating system's (vfs.File.Fd returns
// vfs.InvalidFd, as a MemFS's do) are fs's own, unchanged.
func (h *Helper) FS(fs vfs.FS) vfs.FS { return &helperFS{FS: fs, h: h} }

// helperFS is the FS Helper.FS returns.
type helperFS struct {
	vfs.FS
	h *Helper
}

// Create implements vfs.FS.
func (fs *helperFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	return fs.h.wrap(f, err, name, false)
}

// OpenReadWrite implements vfs.FS.
func (fs *helperFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	return fs.h.wrap(f, err, name, false)
}

// ReuseForWrite implements vfs.FS.
func (fs *helperFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	return fs.h.wrap(f, err, newname, false)
}

// OpenDir implements vfs.FS.
func (fs *helperFS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	return fs.h.wrap(f, err, name, true)
}

// Unwrap implements vfs.FS.
func (fs *helperFS) Unwrap() vfs.FS { return fs.FS }

// wrap makes f's syncs the helper's, when f has a descriptor.
func (h *Helper) wrap(f vfs.File, err error, name string, dir bool) (vfs.File, error) {
	if err != nil {
		return f, err
	}
	fd := f.Fd()
	if fd == vfs.InvalidFd {
		return f, nil
	}
	return &file{File: f, h: h, name: name, fd: int(fd), dir: dir, id: h.files.Add(1)}, nil
}

// file is a file whose syncs the helper does. Its methods other than the
// syncs and Close are the wrapped file's.
type file struct {
	vfs.File
	h    *Helper
	name string
	fd   int    // the descriptor, sent with the first sync
	id   uint64 // the helper's name for it
	dir  bool   // opened with OpenDir

	mu     sync.Mutex  // one sender at a time, so that the descriptor goes first
	sent   bool        // the helper has been sent the descriptor
	direct atomic.Bool // the helper has no descriptor for it: sync in-process
}

// Sync implements vfs.File: fsync, by the helper.
func (f *file) Sync() error {
	r, ok := f.ask(opFsync, 0)
	if !ok {
		return f.File.Sync()
	}
	return r.err("fsync", f.name)
}

// SyncData implements vfs.File: fdatasync, by the helper; a directory's is
// its fsync (as vfs.Default's).
func (f *file) SyncData() error {
	op, name := uint8(opFdatasync), "fdatasync"
	if f.dir {
		op, name = opFsync, "fsync"
	}
	r, ok := f.ask(op, 0)
	if !ok {
		return f.File.SyncData()
	}
	return r.err(name, f.name)
}

// SyncTo implements vfs.File: sync_file_range on ext2/3/4 and fdatasync
// elsewhere, by the helper, as vfs.Default; a directory's does nothing.
func (f *file) SyncTo(length int64) (fullSync bool, err error) {
	if f.dir {
		return f.File.SyncTo(length)
	}
	r, ok := f.ask(opSyncTo, length)
	if !ok {
		return f.File.SyncTo(length)
	}
	return r.full, r.err("sync_file_range", f.name)
}

// Close implements io.Closer: the helper closes its copy too.
func (f *file) Close() error {
	f.mu.Lock()
	sent := f.sent
	f.mu.Unlock()
	if sent && !f.direct.Load() {
		f.h.send(request{op: opForget, file: f.id}, nil, false)
	}
	return f.File.Close()
}

// ask has the helper do op and waits for its answer, parked in the
// netpoller. ok is false when the sync was not done (the helper is lost,
// or has no descriptor for the file): the caller does it in-process.
func (f *file) ask(op uint8, arg int64) (r reply, ok bool) {
	if f.direct.Load() {
		return r, false
	}
	f.mu.Lock()
	var rights []byte
	if !f.sent {
		rights = unix.UnixRights(f.fd)
	}
	ch := f.h.send(request{op: op, file: f.id, arg: arg}, rights, true)
	f.sent = true // sent, or the helper is lost and nothing more is
	f.mu.Unlock()
	r = <-ch
	switch r.status {
	case statusOK, statusErrno:
		f.h.synced.Add(1)
		return r, true
	case statusNoFile:
		f.direct.Store(true)
		f.h.direct(f.name)
	}
	return r, false
}
