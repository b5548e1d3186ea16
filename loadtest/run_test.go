package loadtest

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExactRequestsAndConnections(t *testing.T) {
	tests := []struct {
		name      string
		n         int64
		c         int
		keepAlive bool
		wantConns int64
	}{
		{"a connection per request", 137, 7, false, 137},
		{"keep-alive: one per worker", 137, 7, true, 7},
		{"one worker", 20, 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCountingServer(t, ok)
			res, err := Run(t.Context(), Config{URL: srv.URL + "/x", Requests: tt.n, Concurrency: tt.c, KeepAlive: tt.keepAlive})
			require.NoError(t, err)
			assert.Equal(t, tt.n, srv.requests.Load(), "the server sees exactly n")
			assert.Equal(t, tt.n, res.Complete)
			assert.Equal(t, int64(0), res.Failed)
			assert.Equal(t, tt.wantConns, srv.conns.Load())
			assert.Equal(t, tt.wantConns, res.Connections)
			assert.Equal(t, map[string]int64{"200": tt.n}, res.StatusCodes)
			assert.Equal(t, int64(5), res.DocumentLength)
			assert.Equal(t, tt.n*5, res.Bytes.Body)
		})
	}
}

func TestPostBodiesAndHeaders(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.Method+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Test")+" "+string(b)]++
		mu.Unlock()
		ok(w, r)
	})
	res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 6, Concurrency: 2,
		Bodies: [][]byte{[]byte("a=1"), []byte("b=2"), []byte("c=3")}, ContentType: "application/x-www-form-urlencoded",
		Headers: []string{"X-Test: yes"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{
		"POST application/x-www-form-urlencoded yes a=1": 2,
		"POST application/x-www-form-urlencoded yes b=2": 2,
		"POST application/x-www-form-urlencoded yes c=3": 2,
	}, seen, "bodies round robin")
	assert.Equal(t, int64(18), res.Bytes.BodySent)
}

func TestFailureAccounting(t *testing.T) {
	t.Run("length differs from the first answer", func(t *testing.T) {
		var n atomic.Int64
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%2 == 0 {
				_, _ = w.Write([]byte("longer body"))
				return
			}
			ok(w, r)
		})
		res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 10})
		require.NoError(t, err)
		assert.Equal(t, int64(5), res.Failed)
		assert.Equal(t, int64(5), res.Errors["length"])
		res, err = Run(t.Context(), Config{URL: srv.URL, Requests: 10, VariableLength: true})
		require.NoError(t, err)
		assert.Equal(t, int64(0), res.Failed, "-l accepts varying lengths")
	})
	t.Run("non-2xx is not a failure, as in ab", func(t *testing.T) {
		var n atomic.Int64
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%3 == 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("nope!"))
				return
			}
			ok(w, r)
		})
		res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 9})
		require.NoError(t, err)
		assert.Equal(t, int64(0), res.Failed)
		assert.Equal(t, int64(3), res.Non2xx)
		assert.Equal(t, map[string]int64{"200": 6, "503": 3}, res.StatusCodes)
	})
	t.Run("connection cut before the answer", func(t *testing.T) {
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 4, KeepAlive: true})
		require.NoError(t, err)
		assert.Equal(t, int64(4), res.Errors["receive"])
		assert.Equal(t, int64(4), res.Failed)
	})
	t.Run("nothing listens", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		ln.Close()
		res, err := Run(t.Context(), Config{URL: "http://" + addr + "/", Requests: 3})
		require.NoError(t, err)
		assert.Equal(t, int64(3), res.Errors["connect"])
		assert.Equal(t, int64(3), res.Failed)
		assert.Equal(t, int64(3), res.Complete)
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		defer close(release)
		res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 1, Timeout: 200 * time.Millisecond})
		require.NoError(t, err)
		assert.Equal(t, int64(1), res.Errors["timeout"])
		assert.Equal(t, int64(1), res.Failed)
	})
}

// TestOpenLoopHoldsTheRate asks for 200 requests/s for 2 s and checks the
// rate achieved is within 5 %.
func TestOpenLoopHoldsTheRate(t *testing.T) {
	srv := newCountingServer(t, ok)
	res, err := Run(t.Context(), Config{URL: srv.URL, Rate: 200, Duration: 2 * time.Second, Concurrency: 10, KeepAlive: true})
	require.NoError(t, err)
	assert.Equal(t, int64(400), res.Complete, "rate × duration requests are scheduled")
	assert.InEpsilon(t, 200, res.RequestsPerSecond, 0.05)
	assert.True(t, res.OpenLoop)
	assert.Equal(t, 200.0, res.TargetRate)
}

// TestCoordinatedOmission stalls the whole server for one second. An open
// loop, whose latencies count from the scheduled send times, shows the stall
// in its 90th percentile; a closed loop, whose single connection simply
// waits, reports one slow request and hides it.
func TestCoordinatedOmission(t *testing.T) {
	stalled := func() *countingServer {
		var n atomic.Int64
		gate := make(chan struct{})
		var once sync.Once
		return newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) >= 50 { // from the 50th request, everything waits until a second after it
				once.Do(func() { time.AfterFunc(time.Second, func() { close(gate) }) })
				<-gate
			}
			ok(w, r)
		})
	}
	open, err := Run(t.Context(), Config{URL: stalled().URL, Rate: 100, Duration: 3 * time.Second, Concurrency: 10, KeepAlive: true})
	require.NoError(t, err)
	closed, err := Run(t.Context(), Config{URL: stalled().URL, Duration: 3 * time.Second, Concurrency: 1, KeepAlive: true})
	require.NoError(t, err)
	t.Logf("open loop p90 %.1f ms, closed loop p90 %.1f ms (max %.0f ms)", open.Latency.P90, closed.Latency.P90, closed.Latency.Max)
	assert.Greater(t, open.Latency.P90, 300.0, "the stall shows in the open loop")
	assert.Less(t, closed.Latency.P90, 100.0, "the closed loop hides it")
	assert.Greater(t, closed.Latency.Max, 900.0, "though its one stalled request took the second")
}

func TestTimeLimitAndDuration(t *testing.T) {
	srv := newCountingServer(t, ok)
	res, err := Run(t.Context(), Config{URL: srv.URL, Duration: 300 * time.Millisecond, Concurrency: 2, KeepAlive: true})
	require.NoError(t, err)
	assert.Positive(t, res.Complete)
	assert.Equal(t, res.Complete, srv.requests.Load())
	assert.Less(t, res.DurationSeconds, 2.0)

	// -t with -n: whichever comes first.
	res, err = Run(t.Context(), Config{URL: srv.URL, TimeLimit: 5 * time.Second, Requests: 10})
	require.NoError(t, err)
	assert.Equal(t, int64(10), res.Complete)
}

func TestWarmupIsNotMeasured(t *testing.T) {
	srv := newCountingServer(t, ok)
	res, err := Run(t.Context(), Config{URL: srv.URL, Requests: 10, WarmupRequests: 25, KeepAlive: true})
	require.NoError(t, err)
	assert.Equal(t, int64(35), srv.requests.Load())
	assert.Equal(t, int64(10), res.Complete)
}

func TestCancelStopsEarly(t *testing.T) {
	srv := newCountingServer(t, ok)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Duration: time.Hour, KeepAlive: true})
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Complete, int64(1))
}

func TestProgress(t *testing.T) {
	srv := newCountingServer(t, ok)
	var out bytes.Buffer
	_, err := Run(t.Context(), Config{URL: srv.URL, Requests: 1000, Concurrency: 4, KeepAlive: true, Progress: &out})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 11)
	assert.Equal(t, "Completed 100 requests", lines[0])
	assert.Equal(t, "Completed 1000 requests", lines[9])
	assert.Equal(t, "Finished 1000 requests", lines[10])
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "http://127.0.0.1:1/", Requests: 2, Concurrency: 3},
		{URL: "https://127.0.0.1:1/", Requests: 1},
		{URL: "127.0.0.1:1", Requests: 1},
		{URL: "http://127.0.0.1:1/", TimeLimit: time.Second, Duration: time.Second},
		{URL: "http://127.0.0.1:1/", Requests: 1, Headers: []string{"no colon"}},
		{URL: "http://127.0.0.1:1/", Requests: 1, ContentType: "text/plain"},
	} {
		_, err := Run(t.Context(), cfg)
		assert.Error(t, err, "%+v", cfg)
	}
}
