package api

import (
	"context"
	"fmt"
	"time"

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

// Pacing returns a paced campaign's pacing as of the last tick, or false
// when it is not paced (or not yet ticked).
func (s *Server) Pacing(campaign string) (bidder.PaceStatus, bool) {
	for _, p := range s.engine.PacingStatus() {
		if p.CampaignID == campaign {
			return p, true
		}
	}
	return bidder.PaceStatus{}, false
}

// Tally returns the engine's per-campaign tally of this dspd's day
// (bidder.Tally): drop-outs by reason, bids, wins and spend by minute,
// impressions and clicks.
func (s *Server) Tally() *bidder.Tally { return s.engine.Tally() }

// PacingShares is the pacing target's shape: the share of a day's budget
// due by the end of each five-minute bucket (bidder.Engine.PacingShares).
func (s *Server) PacingShares() []float64 { return s.engine.PacingShares() }

// NoteCampaignsRevision records the revision of the managed campaign set
// in service (dspd_campaigns_revision); changed says it is a new one put
// in service since the last (dspd_campaign_set_changes_total).
func (s *Server) NoteCampaignsRevision(rev int64, changed bool) {
	s.metrics.campaignsRevision.Set(float64(rev))
	if changed {
		s.metrics.campaignChanges.Inc()
	}
}

// Now is the server clock.
func (s *Server) Now() time.Time { return s.engine.Now() }

// NoteListenerRefusal counts a request a front end's HTTP server refused
// before it reached an endpoint (a transfer coding it does not implement,
// a header block over the limit), in dspd_http_errors_total with the
// endpoint "listener".
func (s *Server) NoteListenerRefusal(code string) { s.metrics.fail("listener", code) }
