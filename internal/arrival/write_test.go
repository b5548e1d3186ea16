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

// narrow makes both ends' socket buffers small (no autotuning), so that
// a stream of a few hundred kilobytes must wait for the peer to read.
func narrow(t *testing.T, conn *Conn, client net.Conn) {
	t.Helper()
	require.NoError(t, conn.SetWriteBuffer(4096))
	require.NoError(t, client.(*net.TCPConn).SetReadBuffer(64<<10))
}

// TestWriteLargerThanTheSocketTakes: a stream larger than the sockets'
// buffers, read slowly by the peer, waits for room and arrives whole and
// in order, whether written raw (writes of up to 64 KiB) or by net's own
// Write (larger).
func TestWriteLargerThanTheSocketTakes(t *testing.T) {
	for _, tc := range []struct {
		name          string
		chunk, chunks int
	}{
		{"raw", 60 << 10, 16},
		{"net's Write", 1 << 20, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, client := pair(t)
			narrow(t, conn, client)
			msg := pattern(tc.chunk*tc.chunks, 1)
			done := make(chan error, 1)
			var n int
			go func() {
				for off := 0; off < len(msg); off += tc.chunk {
					k, err := conn.Write(msg[off : off+tc.chunk])
					n += k
					if err == nil && k != tc.chunk {
						err = io.ErrShortWrite // net.Conn: an error whenever k < len
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			require.NoError(t, client.SetReadDeadline(time.Now().Add(20*time.Second)))
			got := make([]byte, 0, len(msg))
			buf := make([]byte, 1500) // small reads: the writer must wait for room
			for len(got) < len(msg) {
				k, err := client.Read(buf)
				if err != nil {
					var werr error
					select {
					case werr = <-done:
					default: // the writer is still waiting
					}
					require.NoError(t, err, "after %d bytes; the writer: %v", len(got), werr)
				}
				got = append(got, buf[:k]...)
			}
			require.NoError(t, <-done)
			assert.Equal(t, len(msg), n)
			assert.True(t, bytes.Equal(msg, got), "every byte, in order")
		})
	}
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

	// A deadline that passes while a raw write waits for room.
	narrow(t, conn, client)
	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(50*time.Millisecond)))
	chunk := pattern(60<<10, 2)
	err = nil
	for i := 0; i < 100 && err == nil; i++ { // the peer reads none of it
		n, err = conn.Write(chunk)
	}
	assert.Less(t, n, len(chunk))
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
	narrow(t, conn, client)
	const writers, size = 8, 48 << 10 // each written raw
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := conn.Write(bytes.Repeat([]byte{byte('a' + i)}, size))
			assert.NoError(t, err)
		}()
	}
	require.NoError(t, client.SetReadDeadline(time.Now().Add(20*time.Second)))
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
