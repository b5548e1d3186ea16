package statetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/managed"
)

// Managed runs the conformance tables of managed.Store: commits are
// compare-and-set on every campaign's version, all or nothing, with the
// set's revision one more each time and their audit entries kept, newest
// first; a seed only into a set never managed. A store that is a
// managed.Notifier tells its watchers of each commit. newStore returns an
// empty store; reopen, when not nil, returns the same store reopened (the
// set must survive it).
func Managed(t *testing.T, newStore func(t *testing.T) managed.Store, reopen func(t *testing.T, s managed.Store) managed.Store) {
	ctx := context.Background()
	at := time.Date(2026, 12, 2, 10, 30, 0, 123_000_000, time.UTC)
	doc := func(id string, v int64, body string) managed.Doc {
		d := managed.Doc{ID: id, Version: v, At: at, By: "ops team"}
		if body != "" {
			d.JSON = []byte(body)
		}
		return d
	}
	change := func(prev int64, d managed.Doc, a managed.Action) managed.Change {
		return managed.Change{Prev: prev, Doc: d, Audit: managed.AuditEntry{At: at, Who: d.By, Action: a,
			Campaign: d.ID, Version: d.Version, After: json.RawMessage(d.JSON)}}
	}
	byID := func(s managed.Snapshot) map[string]managed.Doc {
		m := map[string]managed.Doc{}
		for _, d := range s.Docs {
			m[d.ID] = d
		}
		return m
	}
	t.Run("empty", func(t *testing.T) {
		s := newStore(t)
		snap, err := s.LoadManaged(ctx)
		require.NoError(t, err)
		assert.False(t, snap.Managed)
		assert.Zero(t, snap.Rev)
		assert.Empty(t, snap.Docs)
	})
	t.Run("seed once, then compare-and-set", func(t *testing.T) {
		s := newStore(t)
		rev, err := s.CommitManaged(ctx, managed.Commit{Seed: true, Changes: []managed.Change{
			change(0, doc("a", 1, `{"id":"a","bid_cpm":1.000001}`), managed.ActionSeed),
			change(0, doc("b", 1, `{"id":"b"}`), managed.ActionSeed),
		}})
		require.NoError(t, err)
		assert.EqualValues(t, 1, rev)
		_, err = s.CommitManaged(ctx, managed.Commit{Seed: true})
		assert.ErrorIs(t, err, managed.ErrManaged, "a managed set is never seeded again")

		// One change with a stale version refuses the whole commit.
		_, err = s.CommitManaged(ctx, managed.Commit{Changes: []managed.Change{
			change(1, doc("a", 2, `{"id":"a","status":"paused"}`), managed.ActionPatch),
			change(2, doc("b", 3, `{"id":"b","x":1}`), managed.ActionPatch),
		}})
		var ce *managed.ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "b", ce.ID)
		assert.EqualValues(t, 1, ce.Have)
		_, err = s.CommitManaged(ctx, managed.Commit{Changes: []managed.Change{change(0, doc("a", 1, `{}`), managed.ActionCreate)}})
		require.ErrorAs(t, err, &ce, "a create of an existing campaign")
		assert.EqualValues(t, 1, ce.Have)
		_, err = s.CommitManaged(ctx, managed.Commit{IfRev: 7, Changes: []managed.Change{change(1, doc("a", 2, `{}`), managed.ActionImport)}})
		assert.ErrorIs(t, err, managed.ErrRevChanged)

		rev, err = s.CommitManaged(ctx, managed.Commit{IfRev: 1, Changes: []managed.Change{
			change(1, doc("a", 2, `{"id":"a","status":"paused"}`), managed.ActionPatch),
			change(1, doc("b", 2, ""), managed.ActionDelete),
		}})
		require.NoError(t, err)
		assert.EqualValues(t, 2, rev)
		snap, err := s.LoadManaged(ctx)
		require.NoError(t, err)
		assert.True(t, snap.Managed)
		assert.EqualValues(t, 2, snap.Rev)
		docs := byID(snap)
		require.Len(t, docs, 2, "a deleted campaign stays as its tombstone")
		assert.Equal(t, `{"id":"a","status":"paused"}`, string(docs["a"].JSON))
		assert.EqualValues(t, 2, docs["a"].Version)
		assert.True(t, docs["a"].At.Equal(at), "time to the millisecond: %v", docs["a"].At)
		assert.Equal(t, "ops team", docs["a"].By)
		assert.True(t, docs["b"].Deleted())
		assert.EqualValues(t, 2, docs["b"].Version)
		n, err := s.ManagedRev(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 2, n)

		// A campaign created again goes on from its tombstone's version.
		_, err = s.CommitManaged(ctx, managed.Commit{Changes: []managed.Change{change(0, doc("b", 1, `{"id":"b"}`), managed.ActionCreate)}})
		require.ErrorAs(t, err, &ce)
		assert.EqualValues(t, 2, ce.Have)
		_, err = s.CommitManaged(ctx, managed.Commit{Changes: []managed.Change{change(2, doc("b", 3, `{"id":"b"}`), managed.ActionCreate)}})
		require.NoError(t, err)

		if reopen != nil {
			s = reopen(t, s)
			again, err := s.LoadManaged(ctx)
			require.NoError(t, err)
			assert.True(t, again.Managed)
			assert.EqualValues(t, 3, again.Rev)
			assert.Equal(t, `{"id":"a","status":"paused"}`, string(byID(again)["a"].JSON))
			assert.EqualValues(t, 3, byID(again)["b"].Version)
		}

		all, err := s.ManagedAudit(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, all, 5)
		assert.EqualValues(t, 3, all[0].Rev, "newest first")
		assert.Equal(t, managed.ActionCreate, all[0].Action)
		assert.EqualValues(t, 1, all[len(all)-1].Rev)
		of, err := s.ManagedAudit(ctx, "a", 10)
		require.NoError(t, err)
		require.Len(t, of, 2)
		assert.Equal(t, managed.ActionPatch, of[0].Action)
		assert.EqualValues(t, 2, of[0].Version)
		assert.Equal(t, "ops team", of[0].Who)
		assert.JSONEq(t, `{"id":"a","status":"paused"}`, string(of[0].After))
		assert.True(t, of[0].At.Equal(at))
		one, err := s.ManagedAudit(ctx, "", 1)
		require.NoError(t, err)
		assert.Len(t, one, 1)
	})
	t.Run("an empty seed marks the set managed", func(t *testing.T) {
		s := newStore(t)
		rev, err := s.CommitManaged(ctx, managed.Commit{Seed: true})
		require.NoError(t, err)
		assert.EqualValues(t, 1, rev)
		snap, err := s.LoadManaged(ctx)
		require.NoError(t, err)
		assert.True(t, snap.Managed)
		assert.Empty(t, snap.Docs)
	})
	t.Run("concurrent writers: one wins each version", func(t *testing.T) {
		s := newStore(t)
		_, err := s.CommitManaged(ctx, managed.Commit{Seed: true, Changes: []managed.Change{change(0, doc("c", 1, `{"id":"c"}`), managed.ActionSeed)}})
		require.NoError(t, err)
		var won atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for v := int64(1); v < 20; v++ {
					_, err := s.CommitManaged(ctx, managed.Commit{Changes: []managed.Change{
						change(v, doc("c", v+1, fmt.Sprintf(`{"id":"c","w":%d}`, w)), managed.ActionPatch)}})
					if err == nil {
						won.Add(1)
					} else {
						assert.ErrorIs(t, err, managed.ErrConflict)
					}
				}
			}()
		}
		wg.Wait()
		snap, err := s.LoadManaged(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1+won.Load(), snap.Rev, "one revision per commit that won")
		assert.EqualValues(t, 1+won.Load(), byID(snap)["c"].Version)
	})
	t.Run("notices", func(t *testing.T) {
		s := newStore(t)
		n, ok := s.(managed.Notifier)
		if !ok {
			return // a store of one process has no one to tell
		}
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		revs := make(chan int64, 16)
		go n.WatchManaged(wctx, func(rev int64) { revs <- rev })
		require.Eventually(t, func() bool { // the watch reports once it listens
			select {
			case <-revs:
				return true
			default:
				return false
			}
		}, 5*time.Second, 5*time.Millisecond)
		rev, err := s.CommitManaged(ctx, managed.Commit{Seed: true})
		require.NoError(t, err)
		select {
		case got := <-revs:
			assert.Equal(t, rev, got)
		case <-time.After(5 * time.Second):
			t.Fatal("no notice of a commit within 5 s")
		}
	})
}
