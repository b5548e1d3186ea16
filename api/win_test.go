package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// bidFor posts body and returns the bid id and price of the bid it gets.
func bidFor(t *testing.T, srv *testServer, body string) (bidID, cid string, price bidder.Micros) {
	t.Helper()
	w := postForm(srv.public, body)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var resp struct {
		BidID   string `json:"bidid"`
		SeatBid []struct {
			Bid []struct {
				CID   string      `json:"cid"`
				Price json.Number `json:"price"`
			} `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	b := resp.SeatBid[0].Bid[0]
	p, err := bidder.ParseMicros(b.Price.String())
	require.NoError(t, err)
	return resp.BidID, b.CID, p
}

func stats(t *testing.T, srv *testServer, cid, day string) map[string]any {
	t.Helper()
	w := get(srv.admin, "/admin/stats?campaign="+cid+"&day="+day)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v))
	return v
}

func TestWinNotice(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	post := readFile(t, "../testdata/post.data")
	bidID, cid, price := bidFor(t, srv, post)
	const day = "2026-11-04" // post.data's ts
	over := (price + 1).String()

	tests := []struct {
		name, method, query string
		status              int
		code, field         string
		duplicate           bool
	}{
		{name: "POST", method: "POST", query: "bidid=" + bidID + "&price=1", status: 405, code: "method_not_allowed"},
		{name: "bad query", query: "bidid=" + bidID + "&price=%zz", status: 400, code: "bad_query"},
		{name: "bidid missing", query: "price=1", status: 400, code: "missing_field", field: "bidid"},
		{name: "bidid empty", query: "bidid=&price=1", status: 400, code: "missing_field", field: "bidid"},
		{name: "price missing", query: "bidid=" + bidID, status: 400, code: "missing_field", field: "price"},
		{name: "price macro not filled", query: "bidid=" + bidID + "&price=${AUCTION_PRICE}", status: 400, code: "invalid_field", field: "price"},
		{name: "price negative", query: "bidid=" + bidID + "&price=-1", status: 400, code: "invalid_field", field: "price"},
		{name: "price 7 decimals", query: "bidid=" + bidID + "&price=0.1234567", status: 400, code: "invalid_field", field: "price"},
		{name: "price zero", query: "bidid=" + bidID + "&price=0", status: 400, code: "invalid_field", field: "price"},
		{name: "price zero, written long", query: "bidid=" + bidID + "&price=0.000000", status: 400, code: "invalid_field", field: "price"},
		{name: "unknown bid", query: "bidid=00000000000000000000000000000bad&price=1", status: 404, code: "unknown_bid", field: "bidid"},
		{name: "malformed bid id", query: "bidid=xyz&price=1", status: 404, code: "unknown_bid", field: "bidid"},
		{name: "price above the bid", query: "bidid=" + bidID + "&price=" + over, status: 400, code: "invalid_field", field: "price"},
		{name: "first notice", query: "bidid=" + bidID + "&price=0.42", status: 204},
		{name: "price checked before the duplicate test", query: "bidid=" + bidID + "&price=" + over, status: 400, code: "invalid_field", field: "price"},
		{name: "repeat", query: "bidid=" + strings.ToUpper(bidID) + "&price=0.42", status: 204, duplicate: true},
		{name: "repeat at another price", query: "bidid=" + bidID + "&price=0.1", status: 204, duplicate: true},
	}
	for _, tt := range tests { // in order: rows see the state earlier rows left
		method := tt.method
		if method == "" {
			method = http.MethodGet
		}
		w := httptest.NewRecorder()
		srv.public.ServeHTTP(w, httptest.NewRequest(method, "/dsp/win?"+tt.query, nil))
		require.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body.String())
		if tt.status == 204 {
			assert.Empty(t, w.Body.Bytes(), tt.name)
			if tt.duplicate {
				assert.Equal(t, "1", w.Header().Get("X-Win-Duplicate"), tt.name)
			} else {
				assert.Empty(t, w.Header().Values("X-Win-Duplicate"), tt.name)
			}
			continue
		}
		e := decodeError(t, w)
		assert.Equal(t, tt.code, e.Error, tt.name)
		assert.Equal(t, tt.field, e.Field, tt.name)
		if tt.status == 405 {
			assert.Equal(t, "GET", w.Header().Get("Allow"))
		}
	}
	st := stats(t, srv, cid, day)
	assert.Equal(t, map[string]any{"campaign": cid, "day": day, "bids": 1.0, "wins": 1.0, "spend_micros": 420000.0}, st)
}

func TestWinNoticeTestBidRecordsNothing(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	post := strings.Replace(readFile(t, "../testdata/post.data"), "test=0", "test=1", 1)
	bidID, cid, _ := bidFor(t, srv, post)
	w := get(srv.public, "/dsp/win?bidid="+bidID+"&price=0.5")
	require.Equal(t, http.StatusNoContent, w.Code)
	w = get(srv.public, "/dsp/win?bidid="+bidID+"&price=0.5")
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "1", w.Header().Get("X-Win-Duplicate"))
	v := stats(t, srv, cid, "2026-11-04") // the campaign is known: 200 with its (zero) counters
	assert.Equal(t, 0.0, v["bids"])
	assert.Equal(t, 0.0, v["wins"])
	assert.Equal(t, 0.0, v["spend_micros"])
}

// movableServer is a test server whose clock the test moves.
func movableServer(t *testing.T, path string, trustTS bool) (*testServer, *atomic.Int64) {
	t.Helper()
	var now atomic.Int64
	now.Store(testNow.UnixMilli())
	return buildTestServer(t, path, serverOptions{trustTS: trustTS,
		clock: func() time.Time { return time.UnixMilli(now.Load()).UTC() }}), &now
}

// sequenceCampaign is a campaign of the bid/win sequences below.
func sequenceCampaign(id, extra string) string {
	return `{"id":"` + id + `","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":2,` + extra +
		`"creatives":[{"id":"cr","w":300,"h":250,"image_url":"https://a.example/i","click_url":"https://a.example/"}]}`
}

// TestWinsDriveFrequencyAndBudget plays bid/win sequences through HTTP: a
// frequency-capped campaign stops bidding for a user after its cap until
// the server clock reaches the next window, and a campaign stops when the
// next bid would pass its daily budget until the next UTC day.
func TestWinsDriveFrequencyAndBudget(t *testing.T) {
	t.Run("frequency", func(t *testing.T) {
		srv, now := movableServer(t, writeCampaigns(t, sequenceCampaign("capped", `"freq_cap":{"impressions":2,"period_s":3600},`)), false)
		body := validBody + "&uid=user-1"
		for range 2 {
			id, _, _ := bidFor(t, srv, body)
			require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=1").Code)
		}
		w := postForm(srv.public, body)
		assert.Equal(t, http.StatusNoContent, w.Code)
		assert.Equal(t, "freq_cap", w.Header().Get("X-Nobid-Reason"))
		assert.Equal(t, http.StatusOK, postForm(srv.public, validBody+"&uid=user-2").Code, "another user")
		now.Add(time.Hour.Milliseconds())
		assert.Equal(t, http.StatusOK, postForm(srv.public, body).Code, "the next hour's window")
	})
	t.Run("budget", func(t *testing.T) {
		// 0.005 USD a day = 5,000,000 CPM micros: two wins at 2 CPM leave
		// 1,000,000, less than the next bid of 2,000,000.
		srv, now := movableServer(t, writeCampaigns(t, sequenceCampaign("small", `"daily_budget":0.005,`)), false)
		for range 2 {
			id, _, _ := bidFor(t, srv, validBody)
			require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=2").Code)
		}
		w := postForm(srv.public, validBody)
		assert.Equal(t, "budget", w.Header().Get("X-Nobid-Reason"))
		now.Add(24 * time.Hour.Milliseconds())
		assert.Equal(t, http.StatusOK, postForm(srv.public, validBody).Code, "the next UTC day")
		assert.Equal(t, map[string]any{"campaign": "small", "day": "2026-11-04", "bids": 2.0, "wins": 2.0, "spend_micros": 4000000.0},
			stats(t, srv, "small", "2026-11-04"))
	})
}

// TestRequestTimeIsTheServerClock: no value of ts moves money. A campaign
// that has spent its budget answers budget whatever day ts names, a user at
// a frequency cap stays capped whatever window ts names, and a flight that
// has ended (or not begun) on the server clock does not bid for a ts inside
// it. The wins' spend lands on the server clock's day.
func TestRequestTimeIsTheServerClock(t *testing.T) {
	campaigns := writeCampaigns(t,
		sequenceCampaign("small", `"daily_budget":0.002,`), // one bid's worth
		strings.Replace(sequenceCampaign("capped", `"freq_cap":{"impressions":1,"period_s":3600},`), `"w":300`, `"w":320`, 1),
		strings.Replace(sequenceCampaign("ended", `"end":"2026-11-01T00:00:00Z",`), `"w":300`, `"w":728`, 1))
	srv := newTestServer(t, campaigns)
	id, _, _ := bidFor(t, srv, validBody)
	require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=2").Code)
	capped := "id=r&imp_id=1&w=320&h=250&uid=user-1"
	id, _, _ = bidFor(t, srv, capped)
	require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=1").Code)

	year := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for d := range 366 {
		ts := strconv.FormatInt(year.AddDate(0, 0, d).UnixMilli(), 10)
		w := postForm(srv.public, "id=r&imp_id=1&w=300&h=250&ts="+ts)
		require.Equal(t, http.StatusNoContent, w.Code, "ts %s", ts)
		require.Equal(t, "budget", w.Header().Get("X-Nobid-Reason"), "ts %s", ts)
		w = postForm(srv.public, capped+"&ts="+ts)
		require.Equal(t, "freq_cap", w.Header().Get("X-Nobid-Reason"), "ts %s: the cap holds across ts windows", ts)
		w = postForm(srv.public, "id=r&imp_id=1&w=728&h=250&ts="+ts)
		require.Equal(t, "no_match", w.Header().Get("X-Nobid-Reason"), "ts %s: the flight ended on the server clock", ts)
	}
	assert.Equal(t, map[string]any{"campaign": "small", "day": "2026-11-04", "bids": 1.0, "wins": 1.0, "spend_micros": 2000000.0},
		stats(t, srv, "small", "2026-11-04"))
	w := postForm(srv.public, "id=r&imp_id=1&w=300&h=250&ts=1.5")
	assert.Equal(t, http.StatusBadRequest, w.Code, "ts is still validated")
}

// TestTrustRequestTS: with -trust-request-ts, ts is the request time, as in
// version 1 (replays of recorded traffic): a new day in ts is a new budget
// day and a new window a new frequency count.
func TestTrustRequestTS(t *testing.T) {
	campaigns := writeCampaigns(t,
		sequenceCampaign("small", `"daily_budget":0.002,`),
		strings.Replace(sequenceCampaign("capped", `"freq_cap":{"impressions":1,"period_s":3600},`), `"w":300`, `"w":320`, 1))
	srv := newReplayServer(t, campaigns)
	const nov2 = "ts=1793606400000" // 2026-11-02 08:00 UTC, two days before the server clock
	small := "id=r&imp_id=1&w=300&h=250&" + nov2
	id, _, _ := bidFor(t, srv, small)
	require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=2").Code)
	assert.Equal(t, "budget", postForm(srv.public, small).Header().Get("X-Nobid-Reason"))
	assert.Equal(t, http.StatusOK, postForm(srv.public, "id=r&imp_id=1&w=300&h=250&ts=1793692800000").Code, "the next UTC day in ts")
	assert.Equal(t, 1.0, stats(t, srv, "small", "2026-11-02")["wins"], "the win is booked on the bid's ts day")

	capped := "id=r&imp_id=1&w=320&h=250&uid=user-1&" + nov2
	id, _, _ = bidFor(t, srv, capped)
	require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=1").Code)
	assert.Equal(t, "freq_cap", postForm(srv.public, capped).Header().Get("X-Nobid-Reason"))
	assert.Equal(t, http.StatusOK, postForm(srv.public, "id=r&imp_id=1&w=320&h=250&uid=user-1&ts=1793610000000").Code,
		"the next hour's window in ts")
	assert.Equal(t, http.StatusOK, postForm(srv.public, "id=r&imp_id=1&w=320&h=250&uid=user-1").Code,
		"without ts, the server clock's window")
}
