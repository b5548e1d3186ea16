package api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api/admin"
)

func TestHealthAndReadiness(t *testing.T) {
	srv := newTestServer(t, "")
	assert.Equal(t, http.StatusOK, get(srv.admin, "/healthz").Code)
	w := get(srv.admin, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "no campaigns yet")
	assert.JSONEq(t, `{"status":"loading"}`, w.Body.String())

	srv.SetCampaignsPath(testdataCampaigns)
	_, err := srv.Reload(t.Context())
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, get(srv.admin, "/readyz").Code)

	srv.SetDraining()
	w = get(srv.admin, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.JSONEq(t, `{"status":"draining"}`, w.Body.String())
	assert.Equal(t, http.StatusOK, get(srv.admin, "/healthz").Code)
}

func TestReload(t *testing.T) {
	good := `{"id":"c1","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":1,
	  "creatives":[{"id":"cr","w":300,"h":250,"image_url":"https://a.example/i","click_url":"https://a.example/"}]}`
	path := writeCampaigns(t, good)
	srv := newTestServer(t, path)
	reload := func() *httptest.ResponseRecorder { return postReload(srv.admin) }
	w := reload()
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `{"campaigns":1,"exchanges":1,"campaigns_from":"file"}`, w.Body.String())

	// A file with two errors is rejected whole, naming both; the old set
	// keeps serving.
	bad := strings.Replace(good, `"w":300`, `"w":0`, 1)
	bad2 := strings.Replace(strings.Replace(good, `"c1"`, `"c2"`, 1), `"active"`, `"on"`, 1)
	require.NoError(t, os.WriteFile(path, []byte(`{"campaigns":[`+bad+`,`+bad2+`]}`), 0o644))
	w = reload()
	require.Equal(t, http.StatusBadRequest, w.Code)
	var e struct{ Error, Message string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
	assert.Equal(t, "invalid_campaigns", e.Error)
	assert.Contains(t, e.Message, "campaign c1: creatives[0].w: must be an integer 1–10000")
	assert.Contains(t, e.Message, `campaign c2: status: must be "active" or "paused"`)
	assert.Equal(t, http.StatusOK, postForm(srv.public, validBody).Code, "the old set still bids")

	require.NoError(t, os.Remove(path))
	w = reload()
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Contains(t, w.Body.String(), "reload_failed")
	assert.Equal(t, http.StatusOK, postForm(srv.public, validBody).Code)

	assert.Equal(t, http.StatusMethodNotAllowed, get(srv.admin, "/admin/reload").Code)

	metrics := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, metrics, `dspd_reloads_total{result="failed"} 2`)
	assert.Contains(t, metrics, `dspd_reloads_total{result="ok"} 2`)
}

func TestStatsErrors(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	tests := []struct {
		query  string
		status int
		code   string
	}{
		{"", 400, "missing_field"},
		{"campaign=c-0001&day=2026-13-01", 400, "invalid_field"},
		{"campaign=c-0001&day=yesterday", 400, "invalid_field"},
		{"campaign=nope", 404, "unknown_campaign"},
	}
	for _, tt := range tests {
		w := get(srv.admin, "/admin/stats?"+tt.query)
		require.Equal(t, tt.status, w.Code, tt.query)
		assert.Equal(t, tt.code, decodeError(t, w).Error, tt.query)
	}
	// A known campaign without counters answers zeros, for today by default.
	w := get(srv.admin, "/admin/stats?campaign=c-0001")
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `{"campaign":"c-0001","day":"2026-11-04","bids":0,"wins":0,"spend_micros":0}`, w.Body.String())
}

func TestMetricsAndPprof(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	postForm(srv.public, readFile(t, "../testdata/post.data"))
	postForm(srv.public, validBody+"&cur=EUR")
	postForm(srv.public, "id=x")
	get(srv.public, "/dsp/win?bidid=00000000000000000000000000000bad&price=1")

	w := get(srv.admin, "/metrics")
	require.Equal(t, http.StatusOK, w.Code)
	body := w.Body.String()
	for _, want := range []string{
		`dspd_recbid_requests_total{exchange="default",outcome="bid"} 1`,
		`dspd_recbid_requests_total{exchange="default",outcome="nobid"} 1`,
		`dspd_recbid_requests_total{exchange="default",outcome="rejected"} 1`,
		`dspd_nobid_total{exchange="default",reason="currency"} 1`,
		`dspd_http_errors_total{code="missing_field",endpoint="recbid"} 1`,
		`dspd_http_errors_total{code="unknown_bid",endpoint="win"} 1`,
		`dspd_win_notices_total{exchange="default",outcome="rejected"} 1`,
		`dspd_decision_seconds_count 2`,
		`dspd_bid_store_records 1`,
		`dspd_campaigns 1160`,
		`dspd_spend_micros_total{exchange="default"} 0`,
		`dspd_ledger_day_counters 2`, // the day of every exchange, and of exchange default,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		assert.Contains(t, body, want)
	}
	w = get(srv.admin, "/debug/pprof/")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), "goroutine")
	w = get(srv.admin, "/debug/pprof/heap?debug=1")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, http.StatusNotFound, get(srv.admin, "/dsp/recbid").Code, "bidding is not on the admin listener")
}

// TestReloadRefusesAnEmptyCampaignsFile: a reload to a file with no
// campaign, which would stop all bidding, is refused (the old set serves
// on) unless -allow-empty-campaigns; at start such a file serves, with a
// warning.
func TestReloadRefusesAnEmptyCampaignsFile(t *testing.T) {
	empty := writeCampaigns(t)
	for _, allow := range []bool{false, true} {
		srv := buildTestServer(t, testdataCampaigns, serverOptions{empty: allow})
		srv.SetCampaignsPath(empty)
		w := postReload(srv.admin)
		if !allow {
			require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), `"error":"invalid_campaigns"`)
			assert.Contains(t, w.Body.String(), "no campaigns: a reload would stop all bidding")
			assert.Equal(t, http.StatusOK, postForm(srv.public, validBody).Code, "the old set still bids")
			continue
		}
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		assert.JSONEq(t, `{"campaigns":0,"exchanges":1,"campaigns_from":"file"}`, w.Body.String())
		assert.Equal(t, http.StatusNoContent, postForm(srv.public, validBody).Code)
	}

	var logs bytes.Buffer
	atStart := newTestServer(t, "")
	atStart.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	atStart.SetCampaignsPath(empty)
	_, err := atStart.Reload(t.Context())
	require.NoError(t, err, "at start an empty file serves")
	assert.Contains(t, logs.String(), "no campaigns: no bids until some are added")
}

// TestReloadBoundsTheCampaignsFile: a campaigns file over
// -max-campaigns-bytes, a device among them, is refused before it is held
// whole; the old set serves on.
func TestReloadBoundsTheCampaignsFile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		maxFile int64
		path    string
	}{
		{"an endless device", 1 << 20, "/dev/zero"},
		{"a file over the bound", 1000, testdataCampaigns},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, testdataCampaigns)
			srv.SetMaxCampaignsBytes(tt.maxFile)
			srv.SetCampaignsPath(tt.path)
			w := postReload(srv.admin)
			require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), `"error":"invalid_campaigns"`)
			assert.Contains(t, w.Body.String(), "(-max-campaigns-bytes)")
			assert.Equal(t, http.StatusOK, postForm(srv.public, validBody).Code, "the old set still bids")
		})
	}
}

// TestAdminRefusesCrossSiteRequests: a reload needs Content-Type:
// application/json, which no web page can send to another origin without
// a preflight; a form or text/plain POST (what a page can send) is 415 and
// reloads nothing.
func TestAdminRefusesCrossSiteRequests(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"} {
		r := httptest.NewRequest(http.MethodPost, "/admin/reload", strings.NewReader("{}"))
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		srv.admin.ServeHTTP(w, r)
		assert.Equal(t, http.StatusUnsupportedMediaType, w.Code, "Content-Type %q", ct)
		assert.Contains(t, w.Body.String(), `"error":"unsupported_media_type"`)
	}
	metrics := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, metrics, `dspd_reloads_total{result="ok"} 1`, "only the start's load")
	for _, ct := range []string{"application/json", "application/json; charset=utf-8"} {
		r := httptest.NewRequest(http.MethodPost, "/admin/reload", nil)
		r.Header.Set("Content-Type", ct)
		w := httptest.NewRecorder()
		srv.admin.ServeHTTP(w, r)
		assert.Equal(t, http.StatusOK, w.Code, "Content-Type %q", ct)
	}
}

// TestAdminToken: with a token, every admin route but the probes needs it,
// compared whole.
func TestAdminToken(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	token := strings.Repeat("k", 40)
	h := admin.Handler(srv.Server, token)
	ask := func(method, path, auth string) int {
		r := httptest.NewRequest(method, path, nil)
		r.Header.Set("Content-Type", "application/json")
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		assert.Equal(t, http.StatusOK, ask(http.MethodGet, path, ""), "%s stays open for probes", path)
	}
	routes := []struct{ method, path string }{
		{http.MethodGet, "/metrics"}, {http.MethodGet, "/debug/pprof/cmdline"},
		{http.MethodGet, "/admin/stats?campaign=c-0790"}, {http.MethodPost, "/admin/reload"},
	}
	for _, rt := range routes {
		for _, auth := range []string{"", "Bearer " + token[:39], "Bearer " + token + "k", "Basic " + token, token} {
			assert.Equal(t, http.StatusUnauthorized, ask(rt.method, rt.path, auth), "%s %s with %q", rt.method, rt.path, auth)
		}
		assert.NotEqual(t, http.StatusUnauthorized, ask(rt.method, rt.path, "Bearer "+token), "%s %s", rt.method, rt.path)
		assert.NotEqual(t, http.StatusUnauthorized, ask(rt.method, rt.path, "bearer "+token), "the scheme in any case")
	}
}

// TestAdminAnswersInJSON: a query that is not url-encoding is bad_query
// (not a missing campaign), and a wrong method is a JSON 405 naming the
// method the route takes.
func TestAdminAnswersInJSON(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	w := get(srv.admin, "/admin/stats?campaign=%zz")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"error":"bad_query"`)
	for _, tt := range []struct{ method, path, allow string }{
		{http.MethodDelete, "/healthz", "GET"}, {http.MethodGet, "/admin/reload", "POST"}, {"PRI", "/admin/stats", "GET"},
	} {
		w := httptest.NewRecorder()
		srv.admin.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, "%s %s", tt.method, tt.path)
		assert.Equal(t, tt.allow, w.Header().Get("Allow"))
		assert.Contains(t, w.Body.String(), `"error":"method_not_allowed"`)
	}
}

// TestUnknownMethodsAnswerInJSON: a method chi does not know (HTTP/2's
// preface PRI, an extension method) is answered by the core as any other
// method is: 405 with Allow on an endpoint's path, 404 elsewhere, in JSON.
func TestUnknownMethodsAnswerInJSON(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	for _, tt := range []struct {
		method, target string
		status         int
		allow          string
	}{
		{"PRI", "*", http.StatusNotFound, ""},
		{"FOO", "/dsp/recbid", http.StatusMethodNotAllowed, "POST"},
		{"FOO", "/openrtb2/bid", http.StatusMethodNotAllowed, "POST"},
		{"FOO", "/dsp/win?bidid=1&price=1", http.StatusMethodNotAllowed, "GET"},
		{"FOO", "/elsewhere", http.StatusNotFound, ""},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Method, r.RequestURI = tt.method, tt.target
		r.URL, _ = url.ParseRequestURI(tt.target)
		w := httptest.NewRecorder()
		srv.public.ServeHTTP(w, r)
		assert.Equal(t, tt.status, w.Code, "%s %s", tt.method, tt.target)
		assert.Equal(t, tt.allow, w.Header().Get("Allow"), "%s %s", tt.method, tt.target)
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"), "%s %s", tt.method, tt.target)
	}
}
