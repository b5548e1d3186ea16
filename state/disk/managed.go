package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/managed"
)

// The managed campaign set (package managed) in the database:
//
//	'K' id            → a campaign's document (managed.EncodeDoc), tombstones included
//	'U' rev idx       → an audit entry (JSON), by the commit's revision
//	'm' "managed_rev" → the set's revision; present once the set is managed
//
// A commit is one synced batch: documents, audit entries and revision
// together, so that an acknowledged change is never lost and never
// without its audit entry.
const (
	kindManaged = 'K'
	kindAudit   = 'U'
)

const managedRevKey = "managed_rev"

func managedKey(id string) []byte { return append([]byte{kindManaged}, id...) }

func auditKey(rev int64, i int) []byte {
	k := make([]byte, 0, 13)
	k = append(k, kindAudit)
	k = binary.BigEndian.AppendUint64(k, uint64(rev))
	return binary.BigEndian.AppendUint32(k, uint32(i))
}

// managedStore is the Store's managed.Store.
type managedStore Store

// Managed returns the store's managed campaign set.
func (s *Store) Managed() managed.Store { return (*managedStore)(s) }

// LoadManaged implements managed.Store.
func (m *managedStore) LoadManaged(context.Context) (managed.Snapshot, error) {
	s := (*Store)(m)
	var snap managed.Snapshot
	rev, ok, err := m.rev()
	if err != nil {
		return snap, err
	}
	snap.Managed, snap.Rev = ok, rev
	err = scan(s.db, []byte{kindManaged}, []byte{kindManaged + 1}, func(k, v []byte) error {
		d, err := managed.DecodeDoc(string(k[1:]), v)
		if err != nil {
			return err
		}
		snap.Docs = append(snap.Docs, d)
		return nil
	})
	return snap, err
}

// ManagedRev implements managed.Store.
func (m *managedStore) ManagedRev(context.Context) (int64, error) {
	rev, _, err := m.rev()
	return rev, err
}

func (m *managedStore) rev() (int64, bool, error) {
	v, closer, err := m.db.Get(metaKey(managedRevKey))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read the managed set's revision: %w", err)
	}
	defer closer.Close()
	rev, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("the managed set's revision %q: %w", v, err)
	}
	return rev, true, nil
}

func (m *managedStore) version(id string) (int64, error) {
	v, closer, err := m.db.Get(managedKey(id))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read campaign %q: %w", id, err)
	}
	defer closer.Close()
	head, _, _ := bytes.Cut(v, []byte{' '})
	return strconv.ParseInt(string(head), 10, 64)
}

// CommitManaged implements managed.Store: one synced batch.
func (m *managedStore) CommitManaged(_ context.Context, c managed.Commit) (int64, error) {
	s := (*Store)(m)
	if err := s.available(); err != nil {
		return 0, err
	}
	s.managedMu.Lock()
	defer s.managedMu.Unlock()
	rev, isManaged, err := m.rev()
	switch {
	case err != nil:
		return 0, err
	case c.Seed && isManaged:
		return 0, managed.ErrManaged
	case c.IfRev != 0 && c.IfRev != rev:
		return 0, managed.ErrRevChanged
	}
	var readErr error
	err = managed.CheckCommit(c, func(id string) int64 {
		v, err := m.version(id)
		readErr = errors.Join(readErr, err)
		return v
	})
	if readErr != nil {
		return 0, readErr
	}
	if err != nil {
		return 0, err
	}
	rev++
	b := s.db.NewBatch()
	for i, ch := range c.Changes {
		a := ch.Audit
		a.Rev = rev
		line, err := json.Marshal(a)
		if err != nil {
			b.Close()
			return 0, fmt.Errorf("audit entry of %q: %w", ch.Doc.ID, err)
		}
		_ = b.Set(managedKey(ch.Doc.ID), managed.EncodeDoc(ch.Doc), nil)
		_ = b.Set(auditKey(rev, i), line, nil)
	}
	_ = b.Set(metaKey(managedRevKey), strconv.AppendInt(nil, rev, 10), nil)
	if old := rev - managed.MaxAuditRevs; old > 0 {
		_ = b.DeleteRange([]byte{kindAudit}, auditKey(old+1, 0), nil)
	}
	if err := s.commit(b); err != nil { // on a full disk, waits for room
		return 0, fmt.Errorf("commit the managed set: %w", err)
	}
	return rev, nil
}

// ManagedAudit implements managed.Store: newest first.
func (m *managedStore) ManagedAudit(_ context.Context, campaign string, limit int) ([]managed.AuditEntry, error) {
	it, err := m.db.NewIter(&pebble.IterOptions{LowerBound: []byte{kindAudit}, UpperBound: []byte{kindAudit + 1}})
	if err != nil {
		return nil, fmt.Errorf("read the audit: %w", err)
	}
	defer it.Close()
	var out []managed.AuditEntry
	for ok := it.Last(); ok && len(out) < limit; ok = it.Prev() {
		var a managed.AuditEntry
		if err := json.Unmarshal(it.Value(), &a); err != nil {
			return nil, fmt.Errorf("audit entry %x: %w", it.Key(), err)
		}
		if campaign == "" || a.Campaign == campaign {
			out = append(out, a)
		}
	}
	return out, it.Error()
}

var _ managed.Store = (*managedStore)(nil)
