package arrival

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// timestampSpace is the room one SCM_TIMESTAMPNS message takes.
var timestampSpace = unix.CmsgSpace(16) // a struct timespec: two 64-bit words

// socket reads with recvmsg, which hands back the kernel's receive time of
// the bytes it returns (SO_TIMESTAMPNS, CLOCK_REALTIME), and writes with
// write (writer); both are raw calls.
type socket struct {
	raw syscall.RawConn // nil: plain reads, stamped when they return
	out writer          // how Write writes (write_linux.go)
	// The state of one read, kept here so that the function handed to
	// RawConn.Read is made once per connection, not once per read.
	recv  func(fd uintptr) bool
	msg   unix.Msghdr
	iov   unix.Iovec
	oob   [64]byte
	n     int
	errno error
}

// open makes c's writes raw and asks the kernel for its receive
// timestamps; when it will not give them, reads are plain.
func (s *socket) open(c *net.TCPConn) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	s.out.open(raw)
	if stampOn(raw) != nil {
		return
	}
	s.raw = raw
	s.recv = s.recvmsg
}

// stampOn turns on a socket's receive timestamps. The kernel stamps
// packets only while some socket wants it, and turns the stamping on a
// moment after the first asks: a listener that asks keeps it on for every
// connection it accepts (which inherit the option).
func stampOn(raw syscall.RawConn) error {
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return err
	}
	return serr
}

// listen turns on the receive timestamps of a listening socket, so that
// the kernel keeps stamping while it listens (stampOn).
func listen(ln net.Listener) {
	if tl, ok := ln.(*net.TCPListener); ok {
		if raw, err := tl.SyscallConn(); err == nil {
			_ = stampOn(raw) // without, the connections still ask for themselves
		}
	}
}

// recvmsg is one attempt of RawConn.Read: false asks it to wait until the
// socket is readable and call again.
//
// It calls recvmsg(2) itself, on a header kept with the connection:
// unix.Recvmsg allocates a socket address per call (BenchmarkRead). The
// socket does not block, so the call is a raw one (see writer).
func (s *socket) recvmsg(fd uintptr) bool {
	s.msg.SetControllen(len(s.oob))
	n, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
	s.n, s.errno = int(n), nil
	if errno != 0 {
		s.errno = errno
	}
	return errno != unix.EAGAIN && errno != unix.EINTR
}

// read reads into p from c, returning with the count the receive time of
// the bytes (Unix ns; 0 when unknown). Errors are as net.TCPConn's Read
// returns them: io.EOF at the end, a *net.OpError of Op "read" otherwise.
func (s *socket) read(c *net.TCPConn, p []byte) (int, int64, error) {
	if s.raw == nil || len(p) == 0 {
		n, err := c.Read(p)
		return n, 0, err
	}
	s.iov.Base = &p[0]
	s.iov.SetLen(len(p))
	s.msg.Iov = &s.iov
	s.msg.SetIovlen(1)
	s.msg.Control = &s.oob[0]
	err := s.raw.Read(s.recv)
	s.iov.Base = nil // p is the caller's
	if err != nil || s.errno != nil {
		return 0, 0, callError("read", "recvmsg", c, err, s.errno)
	}
	if s.n <= 0 {
		return 0, 0, io.EOF
	}
	return s.n, s.stamp(), nil
}

// callError is the error net.TCPConn's op returns where a raw call on c
// failed: the poller's (a deadline, the connection closed) as its
// *net.OpError renamed op, else the call's errno as a *net.OpError of op.
func callError(op, call string, c *net.TCPConn, pollErr, errno error) error {
	if pollErr != nil {
		var oe *net.OpError
		if errors.As(pollErr, &oe) {
			oe.Op = op
		}
		return pollErr
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(call, errno)}
}

// stamp returns the receive time of the last read's bytes from its
// control message, or 0 when it had none.
func (s *socket) stamp() int64 {
	oobn := int(s.msg.Controllen)
	if oobn < timestampSpace {
		return 0
	}
	h, data, _, err := unix.ParseOneSocketControlMessage(s.oob[:oobn])
	if err != nil || h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS || len(data) < 16 {
		return 0
	}
	sec := int64(binary.NativeEndian.Uint64(data[0:8]))
	nsec := int64(binary.NativeEndian.Uint64(data[8:16]))
	return sec*1e9 + nsec
}

// write writes b to c (writer).
func (s *socket) write(c *net.TCPConn, b []byte) (int, error) {
	return s.out.writeAll(c, b)
}
