package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/campaignapi"
	"github.com/recbid/dspd/api/console"
	"github.com/recbid/dspd/api/tokens"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/internal/bounded"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state"
)

// management is the managed campaign set with its API and console, when
// -api-tokens turns them on.
type management struct {
	tokens *tokens.File
	set    *managed.Service
}

// openTokens reads -api-tokens, before anything else opens: a bad file
// stops dspd.
func openTokens(cfg config) (*tokens.File, error) {
	if cfg.apiTokens == "" {
		return nil, nil
	}
	f, err := tokens.Open(cfg.apiTokens)
	if err != nil {
		return nil, fmt.Errorf("refusing to start: %w", err)
	}
	return f, nil
}

// startManaged loads the state's managed set, or seeds it from the
// campaigns file when the state has never managed one, says which and
// why, and makes the set the campaigns of sets and of every reload.
func startManaged(ctx context.Context, cfg config, tf *tokens.File, st *state.Store, sets *api.Sets, apiCfg *api.Config,
	srv func() *api.Server, now func() time.Time, evlog *events.Log, log *slog.Logger) (*management, error) {
	exchanges := func() []string {
		if s := srv(); s != nil && s.Exchanges() != nil {
			return s.Exchanges().IDs()
		}
		return sets.Exchanges.IDs()
	}
	svc, err := managed.New(managed.Config{
		Store: st.Managed,
		Serve: func(ctx context.Context, build func([]string) (*bidder.Catalog, error)) error {
			return srv().ServeCampaigns(ctx, build)
		},
		Exchanges: exchanges,
		Clock:     now,
		Logger:    log,
		Audit:     auditToLog(evlog, log),
		Applied:   func(rev int64) { srv().NoteCampaignsRevision(rev, true) },
	})
	if err != nil {
		return nil, err
	}
	data, err := bounded.ReadFile(cfg.campaigns, cfg.maxCampaignsBytes)
	if err != nil {
		return nil, fmt.Errorf("campaigns %s: %w", cfg.campaigns, err)
	}
	o, err := svc.Start(ctx, cfg.campaigns, data)
	if err != nil {
		return nil, fmt.Errorf("refusing to start: %w", err)
	}
	if o.Seeded {
		log.Info("campaigns: the state had no managed set, so the campaigns file seeded it; from now on the API manages the campaigns in the state and the file is not read again",
			"file", cfg.campaigns, "campaigns", o.Campaigns, "state", cfg.state)
		for _, p := range o.Ignored {
			log.Warn("campaigns: a field the campaigns file had and dspd does not know was left out of the managed set", "field", p.Field)
		}
	} else {
		log.Info("campaigns: serving the set the API manages in the state; the campaigns file is not read while -api-tokens is on (docs/api.md)",
			"state", cfg.state, "campaigns", o.Campaigns, "revision", o.Rev, "file_not_read", cfg.campaigns)
	}
	apiCfg.CampaignSource = svc.Catalog
	if sets.Catalog, err = svc.Catalog(sets.Exchanges.IDs()); err != nil {
		return nil, fmt.Errorf("refusing to start: the managed campaigns do not fit the exchanges: %w", err)
	}
	return &management{tokens: tf, set: svc}, nil
}

// auditToLog writes each change's audit entry to the event log.
func auditToLog(evlog *events.Log, log *slog.Logger) func(managed.AuditEntry) {
	if evlog == nil {
		return nil
	}
	return func(a managed.AuditEntry) {
		r := events.Record{Type: events.TypeAudit, Time: a.At, Instance: evlog.Instance(), Campaign: a.Campaign,
			Action: string(a.Action), Actor: a.Who, Version: a.Version, Before: a.Before, After: a.After}
		if _, err := evlog.Add(&r, false); err != nil {
			log.Error("the event log refused an audit record; the state keeps the entry (GET /api/v1/audit)", "campaign", a.Campaign, "version", a.Version, "err", err)
		}
	}
}

// started records the revision served at start.
func (m *management) started(srv *api.Server) {
	if m != nil {
		srv.NoteCampaignsRevision(m.set.Served(), false)
	}
}

// mounts are the admin listener's API and console routes.
func (m *management) mounts(srv *api.Server, log *slog.Logger) []func(chi.Router) {
	if m == nil {
		return nil
	}
	return []func(chi.Router){
		func(r chi.Router) {
			campaignapi.Mount(r, campaignapi.Config{Set: m.set, Core: srv, Tokens: m.tokens, Logger: log})
		},
		func(r chi.Router) {
			console.Mount(r, console.Config{Set: m.set, Core: srv, Tokens: m.tokens, Logger: log})
		},
	}
}

// reload reads the tokens file again (with the campaigns, exchanges and
// rates); on an error the old tokens stay.
func (m *management) reload() error {
	if m == nil {
		return nil
	}
	return m.tokens.Reload()
}
