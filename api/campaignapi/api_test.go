package campaignapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api/admin"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/managedtest"
)

// spec checks every answer of these tests against docs/openapi.yaml.
var spec = sync.OnceValues(func() (validator.Validator, error) {
	b, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(b)
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("docs/openapi.yaml: %v", errs)
	}
	return v, nil
})

func TestOpenAPIDocumentIsValid(t *testing.T) {
	v, err := spec()
	require.NoError(t, err)
	ok, errs := v.ValidateDocument()
	for _, e := range errs {
		t.Errorf("docs/openapi.yaml: %s: %s", e.Message, e.Reason)
	}
	assert.True(t, ok)
}

// client sends requests to a fixture's admin handler with one token.
type client struct {
	t     *testing.T
	h     http.Handler
	token string
}

type answer struct {
	code int
	hdr  http.Header
	body string
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.body), &m), a.body)
	return m
}

// do sends a request (headers as "Name: value") and checks the answer
// against the OpenAPI document.
func (c client) do(method, path, body string, headers ...string) answer {
	c.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, req)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	if strings.HasPrefix(path, "/api/v1/") && res.StatusCode != http.StatusMethodNotAllowed && !strings.HasPrefix(path, "/api/v1/nowhere") {
		v, err := spec()
		require.NoError(c.t, err)
		res.Body = io.NopCloser(bytes.NewReader(b))
		check := httptest.NewRequest(method, "http://127.0.0.1:6060"+path, strings.NewReader(body))
		check.Header = req.Header
		if ok, errs := v.ValidateHttpResponse(check, res); !ok {
			for _, e := range errs {
				c.t.Errorf("%s %s → %d does not match docs/openapi.yaml: %s: %s (%s)", method, path, res.StatusCode, e.Message, e.Reason, b)
			}
		}
	}
	return answer{code: res.StatusCode, hdr: res.Header, body: string(b)}
}

func newFixture(t *testing.T) (*managedtest.Fixture, client, client) {
	f := managedtest.New(t, managedtest.File(managedtest.Campaign("a"), managedtest.Campaign("b", `"status":"paused"`)))
	return f, client{t, f.Admin, managedtest.WriteToken}, client{t, f.Admin, managedtest.ReadToken}
}

func TestAuthentication(t *testing.T) {
	f, _, _ := newFixture(t)
	for _, tc := range []struct {
		name, token, method, path, body string
		want                            int
	}{
		{"no token", "", "GET", "/api/v1/campaigns", "", 401},
		{"an unknown token", strings.Repeat("x", 40), "GET", "/api/v1/campaigns", "", 401},
		{"a token one character short", managedtest.WriteToken[1:], "GET", "/api/v1/campaigns", "", 401},
		{"read token reads", managedtest.ReadToken, "GET", "/api/v1/campaigns", "", 200},
		{"read token may not create", managedtest.ReadToken, "POST", "/api/v1/campaigns", managedtest.Campaign("c"), 403},
		{"read token may not patch", managedtest.ReadToken, "PATCH", "/api/v1/campaigns/a", `{"status":"paused"}`, 403},
		{"read token may not delete", managedtest.ReadToken, "DELETE", "/api/v1/campaigns/a", "", 403},
		{"read token may not import", managedtest.ReadToken, "PUT", "/api/v1/campaigns", `{"campaigns":[]}`, 403},
		{"read token reads the audit", managedtest.ReadToken, "GET", "/api/v1/audit", "", 200},
		{"write token reads", managedtest.WriteToken, "GET", "/api/v1/export", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := client{t, f.Admin, tc.token}.do(tc.method, tc.path, tc.body)
			assert.Equal(t, tc.want, a.code, a.body)
			if tc.want == 401 {
				assert.Equal(t, `Bearer realm="dspd api"`, a.hdr.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestOffWithoutTokens: without -api-tokens neither the API nor the
// console exists.
func TestOffWithoutTokens(t *testing.T) {
	f, _, _ := newFixture(t)
	h := admin.NewHandler(f.Core, admin.Config{})
	for _, p := range []string{"/api/v1/campaigns", "/console/", "/console/login"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		assert.Equal(t, http.StatusNotFound, w.Code, p)
	}
}

func TestCampaignLifecycle(t *testing.T) {
	f, ops, viewer := newFixture(t)

	a := viewer.do("GET", "/api/v1/campaigns", "")
	require.Equal(t, 200, a.code)
	assert.EqualValues(t, 2, a.json(t)["count"])
	assert.Equal(t, `"r1"`, a.hdr.Get("ETag"))
	assert.Equal(t, "1", a.hdr.Get("X-Served-Revision"))
	a = viewer.do("GET", "/api/v1/campaigns?status=paused", "")
	assert.EqualValues(t, 1, a.json(t)["count"])
	assert.Equal(t, 400, viewer.do("GET", "/api/v1/campaigns?status=stopped", "").code)

	// create
	a = ops.do("POST", "/api/v1/campaigns", managedtest.Campaign("c", `"targeting":{"countries":["US"]}`))
	require.Equal(t, 201, a.code, a.body)
	assert.Equal(t, "/api/v1/campaigns/c", a.hdr.Get("Location"))
	assert.Equal(t, `"1"`, a.hdr.Get("ETag"))
	a = ops.do("POST", "/api/v1/campaigns", managedtest.Campaign("c"))
	assert.Equal(t, 409, a.code)
	assert.Equal(t, "campaign_exists", a.json(t)["error"])
	assert.Equal(t, 415, ops.do("POST", "/api/v1/campaigns", managedtest.Campaign("d"), "Content-Type: text/plain").code)

	// read
	a = viewer.do("GET", "/api/v1/campaigns/c", "")
	require.Equal(t, 200, a.code)
	assert.JSONEq(t, managedtest.Campaign("c", `"targeting":{"countries":["US"]}`), a.body)
	assert.Equal(t, 404, viewer.do("GET", "/api/v1/campaigns/nope", "").code)

	// patch: If-Match required, stale refused, then applied
	a = ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budget":250}`, "Content-Type: application/merge-patch+json")
	assert.Equal(t, 428, a.code)
	assert.Equal(t, "precondition_required", a.json(t)["error"])
	assert.Equal(t, 428, ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budget":250}`, "If-Match: *").code, "* names no version")
	a = ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budget":250}`, `If-Match: "7"`)
	assert.Equal(t, 412, a.code)
	assert.Equal(t, `"1"`, a.hdr.Get("ETag"), "a 412 says the current version")
	assert.Equal(t, 412, ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budget":250}`, `If-Match: W/"1"`).code, "a weak tag never matches")
	a = ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budget":250,"status":"paused"}`, `If-Match: "1"`, "Content-Type: application/merge-patch+json")
	require.Equal(t, 200, a.code, a.body)
	assert.Equal(t, `"2"`, a.hdr.Get("ETag"))
	c, ok := f.Core.Catalog().Campaign("c")
	require.True(t, ok)
	assert.False(t, c.Active, "served before the answer")
	assert.EqualValues(t, 250_000_000, c.DailyBudget)

	// every problem at once
	a = ops.do("PATCH", "/api/v1/campaigns/c", `{"daily_budgte":5,"bid_cpm":-1,"creatives":[{"id":"x","w":0,"h":250,"image_url":"https://a/","click_url":"ftp://a/"}]}`, `If-Match: "2"`)
	require.Equal(t, 400, a.code)
	m := a.json(t)
	assert.Equal(t, "invalid_campaign", m["error"])
	var fields []string
	for _, p := range m["problems"].([]any) {
		fields = append(fields, p.(map[string]any)["field"].(string))
	}
	assert.ElementsMatch(t, []string{"daily_budgte", "bid_cpm", "creatives[0].w", "creatives[0].click_url"}, fields)

	// replace, with an id that is not the URL's
	a = ops.do("PUT", "/api/v1/campaigns/c", managedtest.Campaign("other"), `If-Match: "2"`)
	assert.Equal(t, 400, a.code)
	assert.Contains(t, a.body, `"field":"id"`)
	a = ops.do("PUT", "/api/v1/campaigns/c", managedtest.Campaign("c", `"pacing":"even"`), `If-Match: "2"`)
	require.Equal(t, 200, a.code, a.body)
	assert.Equal(t, `"3"`, a.hdr.Get("ETag"))

	// delete
	assert.Equal(t, 428, ops.do("DELETE", "/api/v1/campaigns/c", "").code)
	assert.Equal(t, 412, ops.do("DELETE", "/api/v1/campaigns/c", "", `If-Match: "2"`).code)
	a = ops.do("DELETE", "/api/v1/campaigns/c", "", `If-Match: "3"`)
	require.Equal(t, 204, a.code)
	_, ok = f.Core.Catalog().Campaign("c")
	assert.False(t, ok)
	assert.Equal(t, 404, ops.do("GET", "/api/v1/campaigns/c", "").code)

	// the audit
	a = viewer.do("GET", "/api/v1/audit?campaign=c", "")
	require.Equal(t, 200, a.code)
	var audit struct {
		Entries []struct {
			Who, Action   string
			Version       int64
			Before, After json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal([]byte(a.body), &audit))
	require.Len(t, audit.Entries, 4)
	assert.Equal(t, "delete", audit.Entries[0].Action)
	assert.Equal(t, "ops", audit.Entries[0].Who)
	assert.Equal(t, "null", string(audit.Entries[0].After))
	assert.Equal(t, "patch", audit.Entries[2].Action)
	assert.Contains(t, string(audit.Entries[2].After), `"daily_budget":250`)
	assert.Contains(t, string(audit.Entries[2].Before), `"daily_budget":100`)
	assert.Equal(t, 400, viewer.do("GET", "/api/v1/audit?limit=0", "").code)
	assert.Equal(t, 400, viewer.do("GET", "/api/v1/audit?limit=1001", "").code)
}

func TestImportExport(t *testing.T) {
	_, ops, viewer := newFixture(t)
	a := viewer.do("GET", "/api/v1/export", "")
	require.Equal(t, 200, a.code)
	assert.Equal(t, `"r1"`, a.hdr.Get("ETag"))
	assert.Contains(t, a.hdr.Get("Content-Disposition"), "campaigns.json")
	export := a.body

	file := string(managedtest.File(managedtest.Campaign("a", `"bid_cpm":2`), managedtest.Campaign("z")))
	file = strings.Replace(file, `"bid_cpm":1.5,`, ``, 1)
	assert.Equal(t, 428, ops.do("PUT", "/api/v1/campaigns", file).code)
	assert.Equal(t, 412, ops.do("PUT", "/api/v1/campaigns", file, `If-Match: "r0"`).code)
	a = ops.do("PUT", "/api/v1/campaigns", `{"campaigns":[{"id":"q","oops":1}]}`, `If-Match: "r1"`)
	assert.Equal(t, 400, a.code)
	assert.Contains(t, a.body, `"field":"campaigns[0].oops"`)
	a = ops.do("PUT", "/api/v1/campaigns", file, `If-Match: "r1"`)
	require.Equal(t, 200, a.code, a.body)
	assert.JSONEq(t, `{"created":1,"replaced":1,"deleted":1,"unchanged":0,"rev":2}`, a.body)
	assert.Equal(t, `"r2"`, a.hdr.Get("ETag"))

	// The old export, imported back, restores the old set.
	a = ops.do("PUT", "/api/v1/campaigns", export, `If-Match: "r2"`)
	require.Equal(t, 200, a.code, a.body)
	assert.JSONEq(t, `{"created":1,"replaced":1,"deleted":1,"unchanged":0,"rev":3}`, a.body)
	again := viewer.do("GET", "/api/v1/export", "")
	assert.Equal(t, export, again.body)
}

func TestBodyLimits(t *testing.T) {
	_, ops, _ := newFixture(t)
	big := `{"id":"x","advertiser":"` + strings.Repeat("a", 1<<20) + `"}`
	a := ops.do("POST", "/api/v1/campaigns", big)
	assert.Equal(t, 413, a.code)
	assert.Equal(t, "body_too_large", a.json(t)["error"])
	assert.Equal(t, 400, ops.do("POST", "/api/v1/campaigns", `{"id":`).code)
	a = ops.do("POST", "/api/v1/campaigns", `[]`)
	assert.Equal(t, 400, a.code)
	assert.Equal(t, 405, ops.do("POST", "/api/v1/export", `{}`).code)
	assert.Equal(t, 404, ops.do("GET", "/api/v1/nowhere", "").code)
}

// TestStatsAndExchanges: a bid and its win on the public handler show in
// the campaign's stats and the exchange's counts.
func TestStatsAndExchanges(t *testing.T) {
	f, _, viewer := newFixture(t)
	body := "id=r1&imp_id=1&tmax=120&ts=1&w=300&h=250&floor=0.5&cur=USD&ip=1.2.3.4&country=US&os=ios&devtype=4&uid=u1"
	req := httptest.NewRequest("POST", "/dsp/recbid", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	f.Public.ServeHTTP(w, req)
	require.Equal(t, 200, w.Code, w.Body.String())
	var bid struct {
		Seatbid []struct{ Bid []struct{ Nurl string } }
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &bid))
	nurl := strings.Replace(strings.TrimPrefix(bid.Seatbid[0].Bid[0].Nurl, "http://127.0.0.1:9090"), "${AUCTION_PRICE}", "1.25", 1)
	w = httptest.NewRecorder()
	f.Public.ServeHTTP(w, httptest.NewRequest("GET", nurl, nil))
	require.Equal(t, 204, w.Code, w.Body.String())

	a := viewer.do("GET", "/api/v1/campaigns/a/stats", "")
	require.Equal(t, 200, a.code, a.body)
	var st struct {
		SpendMicros       int64 `json:"spend_micros"`
		SpentMicros       int64 `json:"spent_micros"`
		DailyBudgetMicros int64 `json:"daily_budget_micros"`
		WinRate           float64
		Day               string
	}
	require.NoError(t, json.Unmarshal([]byte(a.body), &st))
	assert.Equal(t, "2026-12-02", st.Day)
	assert.EqualValues(t, 1_250_000, st.SpendMicros)
	assert.EqualValues(t, 1_250, st.SpentMicros)
	assert.EqualValues(t, 100_000_000, st.DailyBudgetMicros)
	assert.Contains(t, a.body, `"bids":1,"wins":1`)
	assert.Contains(t, a.body, `"win_rate":1`)
	assert.Equal(t, 400, viewer.do("GET", "/api/v1/campaigns/a/stats?day=yesterday", "").code)
	assert.Equal(t, 404, viewer.do("GET", "/api/v1/campaigns/nope/stats", "").code)
	a = viewer.do("GET", "/api/v1/campaigns/a/stats?day=2026-12-01", "")
	assert.Equal(t, 200, a.code, "a campaign of the set has a day with nothing")

	a = viewer.do("GET", "/api/v1/exchanges", "")
	require.Equal(t, 200, a.code)
	assert.Contains(t, a.body, `"id":"`+exchange.DefaultID+`"`)
	assert.Contains(t, a.body, `"requests":1,"bids":1`)
	assert.Contains(t, a.body, `"wins":1`)
	assert.Contains(t, a.body, `"spend_micros":1250000`)
	assert.NotContains(t, a.body, "token\":\"", "never an exchange's token")
}

// TestRaisingABudgetSpendsTheDifference: an edit keeps the day's books
// (they are the campaign id's), so a budget raised mid-day lets the
// campaign spend only the difference.
func TestRaisingABudgetSpendsTheDifference(t *testing.T) {
	f := managedtest.New(t, managedtest.File(strings.Replace(managedtest.Campaign("a"), `"daily_budget":100`, `"daily_budget":0.0015`, 1)))
	ops := client{t, f.Admin, managedtest.WriteToken}
	bidAndWin := func() bool {
		t.Helper()
		req := httptest.NewRequest("POST", "/dsp/recbid", strings.NewReader(
			"id=r1&imp_id=1&tmax=120&ts=1&w=300&h=250&floor=0.5&cur=USD&ip=1.2.3.4&country=US&os=ios&devtype=4&uid=u1"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		f.Public.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			return false
		}
		var bid struct {
			Seatbid []struct{ Bid []struct{ Nurl string } }
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &bid))
		nurl := strings.Replace(strings.TrimPrefix(bid.Seatbid[0].Bid[0].Nurl, "http://127.0.0.1:9090"), "${AUCTION_PRICE}", "1.5", 1)
		w = httptest.NewRecorder()
		f.Public.ServeHTTP(w, httptest.NewRequest("GET", nurl, nil))
		require.Equal(t, http.StatusNoContent, w.Code)
		return true
	}
	require.True(t, bidAndWin(), "a budget of one bid at 1.5 CPM")
	require.False(t, bidAndWin(), "spent")
	a := ops.do("PATCH", "/api/v1/campaigns/a", `{"daily_budget":0.003}`, `If-Match: "1"`)
	require.Equal(t, 200, a.code, a.body)
	assert.True(t, bidAndWin(), "the raised budget has room for one more")
	assert.False(t, bidAndWin(), "and only one: the day's spend was kept through the edit")
	a = ops.do("GET", "/api/v1/campaigns/a/stats", "")
	assert.Contains(t, a.body, `"bids":2,"wins":2,"spend_micros":3000000`)
}
