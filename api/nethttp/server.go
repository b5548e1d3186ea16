package nethttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/internal/arrival"
)

// Config configures a Server: the listener's configuration, which both
// front ends take.
type Config = api.ListenerConfig

// Server is a net/http server with the contract's limits that drains on
// Shutdown.
type Server struct {
	hs      *http.Server
	refused func() // counts a transfer coding refused (transfercoding.go)
}

// NewPublic returns the public listener's server: the bidding endpoints of
// core (Handler).
func NewPublic(core *api.Server, cfg Config) *Server {
	s := New(Handler(core), cfg)
	s.refused = func() { core.NoteListenerRefusal(CodeBadTransferCoding) }
	return s
}

// New returns a server of h with cfg's limits and observers.
func New(h http.Handler, cfg Config) *Server {
	lim := cfg.Limits.OrDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if served := cfg.OnServed; served != nil {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			served()
		})
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    headerBytes(lim.MaxHeaderBytes),
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
		ConnContext:       withConn,
	}
	if cfg.OnDraining != nil {
		hs.RegisterOnShutdown(cfg.OnDraining)
	}
	if active := cfg.OnActive; active != nil {
		hs.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateActive {
				active()
			}
		}
	}
	return &Server{hs: hs, refused: func() {}}
}

// netHTTPSlack is what net/http reads past MaxHeaderBytes before it
// answers 431 (its "bufio slop").
const netHTTPSlack = 4096

// headerBytes is the MaxHeaderBytes that makes net/http answer 431 to a
// header block (request line, headers, blank line) of more than limit
// bytes, as fasthttp does with a read buffer of limit bytes: net/http adds
// its slack. Below the slack it cannot be that exact: the least it takes is
// the slack and a byte.
func headerBytes(limit int) int { return max(limit-netHTTPSlack, 1) }

// Serve answers on ln until Shutdown; it returns nil then. Each request's
// arrival is read from its connection (package internal/arrival).
func (s *Server) Serve(ln net.Listener) error {
	if err := s.hs.Serve(codingListener{Listener: arrival.NewListener(ln), refused: s.refused}); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// Shutdown stops accepting, closes idle keep-alive connections and waits
// for requests in flight within ctx; past it, it closes every connection.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.hs.Shutdown(ctx); err != nil {
		s.hs.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
