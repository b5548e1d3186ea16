package disk

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/statetest"
)

// TestManagedConformance: the managed set's conformance, reopened from
// its directory in between (it survives a restart).
func TestManagedConformance(t *testing.T) {
	type opened struct {
		dir string
		s   *Store
	}
	stores := map[managed.Store]*opened{}
	statetest.Managed(t, func(t *testing.T) managed.Store {
		o := &opened{dir: t.TempDir()}
		o.s = open(t, Config{Dir: o.dir})
		t.Cleanup(func() { _ = o.s.Close() })
		stores[o.s.Managed()] = o
		return o.s.Managed()
	}, func(t *testing.T, m managed.Store) managed.Store {
		o := stores[m]
		require.NoError(t, o.s.Close())
		o.s = open(t, Config{Dir: o.dir})
		return o.s.Managed()
	})
}
