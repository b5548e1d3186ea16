// Package conntest holds connection-level checks that every HTTP server of
// the project must pass (dspd on each front end, the Java baseline on
// each), over a raw TCP connection.
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

// UnreadBody is a request whose chunked body a server does not read whole:
// too large for a bid request, or sent to a path that takes none.
type UnreadBody struct {
	Name string
	Path string
	Size int  // bytes of padding after a valid bid request
	Keep bool // the connection must stay: the rest of the body is small enough to drop
}

// UnreadBodies are the cases every server is held to: bodies over the
// contract's 16 KiB and under or over the 256 KiB a server drops to keep
// the connection.
var UnreadBodies = []UnreadBody{
	{"too large, under 256 KiB", "/dsp/recbid", 20 << 10, true},
	{"too large, over 256 KiB", "/dsp/recbid", 300 << 10, false},
	{"unwanted, under 256 KiB", "/dsp/nowhere", 20 << 10, true},
	{"unwanted, over 256 KiB", "/dsp/nowhere", 300 << 10, false},
}

// KeepAliveIsHonest sends the unread body's request on one connection to
// addr, then a valid bid request (bid). A server that drops small bodies
// (drops: dspd on both front ends, the Netty baseline; Tomcat closes after
// any error answer) keeps the connection when the body is small enough
// (u.Keep); any server may close it otherwise, but it must answer the first
// request, and an answer that does
// not say Connection: close must leave the connection able to answer the
// next request: a client reuses it, and a connection closed under it loses
// that request.
func KeepAliveIsHonest(t *testing.T, addr string, u UnreadBody, bid string, drops bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	go func() { // the server may stop reading: a failed write is its right
		body := bid + "&pad=" + strings.Repeat("x", u.Size)
		var b strings.Builder
		fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
			"Transfer-Encoding: chunked\r\n\r\n", u.Path)
		for len(body) > 0 {
			n := min(len(body), 8<<10)
			fmt.Fprintf(&b, "%x\r\n%s\r\n", n, body[:n])
			body = body[n:]
		}
		b.WriteString("0\r\n\r\n")
		_, _ = io.WriteString(conn, b.String())
	}()
	rd := bufio.NewReader(conn)
	first, err := http.ReadResponse(rd, nil)
	require.NoError(t, err, "the first answer was lost")
	_, err = io.Copy(io.Discard, first.Body)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, first.StatusCode, 400)
	if drops && u.Keep {
		assert.False(t, first.Close, "a body this small is dropped and the connection kept")
	}
	if first.Close {
		return // said so: the connection is not to be reused
	}
	_, err = io.WriteString(conn, bidRequest(bid))
	require.NoError(t, err)
	next, err := http.ReadResponse(rd, nil)
	require.NoError(t, err, "the answer kept the connection, and the next request was lost")
	_, _ = io.Copy(io.Discard, next.Body)
	assert.Contains(t, []int{http.StatusOK, http.StatusNoContent}, next.StatusCode)
}

// bidRequest is a POST /dsp/recbid of the form body bid.
func bidRequest(bid string) string {
	return fmt.Sprintf("POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
		"Content-Length: %d\r\n\r\n%s", len(bid), bid)
}
