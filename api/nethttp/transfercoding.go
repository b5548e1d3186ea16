package nethttp

import (
	"bytes"
	"net"
	"strconv"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/internal/arrival"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// net/http answers a request whose Transfer-Encoding it does not
// implement (anything but chunked alone: gzip, identity, "chunked, gzip")
// itself, before any handler, with a 501 text page: a 5xx a client can
// cause, which no metric counts. The listener's connections turn that one
// answer into the 400 JSON refusal every other bad request gets, and count
// it in dspd_http_errors_total{endpoint="listener"}.

// CodeBadTransferCoding is the refusal's error code.
const CodeBadTransferCoding = "unsupported_transfer_coding"

var (
	// netHTTP501Head and netHTTP501Tail bound net/http's own answer, which
	// it writes to the connection in one call.
	netHTTP501Head = []byte("HTTP/1.1 501 Not Implemented\r\n")
	netHTTP501Tail = []byte("Unsupported transfer encoding")
	// badTransferCoding is the answer written instead.
	badTransferCoding = func() []byte {
		jw := jsoncodec.NewWriter()
		defer jw.Free()
		api.AppendError(jw, CodeBadTransferCoding, "", "Transfer-Encoding must be chunked, or absent")
		body := string(jw.Bytes())
		return []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: " + api.JSONMediaType + "\r\nConnection: close\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}()
)

// codingListener wraps the connections of an arrival.Listener in
// codingConn.
type codingListener struct {
	net.Listener
	refused func() // counts one refusal
}

func (l codingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if ac, ok := c.(*arrival.Conn); ok {
		// Embedding keeps what net/http looks for on a *net.TCPConn
		// (CloseWrite for its lingering close, ReadFrom), and the
		// arrival of each request.
		return &codingConn{Conn: ac, refused: l.refused}, nil
	}
	return c, nil
}

// codingConn is an accepted connection whose net/http 501 for a transfer
// coding is written as a 400.
type codingConn struct {
	*arrival.Conn
	refused func()
}

func (c *codingConn) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, netHTTP501Head) && bytes.HasSuffix(b, netHTTP501Tail) {
		c.refused()
		if _, err := c.Conn.Write(badTransferCoding); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}
