package reconcile_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
)

func TestTail(t *testing.T) {
	a := writeLog(t, t.TempDir(), true, fixture()[:6]...)
	writeLog(t, a, false, fixture()[6:]...) // a finished segment and an open one
	b := writeLog(t, t.TempDir(), false, bid(9, "c-2", "x1", "2026-12-02T13:00:00.000Z", 3_000_000))
	tests := []struct {
		name   string
		dirs   []string
		filter reconcile.Filter
		want   []string // type:bid, in order
	}{
		{"everything, directory by directory", []string{a, b}, reconcile.Filter{},
			[]string{"bid:3", "bid:1", "win:3", "win:1", "billing:1", "impression:1", "click:1", "bid:4", "bid:5", "nobid:0", "audit:0", "bid:2", "win:2", "bid:9"}},
		{"wins", []string{a, b}, reconcile.Filter{Type: events.TypeWin}, []string{"win:3", "win:1", "win:2"}},
		{"one campaign on one exchange", []string{a, b}, reconcile.Filter{Campaign: "c-2", Exchange: "x1"}, []string{"bid:4", "bid:5", "bid:9"}},
		{"since", []string{a, b}, reconcile.Filter{Since: at("2026-12-01T23:00:00Z")}, []string{"bid:2", "win:2", "bid:9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, reconcile.Tail(context.Background(), reconcile.TailConfig{Dirs: tt.dirs, Filter: tt.filter}, &out))
			assert.Equal(t, tt.want, typesAndBids(t, out.String()))
		})
	}
}

// typesAndBids names each line of out by its type and its bid id's last
// byte.
func typesAndBids(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for line := range strings.Lines(out) {
		r, err := reconcile.ParseRecord([]byte(line))
		require.NoError(t, err, line)
		got = append(got, r.Type.String()+":"+string('0'+rune(r.BidID[15])))
	}
	return got
}

// syncBuffer is a buffer Tail writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTailFollows: records written after the first reading are written
// out as they come, through a segment's rotation, until the context ends.
func TestTailFollows(t *testing.T) {
	dir := writeLog(t, t.TempDir(), false, fixture()[:2]...)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- reconcile.Tail(ctx, reconcile.TailConfig{Dirs: []string{dir}, Filter: reconcile.Filter{Type: events.TypeBid},
			Follow: 5 * time.Millisecond}, &out)
	}()
	wait := func(want ...string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			assert.Equal(c, want, typesAndBids(t, out.String()))
		}, 10*time.Second, 5*time.Millisecond)
	}
	wait("bid:3", "bid:1")

	l, err := events.Open(events.Config{Dir: dir, Instance: "dspd-1", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer l.Close()
	add := func(r *events.Record) {
		f, err := l.Add(r, true)
		require.NoError(t, err)
		require.NoError(t, f.Wait(ctx))
	}
	add(bid(5, "c-2", "x1", "2026-12-01T12:00:00.000Z", 3_000_000))
	add(tracker(events.TypeClick, 5, "c-2", "x1", "2026-12-01T12:00:05.000Z")) // not a bid
	wait("bid:3", "bid:1", "bid:5")
	require.NoError(t, l.Rotate())
	add(bid(2, "c-1", "x2", "2026-12-01T23:59:59.500Z", 9_000_000))
	wait("bid:3", "bid:1", "bid:5", "bid:2")

	cancel()
	require.NoError(t, <-done, "stopped by its context")
}
