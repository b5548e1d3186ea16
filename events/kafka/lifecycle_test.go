package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

func TestNewValidates(t *testing.T) {
	log := openLog(t, events.Config{})
	for _, tc := range []struct {
		name string
		cfg  Config
		err  string
	}{
		{"no brokers", Config{Topic: testTopic, Log: log}, "Brokers"},
		{"no topic", Config{Brokers: []string{"127.0.0.1:1"}, Log: log}, "Topic"},
		{"no log", Config{Brokers: []string{"127.0.0.1:1"}, Topic: testTopic}, "Log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestUnreachableBroker: dspd starts while no broker answers. New
// succeeds, Run retries, the log takes records as ever, and a stop
// returns without waiting for the broker.
func TestUnreachableBroker(t *testing.T) {
	log := openLog(t, events.Config{})
	s := newShipper(t, log, []string{"127.0.0.1:1"}, func(cfg *Config) { cfg.StopWait = 0 }) // the default
	r := start(t, s)

	for i := range 100 {
		f, err := log.Add(record(i), true)
		require.NoError(t, err)
		require.NoError(t, f.Wait(context.Background()))
	}
	st := waitFor(t, s, "the failures counted", func(st Stats) bool { return st.BrokerErrors >= 3 && st.LagRecords == 100 })
	assert.Zero(t, st.Records)
	assert.NotEmpty(t, st.LastError)
	assert.Positive(t, st.LagSeconds)

	began := time.Now()
	require.NoError(t, r.stop(t))
	t.Logf("stopped in %v with %d broker errors counted (%s)", time.Since(began).Round(time.Millisecond), st.BrokerErrors, st.LastError)
	assert.Zero(t, log.Shipped().Offset, "nothing shipped: the position is at most the first segment's start")
	require.Error(t, s.Run(context.Background()), "a shipper runs once")
}
