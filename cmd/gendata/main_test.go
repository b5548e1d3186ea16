package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/synth"
)

// TestCommittedTestdataIsGenerated regenerates testdata with the default
// flags and requires the committed files to be exactly what gendata writes,
// so the generator stays their single source.
func TestCommittedTestdataIsGenerated(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, run(1000, 10000, 2000, synth.DefaultSeed, out, "openrtb"))
	for _, name := range []string{"campaigns.json", "post.data", "requests.txt",
		"openrtb/requests.jsonl", "openrtb/post.json", "openrtb/exchange.jsonl", "openrtb/currency.json"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		require.NoError(t, err)
		assert.True(t, string(got) == string(want), "%s differs from `go run ./cmd/gendata`; regenerate testdata", name)
	}
}
