package conntest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MaxHeaderBytes is the contract's limit on a request's header block: the
// request line, the header lines and the blank line that ends them.
const MaxHeaderBytes = 16 << 10

// HeaderLimitIsExact sends valid bid requests (bid) to addr whose header
// blocks are exactly MaxHeaderBytes long, and one byte longer: the first
// must be served, the second answered 431, on every server alike.
func HeaderLimitIsExact(t *testing.T, addr, bid string) {
	t.Helper()
	for _, tt := range []struct {
		size   int
		status func(int) bool
		want   string
	}{
		{MaxHeaderBytes, func(s int) bool { return s == http.StatusOK || s == http.StatusNoContent }, "served"},
		{MaxHeaderBytes + 1, func(s int) bool { return s == http.StatusRequestHeaderFieldsTooLarge }, "431"},
		{MaxHeaderBytes + 4096, func(s int) bool { return s == http.StatusRequestHeaderFieldsTooLarge }, "431"},
	} {
		resp := roundTrip(t, addr, paddedBidRequest(tt.size, bid))
		assert.True(t, tt.status(resp.StatusCode), "a %d-byte header block: want %s, got %d", tt.size, tt.want, resp.StatusCode)
	}
}

// paddedBidRequest is a POST /dsp/recbid of bid whose header block is
// size bytes, padded by an X-Pad header.
func paddedBidRequest(size int, bid string) string {
	head := fmt.Sprintf("POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
		"Content-Length: %d\r\n", len(bid))
	const padLine = len("X-Pad: \r\n")
	pad := size - len(head) - padLine - len("\r\n")
	return head + "X-Pad: " + strings.Repeat("p", pad) + "\r\n\r\n" + bid
}

// TransferCodings sends bid requests with Transfer-Encoding codings other
// than chunked alone (which RFC 9112 lets a server refuse): each must be a
// 4xx, never a 5xx, since nothing a client sends may cause one.
func TransferCodings(t *testing.T, addr, bid string) {
	t.Helper()
	for _, te := range []string{"gzip", "identity", "deflate", "chunked, gzip", "gzip, chunked", "x-unknown"} {
		body := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(bid), bid)
		req := "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
			"Transfer-Encoding: " + te + "\r\nConnection: close\r\n\r\n" + body
		resp := roundTrip(t, addr, req)
		assert.True(t, resp.StatusCode >= 400 && resp.StatusCode < 500,
			"Transfer-Encoding: %s answered %d: a client's request must not cause a 5xx", te, resp.StatusCode)
	}
}

// LargeBodyRefusedUnread sends a bid request that declares a body over the
// contract's 16 KiB and sends none of it: the server must answer 413 at
// once, unread, not wait for the body.
func LargeBodyRefusedUnread(t *testing.T, addr string) {
	t.Helper()
	req := "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
		"Content-Length: 1000000\r\n\r\n"
	began := time.Now()
	resp := roundTrip(t, addr, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Less(t, time.Since(began), 2*time.Second, "answered without waiting for the body")
}

// roundTrip writes raw on a new connection to addr and reads one answer.
func roundTrip(t *testing.T, addr, raw string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	go func() { _, _ = io.WriteString(conn, raw) }() // the server may stop reading
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}
