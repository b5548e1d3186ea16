package reconcile_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events/reconcile"
)

const adminToken = "0123456789abcdef0123456789abcdef"

// fakeAdmin answers GET /admin/stats as api/admin does: the counters of
// books, zeros for a campaign it knows without counters, 404
// unknown_campaign for any other; 401 without the token. It records the
// keys it was asked for.
type fakeAdmin struct {
	books map[reconcile.Key]bidder.DayStats
	known map[string]bool
	mu    sync.Mutex
	asked []reconcile.Key
}

func (f *fakeAdmin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+adminToken {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":"unauthorized","field":"","message":"the admin listener needs its token: Authorization: Bearer …"}`)
		return
	}
	if r.URL.Path != "/admin/stats" {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"not_found","field":"","message":"no such path"}`)
		return
	}
	q := r.URL.Query()
	k := reconcile.Key{Campaign: q.Get("campaign"), Exchange: q.Get("exchange")}
	f.mu.Lock()
	f.asked = append(f.asked, k)
	f.mu.Unlock()
	st, ok := f.books[k]
	if !ok && !f.known[k.Campaign] {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"unknown_campaign","field":"campaign","message":"no such campaign and no counters for it"}`)
		return
	}
	ex := ""
	if k.Exchange != "" {
		ex = fmt.Sprintf(`,"exchange":%q`, k.Exchange)
	}
	fmt.Fprintf(w, `{"campaign":%q%s,"day":%q,"bids":%d,"wins":%d,"spend_micros":%d}`, k.Campaign, ex, q.Get("day"), st.Bids, st.Wins, st.Spend)
}

func TestAdminLedger(t *testing.T) {
	books := fixtureLedger()
	delete(books, reconcile.Key{Campaign: "c-2", Exchange: "x1"})
	books[reconcile.Key{Campaign: "c-9"}] = bidder.DayStats{Wins: 1, Spend: 2_000_000}
	admin := &fakeAdmin{books: books, known: map[string]bool{"c-2": true, "c-8": true}}
	srv := httptest.NewServer(admin)
	defer srv.Close()

	dir := writeLog(t, t.TempDir(), false, fixture()...)
	ledger := &reconcile.AdminLedger{URL: srv.URL + "/", Token: adminToken, Campaigns: []string{"c-9", "c-8", "c-1"}}
	r, err := reconcile.Compare(context.Background(), sum(t, dir), ledger)
	require.NoError(t, err)
	assert.Equal(t, []reconcile.Difference{
		{Key: reconcile.Key{Campaign: "c-2", Exchange: "x1"}, Field: reconcile.FieldBids, Log: 1, Ledger: 0},
		{Key: reconcile.Key{Campaign: "c-9"}, Field: reconcile.FieldWins, Log: 0, Ledger: 1},
		{Key: reconcile.Key{Campaign: "c-9"}, Field: reconcile.FieldSpend, Log: 0, Ledger: 2_000_000},
	}, r.Differences)
	assert.Equal(t, []string{"c-9"}, r.OnlyInLedger, "found through the campaigns asked for")
	assert.Equal(t, []reconcile.Key{
		{Campaign: "c-1"}, {Campaign: "c-1", Exchange: "x1"}, {Campaign: "c-1", Exchange: "x2"},
		{Campaign: "c-2"}, {Campaign: "c-2", Exchange: "x1"}, {Campaign: "c-8"}, {Campaign: "c-9"},
	}, admin.asked, "each key once")
	for _, row := range r.Rows {
		if row.Key == (reconcile.Key{Campaign: "c-2", Exchange: "x1"}) {
			assert.True(t, row.InLedger, "c-2 is known: zeros, not absent")
		}
	}
}

func TestAdminLedgerErrors(t *testing.T) {
	srv := httptest.NewServer(&fakeAdmin{known: map[string]bool{"c-1": true}})
	defer srv.Close()
	tests := []struct {
		name   string
		ledger reconcile.AdminLedger
		err    string
	}{
		{"no token", reconcile.AdminLedger{URL: srv.URL}, "401: the admin listener wants its bearer token"},
		{"a wrong path", reconcile.AdminLedger{URL: srv.URL + "/elsewhere", Token: adminToken}, "404 Not Found"},
		{"not a URL", reconcile.AdminLedger{URL: "127.0.0.1:6060"}, "is not http://HOST:PORT"},
		{"nobody listening", reconcile.AdminLedger{URL: "http://127.0.0.1:1"}, "admin listener"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.ledger.DayStats(context.Background(), day, []reconcile.Key{{Campaign: "c-1"}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// TestAdminLedgerChecksTheAnswer: an answer for another campaign or day is
// refused.
func TestAdminLedgerChecksTheAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"campaign":"c-1","day":"2026-11-30","bids":1,"wins":0,"spend_micros":0}`)
	}))
	defer srv.Close()
	_, err := (&reconcile.AdminLedger{URL: srv.URL}).DayStats(context.Background(), day, []reconcile.Key{{Campaign: "c-1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `answered for campaign "c-1", exchange "", day 2026-11-30`)
}

func TestReadCampaignIDs(t *testing.T) {
	ids, err := reconcile.ReadCampaignIDs("../../testdata/campaigns.json")
	require.NoError(t, err)
	assert.Len(t, ids, 1160)
	assert.Equal(t, "c-0001", ids[0])
}
