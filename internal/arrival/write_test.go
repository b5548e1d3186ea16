package arrival

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pattern returns n bytes that differ from one position to the next, so
// that a lost, doubled or reordered stretch shows.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + byte(i>>8) + seed
	}
	return b
}

// TestWriteLargerThanTheSocketTakes: an answer larger than the socket's
// buffers, read slowly by the peer, waits for room and arrives whole and
// in order.
func TestWriteLargerThanTheSocketTakes(t *testing.T) {
	conn, client := pair(t)
	require.NoError(t, conn.SetWriteBuffer(4096))
	msg := pattern(2<<20, 1)
	done := make(chan error, 1)
	var n int
	go func() {
		var err error
		n, err = conn.Write(msg)
		done <- err
	}()
	got := make([]byte, 0, len(msg))
	buf := make([]byte, 1500) // small reads: the writer must wait for room
	for len(got) < len(msg) {
		k, err := client.Read(buf)
		require.NoError(t, err)
		got = append(got, buf[:k]...)
	}
	require.NoError(t, <-done)
	assert.Equal(t, len(msg), n)
	assert.True(t, bytes.Equal(msg, got), "every byte, in order")
}

// TestWriteErrorsAsTCPConn: a passed deadline is a timeout *net.OpError
// of Op "write", as net.TCPConn's; writing to a connection the peer reset
// fails with an error, not a crash; an empty write writes nothing.
func TestWriteErrorsAsTCPConn(t *testing.T) {
	conn, client := pair(t)
	n, err := conn.Write(nil)
	assert.Zero(t, n)
	assert.NoError(t, err)

	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(-time.Second)))
	n, err = conn.Write([]byte("late"))
	assert.Zero(t, n)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "write", oe.Op)
	assert.True(t, oe.Timeout())
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded))

	// A deadline that passes while the write waits for room.
	require.NoError(t, conn.SetWriteBuffer(4096))
	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(50*time.Millisecond)))
	n, err = conn.Write(pattern(32<<20, 2)) // the peer reads none of it
	assert.Less(t, n, 32<<20)
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "write", oe.Op)
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded))

	// The peer resets the connection: writes fail (EPIPE or ECONNRESET).
	require.NoError(t, conn.SetWriteDeadline(time.Time{}))
	require.NoError(t, client.(*net.TCPConn).SetLinger(0))
	require.NoError(t, client.Close())
	for i := 0; ; i++ {
		_, err = conn.Write([]byte("after the reset"))
		if err != nil || i == 1000 {
			break
		}
	}
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "write", oe.Op)

	// Writing to a closed Conn is net.ErrClosed, as for net.TCPConn.
	require.NoError(t, conn.Close())
	_, err = conn.Write([]byte("closed"))
	assert.ErrorIs(t, err, net.ErrClosed)
}

// TestConcurrentWritesStayWhole: net.Conn allows writes from several
// goroutines at once; each one's bytes arrive whole, none interleaved
// with another's, even when each must wait for room.
func TestConcurrentWritesStayWhole(t *testing.T) {
	conn, client := pair(t)
	require.NoError(t, conn.SetWriteBuffer(4096))
	const writers, size = 4, 256 << 10
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := conn.Write(bytes.Repeat([]byte{byte('a' + i)}, size))
			assert.NoError(t, err)
		}()
	}
	got, err := io.ReadAll(io.LimitReader(client, writers*size))
	require.NoError(t, err)
	wg.Wait()
	require.Len(t, got, writers*size)
	seen := map[byte]bool{}
	for off := 0; off < len(got); off += size {
		run := got[off : off+size]
		assert.Equal(t, bytes.Repeat(run[:1], size), run, "the write at %d is whole", off)
		assert.False(t, seen[run[0]], "each writer once")
		seen[run[0]] = true
	}
}

// BenchmarkWrite writes a 1 KiB answer through a Conn and, beside it,
// through the plain net.TCPConn it wraps; the peer reads it back.
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		name string
		w    func(*Conn) io.Writer
	}{
		{"arrival", func(c *Conn) io.Writer { return c }},
		{"plain", func(c *Conn) io.Writer { return c.TCPConn }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			conn, client := pair(b)
			w := bc.w(conn)
			msg := pattern(1024, 3)
			buf := make([]byte, len(msg))
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if _, err := w.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(client, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
