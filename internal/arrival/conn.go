package arrival

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Conn is an accepted TCP connection that notes when the bytes it reads
// arrived. Embedding *net.TCPConn keeps what HTTP servers look for on one
// (CloseWrite for a lingering close, ReadFrom, the deadlines).
type Conn struct {
	*net.TCPConn
	sock socket // how Read reads (socket_linux.go: with the kernel's timestamps)
	// first is the receive time (Unix ns) of the first bytes read since the
	// last write, 0 when none were; last that of the latest bytes read.
	// Atomic: an HTTP server may read in the background while a handler
	// asks (net/http does, to notice a client going away).
	first, last atomic.Int64
}

// New wraps c.
func New(c *net.TCPConn) *Conn {
	conn := &Conn{TCPConn: c}
	conn.sock.open(c)
	return conn
}

// Read implements net.Conn, noting when the bytes returned arrived.
func (c *Conn) Read(p []byte) (int, error) {
	n, at, err := c.sock.read(c.TCPConn, p)
	if n > 0 {
		c.note(at)
	}
	return n, err
}

// note records bytes received at at (Unix ns).
func (c *Conn) note(at int64) {
	if at == 0 {
		at = time.Now().UnixNano()
	}
	c.first.CompareAndSwap(0, at)
	c.last.Store(at)
}

// Write implements net.Conn. An answer going out ends a request: the next
// bytes read begin the next one.
func (c *Conn) Write(b []byte) (int, error) {
	c.first.Store(0)
	return c.sock.write(c.TCPConn, b)
}

// ReadFrom implements io.ReaderFrom (sendfile, splice): like Write, an
// answer going out.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	c.first.Store(0)
	return c.TCPConn.ReadFrom(r)
}

// Received returns when the request being read or served arrived: the
// receive time of the first bytes read since the last answer was written,
// or, when every byte of it had been read before that answer (a pipelined
// request), of the last bytes read. It is the zero time before any byte.
func (c *Conn) Received() time.Time {
	at := c.first.Load()
	if at == 0 {
		at = c.last.Load()
	}
	if at == 0 {
		return time.Time{}
	}
	return time.Unix(0, at)
}

// Listener wraps the TCP connections a listener accepts in Conn; any
// other connection is passed on as it is. Make it with NewListener.
type Listener struct{ net.Listener }

// NewListener wraps ln, asking the kernel to stamp what it receives for as
// long as ln is open.
func NewListener(ln net.Listener) Listener {
	listen(ln)
	return Listener{ln}
}

// Accept implements net.Listener.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return New(tc), nil
	}
	return c, nil
}

// Receiver is a connection that tells when its current request arrived
// (a Conn, or a connection that embeds one).
type Receiver interface{ Received() time.Time }

// Of returns when the request on c arrived, or the zero time when c
// cannot tell.
func Of(c net.Conn) time.Time {
	if r, ok := c.(Receiver); ok {
		return r.Received()
	}
	return time.Time{}
}
