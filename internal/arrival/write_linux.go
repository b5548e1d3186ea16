package arrival

import (
	"net"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writer writes a connection's answers with write(2) called raw, through
// the connection's RawConn: the runtime's poller still waits for room and
// keeps the write deadline, but the call itself does not enter the
// scheduler's syscall state. The socket never blocks (the runtime made it
// non-blocking), so a write returns within microseconds; in the syscall
// state, a write that outlasts a tick of the runtime's monitor on a
// process with one P lets the monitor take the P away and wake another
// thread to hold it, and keeps the monitor ticking at its shortest period.
// Raw calls cut dspd's CPU per request below its capacity by 8–16 % on
// one CPU (docs/performance.md, "Raw socket calls").
//
// A raw call cannot be preempted, and a stop-the-world waits for it: a
// write of more than maxRaw bytes goes through the connection's own Write
// instead.
type writer struct {
	raw syscall.RawConn // nil: the connection's own Write
	mu  sync.Mutex      // net.Conn allows concurrent writes; the state below is one write's
	// The state of one write, kept here so that the function handed to
	// RawConn.Write is made once per connection, not once per write.
	send  func(fd uintptr) bool
	rest  []byte
	n     int
	errno error // nil, or the syscall.Errno the call failed with
}

// maxRaw bounds the bytes one raw write hands the kernel to copy (tens of
// microseconds at most).
const maxRaw = 64 << 10

// open makes w write through raw.
func (w *writer) open(raw syscall.RawConn) {
	w.raw = raw
	w.send = w.write
}

// write is one attempt of RawConn.Write: it writes as much of w.rest as
// the socket takes, and returns false to wait for room.
func (w *writer) write(fd uintptr) bool {
	for len(w.rest) > 0 {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.rest[0])), uintptr(len(w.rest)))
		switch errno {
		case 0:
			w.n += int(n)
			w.rest = w.rest[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			w.errno = errno
			return true
		}
	}
	return true
}

// writeAll writes all of b to c, or returns how much it wrote and an error
// as net.TCPConn's Write does: a *net.OpError of Op "write".
func (w *writer) writeAll(c *net.TCPConn, b []byte) (int, error) {
	if w.raw == nil || len(b) == 0 || len(b) > maxRaw {
		return c.Write(b)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rest, w.n, w.errno = b, 0, nil
	err := w.raw.Write(w.send)
	w.rest = nil // b is the caller's
	if err != nil || w.errno != nil {
		return w.n, callError("write", "write", c, err, w.errno)
	}
	return w.n, nil
}
