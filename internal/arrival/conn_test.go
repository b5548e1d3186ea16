package arrival

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair returns a Conn accepted on loopback and its client's end.
func pair(t testing.TB) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { client.Close() })
	c, err := NewListener(ln).Accept()
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	conn, ok := c.(*Conn)
	require.True(t, ok, "a TCP connection is wrapped")
	return conn, client
}

// readAll reads exactly n bytes from c.
func readAll(t testing.TB, c net.Conn, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := io.ReadFull(c, b)
	require.NoError(t, err)
	return b
}

// TestRequestCountsFromItsFirstBytes: a request whose bytes come in two
// packets counts from the first, not from the later read of the second.
// The second packet is sent only after the first was read, so it is
// stamped later (by the kernel, or by the later read).
func TestRequestCountsFromItsFirstBytes(t *testing.T) {
	conn, client := pair(t)
	assert.True(t, conn.Received().IsZero(), "nothing read yet")
	_, err := client.Write([]byte("GET / HTTP/1.1\r\n"))
	require.NoError(t, err)
	assert.Equal(t, "GET / HTTP/1.1\r\n", string(readAll(t, conn, len("GET / HTTP/1.1\r\n"))))
	at := conn.Received()
	require.False(t, at.IsZero())
	_, err = client.Write([]byte("\r\n"))
	require.NoError(t, err)
	assert.Equal(t, "\r\n", string(readAll(t, conn, 2)))
	require.Greater(t, conn.last.Load(), at.UnixNano(), "the second packet is stamped later")
	assert.Equal(t, at, conn.Received(), "the request counts from its first bytes")
}

// TestAnswerEndsARequest: after a write, the next bytes read begin the
// next request; a request whose bytes were all read before the answer
// (pipelined) counts from the last bytes read.
func TestAnswerEndsARequest(t *testing.T) {
	conn, client := pair(t)
	_, err := client.Write([]byte("a"))
	require.NoError(t, err)
	readAll(t, conn, 1)
	firstAt := conn.Received()
	_, err = conn.Write([]byte("answer"))
	require.NoError(t, err)
	readAll(t, client, len("answer"))
	assert.Equal(t, firstAt, conn.Received(), "pipelined: the last bytes read")

	_, err = client.Write([]byte("b"))
	require.NoError(t, err)
	readAll(t, conn, 1)
	assert.True(t, conn.Received().After(firstAt) || conn.Received().Equal(firstAt))
	assert.Equal(t, conn.last.Load(), conn.first.Load(), "the next request counts from its own bytes")
}

// TestReadErrorsAsTCPConn: the end of the stream is io.EOF, a deadline a
// timeout *net.OpError of Op "read", as net.TCPConn's.
func TestReadErrorsAsTCPConn(t *testing.T) {
	conn, client := pair(t)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(-time.Second)))
	_, err := conn.Read(make([]byte, 8))
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "read", oe.Op)
	assert.True(t, oe.Timeout())
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded))

	require.NoError(t, conn.SetReadDeadline(time.Time{}))
	require.NoError(t, client.Close())
	n, err := conn.Read(make([]byte, 8))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF)
}

// TestOf: a connection that is not a Conn tells nothing.
func TestOf(t *testing.T) {
	conn, client := pair(t)
	assert.True(t, Of(client).IsZero())
	_, err := client.Write([]byte("z"))
	require.NoError(t, err)
	readAll(t, conn, 1)
	assert.Equal(t, conn.Received(), Of(conn))
}

// BenchmarkRead reads 1 KiB through a Conn (recvmsg, with the kernel's
// timestamp) and, beside it, through the plain net.TCPConn it wraps.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name string
		r    func(*Conn) io.Reader
	}{
		{"arrival", func(c *Conn) io.Reader { return c }},
		{"plain", func(c *Conn) io.Reader { return c.TCPConn }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			conn, client := pair(b)
			r := bc.r(conn)
			msg := make([]byte, 1024)
			buf := make([]byte, 4096)
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if _, err := client.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(r, buf[:len(msg)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
