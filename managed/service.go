package managed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recbid/dspd/bidder"
)

// Config configures a Service. Store, Serve and Exchanges are required.
type Config struct {
	// Store keeps the set: the state's.
	Store Store
	// Serve puts the set in service: it calls build with the ids of the
	// exchanges serving, and swaps the catalogue build returns in
	// (api.Server.ServeCampaigns).
	Serve func(ctx context.Context, build func(exchanges []string) (*bidder.Catalog, error)) error
	// Exchanges returns the ids of the exchanges a campaign may target now.
	Exchanges func() []string
	// Clock is the server clock (default time.Now).
	Clock func() time.Time
	// Logger receives the start's choice and the failures (default
	// slog.Default()).
	Logger *slog.Logger
	// Audit receives each change once committed: the event log's copy of
	// the audit (nil: none).
	Audit func(AuditEntry)
	// ResyncEvery is how often a replica compares its revision with the
	// store's, behind the change notices, which a broken connection can
	// lose (default DefaultResyncEvery).
	ResyncEvery time.Duration
	// Applied, when set, is called with each revision put in service.
	Applied func(rev int64)
}

// DefaultResyncEvery is the default of Config.ResyncEvery.
const DefaultResyncEvery = 5 * time.Second

// Service is the managed set of one dspd: its view of the store's set,
// the changes the API asks for, and their effect on the serving set.
// Reads are lock-free; changes are serialized.
type Service struct {
	cfg    Config
	log    *slog.Logger
	mu     sync.Mutex // changes and resyncs, one at a time
	view   atomic.Pointer[view]
	served atomic.Int64  // the revision in service on this dspd
	kick   chan struct{} // a change notice: resync soon
}

// view is one revision of the set, as this dspd serves it.
type view struct {
	rev     int64
	managed bool
	docs    map[string]Doc  // tombstones included
	meta    map[string]Meta // of the live documents
	live    []Doc           // live documents, by id
}

// Meta is what a list filters and sorts by, read from a document once.
type Meta struct {
	Advertiser string `json:"advertiser"`
	Status     string `json:"status"`
}

// New returns a service over cfg.Store; Start loads (or seeds) the set.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Serve == nil || cfg.Exchanges == nil {
		return nil, errors.New("managed: Store, Serve and Exchanges are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ResyncEvery <= 0 {
		cfg.ResyncEvery = DefaultResyncEvery
	}
	s := &Service{cfg: cfg, log: cfg.Logger, kick: make(chan struct{}, 1)}
	s.view.Store(&view{docs: map[string]Doc{}, meta: map[string]Meta{}})
	return s, nil
}

// Origin says where the serving set came from at Start.
type Origin struct {
	Seeded    bool  // the state's set was empty: the file seeded it
	Campaigns int   // live campaigns
	Rev       int64 // the set's revision
	Ignored   []bidder.FieldProblem
}

// Start loads the store's set. A set never managed is seeded from the
// campaigns file's text (file names it in the audit), its campaigns
// checked as the file loader checks them (fields the file loader ignores
// are dropped, and returned in Ignored); once managed, the state's set is
// served and the file is not read. Start does not put the set in
// service: Catalog builds it for the first load.
func (s *Service) Start(ctx context.Context, file string, data []byte) (Origin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, err := s.cfg.Store.LoadManaged(ctx)
	if err != nil {
		return Origin{}, fmt.Errorf("managed set: %w", err)
	}
	if snap.Managed {
		s.adopt(snap)
		return Origin{Campaigns: len(s.view.Load().live), Rev: snap.Rev}, nil
	}
	ids, docs, probs, ignored := bidder.SplitCampaignsFile(data, s.cfg.Exchanges(), false)
	if len(probs) > 0 {
		return Origin{}, fmt.Errorf("managed set: seeding from %s: %w", file, &InvalidError{Problems: probs})
	}
	now, by := s.cfg.Clock().UTC(), "-campaigns "+file
	c := Commit{Seed: true, Changes: make([]Change, len(ids))}
	for i, id := range ids {
		d := Doc{ID: id, Version: 1, JSON: docs[i], At: now, By: by}
		c.Changes[i] = Change{Doc: d, Audit: AuditEntry{At: now, Who: by, Action: ActionSeed, Campaign: id, Version: 1, After: docs[i]}}
	}
	rev, err := s.cfg.Store.CommitManaged(ctx, c)
	if errors.Is(err, ErrManaged) { // another replica seeded it first
		if snap, err = s.cfg.Store.LoadManaged(ctx); err != nil {
			return Origin{}, fmt.Errorf("managed set: %w", err)
		}
		s.adopt(snap)
		return Origin{Campaigns: len(s.view.Load().live), Rev: snap.Rev}, nil
	}
	if err != nil {
		return Origin{}, fmt.Errorf("managed set: seeding from %s: %w", file, err)
	}
	s.committed(c, rev)
	return Origin{Seeded: true, Campaigns: len(ids), Rev: rev, Ignored: ignored}, nil
}

// Catalog builds the live set's catalogue for the given exchanges: the
// serving set's (Config.Serve's build, and api.Config.CampaignSource's).
func (s *Service) Catalog(exchanges []string) (*bidder.Catalog, error) {
	v := s.view.Load()
	docs := make([][]byte, len(v.live))
	for i, d := range v.live {
		docs[i] = d.JSON
	}
	return bidder.ParseCatalogFor(bidder.CampaignsFile(docs), exchanges)
}

// Rev returns the revision this dspd serves.
func (s *Service) Rev() int64 { return s.view.Load().rev }

// adopt makes snap the view; the caller holds mu.
func (s *Service) adopt(snap Snapshot) {
	v := &view{rev: snap.Rev, managed: snap.Managed, docs: make(map[string]Doc, len(snap.Docs)), meta: make(map[string]Meta, len(snap.Docs))}
	for _, d := range snap.Docs {
		v.docs[d.ID] = d
		if !d.Deleted() {
			v.meta[d.ID] = readMeta(d.JSON)
		}
	}
	v.sortLive()
	s.view.Store(v)
}

// committed applies a commit's changes to the view; the caller holds mu.
func (s *Service) committed(c Commit, rev int64) {
	old := s.view.Load()
	v := &view{rev: rev, managed: true, docs: make(map[string]Doc, len(old.docs)+len(c.Changes)), meta: make(map[string]Meta, len(old.meta)+len(c.Changes))}
	for id, d := range old.docs {
		v.docs[id] = d
	}
	for id, m := range old.meta {
		v.meta[id] = m
	}
	for _, ch := range c.Changes {
		v.docs[ch.Doc.ID] = ch.Doc
		delete(v.meta, ch.Doc.ID)
		if !ch.Doc.Deleted() {
			v.meta[ch.Doc.ID] = readMeta(ch.Doc.JSON)
		}
	}
	v.sortLive()
	s.view.Store(v)
	if s.cfg.Audit != nil {
		for _, ch := range c.Changes {
			a := ch.Audit
			a.Rev = rev
			s.cfg.Audit(a)
		}
	}
}

func (v *view) sortLive() {
	v.live = v.live[:0]
	for _, d := range v.docs {
		if !d.Deleted() {
			v.live = append(v.live, d)
		}
	}
	sort.Slice(v.live, func(i, j int) bool { return v.live[i].ID < v.live[j].ID })
}

// serve puts the view in service; the caller holds mu.
func (s *Service) serve(ctx context.Context) error {
	rev := s.view.Load().rev
	if err := s.cfg.Serve(ctx, s.Catalog); err != nil {
		s.log.Error("managed set: a committed revision could not be put in service", "rev", rev, "err", err)
		return fmt.Errorf("%w: %w", ErrNotServed, err)
	}
	s.served.Store(rev)
	if s.cfg.Applied != nil {
		s.cfg.Applied(rev)
	}
	return nil
}

// Served returns the revision in service on this dspd: the one the last
// change or resync put in service, or (0) the one Start loaded, until then.
func (s *Service) Served() int64 {
	if n := s.served.Load(); n > 0 {
		return n
	}
	return s.view.Load().rev
}

// Run follows the other replicas' changes until ctx ends: on each of the
// store's change notices (a Notifier), and every ResyncEvery, it compares
// revisions and loads the set again when they differ.
func (s *Service) Run(ctx context.Context) {
	if n, ok := s.cfg.Store.(Notifier); ok {
		go n.WatchManaged(ctx, func(rev int64) {
			if rev != s.view.Load().rev {
				select {
				case s.kick <- struct{}{}:
				default:
				}
			}
		})
	}
	t := time.NewTicker(s.cfg.ResyncEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-t.C:
			rev, err := s.cfg.Store.ManagedRev(ctx)
			if err != nil || rev == s.view.Load().rev {
				continue
			}
		}
		if err := s.Resync(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("managed set: could not load the store's changes; this dspd serves an older revision", "rev", s.view.Load().rev, "err", err)
		}
	}
}

// Resync loads the store's set and, when its revision differs from the
// one served, puts it in service.
func (s *Service) Resync(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resync(ctx)
}

func (s *Service) resync(ctx context.Context) error {
	snap, err := s.cfg.Store.LoadManaged(ctx)
	if err != nil {
		return fmt.Errorf("managed set: %w", err)
	}
	if snap.Rev == s.view.Load().rev {
		return nil
	}
	s.adopt(snap)
	return s.serve(ctx)
}
