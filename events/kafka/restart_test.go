package kafka

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

// TestRestart stops a shipper midway and starts another on the same log:
// it goes on from the saved position. After a stop, nothing is shipped
// twice; after a crash between the brokers' acks and the save, the
// records after the last saved position, and only those, are shipped
// again, and deduplicating by (type, bidid) gives back the log's records.
func TestRestart(t *testing.T) {
	const first, second = 600, 600
	for _, tc := range []struct {
		name     string
		crash    bool // the first shipper's saves are lost after its first records
		maxBatch int
		midway   bool // stopped while the second records are being shipped
	}{
		{"stop", false, 0, false},
		{"stop during a backlog", false, 20, true},
		{"crash between ack and save", true, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			log := openLog(t, events.Config{SegmentBytes: 48 << 10})
			s := newShipper(t, log, c.ListenAddrs(), func(cfg *Config) { cfg.MaxBatch = tc.maxBatch })
			var crashed atomic.Bool
			s.save = func(p events.Position) error {
				if crashed.Load() {
					return nil // the process is gone: nothing reaches the disk
				}
				return log.SaveShipped(p)
			}
			r := start(t, s)
			add(t, log, 0, first, bidsOnly)
			durable := log.Durable()
			waitFor(t, s, "the first records saved", func(st Stats) bool { return st.Saved == durable })
			crashed.Store(tc.crash)
			add(t, log, first, second, bidsOnly)
			durable = log.Durable()
			if tc.midway {
				waitFor(t, s, "some records acknowledged", func(st Stats) bool { return st.Records >= first+second/4 })
			} else {
				waitFor(t, s, "the records acknowledged", func(st Stats) bool { return st.Shipped == durable })
			}
			require.NoError(t, r.stop(t))

			saved := log.Shipped()
			if tc.crash || tc.midway {
				require.NotEqual(t, durable, saved)
			} else {
				require.Equal(t, durable, saved)
			}
			if tc.midway {
				require.Equal(t, s.Stats().Shipped, saved, "a stop saves what was acknowledged")
			}
			again := logLines(t, log, saved) // what the next run sends again
			add(t, log, first+second, first, bidsOnly)

			s2 := newShipper(t, log, c.ListenAddrs(), nil)
			start(t, s2)
			durable = log.Durable()
			st := waitFor(t, s2, "the rest shipped", func(st Stats) bool { return st.Saved == durable })
			assert.EqualValues(t, len(again)+first, st.Records)

			want := logLines(t, log, events.Position{})
			got := consume(t, c)
			dups := checkShipped(t, got, want)
			if !tc.crash {
				assert.Empty(t, dups)
			} else {
				sent := logLines(t, log, saved)[:second] // the second records: after the save, before the crash
				require.Len(t, dups, second, "the records after the last saved position")
				for _, line := range sent {
					assert.Equal(t, 2, dups[line], "shipped again: %s", line)
				}
			}
			unique := map[[2]string]bool{}
			for _, r := range got {
				var k struct{ Type, BidID string }
				require.NoError(t, json.Unmarshal(r.Value, &k))
				unique[[2]string{k.Type, k.BidID}] = true
			}
			assert.Len(t, unique, len(want), "deduplicated by (type, bidid): the log's records")
			t.Logf("%s: %d records shipped by the first run, %d left after its saved position, %d duplicates, %d records in the topic, %d after dedup",
				tc.name, s.Stats().Records, len(again), len(dups), len(got), len(unique))
		})
	}
}
