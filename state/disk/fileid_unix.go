//go:build unix

package disk

import (
	"os"
	"syscall"
)

// fileID is a file's device and inode, where the file system reports them.
func fileID(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}
