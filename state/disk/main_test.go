package disk

import (
	"os"
	"testing"

	"github.com/recbid/dspd/state/disk/synchelper"
)

// TestMain serves as the fsync helper when a store with Config.SyncHelper
// started this binary as one.
func TestMain(m *testing.M) {
	synchelper.ServeIfHelper()
	os.Exit(m.Run())
}
