package kafka

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

// TestShipsEveryRecordOnce ships a log of many segments, written before
// and while the shipper runs, plain or compressed: the topic holds each
// record once, mapped (key, header, value), and the saved position is the
// durable one.
func TestShipsEveryRecordOnce(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		name     string
		compress bool
		maxBatch int
	}{
		{"plain", false, 0},
		{"compressed", true, 0},
		{"small rounds", true, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			log := openLog(t, events.Config{SegmentBytes: 32 << 10, Compress: tc.compress})
			add(t, log, 0, n/2, record) // a backlog
			s := newShipper(t, log, c.ListenAddrs(), func(cfg *Config) { cfg.MaxBatch = tc.maxBatch })
			r := start(t, s)
			add(t, log, n/2, n/4, record)
			require.NoError(t, log.Rotate())
			add(t, log, n/2+n/4, n/4, record)

			durable := log.Durable()
			st := waitFor(t, s, "everything shipped and saved", func(st Stats) bool { return st.Saved == durable })
			assert.EqualValues(t, n, st.Records)
			assert.Zero(t, st.LagRecords)
			assert.Zero(t, st.LagSeconds)
			assert.Zero(t, st.BrokerErrors)
			assert.Equal(t, durable, log.Shipped())
			require.NoError(t, r.stop(t))
			saved, err := events.ReadShipped(log.Dir())
			require.NoError(t, err)
			assert.Equal(t, durable, saved)

			want := logLines(t, log, events.Position{})
			require.Len(t, want, n)
			segs, err := events.List(log.Dir())
			require.NoError(t, err)
			// The Rotate makes three at least; the size bound more, as many as
			// the group commit's batches allow (a batch is never split).
			assert.GreaterOrEqual(t, len(segs), 3, "several segments")
			assert.Empty(t, checkShipped(t, consume(t, c), want), "duplicates")
		})
	}
}
