package main

import (
	"context"
	"log/slog"
	"net"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/fasthttp"
	"github.com/recbid/dspd/api/nethttp"
)

// The public listener's HTTP server, as -http names it: chi on net/http
// (the default, package nethttp) or valyala/fasthttp (package fasthttp).
// Both serve the same endpoints (package api's core) with the same limits
// and timeouts, and drain the same way.
const (
	frontChi      = "chi"
	frontFasthttp = "fasthttp"
)

// server is a listener's server, whichever front end.
type server interface {
	// Serve answers on ln until Shutdown; it returns nil then.
	Serve(ln net.Listener) error
	// Shutdown stops accepting, closes idle keep-alive connections and
	// waits for requests in flight, within ctx.
	Shutdown(ctx context.Context) error
}

// newPublicServer returns the public server -http names, over srv.
func newPublicServer(cfg config, srv *api.Server, log *slog.Logger, h hooks) server {
	lc := api.ListenerConfig{Limits: cfg.limits, Logger: log, OnActive: h.active, OnServed: h.served, OnDraining: h.draining}
	if cfg.http == frontFasthttp {
		return fasthttp.NewPublic(srv, lc)
	}
	return nethttp.NewPublic(srv, lc)
}
