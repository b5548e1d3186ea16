package managed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Doc is one campaign of the managed set.
type Doc struct {
	ID string
	// Version is 1 when the campaign is created and one more with each
	// change. A deleted campaign keeps its last version (JSON nil), so
	// that one created again with its id goes on from it: an ETag of the
	// old campaign never matches the new one.
	Version int64
	JSON    []byte    // the canonical document (bidder.CheckCampaignDoc); nil: deleted
	At      time.Time // when it was last changed
	By      string    // who changed it: a token's name, or "-campaigns FILE" for the seed
}

// Deleted reports whether the document is a deleted campaign's tombstone.
func (d Doc) Deleted() bool { return d.JSON == nil }

// Action is what a change did.
type Action string

// The actions of the audit.
const (
	ActionCreate  Action = "create"  // POST /api/v1/campaigns
	ActionReplace Action = "replace" // PUT /api/v1/campaigns/{id}
	ActionPatch   Action = "patch"   // PATCH /api/v1/campaigns/{id}
	ActionDelete  Action = "delete"  // DELETE /api/v1/campaigns/{id}
	ActionImport  Action = "import"  // PUT /api/v1/campaigns (a whole campaigns file)
	ActionSeed    Action = "seed"    // the first start with the API on: the -campaigns file
)

// AuditEntry is one change of one campaign: who made it, when, and the
// document before and after.
type AuditEntry struct {
	Rev      int64           `json:"rev"` // the set's revision the change made
	At       time.Time       `json:"at"`
	Who      string          `json:"who"`
	Action   Action          `json:"action"`
	Campaign string          `json:"campaign"`
	Version  int64           `json:"version"` // the campaign's version after the change
	Before   json.RawMessage `json:"before"`  // null: created
	After    json.RawMessage `json:"after"`   // null: deleted
}

// Change is one campaign's part of a commit.
type Change struct {
	// Prev is the version the store must hold for the campaign (0: none,
	// not even a tombstone); Doc.Version must be Prev+1.
	Prev  int64
	Doc   Doc
	Audit AuditEntry // its Rev is the store's to fill
}

// Commit is what a store writes at once, or not at all.
type Commit struct {
	Changes []Change
	// IfRev, when not 0, is the revision the set must be at (an import
	// that replaces the whole set).
	IfRev int64
	// Seed commits only into a set that was never managed, and marks it
	// managed (even with no change: an empty file seeds an empty set).
	Seed bool
}

// Snapshot is the managed set as a store holds it.
type Snapshot struct {
	Managed bool  // the set was seeded or written: the state is the source
	Rev     int64 // one more with each commit
	Docs    []Doc // tombstones included
}

// Store keeps the managed set: the state's.
type Store interface {
	// LoadManaged returns the whole set.
	LoadManaged(ctx context.Context) (Snapshot, error)
	// ManagedRev returns the set's revision, cheaply.
	ManagedRev(ctx context.Context) (int64, error)
	// CommitManaged writes every change of c and its audit entries, with
	// the set's next revision, durably and at once; or, when a change's
	// Prev is not the version held, nothing (a *ConflictError); or, when
	// c.IfRev or c.Seed does not hold, nothing (ErrRevChanged, ErrManaged).
	CommitManaged(ctx context.Context, c Commit) (rev int64, err error)
	// ManagedAudit returns up to limit audit entries, newest first: of one
	// campaign, or ("") of all. A store keeps at least the entries of its
	// last MaxAuditRevs commits.
	ManagedAudit(ctx context.Context, campaign string, limit int) ([]AuditEntry, error)
}

// Notifier is a store shared by replicas that tells each about the
// others' commits: WatchManaged calls fn with a revision after each commit
// (its own included) until ctx ends, and once when it (re)connects, since
// it may have missed some.
type Notifier interface {
	WatchManaged(ctx context.Context, fn func(rev int64))
}

// MaxAuditRevs is how many commits' audit entries a store keeps at least;
// the event log keeps them all.
const MaxAuditRevs = 100_000

// Errors of a commit.
var (
	// ErrConflict is the cause of a *ConflictError.
	ErrConflict = errors.New("managed: the campaign changed meanwhile")
	// ErrRevChanged: the set is not at the commit's IfRev.
	ErrRevChanged = errors.New("managed: the campaign set changed meanwhile")
	// ErrManaged: a seed into a set that is managed already.
	ErrManaged = errors.New("managed: the set is managed already")
)

// ConflictError is a commit refused because a campaign's version is not
// the one the change expected.
type ConflictError struct {
	ID   string
	Have int64 // the version the store holds (0: none)
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("campaign %q is at version %d: %v", e.ID, e.Have, ErrConflict)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }
