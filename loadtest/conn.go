package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"time"
)

// errKind classifies a failed request the way ab does, plus timeouts and
// write errors, which ab folds elsewhere.
type errKind uint8

const (
	kindNone      errKind = iota
	kindConnect           // could not connect
	kindWrite             // could not send the request
	kindReceive           // the connection broke or the answer was malformed
	kindTimeout           // no complete answer within the timeout
	kindLength            // the body length differs from the first answer's (without -l)
	kindException         // anything else
	numKinds
)

var kindNames = [numKinds]string{"", "connect", "write", "receive", "timeout", "length", "exceptions"}

// timing is one request's clock readings.
type timing struct {
	start     time.Time // before connecting (or writing, on a kept-alive connection)
	connected time.Time
	written   time.Time // the request is sent
	firstByte time.Time // the status line is in
	done      time.Time
}

// answer is what one request got.
type answer struct {
	status   int
	header   int64 // bytes of the status line and headers
	body     int64 // bytes of the body as sent (chunk framing included)
	docLen   int64 // the document length: the decoded body
	close    bool  // the server will close the connection
	server   string
	kind     errKind
	timing   timing
	reqBytes int
	bodySize int
}

// client is one connection's worth of a worker: it sends requests and
// reads answers, reconnecting when the connection closes.
type client struct {
	addr      string
	keepAlive bool
	timeout   time.Duration
	dialer    net.Dialer
	nc        net.Conn
	br        *bufio.Reader
	wantName  bool // capture the Server header (the first answer only)
	opened    int64
	deadline  time.Time // when the connection's deadline was last set
}

// deadlineSlack is how stale a connection's deadline may get before it is
// set again: setting it costs a timer update, so it is refreshed at most
// every 100 ms, and a request may time out up to 100 ms early.
const deadlineSlack = 100 * time.Millisecond

const readBufferSize = 4 << 10

func newClient(addr string, keepAlive bool, timeout time.Duration) *client {
	return &client{addr: addr, keepAlive: keepAlive, timeout: timeout,
		dialer: net.Dialer{Timeout: timeout}}
}

func (c *client) closeConn() {
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
}

// do sends one request and reads its answer.
func (c *client) do(ctx context.Context, req *prepared) answer {
	var a answer
	a.reqBytes, a.bodySize = len(req.raw), req.bodySize
	a.timing.start = time.Now()
	if c.nc == nil {
		nc, err := c.dialer.DialContext(ctx, "tcp", c.addr)
		if err != nil {
			a.kind = kindConnect
			a.timing.connected = time.Now()
			a.timing.written, a.timing.firstByte, a.timing.done = a.timing.connected, a.timing.connected, a.timing.connected
			return a
		}
		c.nc = nc
		c.opened++
		c.deadline = time.Time{}
		if c.br == nil {
			c.br = bufio.NewReaderSize(nc, readBufferSize)
		} else {
			c.br.Reset(nc)
		}
		a.timing.connected = time.Now()
	} else {
		a.timing.connected = a.timing.start
	}
	if c.timeout > 0 && a.timing.connected.Sub(c.deadline) > deadlineSlack {
		c.deadline = a.timing.connected
		_ = c.nc.SetDeadline(c.deadline.Add(c.timeout))
	}
	if _, err := c.nc.Write(req.raw); err != nil {
		a.kind = classify(err, kindWrite)
		c.fail(&a)
		return a
	}
	a.timing.written = time.Now()
	if err := c.read(&a); err != nil {
		a.kind = classify(err, kindReceive)
		c.fail(&a)
		return a
	}
	a.timing.done = time.Now()
	if a.close || !c.keepAlive {
		c.closeConn()
	}
	return a
}

func (c *client) fail(a *answer) {
	now := time.Now()
	if a.timing.written.IsZero() {
		a.timing.written = now
	}
	if a.timing.firstByte.IsZero() {
		a.timing.firstByte = now
	}
	a.timing.done = now
	c.closeConn()
}

func classify(err error, kind errKind) errKind {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return kindTimeout
	}
	return kind
}

var (
	errMalformed = errors.New("malformed answer")
	http11       = []byte("HTTP/1.1 ")
	http10       = []byte("HTTP/1.0 ")
)

// read reads one answer: status line, headers, and the body framed by
// Content-Length, chunked encoding, or the end of the connection.
func (c *client) read(a *answer) error {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return err
	}
	a.timing.firstByte = time.Now()
	a.header += int64(len(line))
	if len(line) < 12 || !(bytes.HasPrefix(line, http11) || bytes.HasPrefix(line, http10)) {
		return errMalformed
	}
	keepAlive := line[7] == '1' // HTTP/1.1 keeps the connection by default
	status, ok := atoi(line[9:12])
	if !ok {
		return errMalformed
	}
	a.status = int(status)
	contentLength, chunked := int64(-1), false
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		a.header += int64(len(line))
		if len(line) <= 2 { // the blank line
			break
		}
		name, value, ok := bytes.Cut(trimEOL(line), []byte(":"))
		if !ok {
			return errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "content-length"):
			n, ok := atoi(value)
			if !ok {
				return errMalformed
			}
			contentLength = n
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			if asciiEqualFold(value, "close") {
				keepAlive = false
			} else if asciiEqualFold(value, "keep-alive") {
				keepAlive = true
			}
		case c.wantName && asciiEqualFold(name, "server"):
			a.server = string(value)
		}
	}
	a.close = !keepAlive
	switch {
	case a.status/100 == 1 || a.status == 204 || a.status == 304:
		return nil
	case chunked:
		return c.readChunked(a)
	case contentLength >= 0:
		n, err := c.br.Discard(int(contentLength))
		a.body += int64(n)
		a.docLen += int64(n)
		return err
	default: // the body runs to the end of the connection
		a.close = true
		n, err := io.Copy(io.Discard, c.br)
		a.body += n
		a.docLen += n
		return err
	}
}

func (c *client) readChunked(a *answer) error {
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		a.body += int64(len(line))
		sizeText, _, _ := bytes.Cut(trimEOL(line), []byte(";"))
		size, err := strconv.ParseInt(string(bytes.TrimSpace(sizeText)), 16, 64)
		if err != nil || size < 0 {
			return errMalformed
		}
		if size == 0 { // trailers, then the blank line
			for {
				line, err = c.br.ReadSlice('\n')
				if err != nil {
					return err
				}
				a.body += int64(len(line))
				if len(line) <= 2 {
					return nil
				}
			}
		}
		n, err := c.br.Discard(int(size) + 2)
		a.body += int64(n)
		a.docLen += min(int64(n), size)
		if err != nil {
			return err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
