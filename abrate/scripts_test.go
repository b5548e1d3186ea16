package abrate

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScriptsDescriptions checks every description the make targets run:
// each parses, and runs dry with its defaults and with the variables make
// passes.
func TestScriptsDescriptions(t *testing.T) {
	files, err := filepath.Glob("../scripts/abrate/*.json")
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	assert.ElementsMatch(t, []string{"rate.json", "exchange-rate.json", "multicore.json", "scaling.json", "loadgen-vs-wrk.json",
		"openrtb-rate.json", "redis-rate.json", "events-rate.json"}, names)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := Load(f)
			require.NoError(t, err)
			require.NoError(t, Check(d, nil))
			fromMake := map[string]string{"rounds": "1", "duration": "1s"}
			require.NoError(t, Check(d, fromMake))
		})
	}
}
