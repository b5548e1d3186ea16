package fasthttp

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/internal/arrival"
)

// What net/http does with a request body the handler left unread, and
// fasthttp does not: fasthttp writes the answer first, promising to keep
// the connection, then drops up to 256 KiB of a chunked body and, when
// more follows, closes the connection at once. A client that reuses the
// connection loses its next request, and the close, with the client's
// bytes still unread, is a reset that can destroy the answer itself.
// settleBody and LingeringListener make the fasthttp front end behave as
// net/http does.
const (
	// maxDrainBytes is how much of an unread body is read and dropped to
	// keep the connection (net/http's maxPostHandlerReadBytes).
	maxDrainBytes = 256 << 10
	// lingerFor is how long a connection closed with a body still arriving
	// reads and drops it before it closes whole (net/http's
	// rstAvoidanceDelay).
	lingerFor = 500 * time.Millisecond
)

// settleBody runs after the core answered and before the answer is
// written. What is left of a streamed body (chunked, or declared over the
// contract's limit) is read and dropped, up to maxDrainBytes, so that the
// answer can say whether the connection stays: when the body does not end
// within that, the answer says Connection: close and the connection
// closes lingering (see LingeringListener).
//
// declared is the body's length as the core was told it: over the limit,
// it is one refuseUnread declared bodiless, whose bytes the client may
// still send, and the connection closes whatever else holds.
func settleBody(ctx *fasthttp.RequestCtx, declared int64) {
	if declared > api.MaxBodyBytes {
		// A body declared too long, never read (declared.go): the request
		// looks bodiless to fasthttp, which may still hand it an empty body
		// stream; the bytes the client sends must not be read as a request.
		closeLingering(ctx)
		return
	}
	if !ctx.Request.IsBodyStream() {
		return
	}
	if ctx.Request.Header.ContentLength() > maxDrainBytes {
		closeLingering(ctx) // declared too long to drop: not read at all
		return
	}
	n, err := io.CopyN(io.Discard, ctx.RequestBodyStream(), maxDrainBytes+1)
	if !errors.Is(err, io.EOF) || n > maxDrainBytes {
		closeLingering(ctx)
	}
}

func closeLingering(ctx *fasthttp.RequestCtx) {
	ctx.SetConnectionClose()
	if c, ok := ctx.Conn().(*lingerConn); ok {
		c.linger.Store(true)
	}
}

// LingeringListener wraps the listener a fasthttp server serves the
// Handler on, so that a connection closed while its client may still
// be sending (settleBody's Connection: close) closes as net/http closes
// it: its write side first, after the answer, then, once the client
// closes or lingerFor has passed, whole. Other connections close at once.
func LingeringListener(ln net.Listener) net.Listener { return lingerListener{arrival.NewListener(ln)} }

type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if ac, ok := c.(*arrival.Conn); ok {
		return &lingerConn{Conn: ac}, nil
	}
	return c, nil
}

// lingerConn is an accepted TCP connection (which tells each request's
// arrival) that can close lingering.
type lingerConn struct {
	*arrival.Conn
	linger atomic.Bool
	heard  atomic.Bool // a byte arrived on it (errors.go counts no refusal of a silent connection)
}

// Read implements net.Conn, noting the first byte.
func (c *lingerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.heard.Load() {
		c.heard.Store(true)
	}
	return n, err
}

func (c *lingerConn) Close() error {
	if !c.linger.Load() {
		return c.TCPConn.Close()
	}
	if err := c.CloseWrite(); err != nil {
		return c.TCPConn.Close()
	}
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(lingerFor))
		_, _ = io.CopyN(io.Discard, c.TCPConn, 4<<20) // until the client closes, the deadline or 4 MiB
		_ = c.TCPConn.Close()
	}()
	return nil
}
