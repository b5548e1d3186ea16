package synchelper

import (
	"os"

	"golang.org/x/sys/unix"
)

// newHeldFile keeps a descriptor dspd sent.
func newHeldFile(fd int) *heldFile {
	return &heldFile{f: os.NewFile(uintptr(fd), "synced file"), syncRange: syncRangeWorks(fd)}
}

// do does one sync. A file closed meanwhile fails otherwise than with an
// errno (not attempted).
func (hf *heldFile) do(op uint8, length int64) (full bool, err error) {
	rc, err := hf.f.SyscallConn()
	if err != nil {
		return false, err
	}
	cerr := rc.Control(func(fd uintptr) { // the descriptor stays open while it runs
		switch op {
		case opFsync:
			err = retryEINTR(func() error { return unix.Fsync(int(fd)) })
		case opFdatasync:
			err = retryEINTR(func() error { return unix.Fdatasync(int(fd)) })
		case opSyncTo:
			full, err = hf.syncTo(int(fd), length)
		}
	})
	if cerr != nil {
		return false, cerr
	}
	return full, err
}

// syncTo is vfs.Default's SyncTo on Linux: on ext2/3/4, queue the first
// length bytes for writing after waiting for those already being written
// (no persistence promised: fullSync false); elsewhere fdatasync.
func (hf *heldFile) syncTo(fd int, length int64) (fullSync bool, err error) {
	if !hf.syncRange {
		if err := retryEINTR(func() error { return unix.Fdatasync(fd) }); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, retryEINTR(func() error {
		return unix.SyncFileRange(fd, 0, length, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE)
	})
}

// syncRangeWorks is vfs.Default's choice: sync_file_range only on ext2/3/4
// (others, ZFS among them, may take it as a no-op), and only where the
// kernel has it.
func syncRangeWorks(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil || st.Type != unix.EXT4_SUPER_MAGIC {
		return false
	}
	return unix.SyncFileRange(fd, 0, 0, 0) != unix.ENOSYS
}

// retryEINTR runs a system call again while a signal interrupts it.
func retryEINTR(call func() error) error {
	for {
		if err := call(); err != unix.EINTR {
			return err
		}
	}
}
