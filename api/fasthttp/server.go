package fasthttp

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
)

// Config configures a Server: the listener's configuration, which both
// front ends take.
type Config = api.ListenerConfig

// Server is the public listener's fasthttp server over the core.
type Server struct {
	fs       *fasthttp.Server
	draining func()
}

// NewPublic configures fasthttp with the net/http listener's limits: the
// header timeout (ReadTimeout until the headers are in, then the whole
// request's read timeout for the body), write and idle timeouts, the header
// limit (fasthttp's read buffer: larger headers get 431), bodies read into
// memory up to the contract's limit and streamed beyond it (so the core
// reads only as far as the limit, and an oversized body's connection is
// closed rather than drained), no Server or default Content-Type header
// (net/http sends neither), and Connection: close on answers given while
// draining.
func NewPublic(core *api.Server, cfg Config) *Server {
	lim := cfg.Limits.OrDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	handler := Handler(core)
	if served := cfg.OnServed; served != nil {
		next := handler
		handler = func(ctx *fasthttp.RequestCtx) {
			next(ctx)
			served()
		}
	}
	s := &fasthttp.Server{
		Handler:               handler,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ReadTimeout:           lim.ReadHeaderTimeout,
		WriteTimeout:          lim.WriteTimeout,
		IdleTimeout:           lim.IdleTimeout,
		ReadBufferSize:        lim.MaxHeaderBytes,
		MaxRequestBodySize:    api.MaxBodyBytes,
		StreamRequestBody:     true,
		// No clock read per request for RequestCtx.Time, which nothing
		// here reads (time.Now measured ~100 ns on the development machine).
		LazyRequestTime: true,
		// A multipart body is the core's to refuse (415), not fasthttp's
		// to parse.
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			refuseUnread(h)
			return fasthttp.RequestConfig{ReadTimeout: lim.ReadTimeout}
		},
		ErrorHandler: errorHandler(core),
		Logger:       logger{cfg.Logger},
	}
	if active := cfg.OnActive; active != nil {
		s.ConnState = func(_ net.Conn, st fasthttp.ConnState) {
			if st == fasthttp.StateActive {
				active()
			}
		}
	}
	return &Server{fs: s, draining: cfg.OnDraining}
}

// Serve answers on ln (closing lingering, see LingeringListener) until
// Shutdown; it returns nil then.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.fs.Serve(LingeringListener(ln)); err != nil {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// Shutdown stops accepting, closes idle keep-alive connections and waits
// for requests in flight within ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.draining != nil {
		s.draining()
	}
	if err := s.fs.ShutdownWithContext(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// logger sends fasthttp's lines (a client's broken request or connection,
// one line each) to the log at debug level: like net/http's, they are a
// client's doing, never the server's state.
type logger struct{ log *slog.Logger }

func (l logger) Printf(format string, args ...any) {
	l.log.Debug("fasthttp: " + fmt.Sprintf(format, args...))
}
