//go:build !linux

package arrival

import "net"

// socket reads plainly: the bytes are stamped when the read returns.
type socket struct{}

func (s *socket) open(*net.TCPConn) {}

func (s *socket) read(c *net.TCPConn, p []byte) (int, int64, error) {
	n, err := c.Read(p)
	return n, 0, err
}

func (s *socket) write(c *net.TCPConn, b []byte) (int, error) { return c.Write(b) }

func listen(net.Listener) {}
