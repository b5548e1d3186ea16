package kafka

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

// TestRetentionKeepsUnshipped: with KeepUnshipped and a retention of one
// byte, no segment goes while the brokers are down; once shipped, the
// retention deletes every finished segment.
func TestRetentionKeepsUnshipped(t *testing.T) {
	const n = 800
	c := newCluster(t)
	log := openLog(t, events.Config{SegmentBytes: 16 << 10, RetentionBytes: 1, MaintainEvery: time.Hour})
	restore := dropConnections(t, c, "")
	s := newShipper(t, log, c.ListenAddrs(), nil)
	start(t, s)

	for i := 0; i < n; i += n / 4 {
		add(t, log, i, n/4, record)
		require.NoError(t, log.Rotate())
	}
	require.True(t, log.Maintain())
	waitFor(t, s, "the lag counted", func(st Stats) bool { return st.LagRecords == n && st.BrokerErrors > 0 })
	segs, err := events.List(log.Dir())
	require.NoError(t, err)
	require.Greater(t, len(segs), 3)
	require.True(t, log.Maintain())
	kept, err := events.List(log.Dir())
	require.NoError(t, err)
	assert.Equal(t, segs, kept, "nothing unshipped deleted")
	assert.Zero(t, log.Stats().Deleted)
	assert.Positive(t, s.Stats().SpoolBytes)

	restore()
	durable := log.Durable()
	st := waitFor(t, s, "everything shipped", func(st Stats) bool { return st.Saved == durable })
	assert.EqualValues(t, n, st.Records)
	require.True(t, log.Maintain())
	left, err := events.List(log.Dir())
	require.NoError(t, err)
	require.Len(t, left, 1, "the segment being written")
	assert.True(t, left[0].Open)
	assert.Equal(t, durable.Seq, left[0].Seq)
	assert.EqualValues(t, len(segs)-1, log.Stats().Deleted)
	assert.Zero(t, s.Stats().SpoolBytes)
	assert.Len(t, consume(t, c), n, "every record in the topic, once")
}
