package kafka

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/recbid/dspd/events"
)

// BenchmarkShip measures how many records a second the shipper sends to an
// in-process cluster that drops what it is sent (kfake.BlackholeProduce):
// the client's side only (reading the files, producing, the acks over
// loopback), an upper bound of what a real cluster takes. The log is
// written before the timer starts. Run it with a fixed count, e.g.
// -benchtime 200000x.
func BenchmarkShip(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(testPartitions, testTopic), kfake.BlackholeProduce())
	require.NoError(b, err)
	b.Cleanup(c.Close)
	log := openLog(b, events.Config{})
	n := b.N
	for i := 0; i < n; i += 10000 {
		add(b, log, i, min(10000, n-i), bidsOnly)
	}
	b.SetBytes(log.Stats().Bytes / int64(n))
	s := newShipper(b, log, c.ListenAddrs(), nil)

	b.ReportAllocs()
	b.ResetTimer()
	start(b, s)
	waitFor(b, s, "every record shipped", func(st Stats) bool { return st.Records == int64(n) })
	b.StopTimer()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
