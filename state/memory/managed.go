package memory

import (
	"context"
	"sync"

	"github.com/recbid/dspd/managed"
)

// Managed keeps the campaign set managed through the API (package managed)
// in memory: it lives as long as the process, like the memory books.
type Managed struct {
	mu      sync.Mutex
	managed bool
	rev     int64
	docs    map[string]managed.Doc
	audit   []managed.AuditEntry // oldest first
}

// NewManaged returns an empty, unmanaged set.
func NewManaged() *Managed { return &Managed{docs: map[string]managed.Doc{}} }

// LoadManaged implements managed.Store.
func (m *Managed) LoadManaged(context.Context) (managed.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := managed.Snapshot{Managed: m.managed, Rev: m.rev, Docs: make([]managed.Doc, 0, len(m.docs))}
	for _, d := range m.docs {
		s.Docs = append(s.Docs, d)
	}
	return s, nil
}

// ManagedRev implements managed.Store.
func (m *Managed) ManagedRev(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rev, nil
}

// CommitManaged implements managed.Store.
func (m *Managed) CommitManaged(_ context.Context, c managed.Commit) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case c.Seed && m.managed:
		return 0, managed.ErrManaged
	case c.IfRev != 0 && c.IfRev != m.rev:
		return 0, managed.ErrRevChanged
	}
	if err := managed.CheckCommit(c, func(id string) int64 { return m.docs[id].Version }); err != nil {
		return 0, err
	}
	m.rev++
	m.managed = true
	for _, ch := range c.Changes {
		m.docs[ch.Doc.ID] = ch.Doc
		a := ch.Audit
		a.Rev = m.rev
		m.audit = append(m.audit, a)
	}
	drop := 0
	for drop < len(m.audit) && m.audit[drop].Rev <= m.rev-managed.MaxAuditRevs {
		drop++
	}
	if drop > 0 {
		m.audit = append(m.audit[:0:0], m.audit[drop:]...)
	}
	return m.rev, nil
}

// ManagedAudit implements managed.Store.
func (m *Managed) ManagedAudit(_ context.Context, campaign string, limit int) ([]managed.AuditEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []managed.AuditEntry
	for i := len(m.audit) - 1; i >= 0 && len(out) < limit; i-- {
		if campaign == "" || m.audit[i].Campaign == campaign {
			out = append(out, m.audit[i])
		}
	}
	return out, nil
}

var _ managed.Store = (*Managed)(nil)
