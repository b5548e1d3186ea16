package events

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingFiles is a FileSyncer that counts what it is asked to do.
type countingFiles struct {
	mu      sync.Mutex
	tracked []string
	syncs   map[string]int
	closed  map[string]bool
}

func (c *countingFiles) Track(f *os.File, name string) SyncCloser {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tracked = append(c.tracked, name)
	return countedFile{f: f, name: name, c: c}
}

type countedFile struct {
	f    *os.File
	name string
	c    *countingFiles
}

func (f countedFile) Sync() error {
	f.c.mu.Lock()
	f.c.syncs[f.name]++
	f.c.mu.Unlock()
	return f.f.Sync()
}

func (f countedFile) Close() error {
	f.c.mu.Lock()
	f.c.closed[f.name] = true
	f.c.mu.Unlock()
	return f.f.Close()
}

// TestFilesDoTheSyncs: with Config.Files, every segment the log writes is
// synced and closed through it (the disk state's sync helper), never by
// the file's own Sync behind its back: a record waited for is synced by
// it, a rotated segment and the last one are closed by it.
func TestFilesDoTheSyncs(t *testing.T) {
	files := &countingFiles{syncs: map[string]int{}, closed: map[string]bool{}}
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, Files: files})
	f, err := l.Add(bidRecord(1), true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()))
	require.NoError(t, l.Rotate())
	f, err = l.Add(bidRecord(2), true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()))
	require.NoError(t, l.Close())

	files.mu.Lock()
	defer files.mu.Unlock()
	require.Len(t, files.tracked, 2, "the first segment and the one after the rotation")
	for _, name := range files.tracked {
		assert.Positive(t, files.syncs[name], "%s synced through Files", name)
		assert.True(t, files.closed[name], "%s closed through Files", name)
	}
	assert.Len(t, readAll(t, dir), 2)
}
