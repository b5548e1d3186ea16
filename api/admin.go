package api

import (
	"errors"
	"net/http"
	"net/http/pprof"
	"strconv"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/currency"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// AdminHandler returns the router of the admin listener: pprof, metrics,
// health, reload and stats. It must only be reachable by operators (the
// default listen address is loopback).
func (s *Server) AdminHandler() http.Handler {
	r := s.newRouter()
	r.HandleFunc("/debug/pprof/*", pprof.Index)
	r.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	r.HandleFunc("/debug/pprof/profile", pprof.Profile)
	r.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	r.HandleFunc("/debug/pprof/trace", pprof.Trace)
	r.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	r.Get("/healthz", s.handleHealthz)
	r.Get("/readyz", s.handleReadyz)
	r.Post("/admin/reload", s.handleReload)
	r.Get("/admin/stats", s.handleStats)
	return r
}

func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, `{"status":"ok"}`)
}

// handleReadyz answers 200 once campaigns are loaded, and 503 before that
// and while the server drains for shutdown.
func (s *Server) handleReadyz(w http.ResponseWriter, _ *http.Request) {
	switch {
	case s.draining.Load():
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"draining"}`)
	case s.current.Load() == nil:
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"loading"}`)
	default:
		writeJSON(w, http.StatusOK, `{"status":"ready"}`)
	}
}

// handleReload serves POST /admin/reload: 200 {"campaigns":N,"exchanges":M},
// or 400 invalid_campaigns, invalid_exchanges or invalid_rates naming every
// problem while the old sets keep serving.
func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	n, err := s.Reload(r.Context())
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
		writeString(jw, code)
		jw.RawString(`,"message":`)
		writeString(jw, err.Error())
		jw.RawString(`}`)
		writeJSON(w, status, string(jw.Bytes()))
		return
	}
	writeJSON(w, http.StatusOK, `{"campaigns":`+strconv.Itoa(n.Campaigns)+`,"exchanges":`+strconv.Itoa(n.Exchanges)+`}`)
}

// handleStats serves GET /admin/stats?campaign=ID&day=YYYY-MM-DD&exchange=X
// (day defaults to today, UTC; without exchange, the counters of all).
func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("campaign")
	if id == "" {
		writeError(w, http.StatusBadRequest, errMissingField, "campaign", "campaign is required")
		return
	}
	day := bidder.DayOfTime(s.engine.Now())
	if d := q.Get("day"); d != "" {
		var err error
		if day, err = bidder.ParseDay(d); err != nil {
			writeError(w, http.StatusBadRequest, errInvalidField, "day", "day must be YYYY-MM-DD")
			return
		}
	}
	ex := q.Get("exchange")
	if _, has := q["exchange"]; has && ex == "" {
		writeError(w, http.StatusBadRequest, errInvalidField, "exchange", "exchange must name an exchange")
		return
	}
	st, found, err := s.engine.Stats(r.Context(), id, ex, day)
	if err != nil {
		s.log.Error("stats failed", "campaign", id, "err", err)
		writeError(w, http.StatusServiceUnavailable, errInternal, "", "counters could not be read")
		return
	}
	if !found {
		if cat := s.Catalog(); cat == nil {
			found = false
		} else {
			_, found = cat.Campaign(id)
		}
	}
	if !found {
		writeError(w, http.StatusNotFound, errUnknownCampaign, "campaign", "no such campaign and no counters for it")
		return
	}
	jw := jsoncodec.NewWriter()
	defer jw.Free()
	jw.RawString(`{"campaign":`)
	writeString(jw, id)
	if ex != "" {
		jw.RawString(`,"exchange":`)
		writeString(jw, ex)
	}
	jw.RawString(`,"day":"` + day.String() + `","bids":` + strconv.FormatInt(st.Bids, 10) +
		`,"wins":` + strconv.FormatInt(st.Wins, 10) +
		`,"spend_micros":` + strconv.FormatInt(int64(st.Spend), 10) + `}`)
	writeJSON(w, http.StatusOK, string(jw.Bytes()))
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
