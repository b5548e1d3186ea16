//go:build !unix

package disk

import "os"

// fileID is not known here: the directory is not watched (dirwatch.go).
func fileID(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
