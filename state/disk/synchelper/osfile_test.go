//go:build linux

package synchelper

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOSFileSyncsThroughTheHelper: a file the program opened itself (the
// event log's segment) is synced by the helper and forgotten by it when
// closed.
func TestOSFileSyncsThroughTheHelper(t *testing.T) {
	h := start(t, Config{})
	f, err := os.Create(filepath.Join(t.TempDir(), "segment"))
	require.NoError(t, err)
	sc := h.OSFile(f, f.Name())
	_, err = f.Write([]byte("a record\n"))
	require.NoError(t, err)
	before := h.Synced()
	require.NoError(t, sc.Sync())
	require.NoError(t, sc.Sync())
	assert.Equal(t, int64(2), h.Synced()-before)
	assert.Equal(t, int64(2), helperSyncs(t, h, sc.(vfs.File)))
	require.NoError(t, sc.Close())
	assert.Zero(t, helperSyncs(t, h, sc.(vfs.File)), "the helper forgot the closed file")
	_, err = f.Write([]byte("x"))
	assert.ErrorIs(t, err, os.ErrClosed, "the program's file is closed too")
}
