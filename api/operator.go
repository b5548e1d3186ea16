package api

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recbid/dspd/bidder"
)

// What the admin listener (package admin) reads of the server: its
// metrics, its readiness and the books' counters.

// Gatherer returns the server's Prometheus series, for /metrics.
func (s *Server) Gatherer() prometheus.Gatherer { return s.metrics.reg }

// Readiness says whether the server takes traffic: "ready" once campaigns
// are loaded, "loading" before that and "draining" once SetDraining was
// called.
func (s *Server) Readiness() string {
	switch {
	case s.draining.Load():
		return "draining"
	case s.current.Load() == nil:
		return "loading"
	}
	return "ready"
}

// Today is the server clock's day (UTC).
func (s *Server) Today() bidder.Day { return bidder.DayOfTime(s.engine.Now()) }

// Stats returns a campaign's counters of one day, on one exchange or
// (exchange "") on all. found is false when the books have no counters for
// it and the serving set has no such campaign; a failure of the books is
// logged and returned.
func (s *Server) Stats(ctx context.Context, campaign, exchange string, day bidder.Day) (st bidder.DayStats, found bool, err error) {
	st, found, err = s.engine.Stats(ctx, campaign, exchange, day)
	if err != nil {
		s.log.Error("stats failed", "campaign", campaign, "err", err)
		return st, false, fmt.Errorf("stats of %s: %w", campaign, err)
	}
	if !found {
		if cat := s.Catalog(); cat != nil {
			_, found = cat.Campaign(campaign)
		}
	}
	return st, found, nil
}

// NoteListenerRefusal counts a request a front end's HTTP server refused
// before it reached an endpoint (a transfer coding it does not implement,
// a header block over the limit), in dspd_http_errors_total with the
// endpoint "listener".
func (s *Server) NoteListenerRefusal(code string) { s.metrics.fail("listener", code) }
