//go:build linux

package disk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreWithSyncHelper: a store on the operating system's file system
// with its fsyncs done by the helper keeps its books through a close and a
// reopen, the helper having done the syncs.
func TestStoreWithSyncHelper(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Dir: t.TempDir(), SyncHelper: true, Clock: func() time.Time { return testNow }}
	s := open(t, cfg)
	require.NotNil(t, s.helper, "the helper started")
	e, cat := engineOn(s), campaigns()
	d := decideOK(t, e, cat)
	_, err := e.Win(ctx, d.BidID, 2_500_000)
	require.NoError(t, err)
	pending := decideOK(t, e, cat)
	before := allStats(t, s)
	assert.Positive(t, s.helper.Synced(), "the win's commit was synced by the helper")
	require.NoError(t, s.Close())

	again := open(t, cfg)
	defer again.Close()
	assert.Equal(t, before, allStats(t, again))
	e = engineOn(again)
	out, err := e.Win(ctx, d.BidID, 1_000_000)
	require.NoError(t, err)
	assert.True(t, out.Duplicate, "a won bid stays won")
	out, err = e.Win(ctx, pending.BidID, 500_000)
	require.NoError(t, err, "a bid not yet won can still be won")
	assert.False(t, out.Duplicate)
}
