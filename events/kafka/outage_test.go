package kafka

import (
	"errors"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/recbid/dspd/events"
)

// An outage makes the cluster unavailable until the function it returns
// is called, which returns the cluster then up.
type outage func(t *testing.T, c *kfake.Cluster, dataDir string) (restore func() *kfake.Cluster)

// dropConnections: the broker closes every connection on its first
// request (a broker going down, a network cut): nothing is written.
func dropConnections(_ *testing.T, c *kfake.Cluster, _ string) func() *kfake.Cluster {
	var up atomic.Bool
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		if up.Load() {
			c.DropControl()
			return nil, nil, false
		}
		c.KeepControl()
		return nil, errors.New("broker down"), true
	})
	return func() *kfake.Cluster { up.Store(true); return c }
}

// loseAcks: the broker writes each produce but answers it timed out (acks
// lost): the client retries with the same sequence numbers, which the
// broker recognizes.
func loseAcks(_ *testing.T, c *kfake.Cluster, _ string) func() *kfake.Cluster {
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.RequestTimedOut, Count: -1})
	return func() *kfake.Cluster { h.Remove(); return c }
}

// restartBroker: the broker stops (connections refused), and a new one
// starts on the same port with the data the first saved.
func restartBroker(t *testing.T, c *kfake.Cluster, dataDir string) func() *kfake.Cluster {
	_, port, err := net.SplitHostPort(c.ListenAddrs()[0])
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	c.Close()
	return func() *kfake.Cluster { return newCluster(t, kfake.Ports(p), kfake.DataDir(dataDir)) }
}

// TestOutage ships, takes the cluster away while the log takes more
// records, and brings it back: every record arrives, none twice, the
// errors are counted, and the lag grows, then returns to 0.
func TestOutage(t *testing.T) {
	const before, during = 1000, 1000
	for _, tc := range []struct {
		name   string
		down   outage
		errors bool // the client sees broker errors (not only answers it retries)
	}{
		{"connections dropped", dropConnections, true},
		{"acks lost", loseAcks, false},
		{"broker restarted", restartBroker, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dataDir := t.TempDir()
			c := newCluster(t, kfake.DataDir(dataDir))
			log := openLog(t, events.Config{SegmentBytes: 64 << 10})
			now := base.Add(time.Hour)
			s := newShipper(t, log, c.ListenAddrs(), func(cfg *Config) { cfg.Clock = func() time.Time { return now } })
			start(t, s)

			add(t, log, 0, before, record)
			durable := log.Durable()
			waitFor(t, s, "the first records shipped", func(st Stats) bool { return st.Saved == durable })

			restore := tc.down(t, c, dataDir)
			errs := s.Stats().BrokerErrors
			add(t, log, before, during, record) // the log takes them: nothing waits for Kafka
			st := waitFor(t, s, "the lag of the outage", func(st Stats) bool {
				return st.LagRecords == during && (!tc.errors || st.BrokerErrors >= errs+3)
			})
			assert.EqualValues(t, before, st.Records, "nothing shipped during the outage")
			oldest := base.Add(before * time.Millisecond) // the first record of the outage
			assert.InDelta(t, now.Sub(oldest).Seconds(), st.LagSeconds, 0.001)

			restored := time.Now()
			c = restore()
			durable = log.Durable()
			st = waitFor(t, s, "the outage's records shipped", func(st Stats) bool { return st.Saved == durable })
			drain := time.Since(restored)
			assert.EqualValues(t, before+during, st.Records)
			assert.Zero(t, st.LagRecords)
			assert.Zero(t, st.LagSeconds)

			want := logLines(t, log, events.Position{})
			require.Len(t, want, before+during)
			dups := checkShipped(t, consume(t, c), want)
			assert.Empty(t, dups)
			t.Logf("outage %s: %d records written during it, %d shipped after it, %d duplicates, %d broker errors counted, drained in %v",
				tc.name, during, st.Records-before, len(dups), st.BrokerErrors-errs, drain.Round(time.Millisecond))
		})
	}
}
