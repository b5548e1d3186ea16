package nethttp

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/recbid/dspd/internal/arrival"
)

// connKey keys the connection in the context of each of its requests.
type connKey struct{}

// withConn is the server's ConnContext: it puts the connection where
// CoreRequest finds it, for the request's arrival and its peer.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// fromConn returns when r arrived (arrival.Of) and its peer, read from its
// connection; without one in its context (a handler called directly, as
// tests do), no arrival and the peer net/http's RemoteAddr names.
func fromConn(r *http.Request) (time.Time, netip.AddrPort) {
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		peer, _ := netip.ParseAddrPort(r.RemoteAddr) // "IP:port"; invalid (no client) when it is not one
		return time.Time{}, peer
	}
	var peer netip.AddrPort
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		// As RemoteAddr's text reads: an IPv4 peer of a dual-stack
		// listener is IPv4, not IPv4-mapped IPv6.
		ap := a.AddrPort()
		peer = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return arrival.Of(c), peer
}
