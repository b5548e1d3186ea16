// Package golden compares a test's output with a file kept under testdata,
// and rewrites the file instead when the test runs with -update, for the
// packages whose tests keep golden files (api, loadtest, comparison).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Update is the -update flag of every test binary that imports the package.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Assert compares got with the file at path; under -update it writes got
// there first (creating its directory). A missing file fails the test with
// how to create it.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create %s", path)
	assert.Equal(t, string(want), string(got), "%s differs; if the change is meant, run the test with -update", path)
}
