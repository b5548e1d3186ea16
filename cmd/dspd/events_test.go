package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
)

func TestResolveEvents(t *testing.T) {
	for _, tc := range []struct {
		url, dir, state string
		want            eventsTarget
		err             string
	}{
		{url: "auto", state: "disk:data", want: eventsTarget{dir: filepath.Join("data", "events")}},
		{url: "auto", state: "memory", want: eventsTarget{}},
		{url: "auto", state: "redis://127.0.0.1:6379/0", want: eventsTarget{}},
		{url: "auto", dir: "/ev", state: "disk:data", want: eventsTarget{dir: "/ev"}},
		{url: "none", state: "disk:data", want: eventsTarget{}},
		{url: "file:/var/ev", state: "memory", want: eventsTarget{dir: "/var/ev"}},
		{url: "kafka://k1:9092,k2:9092/dspd", state: "disk:data",
			want: eventsTarget{dir: filepath.Join("data", "events"), brokers: []string{"k1:9092", "k2:9092"}, topic: "dspd"}},
		{url: "kafka://k1:9092/dspd", dir: "/spool", state: "memory", want: eventsTarget{dir: "/spool", brokers: []string{"k1:9092"}, topic: "dspd"}},
		{url: "kafka://k1:9092/dspd", state: "memory", err: "-events-dir DIR is required"},
		{url: "kafka://k1/dspd", state: "disk:data", err: "not HOST:PORT"},
		{url: "kafka://k1:9092/", state: "disk:data", err: "want auto"},
		{url: "file:", state: "disk:data", err: "want auto"},
		{url: "s3://bucket", state: "disk:data", err: "want auto"},
	} {
		t.Run(tc.url+" "+tc.state, func(t *testing.T) {
			got, err := resolveEvents(eventsConfig{url: tc.url, dir: tc.dir}, tc.state)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// driveBids makes n bids from as many users and sends the win notice of
// every other one, returning the bid ids won.
func driveBids(t *testing.T, public string, n int) []string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	var won []string
	for i := range n {
		b, ok := bid(t, c, public, "u-ev-"+strconv.Itoa(i))
		require.True(t, ok)
		if i%2 == 0 {
			status, _ := notice(t, c, public, b.id, 1_000_000+int64(i))
			require.Equal(t, http.StatusNoContent, status)
			won = append(won, b.id)
		}
	}
	return won
}

// TestReconcileARun: the log of a run reconciles with the books to the
// micro: the day's bids, wins and spend per campaign and exchange.
func TestReconcileARun(t *testing.T) {
	var dir string
	public, stop := startDspd(t, func(c *config) { dir = strings.TrimPrefix(c.state, "disk:") }, hooks{})
	driveBids(t, public, 200)
	require.NoError(t, stop())

	day := bidder.DayOfTime(testClockStart)
	s := reconcile.NewSummer(day)
	require.NoError(t, reconcile.ReadDirs(context.Background(), []string{filepath.Join(dir, "events")}, s.AddLine))
	rep, err := reconcile.Compare(context.Background(), s.Sums(), reconcile.StateLedger{Dir: dir})
	require.NoError(t, err)
	assert.True(t, rep.Exact(), "differences: %+v", rep.Differences)
	var wins, bids int64
	for _, r := range rep.Rows {
		if r.Key.Exchange == "" {
			wins += r.Log.Wins
			bids += r.Log.Bids
		}
	}
	assert.EqualValues(t, 100, wins)
	assert.EqualValues(t, 200, bids)
}

// TestEventsToKafka: dspd on the memory state ships its records to Kafka
// (franz-go's in-process cluster) from its spool: after a clean stop the
// topic holds exactly the records of the spool, each once, keyed by bid.
func TestEventsToKafka(t *testing.T) {
	const topic = "dspd-events"
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topic))
	require.NoError(t, err)
	defer cluster.Close()
	spool := t.TempDir()
	var admin net.Addr
	public, stop := startDspd(t, func(c *config) {
		c.state = "memory"
		c.events.url = "kafka://" + cluster.ListenAddrs()[0] + "/" + topic
		c.events.dir = spool
	}, hooks{listening: func(_, a net.Addr) { admin = a }})
	won := driveBids(t, public, 50)
	require.Len(t, won, 25)
	m := scrape(t, admin.String())
	assert.Contains(t, m, "dspd_events_shipped_total")
	require.NoError(t, stop())

	var local []string
	segs, err := events.List(spool)
	require.NoError(t, err)
	for _, s := range segs {
		require.NoError(t, events.Read(s, 0, -1, func(line []byte, _ int64) error {
			local = append(local, string(line))
			return nil
		}))
	}
	require.Len(t, local, 75, "50 bids, 25 wins")
	got := consumeN(t, cluster.ListenAddrs(), topic, len(local))
	var values []string
	for _, r := range got {
		values = append(values, string(r.Value))
		var rec struct {
			Type  string `json:"type"`
			BidID string `json:"bidid"`
		}
		require.NoError(t, json.Unmarshal(r.Value, &rec))
		assert.Equal(t, rec.BidID, string(r.Key), "keyed by bid id")
		require.Len(t, r.Headers, 1)
		assert.Equal(t, rec.Type, string(r.Headers[0].Value))
	}
	assert.ElementsMatch(t, local, values, "every spooled record in the topic, once")
}

// consumeN reads n records of topic, failing after 20 s.
func consumeN(t *testing.T, brokers []string, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.FetchMaxWait(50*time.Millisecond))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d", len(out), n)
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}
