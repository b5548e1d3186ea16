package managed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/memory"
)

var testNow = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

// campaign is a valid campaign document; extra fields are appended.
func campaign(id string, extra ...string) []byte {
	fields := append([]string{
		`"id":"` + id + `"`, `"advertiser":"Acme <b>"`, `"adomain":["acme.example"]`, `"cat":["IAB1"]`,
		`"status":"active"`, `"bid_cpm":1.5`, `"daily_budget":100`,
		`"creatives":[{"id":"` + id + `-cr","w":300,"h":250,"image_url":"https://acme.example/a.png","click_url":"https://acme.example/"}]`,
	}, extra...)
	return []byte("{" + strings.Join(fields, ",") + "}")
}

// served records what the service put in service.
type served struct {
	mu   sync.Mutex
	cat  *bidder.Catalog
	revs []int64
}

func (s *served) serve(_ context.Context, build func([]string) (*bidder.Catalog, error)) error {
	cat, err := build(nil)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cat = cat
	s.mu.Unlock()
	return nil
}

func (s *served) campaign(id string) (*bidder.Campaign, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat == nil {
		return nil, false
	}
	return s.cat.Campaign(id)
}

type fixture struct {
	svc    *managed.Service
	served *served
	audit  []managed.AuditEntry
}

func newService(t *testing.T, store managed.Store) *fixture {
	t.Helper()
	f := &fixture{served: &served{}}
	svc, err := managed.New(managed.Config{
		Store:     store,
		Serve:     f.served.serve,
		Exchanges: func() []string { return nil },
		Clock:     func() time.Time { return testNow },
		Audit:     func(a managed.AuditEntry) { f.audit = append(f.audit, a) },
		Applied:   func(rev int64) { f.served.mu.Lock(); f.served.revs = append(f.served.revs, rev); f.served.mu.Unlock() },
	})
	require.NoError(t, err)
	f.svc = svc
	return f
}

func started(t *testing.T, store managed.Store, file []byte) *fixture {
	t.Helper()
	f := newService(t, store)
	_, err := f.svc.Start(t.Context(), "campaigns.json", file)
	require.NoError(t, err)
	return f
}

func fileOf(docs ...[]byte) []byte { return bidder.CampaignsFile(docs) }

func TestStartSeedsOnceThenTheStateWins(t *testing.T) {
	ctx := t.Context()
	store := memory.NewManaged()
	f := newService(t, store)
	o, err := f.svc.Start(ctx, "campaigns.json", []byte(`{"campaigns":[`+string(campaign("a", `"typo_field":1`))+`,`+string(campaign("b"))+`]}`))
	require.NoError(t, err)
	assert.True(t, o.Seeded)
	assert.Equal(t, 2, o.Campaigns)
	require.Len(t, o.Ignored, 1, "the file loader ignores unknown fields; the seed drops them and says so")
	assert.Equal(t, "campaigns[0].typo_field", o.Ignored[0].Field)
	d, ok := f.svc.Get("a")
	require.True(t, ok)
	assert.EqualValues(t, 1, d.Version)
	assert.Equal(t, "-campaigns campaigns.json", d.By)
	assert.NotContains(t, string(d.JSON), "typo_field")
	require.Len(t, f.audit, 2)
	assert.Equal(t, managed.ActionSeed, f.audit[0].Action)

	// A second start reads the state and ignores the (different) file.
	g := newService(t, store)
	o, err = g.svc.Start(ctx, "campaigns.json", fileOf(campaign("c")))
	require.NoError(t, err)
	assert.False(t, o.Seeded)
	assert.Equal(t, 2, o.Campaigns)
	_, ok = g.svc.Get("c")
	assert.False(t, ok, "the file is not read once the state manages the set")

	// Even an emptied set stays managed: deleting every campaign does not
	// bring the file back at the next start.
	for _, id := range []string{"a", "b"} {
		_, err := g.svc.Delete(ctx, "ops", id, 1)
		require.NoError(t, err)
	}
	h := newService(t, store)
	o, err = h.svc.Start(ctx, "campaigns.json", fileOf(campaign("c")))
	require.NoError(t, err)
	assert.False(t, o.Seeded)
	assert.Zero(t, o.Campaigns)
}

func TestStartRefusesABadSeed(t *testing.T) {
	f := newService(t, memory.NewManaged())
	_, err := f.svc.Start(t.Context(), "campaigns.json", fileOf(campaign("a", `"pacing":"fast"`)))
	var inv *managed.InvalidError
	require.ErrorAs(t, err, &inv)
	assert.Equal(t, []bidder.FieldProblem{{Field: "campaigns[0].pacing", Problem: `must be "asap" or "even"`}}, inv.Problems)
}

func TestChanges(t *testing.T) {
	ctx := t.Context()
	f := started(t, memory.NewManaged(), fileOf(campaign("a")))

	// create
	d, err := f.svc.Create(ctx, "ops", campaign("b"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, d.Version)
	c, ok := f.served.campaign("b")
	require.True(t, ok, "served before the create returns")
	assert.True(t, c.Active)
	_, err = f.svc.Create(ctx, "ops", campaign("b"))
	assert.ErrorIs(t, err, managed.ErrExists)

	// patch: pause, then a budget
	d, err = f.svc.Patch(ctx, "ops", "b", 1, []byte(`{"status":"paused"}`))
	require.NoError(t, err)
	assert.EqualValues(t, 2, d.Version)
	c, _ = f.served.campaign("b")
	assert.False(t, c.Active, "paused in the serving set before the patch returns")
	_, err = f.svc.Patch(ctx, "ops", "b", 1, []byte(`{"daily_budget":250}`))
	var stale *managed.StaleError
	require.ErrorAs(t, err, &stale, "a stale version")
	assert.EqualValues(t, 2, stale.Have)
	d, err = f.svc.Patch(ctx, "viewer", "b", 2, []byte(`{"daily_budget":250.5,"targeting":{"countries":["US"]}}`))
	require.NoError(t, err)
	assert.EqualValues(t, 3, d.Version)
	c, _ = f.served.campaign("b")
	assert.EqualValues(t, 250_500_000, c.DailyBudget)
	assert.Equal(t, []string{"US"}, c.Targeting.Countries)
	assert.Contains(t, string(d.JSON), `"daily_budget":250.5`, "numbers exactly as written")

	// a patch that changes nothing makes no version and no audit entry
	n := len(f.audit)
	d, err = f.svc.Patch(ctx, "ops", "b", 3, []byte(`{"daily_budget":250.5}`))
	require.NoError(t, err)
	assert.EqualValues(t, 3, d.Version)
	assert.Len(t, f.audit, n)

	// a patch removing a member (null)
	d, err = f.svc.Patch(ctx, "ops", "b", 3, []byte(`{"targeting":{"countries":null}}`))
	require.NoError(t, err)
	c, _ = f.served.campaign("b")
	assert.Empty(t, c.Targeting.Countries)

	// replace
	d, err = f.svc.Replace(ctx, "ops", "b", d.Version, campaign("b", `"pacing":"even"`))
	require.NoError(t, err)
	assert.EqualValues(t, 5, d.Version)

	// delete, then create again: the version goes on
	_, err = f.svc.Delete(ctx, "ops", "b", 4)
	require.ErrorAs(t, err, &stale)
	_, err = f.svc.Delete(ctx, "ops", "b", 5)
	require.NoError(t, err)
	_, ok = f.served.campaign("b")
	assert.False(t, ok)
	_, ok = f.svc.Get("b")
	assert.False(t, ok)
	_, err = f.svc.Patch(ctx, "ops", "b", 6, []byte(`{}`))
	assert.ErrorIs(t, err, managed.ErrNotFound)
	d, err = f.svc.Create(ctx, "ops", campaign("b"))
	require.NoError(t, err)
	assert.EqualValues(t, 7, d.Version, "an ETag of the deleted campaign never matches the new one")

	// the audit: every change, newest first, with before and after
	all, err := f.svc.Audit(ctx, "b", 100)
	require.NoError(t, err)
	var actions []managed.Action
	for _, a := range all {
		actions = append(actions, a.Action)
	}
	assert.Equal(t, []managed.Action{"create", "delete", "replace", "patch", "patch", "patch", "create"}, actions)
	assert.Equal(t, "viewer", all[4].Who)
	assert.Nil(t, all[1].After, "a delete has no after")
	assert.Nil(t, all[6].Before, "a create has no before")
	var before struct {
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal(all[5].Before, &before))
	assert.Equal(t, "active", before.Status)
	assert.Len(t, f.audit, 8, "each committed change reached the event log's hook (the seed's too)")
}

func TestInvalidChangesNameEveryProblem(t *testing.T) {
	ctx := t.Context()
	f := started(t, memory.NewManaged(), fileOf(campaign("a")))
	for _, tc := range []struct {
		name  string
		do    func() error
		wants []bidder.FieldProblem
	}{
		{"typos and bad values at once", func() error {
			_, err := f.svc.Create(ctx, "ops", []byte(`{"id":"x","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active",
				"bid_cpm":1,"daily_budgte":100,"creatives":[{"id":"c","w":0,"h":250,"image_url":"https://a/","click_url":"https://a/","colour":"red"}]}`))
			return err
		}, []bidder.FieldProblem{
			{Field: "creatives[0].colour", Problem: "unknown field"},
			{Field: "daily_budgte", Problem: "unknown field"},
			{Field: "creatives[0].w", Problem: "must be an integer 1–10000"},
		}},
		{"a patch into an invalid campaign", func() error {
			_, err := f.svc.Patch(ctx, "ops", "a", 1, []byte(`{"bid_cpm":-1,"status":"stopped"}`))
			return err
		}, []bidder.FieldProblem{
			{Field: "status", Problem: `must be "active" or "paused"`},
			{Field: "bid_cpm", Problem: "must not be negative"},
		}},
		{"a patch of the id", func() error {
			_, err := f.svc.Patch(ctx, "ops", "a", 1, []byte(`{"id":"b"}`))
			return err
		}, []bidder.FieldProblem{{Field: "id", Problem: "is the campaign's name in its URL (a): it cannot change"}}},
		{"a patch that is not JSON", func() error {
			_, err := f.svc.Patch(ctx, "ops", "a", 1, []byte(`{"status":`))
			return err
		}, []bidder.FieldProblem{{Problem: "the merge patch is not JSON"}}},
		{"a document that is not an object", func() error {
			_, err := f.svc.Replace(ctx, "ops", "a", 1, []byte(`[1]`))
			return err
		}, []bidder.FieldProblem{{Problem: "a campaign must be a JSON object"}}},
		{"a wrong type", func() error {
			_, err := f.svc.Replace(ctx, "ops", "a", 1, campaign("a", `"deals":"d1"`))
			return err
		}, []bidder.FieldProblem{{Field: "deals", Problem: "must be a JSON list, not string"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			var inv *managed.InvalidError
			require.ErrorAs(t, err, &inv)
			assert.ElementsMatch(t, tc.wants, inv.Problems)
		})
	}
	d, _ := f.svc.Get("a")
	assert.EqualValues(t, 1, d.Version, "nothing invalid was committed")
}

func TestImport(t *testing.T) {
	ctx := t.Context()
	f := started(t, memory.NewManaged(), fileOf(campaign("a"), campaign("b"), campaign("c")))
	_, rev := f.svc.List(managed.Filter{})
	_, err := f.svc.Import(ctx, "ops", rev+1, fileOf(campaign("a")))
	assert.ErrorIs(t, err, managed.ErrRevChanged)
	res, err := f.svc.Import(ctx, "ops", rev, fileOf(campaign("a"), campaign("b", `"status":"paused"`), campaign("d")))
	require.NoError(t, err)
	assert.Equal(t, managed.ImportResult{Created: 1, Replaced: 1, Deleted: 1, Unchanged: 1, Rev: rev + 1}, res)
	items, _ := f.svc.List(managed.Filter{})
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	assert.Equal(t, []string{"a", "b", "d"}, ids)
	_, err = f.svc.Import(ctx, "ops", res.Rev, []byte(`{"campaigns":[{"id":"x","extra":1}]}`))
	var inv *managed.InvalidError
	require.ErrorAs(t, err, &inv)
	assert.Contains(t, inv.Problems, bidder.FieldProblem{Field: "campaigns[0].extra", Problem: "unknown field"})
	export, erev := f.svc.Export()
	assert.Equal(t, res.Rev, erev)
	g := newService(t, memory.NewManaged())
	_, err = g.svc.Start(ctx, "export.json", export)
	require.NoError(t, err, "an export seeds another dspd")
	got, _ := g.svc.Export()
	assert.Equal(t, string(export), string(got))
}

func TestListFilters(t *testing.T) {
	f := started(t, memory.NewManaged(), fileOf(campaign("summer-sale"), campaign("winter", `"status":"paused"`),
		[]byte(strings.Replace(string(campaign("z")), `"Acme <b>"`, `"Globex"`, 1))))
	for _, tc := range []struct {
		f    managed.Filter
		want []string
	}{
		{managed.Filter{}, []string{"summer-sale", "winter", "z"}},
		{managed.Filter{Status: "paused"}, []string{"winter"}},
		{managed.Filter{Status: "active"}, []string{"summer-sale", "z"}},
		{managed.Filter{Q: "SUMMER"}, []string{"summer-sale"}},
		{managed.Filter{Q: "globex"}, []string{"z"}},
		{managed.Filter{Q: "acme", Status: "active"}, []string{"summer-sale"}},
	} {
		items, _ := f.svc.List(tc.f)
		var ids []string
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		assert.Equal(t, tc.want, ids, "%+v", tc.f)
	}
}

// TestTwoReplicas: two services on one store, as two dspds on one Redis.
// A change one makes reaches the other at its resync; a change the other
// makes from a stale view is refused as stale, and the view caught up.
func TestTwoReplicas(t *testing.T) {
	ctx := t.Context()
	store := memory.NewManaged()
	a := started(t, store, fileOf(campaign("x")))
	b := started(t, store, fileOf(campaign("ignored")))
	_, err := a.svc.Patch(ctx, "ops", "x", 1, []byte(`{"status":"paused"}`))
	require.NoError(t, err)
	_, err = b.svc.Patch(ctx, "ops2", "x", 1, []byte(`{"daily_budget":5}`))
	var stale *managed.StaleError
	require.ErrorAs(t, err, &stale, "b's view was stale: the store's compare-and-set refuses")
	assert.EqualValues(t, 2, stale.Have)
	d, _ := b.svc.Get("x")
	assert.EqualValues(t, 2, d.Version, "the refusal brought b's view up to date")
	c, _ := b.served.campaign("x")
	assert.False(t, c.Active, "and its serving set")

	_, err = a.svc.Create(ctx, "ops", campaign("y"))
	require.NoError(t, err)
	require.NoError(t, b.svc.Resync(ctx))
	_, ok := b.served.campaign("y")
	assert.True(t, ok)
	// b creates what a deleted meanwhile: the tombstone's version is the store's
	_, err = a.svc.Delete(ctx, "ops", "y", 1)
	require.NoError(t, err)
	d, err = b.svc.Create(ctx, "ops2", campaign("y"))
	require.NoError(t, err, "a create retries once after catching up")
	assert.EqualValues(t, 3, d.Version)
}

// TestRunFollowsTheStore: Run picks up another writer's commits (here by
// the revision check, the memory store having no notices).
func TestRunFollowsTheStore(t *testing.T) {
	store := memory.NewManaged()
	a := started(t, store, fileOf(campaign("x")))
	b := newService(t, store)
	svc, err := managed.New(managed.Config{Store: store, Serve: b.served.serve, Exchanges: func() []string { return nil },
		ResyncEvery: time.Millisecond})
	require.NoError(t, err)
	_, err = svc.Start(t.Context(), "f", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go svc.Run(ctx)
	for i := range 5 {
		_, err := a.svc.Patch(t.Context(), "ops", "x", int64(i+1), []byte(fmt.Sprintf(`{"bid_cpm":%d}`, i+2)))
		require.NoError(t, err)
	}
	// Served, not Rev: a revision is adopted before it is put in service.
	require.Eventually(t, func() bool { return svc.Served() == a.svc.Rev() }, 5*time.Second, time.Millisecond)
	c, ok := b.served.campaign("x")
	require.True(t, ok)
	assert.EqualValues(t, 6_000_000, c.BidCPM)
}
