package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
)

// The public listener's HTTP server, as -http names it: chi on net/http
// (the default) or valyala/fasthttp. Both serve the same endpoints (package
// api's core) with the same limits and timeouts, and drain the same way.
const (
	frontChi      = "chi"
	frontFasthttp = "fasthttp"
)

// publicServer is the public listener's server.
type publicServer interface {
	// Serve answers on ln until Shutdown; it returns nil then.
	Serve(ln net.Listener) error
	// Shutdown stops accepting, closes idle keep-alive connections and
	// waits for requests in flight, within ctx.
	Shutdown(ctx context.Context) error
}

// newPublicServer returns the public server -http names, over srv.
func newPublicServer(cfg config, srv *api.Server, log *slog.Logger, h hooks) publicServer {
	if cfg.http == frontFasthttp {
		return newFastServer(srv, cfg.timeouts, log, h)
	}
	handler := srv.PublicHandler()
	if h.served != nil {
		next := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			h.served()
		})
	}
	s := newHTTPServer(handler, cfg.timeouts, log)
	if h.draining != nil {
		s.RegisterOnShutdown(h.draining)
	}
	if h.active != nil {
		s.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateActive {
				h.active()
			}
		}
	}
	return httpServer{s}
}

// httpServer is a net/http server as a publicServer.
type httpServer struct{ *http.Server }

func (s httpServer) Serve(ln net.Listener) error {
	if err := s.Server.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

func (s httpServer) Shutdown(ctx context.Context) error {
	if err := s.Server.Shutdown(ctx); err != nil {
		s.Close()
		return err
	}
	return nil
}

// fastServer is a fasthttp server as a publicServer.
type fastServer struct {
	*fasthttp.Server
	draining func()
}

// newFastServer configures fasthttp with the net/http listener's limits:
// the header timeout (ReadTimeout until the headers are in, then the whole
// request's read timeout for the body), write and idle timeouts, the header
// limit (fasthttp's read buffer: larger headers get 431), bodies read into
// memory up to the contract's limit and streamed beyond it (so the core
// reads only as far as the limit, and an oversized body's connection is
// closed rather than drained), no Server or default Content-Type header
// (net/http sends neither), and Connection: close on answers given while
// draining.
func newFastServer(srv *api.Server, t timeouts, log *slog.Logger, h hooks) fastServer {
	handler := srv.FastHandler()
	if h.served != nil {
		next := handler
		handler = func(ctx *fasthttp.RequestCtx) {
			next(ctx)
			h.served()
		}
	}
	s := &fasthttp.Server{
		Handler:               handler,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ReadTimeout:           t.readHeader,
		WriteTimeout:          t.write,
		IdleTimeout:           t.idle,
		ReadBufferSize:        t.maxHeaderBytes,
		MaxRequestBodySize:    api.MaxBodyBytes,
		StreamRequestBody:     true,
		// No clock read per request for RequestCtx.Time, which nothing
		// here reads (time.Now measured ~100 ns on the development machine).
		LazyRequestTime: true,
		// A multipart body is the core's to refuse (415), not fasthttp's
		// to parse.
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		HeaderReceived: func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
			return fasthttp.RequestConfig{ReadTimeout: t.read}
		},
		Logger: fastLogger{log},
	}
	if h.active != nil {
		s.ConnState = func(_ net.Conn, st fasthttp.ConnState) {
			if st == fasthttp.StateActive {
				h.active()
			}
		}
	}
	return fastServer{Server: s, draining: h.draining}
}

func (s fastServer) Serve(ln net.Listener) error {
	if err := s.Server.Serve(api.LingeringListener(ln)); err != nil {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

func (s fastServer) Shutdown(ctx context.Context) error {
	if s.draining != nil {
		s.draining()
	}
	return s.Server.ShutdownWithContext(ctx)
}

// fastLogger sends fasthttp's lines (a client's broken request or
// connection, one line each) to the log at debug level: like net/http's,
// they are a client's doing, never the server's state.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) {
	l.log.Debug("fasthttp: " + fmt.Sprintf(format, args...))
}
