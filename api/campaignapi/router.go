// Package campaignapi is the campaign management API on the admin
// listener (docs/api.md, docs/openapi.yaml): the campaigns of the managed
// set (package managed) as JSON documents with versions (ETag, If-Match),
// their stats, the exchanges, the export and import of the whole set, and
// the audit, behind the bearer tokens of -api-tokens (package tokens).
package campaignapi

import (
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/tokens"
	"github.com/recbid/dspd/managed"
)

// Config is what the API serves over.
type Config struct {
	Set    *managed.Service
	Core   *api.Server
	Tokens *tokens.File
	// MaxImportBytes bounds the campaigns file of an import (default
	// DefaultMaxImportBytes).
	MaxImportBytes int64
	Logger         *slog.Logger
}

// DefaultMaxImportBytes is the default bound of an import's body.
const DefaultMaxImportBytes = 64 << 20

// Prefix is where the API lives.
const Prefix = "/api/v1"

// Mount adds the API's routes to r, under Prefix.
func Mount(r chi.Router, cfg Config) {
	if cfg.MaxImportBytes <= 0 {
		cfg.MaxImportBytes = DefaultMaxImportBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &handlers{cfg: cfg}
	r.Route(Prefix, func(r chi.Router) {
		r.Use(Authenticate(cfg.Tokens), servedRevision(cfg.Set))
		r.MethodNotAllowed(methodNotAllowed)
		r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", "no such API path; see docs/api.md")
		})
		r.Get("/campaigns", h.list)
		r.With(RequireWrite, requireJSON).Post("/campaigns", h.create)
		r.With(RequireWrite, requireJSON).Put("/campaigns", h.importSet)
		r.Get("/campaigns/{id}", h.get)
		r.With(RequireWrite, requireJSON).Put("/campaigns/{id}", h.replace)
		r.With(RequireWrite, requireJSON).Patch("/campaigns/{id}", h.patch)
		r.With(RequireWrite).Delete("/campaigns/{id}", h.remove)
		r.Get("/campaigns/{id}/stats", h.stats)
		r.Get("/exchanges", h.exchanges)
		r.Get("/export", h.export)
		r.Get("/audit", h.audit)
	})
}

type handlers struct{ cfg Config }

// methodNotAllowed answers 405 with the methods the path takes.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := "GET"
	switch rctx := chi.RouteContext(r.Context()); {
	case rctx != nil && rctx.RoutePattern() == Prefix+"/campaigns":
		allow = "GET, POST, PUT"
	case rctx != nil && rctx.RoutePattern() == Prefix+"/campaigns/{id}":
		allow = "GET, PUT, PATCH, DELETE"
	}
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, "method not allowed; use "+allow)
}

// RevisionHeader names the revision of the campaign set this dspd serves,
// on every answer: a replica has a change in service once it reaches the
// change's revision (the rev of GET /api/v1/audit).
const RevisionHeader = "X-Served-Revision"

func servedRevision(set *managed.Service) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(RevisionHeader, strconv.FormatInt(set.Served(), 10))
			next.ServeHTTP(w, r)
		})
	}
}

// IDParam returns the campaign id of the route's {id}, unescaped: chi
// matches on the escaped path when the request's path has escapes its
// decoded form would lose (an id with a '/'), and on the decoded one
// otherwise.
func IDParam(r *http.Request) string {
	id := chi.URLParam(r, "id")
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(id); err == nil {
			return u
		}
	}
	return id
}
