package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/conntest"
)

// startDspd runs dspd in-process with short listener timeouts and returns
// its public address; it stops when the test ends.
func startDspd(t *testing.T, mod func(*config), h hooks) (addr string, stop func() error) {
	t.Helper()
	cfg := testConfig(t)
	cfg.limits.ReadHeaderTimeout = 300 * time.Millisecond
	cfg.limits.ReadTimeout = time.Second
	cfg.limits.WriteTimeout = time.Second
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	up := h.listening
	h.listening = func(p, a net.Addr) {
		if up != nil {
			up(p, a)
		}
		addrs <- p
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, slog.New(slog.DiscardHandler), nil, h) }()
	select {
	case a := <-addrs:
		addr = a.String()
	case err := <-done:
		t.Fatalf("dspd did not start: %v", err)
	}
	var stopped bool
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { _ = stop() })
	return addr, stop
}

func postData(t testing.TB) []byte {
	b, err := os.ReadFile("../../testdata/post.data")
	require.NoError(t, err)
	return b
}

// scrape returns the admin listener's /metrics page.
func scrape(t *testing.T, adminAddr string) string {
	t.Helper()
	resp, err := http.Get("http://" + adminAddr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// TestSlowlorisClients opens hundreds of connections that send a few bytes
// of headers and stall. Normal requests keep being answered meanwhile, and
// the server closes every stalled connection once ReadHeaderTimeout passes.
func TestSlowlorisClients(t *testing.T) {
	addr, _ := startDspd(t, nil, hooks{})
	const slow = 300
	conns := make([]net.Conn, 0, slow)
	for range slow {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Write([]byte("POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nX-Slow: "))
		require.NoError(t, err)
		conns = append(conns, c)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := postData(t)
	for range 50 {
		bidOK(t, client, addr, post)
	}
	// Every stalled connection is closed by the server: a read ends with EOF
	// (or a reset), long before our own 10 s guard.
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err := io.ReadAll(c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection %d still open after 10 s", i)
		}
	}
}

// TestUnreadBodyKeepAlive: a body the server does not read whole leaves
// the connection usable or is answered Connection: close, and the answer
// is never lost (conntest.KeepAliveIsHonest).
func TestUnreadBodyKeepAlive(t *testing.T) {
	addr, _ := startDspd(t, nil, hooks{})
	for _, u := range conntest.UnreadBodies {
		t.Run(u.Name, func(t *testing.T) {
			conntest.KeepAliveIsHonest(t, addr, u, string(postData(t)), true)
		})
	}
}

// TestOptionsAsterisk: OPTIONS * is answered 200 on both front ends
// (net/http answers it itself; the fasthttp front end as net/http does),
// under the connection's rules.
func TestOptionsAsterisk(t *testing.T) {
	addr, _ := startDspd(t, nil, hooks{})
	conntest.OptionsAsteriskKeepsTheRules(t, addr, string(postData(t)))
}

func TestHostileRequests(t *testing.T) {
	addr, _ := startDspd(t, nil, hooks{})
	post := postData(t)
	tests := []struct {
		name   string
		send   func(c net.Conn) error // writes a request, maybe half of one
		status int                    // 0: the server may only close the connection
	}{
		{"oversized headers", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "GET /dsp/win HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 40<<10))
			return err
		}, http.StatusRequestHeaderFieldsTooLarge},
		{"truncated body", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(post), post[:100])
			if err == nil {
				err = c.(*net.TCPConn).CloseWrite()
			}
			return err
		}, http.StatusBadRequest},
		{"content-length longer than the body", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\n%s", post)
			return err
		}, 0},
		{"content-length shorter than the body", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 20\r\n\r\n%s", post)
			return err
		}, http.StatusBadRequest}, // id=7c0f3e9a5b2d4c18a6: imp_id and the size are missing
		{"bad chunked encoding", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nid=1\r\n0\r\n\r\n")
			return err
		}, http.StatusBadRequest},
		{"two lengths", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")
			return err
		}, http.StatusBadRequest},
		// The path is routed as sent, and a multipart body is the core's
		// to refuse: neither front end decodes or parses them first.
		{"escaped path", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/%%72ecbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(post), post)
			return err
		}, http.StatusNotFound},
		{"dot segments", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/x/../recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(post), post)
			return err
		}, http.StatusNotFound},
		{"multipart content type, form body", func(c net.Conn) error {
			_, err := fmt.Fprintf(c, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n%s", len(post), post)
			return err
		}, http.StatusUnsupportedMediaType},
		{"not HTTP at all", func(c net.Conn) error {
			_, err := c.Write([]byte("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n"))
			return err
		}, http.StatusBadRequest},
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, tt.send(c))
			require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if tt.status == 0 {
				if err == nil { // an answer is fine too, as long as it is not a 5xx
					assert.Less(t, resp.StatusCode, 500)
					resp.Body.Close()
				} else {
					var ne net.Error
					assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the server must give up on the body first")
				}
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.status, resp.StatusCode)
				resp.Body.Close()
			}
			bidOK(t, client, addr, post) // no harm to others
		})
	}
}

// TestListenerLimits: the header limit is exact (16 KiB served, a byte
// more 431), a transfer coding other than chunked is a 4xx, never a 5xx,
// and a declared body over 16 KiB is 413 at once, unread: on both front
// ends alike (internal/conntest holds the Java servers to the same).
func TestListenerLimits(t *testing.T) {
	admin := make(chan net.Addr, 1)
	addr, _ := startDspd(t, nil, hooks{listening: func(_, a net.Addr) { admin <- a }})
	adminAddr := (<-admin).String()
	bid := string(postData(t))
	t.Run("header limit", func(t *testing.T) { conntest.HeaderLimitIsExact(t, addr, bid) })
	t.Run("transfer codings", func(t *testing.T) { conntest.TransferCodings(t, addr, bid) })
	t.Run("large body unread", func(t *testing.T) { conntest.LargeBodyRefusedUnread(t, addr) })
	metrics := scrape(t, adminAddr)
	if os.Getenv("DSPD_FRONT_END") == "fasthttp" {
		// fasthttp refuses most codings itself (one reaches the core as a body it cannot read)
		assert.Contains(t, metrics, `dspd_http_errors_total{code="bad_request",endpoint="listener"}`)
	} else {
		assert.Contains(t, metrics, `dspd_http_errors_total{code="unsupported_transfer_coding",endpoint="listener"} 6`)
	}
}
