// Package console is the operator console on the admin listener
// (/console/, docs/api.md): the campaigns with today's spend against their
// budgets, a campaign's settings and charts, the exchanges' traffic.
// Server-rendered with html/template, its CSS and a little JavaScript
// embedded (no build step, no external URL); signed in with a token of
// -api-tokens, held in an HttpOnly, SameSite=Strict session cookie; every
// form carries a CSRF token; a Content-Security-Policy allows scripts and
// styles from the console alone. Every change goes through the managed
// set's rules, as the API's do.
package console

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/tokens"
	"github.com/recbid/dspd/managed"
)

// Config is what the console serves over.
type Config struct {
	Set    *managed.Service
	Core   *api.Server
	Tokens *tokens.File
	Logger *slog.Logger
	// SessionTTL is how long a session lasts from its sign-in (default
	// DefaultSessionTTL); IdleTTL how long it lasts unused (default
	// DefaultIdleTTL).
	SessionTTL, IdleTTL time.Duration
	// Clock is the clock sessions expire by (default time.Now).
	Clock func() time.Time
}

// The sessions' default lifetimes.
const (
	DefaultSessionTTL = 8 * time.Hour
	DefaultIdleTTL    = time.Hour
)

// Prefix is where the console lives.
const Prefix = "/console"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

type console struct {
	cfg      Config
	log      *slog.Logger
	pages    map[string]*template.Template
	sessions *sessions
}

// Mount adds the console's routes to r, under Prefix.
func Mount(r chi.Router, cfg Config) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.IdleTTL <= 0 {
		cfg.IdleTTL = DefaultIdleTTL
	}
	c := &console{cfg: cfg, log: cfg.Logger, pages: parsePages(), sessions: newSessions(cfg.Clock, cfg.SessionTTL, cfg.IdleTTL)}
	static, _ := fs.Sub(staticFS, "static")
	r.Get(Prefix, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, Prefix+"/", http.StatusSeeOther) })
	r.Route(Prefix, func(r chi.Router) {
		r.Use(securityHeaders)
		r.Handle("/static/*", http.StripPrefix(Prefix+"/static/", http.FileServer(http.FS(static))))
		r.Get("/login", c.loginPage)
		r.With(sameOrigin).Post("/login", c.login)
		r.Group(func(r chi.Router) {
			r.Use(c.requireSession)
			r.Get("/", c.campaignsPage)
			r.Get("/campaigns/{id}", c.campaignPage)
			r.Get("/exchanges", c.exchangesPage)
			r.Group(func(r chi.Router) {
				r.Use(sameOrigin, c.requireCSRF)
				r.Post("/logout", c.logout)
				r.With(c.requireWrite).Post("/campaigns/{id}/status", c.setStatus)
				r.With(c.requireWrite).Post("/campaigns/{id}/settings", c.saveSettings)
				r.With(c.requireWrite).Post("/campaigns/{id}/document", c.saveDocument)
			})
		})
	})
}

// csp lets pages load scripts, styles and images from the console only,
// run no inline script, post forms to it only, and be framed by no one.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders sets the console's headers on every answer.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // no-referrer would make the browser send Origin: null on the console's own forms
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// sameOrigin refuses a state-changing request a browser sent from another
// origin: its Origin header (or, without one, its Referer) must name this
// host.
func sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromHere(r) {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
