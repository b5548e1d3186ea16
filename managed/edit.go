package managed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/recbid/dspd/bidder"
)

// Errors of a change, beside the store's.
var (
	// ErrInvalid is the cause of an *InvalidError.
	ErrInvalid = errors.New("managed: invalid campaign")
	// ErrNotFound: no live campaign has the id.
	ErrNotFound = errors.New("managed: no such campaign")
	// ErrExists: a create of an id a live campaign has.
	ErrExists = errors.New("managed: a campaign has this id already")
	// ErrStale is the cause of a *StaleError.
	ErrStale = errors.New("managed: the version is not the campaign's")
	// ErrNotServed: the change is committed but could not be put in
	// service on this dspd (logged); the other replicas and the next
	// reload serve it.
	ErrNotServed = errors.New("managed: committed but not served")
)

// InvalidError names every problem of a campaign a change was refused for.
type InvalidError struct{ Problems []bidder.FieldProblem }

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s)", len(e.Problems))
	for i, p := range e.Problems {
		if i == 10 {
			b.WriteString("; …")
			break
		}
		b.WriteString("; ")
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		b.WriteString(p.Problem)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// StaleError is a change refused because the version it names is not the
// campaign's: someone else changed it since it was read.
type StaleError struct{ Have int64 }

func (e *StaleError) Error() string {
	return fmt.Sprintf("the campaign is at version %d: %v", e.Have, ErrStale)
}

// Unwrap makes errors.Is(err, ErrStale) hold.
func (e *StaleError) Unwrap() error { return ErrStale }

// Create adds a campaign; its id must be new (or a deleted campaign's).
func (s *Service) Create(ctx context.Context, who string, body []byte) (Doc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, doc, probs := bidder.CheckCampaignDoc(body, s.cfg.Exchanges())
	if len(probs) > 0 {
		return Doc{}, &InvalidError{Problems: probs}
	}
	for try := 0; ; try++ { // once more after a resync, when another replica moved
		cur, ok := s.view.Load().docs[c.ID]
		if ok && !cur.Deleted() {
			if rev, err := s.cfg.Store.ManagedRev(ctx); try > 0 || err != nil || rev == s.view.Load().rev {
				return Doc{}, ErrExists
			}
		} else {
			d, err := s.commitOne(ctx, who, ActionCreate, cur, doc)
			if try > 0 || !errors.Is(err, ErrConflict) {
				return d, err
			}
		}
		if err := s.resync(ctx); err != nil {
			return Doc{}, err
		}
	}
}

// Replace puts body in the place of the campaign id at version ifVersion.
func (s *Service) Replace(ctx context.Context, who, id string, ifVersion int64, body []byte) (Doc, error) {
	return s.update(ctx, who, ActionReplace, id, ifVersion, func([]byte) ([]byte, error) { return body, nil })
}

// Patch applies a JSON merge patch (RFC 7396) to the campaign id at
// version ifVersion.
func (s *Service) Patch(ctx context.Context, who, id string, ifVersion int64, patch []byte) (Doc, error) {
	return s.update(ctx, who, ActionPatch, id, ifVersion, func(cur []byte) ([]byte, error) {
		if !json.Valid(patch) {
			return nil, &InvalidError{Problems: []bidder.FieldProblem{{Problem: "the merge patch is not JSON"}}}
		}
		merged, err := jsonpatch.MergePatch(cur, patch)
		if err != nil {
			return nil, &InvalidError{Problems: []bidder.FieldProblem{{Problem: "the merge patch cannot apply: " + err.Error()}}}
		}
		return merged, nil
	})
}

// Delete removes the campaign id at version ifVersion. Its books stay:
// a campaign created again with its id the same day goes on with its
// spend.
func (s *Service) Delete(ctx context.Context, who, id string, ifVersion int64) (Doc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.current(id, ifVersion)
	if err != nil {
		return Doc{}, err
	}
	d, err := s.commitOne(ctx, who, ActionDelete, cur, nil)
	return d, s.stale(ctx, err)
}

// update is Replace and Patch: next makes the new document from the
// current one.
func (s *Service) update(ctx context.Context, who string, action Action, id string, ifVersion int64, next func(cur []byte) ([]byte, error)) (Doc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.current(id, ifVersion)
	if err != nil {
		return Doc{}, err
	}
	body, err := next(cur.JSON)
	if err != nil {
		return Doc{}, err
	}
	c, doc, probs := bidder.CheckCampaignDoc(body, s.cfg.Exchanges())
	if c != nil && c.ID != id {
		probs = append(probs, bidder.FieldProblem{Field: "id", Problem: "is the campaign's name in its URL (" + id + "): it cannot change"})
	}
	if len(probs) > 0 {
		return Doc{}, &InvalidError{Problems: probs}
	}
	if bytes.Equal(doc, cur.JSON) {
		return cur, nil // nothing changes: no new version, no audit entry
	}
	d, err := s.commitOne(ctx, who, action, cur, doc)
	return d, s.stale(ctx, err)
}

// current returns the live campaign id when its version is ifVersion.
func (s *Service) current(id string, ifVersion int64) (Doc, error) {
	cur, ok := s.view.Load().docs[id]
	switch {
	case !ok || cur.Deleted():
		return Doc{}, ErrNotFound
	case cur.Version != ifVersion:
		return Doc{}, &StaleError{Have: cur.Version}
	}
	return cur, nil
}

// stale turns the store's conflict (another replica changed the campaign
// since this one last heard) into a StaleError with the version the store
// holds, after loading the store's set.
func (s *Service) stale(ctx context.Context, err error) error {
	var ce *ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	if rerr := s.resync(ctx); rerr != nil {
		s.log.Warn("managed set: resync after a conflict failed", "err", rerr)
	}
	return &StaleError{Have: ce.Have}
}

// commitOne commits one campaign's change from cur (the zero Doc or a
// tombstone for a create) to doc (nil: delete), then serves the set.
func (s *Service) commitOne(ctx context.Context, who string, action Action, cur Doc, doc []byte) (Doc, error) {
	if strings.ContainsAny(who, "\r\n") {
		return Doc{}, errors.New("managed: a name has no newline")
	}
	now := s.cfg.Clock().UTC()
	id := cur.ID
	if id == "" {
		var c struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(doc, &c) // checked already
		id = c.ID
	}
	d := Doc{ID: id, Version: cur.Version + 1, JSON: doc, At: now, By: who}
	c := Commit{Changes: []Change{{Prev: cur.Version, Doc: d, Audit: AuditEntry{
		At: now, Who: who, Action: action, Campaign: id, Version: d.Version, Before: rawOrNil(cur.JSON), After: rawOrNil(doc),
	}}}}
	rev, err := s.cfg.Store.CommitManaged(ctx, c)
	if err != nil {
		return Doc{}, fmt.Errorf("commit %s of %s: %w", action, id, err)
	}
	s.committed(c, rev)
	return d, s.serve(ctx)
}

func rawOrNil(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

// readMeta reads what lists need of a checked document.
func readMeta(doc []byte) Meta {
	var m Meta
	_ = json.Unmarshal(doc, &m) // checked already
	return m
}
