package loadtest

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawServer answers each request on a connection with the next canned
// answer, written as raw bytes, and closes the connection after the last.
func rawServer(t *testing.T, answers ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for _, a := range answers {
					if _, err := http.ReadRequest(br); err != nil {
						return
					}
					if _, err := conn.Write([]byte(a)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestClientReadsAnswers(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		status int
		docLen int64
		close  bool
		kind   errKind
		server string
	}{
		{name: "content-length", raw: "HTTP/1.1 200 OK\r\nServer: dspd\r\nContent-Length: 5\r\n\r\nhello", status: 200, docLen: 5, server: "dspd"},
		{name: "chunked", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;x=y\r\nlo\r\n0\r\nTrailer: 1\r\n\r\n", status: 200, docLen: 5},
		{name: "no content", raw: "HTTP/1.1 204 No Content\r\nX-Nobid-Reason: no_match\r\n\r\n", status: 204},
		{name: "connection close", raw: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", status: 200, docLen: 2, close: true},
		{name: "HTTP/1.0 closes by default", raw: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, docLen: 2, close: true},
		{name: "HTTP/1.0 keep-alive", raw: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", status: 200, docLen: 2},
		{name: "body to the end", raw: "HTTP/1.1 200 OK\r\n\r\nuntil close", status: 200, docLen: 11, close: true},
		{name: "not HTTP", raw: "SSH-2.0-OpenSSH\r\n\r\n", kind: kindReceive},
		{name: "bad length", raw: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", kind: kindReceive},
		{name: "short body", raw: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", kind: kindReceive},
		{name: "bad chunk", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", kind: kindReceive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.raw)
			tg, err := parseTarget("http://" + addr + "/")
			require.NoError(t, err)
			cfg := Config{KeepAlive: true}
			reqs, err := prepare(tg, &cfg)
			require.NoError(t, err)
			c := newClient(addr, true, 2*time.Second)
			c.wantName = true
			a := c.do(t.Context(), &reqs[0])
			assert.Equal(t, tt.kind, a.kind)
			if tt.kind != kindNone {
				assert.Nil(t, c.nc, "a failed connection is dropped")
				return
			}
			assert.Equal(t, tt.status, a.status)
			assert.Equal(t, tt.docLen, a.docLen)
			assert.Equal(t, tt.close, a.close)
			assert.Equal(t, tt.server, a.server)
			assert.Equal(t, tt.close, c.nc == nil, "closed exactly when the server says so")
			assert.False(t, a.timing.done.Before(a.timing.firstByte))
		})
	}
}

func TestClientReusesConnections(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb")
	tg, _ := parseTarget("http://" + addr + "/")
	cfg := Config{KeepAlive: true}
	reqs, err := prepare(tg, &cfg)
	require.NoError(t, err)
	c := newClient(addr, true, 2*time.Second)
	for range 2 {
		a := c.do(t.Context(), &reqs[0])
		require.Equal(t, kindNone, a.kind)
	}
	assert.Equal(t, int64(1), c.opened)
}

func TestPrepare(t *testing.T) {
	tg, err := parseTarget("http://example.test:8080/dsp/recbid?x=1")
	require.NoError(t, err)
	cfg := Config{Bodies: [][]byte{[]byte("a=1")}, ContentType: "application/x-www-form-urlencoded", Headers: []string{"X-A: 1", "User-Agent: ab"}}
	reqs, err := prepare(tg, &cfg)
	require.NoError(t, err)
	assert.Equal(t, "POST /dsp/recbid?x=1 HTTP/1.1\r\nHost: example.test:8080\r\nAccept: */*\r\nConnection: close\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nX-A: 1\r\nUser-Agent: ab\r\n\r\na=1", string(reqs[0].raw))
	assert.Equal(t, 3, reqs[0].bodySize)
}
