package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
)

const (
	testTopic      = "dspd-events"
	testPartitions = 3
	testInstance   = "dspd-1"
	// guard bounds every wait of a test: a failure, not a measure.
	guard = 20 * time.Second
)

// base is the records' time.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newCluster starts an in-process Kafka cluster holding the test topic.
func newCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(testPartitions, testTopic)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// openLog opens an event log keeping what is not shipped.
func openLog(t testing.TB, cfg events.Config) *events.Log {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Logger, cfg.Instance, cfg.KeepUnshipped = quiet(), testInstance, true
	cfg.Fatal = func(msg string) { t.Errorf("event log fatal: %s", msg) }
	l, err := events.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// newShipper returns a shipper on log, quick to retry and to see a broker
// back; change adjusts its configuration.
func newShipper(t testing.TB, log *events.Log, brokers []string, change func(*Config)) *Shipper {
	t.Helper()
	cfg := Config{Brokers: brokers, Topic: testTopic, Log: log, Logger: quiet(),
		PollEvery: time.Millisecond, RetryBackoff: 5 * time.Millisecond, MaxRetryBackoff: 50 * time.Millisecond,
		StopWait: 100 * time.Millisecond, Opts: []kgo.Opt{kgo.MetadataMinAge(10 * time.Millisecond)}}
	if change != nil {
		change(&cfg)
	}
	s, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// running is a shipper's Run in its goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan error
}

func start(t testing.TB, s *Shipper) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Run(ctx) }()
	t.Cleanup(func() { r.cancel(); <-r.done })
	return r
}

// stop cancels the run and returns Run's error once it returned.
func (r *running) stop(t testing.TB) error {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		return err
	case <-time.After(guard):
		t.Fatal("Run did not return after its context was canceled")
		return nil
	}
}

// waitFor waits until cond holds of the shipper's stats, woken by each of
// its changes.
func waitFor(t testing.TB, s *Shipper, what string, cond func(Stats) bool) Stats {
	t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for {
		changed := s.changed.wait()
		st := s.Stats()
		if cond(st) {
			return st
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waiting for %s: %+v", what, st)
		}
	}
}

// record returns record number n: mostly bids, a win, a no bid (no bid id)
// and an audit record (a campaign, no bid id) now and then; each line is
// unique (its request id).
func record(n int) *events.Record {
	r := &events.Record{Type: events.TypeBid, Time: base.Add(time.Duration(n) * time.Millisecond),
		BidID: bidder.BidID{0xb1, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), 15: 7}, Exchange: "adx",
		Campaign: fmt.Sprintf("c-%d", n%50), Creative: "cr-1", Price: 1_250_000, RequestID: fmt.Sprintf("req-%d", n),
		ImpID: "1", Protocol: "openrtb", W: 300, H: 250, Floor: 500_000, User: bidder.UserKey{1, 2, byte(n)}}
	switch n % 10 {
	case 3:
		r.Type, r.BidTimeS, r.BidPrice = events.TypeWin, base.Unix(), 2_000_000
	case 7:
		r.Type, r.BidID, r.Reason = events.TypeNoBid, bidder.BidID{}, "no_match"
	}
	if n%97 == 5 {
		*r = events.Record{Type: events.TypeAudit, Time: r.Time, Campaign: fmt.Sprintf(`c-"%d"`, n), Actor: "ops",
			Version: int64(n), After: []byte(`{"id":"x"}`)}
	}
	return r
}

// bidsOnly returns record n made a bid or a win (unique by type and bid id).
func bidsOnly(n int) *events.Record {
	r := record(n)
	if r.Type != events.TypeBid && r.Type != events.TypeWin {
		r = record(0)
		r.Time = base.Add(time.Duration(n) * time.Millisecond)
		r.BidID = bidder.BidID{0xb2, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
		r.RequestID = fmt.Sprintf("req-%d", n)
	}
	return r
}

// add adds records from to from+n-1 made by mk and waits until they are
// synced.
func add(t testing.TB, log *events.Log, from, n int, mk func(int) *events.Record) {
	t.Helper()
	var last *events.Flush
	for i := from; i < from+n; i++ {
		f, err := log.Add(mk(i), false)
		require.NoError(t, err)
		last = f
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, last.Wait(ctx))
}

// logLines returns the lines of the log's records from p on, in order
// (read again when the compressor replaced a segment meanwhile).
func logLines(t testing.TB, log *events.Log, p events.Position) []string {
	t.Helper()
	for {
		out, err := tryLogLines(log, p)
		if !errors.Is(err, fs.ErrNotExist) {
			require.NoError(t, err)
			return out
		}
	}
}

func tryLogLines(log *events.Log, p events.Position) ([]string, error) {
	segs, err := events.List(log.Dir())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range segs {
		if s.Seq < p.Seq {
			continue
		}
		from := int64(0)
		if s.Seq == p.Seq {
			from = p.Offset
		}
		if err := events.Read(s, from, -1, func(line []byte, _ int64) error {
			out = append(out, string(line))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// consume reads every record of the topic.
func consume(t testing.TB, c *kfake.Cluster) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(testTopic),
		kgo.FetchMaxWait(50*time.Millisecond))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	total := topicEnd(ctx, t, cl)
	var out []*kgo.Record
	for int64(len(out)) < total {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d records", len(out), total)
		for _, e := range fs.Errors() {
			require.NoError(t, e.Err)
		}
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}

// topicEnd returns how many records the topic holds: the sum of its
// partitions' end offsets.
func topicEnd(ctx context.Context, t testing.TB, cl *kgo.Client) int64 {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = testTopic
	for p := range int32(testPartitions) {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = p, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	var total int64
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			require.Zero(t, rp.ErrorCode)
			total += rp.Offset
		}
	}
	return total
}

// checkShipped checks that the topic holds each of want once, as the
// shipper maps it, and nothing else; it returns the lines found more than
// once, with their counts.
func checkShipped(t testing.TB, got []*kgo.Record, want []string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for _, r := range got {
		line := string(r.Value)
		seen[line]++
		var rec struct {
			Type, BidID, Campaign string
		}
		require.NoError(t, json.Unmarshal(r.Value, &rec), "%s", r.Value)
		key := rec.BidID
		if rec.Type == "audit" {
			key = rec.Campaign
		}
		if key != string(r.Key) || len(r.Headers) != 1 || r.Headers[0].Key != "type" || string(r.Headers[0].Value) != rec.Type {
			require.Failf(t, "a record mapped wrong", "key %q, headers %v: %s", r.Key, r.Headers, line)
		}
	}
	dups := map[string]int{}
	for _, line := range want {
		if seen[line] == 0 {
			require.Failf(t, "a record never shipped", "%s", line)
		}
		if seen[line] > 1 {
			dups[line] = seen[line]
		}
		delete(seen, line)
	}
	require.Empty(t, seen, "records shipped that the log does not hold")
	return dups
}
