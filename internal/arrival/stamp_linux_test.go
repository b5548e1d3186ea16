package arrival

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// waitReadable blocks until c's socket holds bytes, without reading them.
func waitReadable(t *testing.T, c *Conn) {
	t.Helper()
	var perr error
	err := c.sock.raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for { // a signal (the runtime's preemption) interrupts the poll: poll again
			if _, perr = unix.Poll(fds, 5000); perr != unix.EINTR {
				break
			}
		}
	})
	require.NoError(t, err)
	require.NoError(t, perr)
}

// TestMain keeps a listener asking for timestamps open for the whole
// run, as a server's is, and waits until the kernel stamps packets: it
// turns the stamping on a moment after the first socket asks.
func TestMain(m *testing.M) {
	os.Exit(func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		defer ln.Close()
		l := NewListener(ln)
		for range 10000 {
			if stamped(l) {
				break
			}
		}
		return m.Run()
	}())
}

// stamped sends one byte through a connection l accepts and reports
// whether the kernel stamped it.
func stamped(l Listener) bool {
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		panic(err)
	}
	defer client.Close()
	c, err := l.Accept()
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if _, err := client.Write([]byte("x")); err != nil {
		panic(err)
	}
	if _, err := c.Read(make([]byte, 1)); err != nil {
		panic(err)
	}
	conn, ok := c.(*Conn)
	return ok && conn.sock.stamp() != 0
}

// TestKernelStamp: on Linux, the stamp is the kernel's: bytes that arrived
// before the clock was read are stamped before it, even when read later.
func TestKernelStamp(t *testing.T) {
	conn, client := pair(t)
	require.NotNil(t, conn.sock.raw, "the kernel gives receive timestamps here")
	_, err := client.Write([]byte("x"))
	require.NoError(t, err)
	// Wait until the byte is in the socket without reading it.
	waitReadable(t, conn)
	before := time.Now()
	readAll(t, conn, 1)
	assert.True(t, conn.Received().Before(before), "the kernel's receive time, not the read's: %v !< %v (oob %d)", conn.Received(), before, conn.sock.msg.Controllen)
}
