package api

import (
	"log/slog"
	"time"
)

// ListenerConfig configures a listener's server, whichever front end
// serves it (packages nethttp and fasthttp take it as their Config, and
// the admin listener too). Zero fields take the defaults.
type ListenerConfig struct {
	// Limits are the header limit and timeouts; zero fields take
	// DefaultLimits'.
	Limits Limits
	// Logger receives the HTTP server's own lines (a client's broken
	// request or connection): net/http's at warn level, fasthttp's at
	// debug. Default slog.Default().
	Logger *slog.Logger
	// Observers, for tests and instrumentation; each optional.
	OnActive   func() // a connection starts reading a request
	OnServed   func() // the handler answered a request
	OnDraining func() // Shutdown began
}

// Limits are what the contract promises of the public listener, whatever
// front end serves it (docs/protocol.md): how large a request's headers may
// be and how long each part of an exchange may take. The front ends
// (packages nethttp and fasthttp) take them in their own configuration.
type Limits struct {
	ReadHeaderTimeout time.Duration // to read a request's headers
	ReadTimeout       time.Duration // to read a whole request
	WriteTimeout      time.Duration // to write the answer, from the end of the headers
	IdleTimeout       time.Duration // an idle keep-alive connection stays open
	MaxHeaderBytes    int           // larger header blocks are answered 431
}

// DefaultLimits are dspd's defaults: 2 s for the headers, 5 s for the
// request and 5 s for the answer, 60 s idle, 16 KiB of headers. (Bodies are
// bounded by MaxBodyBytes.)
func DefaultLimits() Limits {
	return Limits{
		ReadHeaderTimeout: 2 * time.Second,
		ReadTimeout:       5 * time.Second,
		WriteTimeout:      5 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}

// OrDefaults returns l with each zero field replaced by its default.
func (l Limits) OrDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def time.Duration) time.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	l.ReadHeaderTimeout = pick(l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	l.ReadTimeout = pick(l.ReadTimeout, d.ReadTimeout)
	l.WriteTimeout = pick(l.WriteTimeout, d.WriteTimeout)
	l.IdleTimeout = pick(l.IdleTimeout, d.IdleTimeout)
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	return l
}
