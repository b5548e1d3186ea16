package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("12345"), 0o644))
	for _, tt := range []struct {
		limit   int64
		tooLong bool
	}{{5, false}, {6, false}, {4, true}, {0, true}} {
		data, err := ReadFile(path, tt.limit)
		if tt.tooLong {
			assert.True(t, errors.Is(err, ErrTooLarge), "limit %d: %v", tt.limit, err)
			assert.Nil(t, data)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, "12345", string(data))
	}
	_, err := ReadFile(filepath.Join(dir, "missing"), 10)
	assert.True(t, errors.Is(err, os.ErrNotExist))
	_, err = ReadFile(dir, 10)
	assert.Error(t, err, "a directory")
	assert.False(t, errors.Is(err, ErrTooLarge))
}

// TestReadFileDevice: a path to an endless device is refused having held
// no more than the limit and one read's piece: it is read counting, never
// buffered past the limit (the doubling of a growing buffer would take
// twice the limit).
func TestReadFileDevice(t *testing.T) {
	const limit = 8 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	data, err := ReadFile("/dev/zero", limit)
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Nil(t, data)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes reading /dev/zero to a limit of %d", allocated, limit)
	assert.Less(t, allocated, uint64(limit+limit/4), "the pieces held, together")
}

// TestReadFileRefusesLargeFilesUnread: a regular file over the limit is
// refused by its size, before anything is read or held.
func TestReadFileRefusesLargeFilesUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30)) // sparse: a 1 GiB file that takes no disk
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = ReadFile(path, 1<<20)
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "1073741824 bytes")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10))
}
