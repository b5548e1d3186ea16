package bounded

import (
	"errors"
	"os"
	"path/filepath"
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
