// Package admin is dspd's admin listener: health, readiness, Prometheus
// metrics, pprof, POST /admin/reload and GET /admin/stats over package
// api's core, on chi and net/http (package nethttp's server). It must only
// be reachable by operators: its default address is loopback.
package admin

import (
	"errors"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/currency"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The admin listener's own error codes, beside the core's.
const (
	errUnknownCampaign  = "unknown_campaign"  // /admin/stats of a campaign with no counters
	errInvalidCampaigns = "invalid_campaigns" // reload rejected the campaigns file
	errInvalidExchanges = "invalid_exchanges" // reload rejected the exchanges file
	errInvalidRates     = "invalid_rates"     // reload rejected the currency rates file
	errReloadFailed     = "reload_failed"     // reload could not read a file
	errInvalidTokens    = "invalid_tokens"    // reload rejected the -api-tokens file
	errStateUnreadable  = api.CodeInternal    // the books' counters could not be read
)

// MinWriteTimeout is the admin listener's least write timeout: long
// enough for a 60 s CPU profile.
const MinWriteTimeout = 2 * time.Minute

// Config configures the admin listener.
type Config struct {
	// Server is the listener's net/http configuration; its write timeout
	// is at least MinWriteTimeout.
	Server nethttp.Config
	// Token, when set, is the bearer token every route but /healthz and
	// /readyz needs (at least MinTokenBytes). dspd requires one on any
	// address but loopback.
	Token string
	// Mount adds routes with their own authentication (the management
	// API and the console, behind -api-tokens) outside the token's.
	Mount []func(chi.Router)
	// Reload, when set, is called by POST /admin/reload before the
	// campaigns, exchanges and rates are read again (the -api-tokens
	// file); its error refuses the reload (400 invalid_tokens).
	Reload func() error
}

// NewServer returns the admin listener's server over core. Without a
// token it answers only requests whose Host names the loopback, so that a
// web page cannot reach it through a rebound name (requireLoopbackHost).
func NewServer(core *api.Server, cfg Config) *nethttp.Server {
	cfg.Server.Limits = cfg.Server.Limits.OrDefaults()
	cfg.Server.Limits.WriteTimeout = max(cfg.Server.Limits.WriteTimeout, MinWriteTimeout)
	h := NewHandler(core, cfg)
	if cfg.Token == "" {
		h = requireLoopbackHost(h)
	}
	return nethttp.New(h, cfg.Server)
}

// Handler returns the router of the admin listener: health and readiness
// (open, for probes), and behind the token when one is set, pprof,
// metrics, stats and reload (POST with Content-Type: application/json
// only, so that no web page can make a browser send it).
func Handler(core *api.Server, token string) http.Handler { return handler(core, token, nil) }

// NewHandler is Handler with cfg's mounts and reload hook: the router
// NewServer serves (less its loopback Host check).
func NewHandler(core *api.Server, cfg Config) http.Handler {
	return handler(core, cfg.Token, cfg.Reload, cfg.Mount...)
}

func handler(core *api.Server, token string, reload func() error, mount ...func(chi.Router)) http.Handler {
	a := &handlers{core: core, also: reload}
	r := nethttp.NewRouter(core)
	r.MethodNotAllowed(methodNotAllowed)
	for _, m := range mount {
		m(r)
	}
	r.Get("/healthz", a.healthz)
	r.Get("/readyz", a.readyz)
	r.Group(func(r chi.Router) {
		r.Use(requireToken(token))
		r.HandleFunc("/debug/pprof/*", pprof.Index)
		r.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		r.HandleFunc("/debug/pprof/profile", pprof.Profile)
		r.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		r.HandleFunc("/debug/pprof/trace", pprof.Trace)
		r.Handle("/metrics", promhttp.HandlerFor(core.Gatherer(), promhttp.HandlerOpts{}))
		r.Get("/admin/stats", a.stats)
		r.With(requireJSON).Post("/admin/reload", a.reload)
	})
	return r
}

type handlers struct {
	core *api.Server
	also func() error // reloaded with the sets: the tokens file
}

// methodNotAllowed answers 405 method_not_allowed in JSON, with the one
// method the path takes: POST for reload, GET for the others.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := http.MethodGet
	if r.URL.Path == "/admin/reload" {
		allow = http.MethodPost
	}
	w.Header().Set("Allow", allow)
	nethttp.WriteError(w, http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, "", "method not allowed; use "+allow)
}

func (a *handlers) healthz(w http.ResponseWriter, _ *http.Request) {
	nethttp.WriteJSON(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// readyz answers 200 once campaigns are loaded, and 503 before that and
// while the server drains for shutdown.
func (a *handlers) readyz(w http.ResponseWriter, _ *http.Request) {
	state := a.core.Readiness()
	status := http.StatusServiceUnavailable
	if state == "ready" {
		status = http.StatusOK
	}
	nethttp.WriteJSON(w, status, []byte(`{"status":"`+state+`"}`))
}

// reload serves POST /admin/reload: 200 {"campaigns":N,"exchanges":M},
// or 400 invalid_campaigns, invalid_exchanges or invalid_rates naming every
// problem while the old sets keep serving.
func (a *handlers) reload(w http.ResponseWriter, r *http.Request) {
	if a.also != nil {
		if err := a.also(); err != nil {
			jw := jsoncodec.NewWriter()
			defer jw.Free()
			api.AppendError(jw, errInvalidTokens, "", err.Error()+"; the old tokens, campaigns, exchanges and rates stay")
			nethttp.WriteJSON(w, http.StatusBadRequest, jw.Bytes())
			return
		}
	}
	n, err := a.core.Reload(r.Context())
	if err != nil {
		code, status := errReloadFailed, http.StatusInternalServerError
		switch {
		case errors.Is(err, bidder.ErrInvalidCatalog):
			code, status = errInvalidCampaigns, http.StatusBadRequest
		case errors.Is(err, exchange.ErrInvalidExchanges):
			code, status = errInvalidExchanges, http.StatusBadRequest
		case errors.Is(err, currency.ErrInvalidRates):
			code, status = errInvalidRates, http.StatusBadRequest
		}
		jw := jsoncodec.NewWriter()
		defer jw.Free()
		jw.RawString(`{"error":`)
		jw.String(code)
		jw.RawString(`,"message":`)
		jw.String(err.Error())
		jw.RawString(`}`)
		nethttp.WriteJSON(w, status, jw.Bytes())
		return
	}
	from := "file"
	if n.Managed {
		from = "managed" // the API manages the campaigns: the file is not read
	}
	nethttp.WriteJSON(w, http.StatusOK, []byte(`{"campaigns":`+strconv.Itoa(n.Campaigns)+`,"exchanges":`+strconv.Itoa(n.Exchanges)+
		`,"campaigns_from":"`+from+`"}`))
}

// stats serves GET /admin/stats?campaign=ID&day=YYYY-MM-DD&exchange=X
// (day defaults to today, UTC; without exchange, the counters of all), or
// &deal=D for the campaign's counters in one deal.
func (a *handlers) stats(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		nethttp.WriteError(w, http.StatusBadRequest, api.CodeBadQuery, "", "query is not valid url-encoding")
		return
	}
	id := q.Get("campaign")
	if id == "" {
		nethttp.WriteError(w, http.StatusBadRequest, api.CodeMissingField, "campaign", "campaign is required")
		return
	}
	day := a.core.Today()
	if d := q.Get("day"); d != "" {
		if day, err = bidder.ParseDay(d); err != nil {
			nethttp.WriteError(w, http.StatusBadRequest, api.CodeInvalidField, "day", "day must be YYYY-MM-DD")
			return
		}
	}
	ex := q.Get("exchange")
	if _, has := q["exchange"]; has && ex == "" {
		nethttp.WriteError(w, http.StatusBadRequest, api.CodeInvalidField, "exchange", "exchange must name an exchange")
		return
	}
	deal := q.Get("deal")
	_, hasDeal := q["deal"]
	switch {
	case hasDeal && deal == "":
		nethttp.WriteError(w, http.StatusBadRequest, api.CodeInvalidField, "deal", "deal must name a deal")
		return
	case hasDeal && ex != "":
		nethttp.WriteError(w, http.StatusBadRequest, api.CodeInvalidField, "deal", "deal and exchange are counted apart: ask for one of them")
		return
	}
	label := ex
	if hasDeal {
		label = bidder.DealLabel(deal)
	}
	st, found, err := a.core.Stats(r.Context(), id, label, day)
	if err != nil {
		nethttp.WriteError(w, http.StatusServiceUnavailable, errStateUnreadable, "", "counters could not be read")
		return
	}
	if !found {
		nethttp.WriteError(w, http.StatusNotFound, errUnknownCampaign, "campaign", "no such campaign and no counters for it")
		return
	}
	jw := jsoncodec.NewWriter()
	defer jw.Free()
	jw.RawString(`{"campaign":`)
	jw.String(id)
	if ex != "" {
		jw.RawString(`,"exchange":`)
		jw.String(ex)
	}
	jw.RawString(`,"day":"` + day.String() + `"`)
	if hasDeal {
		jw.RawString(`,"deal":`)
		jw.String(deal)
	}
	jw.RawString(`,"bids":` + strconv.FormatInt(st.Bids, 10) +
		`,"wins":` + strconv.FormatInt(st.Wins, 10) +
		`,"spend_micros":` + strconv.FormatInt(int64(st.Spend), 10) + `}`)
	nethttp.WriteJSON(w, http.StatusOK, jw.Bytes())
}
