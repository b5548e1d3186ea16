package managed

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/recbid/dspd/bidder"
)

// Filter selects the campaigns of a list.
type Filter struct {
	Status string // "active" or "paused"; "": both
	Q      string // a substring of the id or the advertiser, any case; "": all
}

// Item is one campaign of a list.
type Item struct {
	Doc
	Meta
}

// List returns the live campaigns f selects, by id, and the revision of
// the set they were read from.
func (s *Service) List(f Filter) ([]Item, int64) {
	v := s.view.Load()
	q := strings.ToLower(f.Q)
	out := make([]Item, 0, len(v.live))
	for _, d := range v.live {
		m := v.meta[d.ID]
		if f.Status != "" && m.Status != f.Status {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(d.ID), q) && !strings.Contains(strings.ToLower(m.Advertiser), q) {
			continue
		}
		out = append(out, Item{Doc: d, Meta: m})
	}
	return out, v.rev
}

// Get returns the live campaign id.
func (s *Service) Get(id string) (Doc, bool) {
	d, ok := s.view.Load().docs[id]
	if !ok || d.Deleted() {
		return Doc{}, false
	}
	return d, true
}

// Export returns the live set as a campaigns file, and its revision.
func (s *Service) Export() ([]byte, int64) {
	v := s.view.Load()
	docs := make([][]byte, len(v.live))
	for i, d := range v.live {
		docs[i] = d.JSON
	}
	return bidder.CampaignsFile(docs), v.rev
}

// Audit returns up to limit audit entries, newest first, of one campaign
// or ("") of all.
func (s *Service) Audit(ctx context.Context, campaign string, limit int) ([]AuditEntry, error) {
	return s.cfg.Store.ManagedAudit(ctx, campaign, limit)
}

// ImportResult counts what an import did.
type ImportResult struct {
	Created, Replaced, Deleted, Unchanged int
	Rev                                   int64
}

// Import makes the live set the campaigns of a campaigns file (checked
// strictly, as a document is), in one commit: new campaigns are created,
// changed ones replaced, those the file lacks deleted, and the set must
// still be at revision ifRev.
func (s *Service) Import(ctx context.Context, who string, ifRev int64, file []byte) (ImportResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.view.Load()
	if ifRev != v.rev {
		return ImportResult{}, ErrRevChanged
	}
	ids, docs, probs, _ := bidder.SplitCampaignsFile(file, s.cfg.Exchanges(), true)
	if len(probs) > 0 {
		return ImportResult{}, &InvalidError{Problems: probs}
	}
	now := s.cfg.Clock().UTC()
	var res ImportResult
	c := Commit{IfRev: ifRev}
	change := func(cur Doc, id string, doc []byte) {
		d := Doc{ID: id, Version: cur.Version + 1, JSON: doc, At: now, By: who}
		c.Changes = append(c.Changes, Change{Prev: cur.Version, Doc: d, Audit: AuditEntry{
			At: now, Who: who, Action: ActionImport, Campaign: id, Version: d.Version, Before: rawOrNil(cur.JSON), After: rawOrNil(doc)}})
	}
	inFile := make(map[string]bool, len(ids))
	for i, id := range ids {
		inFile[id] = true
		cur := v.docs[id]
		switch {
		case cur.Deleted():
			res.Created++
		case bytes.Equal(cur.JSON, docs[i]):
			res.Unchanged++
			continue
		default:
			res.Replaced++
		}
		change(cur, id, docs[i])
	}
	for _, d := range v.live {
		if !inFile[d.ID] {
			res.Deleted++
			change(d, d.ID, nil)
		}
	}
	if len(c.Changes) == 0 {
		res.Rev = v.rev
		return res, nil
	}
	rev, err := s.cfg.Store.CommitManaged(ctx, c)
	if err != nil {
		if rerr := s.resync(ctx); rerr != nil {
			s.log.Warn("managed set: resync after a refused import failed", "err", rerr)
		}
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	s.committed(c, rev)
	res.Rev = rev
	return res, s.serve(ctx)
}
