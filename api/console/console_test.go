package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api/console"
	"github.com/recbid/dspd/internal/managedtest"
)

// xss is a campaign whose id and advertiser are a script.
const xss = `<script>alert(1)</script>`

// testClock is the console's clock in these tests, moved by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newFixture(t *testing.T) (*managedtest.Fixture, *testClock) {
	clock := &testClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	f := managedtest.New(t, managedtest.File(
		managedtest.Campaign("a"),
		managedtest.Campaign("b", `"status":"paused"`),
		strings.NewReplacer(`"advertiser":"Acme"`, `"advertiser":"Acme Outdoor"`, `"bid_cpm":1.5`, `"bid_cpm":2`,
			`"daily_budget":100`, `"daily_budget":2`, `"w":300,"h":250`, `"w":728,"h":90`).Replace(managedtest.Campaign("summer-sale", `"pacing":"even"`)),
		strings.NewReplacer(`"advertiser":"Acme"`, `"advertiser":"`+xss+`"`, `"bid_cpm":1.5`, `"bid_cpm":1`).Replace(managedtest.Campaign(xss)),
	), managedtest.WithConsole(console.Config{Clock: clock.Now, IdleTTL: time.Hour, SessionTTL: 8 * time.Hour}))
	return f, clock
}

// browser is a cookie-keeping client of the console, its forms sent as a
// browser sends them (Origin: the console's).
type browser struct {
	t      *testing.T
	h      http.Handler
	cookie string
	origin string
}

type answer struct {
	code int
	hdr  http.Header
	body string
}

func (b *browser) do(method, path string, form url.Values) answer {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, "http://127.0.0.1:6060"+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	if b.cookie != "" {
		req.Header.Set("Cookie", b.cookie)
	}
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, req)
	res := w.Result()
	for _, c := range res.Cookies() {
		if c.Name == "dspd_console" {
			b.cookie = c.Name + "=" + c.Value
			if c.MaxAge < 0 {
				b.cookie = ""
			}
		}
	}
	return answer{code: res.StatusCode, hdr: res.Header, body: w.Body.String()}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (p answer) csrf(t *testing.T) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	require.NotNil(t, m, "the page has a form with its CSRF token")
	return m[1]
}

func signIn(t *testing.T, f *managedtest.Fixture, token string) *browser {
	t.Helper()
	b := &browser{t: t, h: f.Admin, origin: "http://127.0.0.1:6060"}
	p := b.do("POST", "/console/login", url.Values{"token": {token}, "next": {"/console/"}})
	require.Equal(t, http.StatusSeeOther, p.code, p.body)
	require.NotEmpty(t, b.cookie)
	return b
}

func TestSignIn(t *testing.T) {
	f, _ := newFixture(t)
	b := &browser{t: t, h: f.Admin, origin: "http://127.0.0.1:6060"}
	p := b.do("GET", "/console/", nil)
	assert.Equal(t, http.StatusSeeOther, p.code)
	assert.Equal(t, "/console/login?next=%2Fconsole%2F", p.hdr.Get("Location"))

	p = b.do("POST", "/console/login", url.Values{"token": {"not-a-token-not-a-token-not-a-token"}})
	assert.Equal(t, http.StatusUnauthorized, p.code)
	assert.Contains(t, p.body, "That token is not one of this dspd")
	assert.Empty(t, b.cookie)

	evil := &browser{t: t, h: f.Admin, origin: "http://evil.example"}
	p = evil.do("POST", "/console/login", url.Values{"token": {managedtest.WriteToken}})
	assert.Equal(t, http.StatusForbidden, p.code, "a sign-in from another origin")

	req := httptest.NewRequest("POST", "http://127.0.0.1:6060/console/login", strings.NewReader(url.Values{
		"token": {managedtest.WriteToken}, "next": {"https://evil.example/"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://127.0.0.1:6060")
	w := httptest.NewRecorder()
	f.Admin.ServeHTTP(w, req)
	require.Equal(t, http.StatusSeeOther, w.Code)
	assert.Equal(t, "/console/", w.Header().Get("Location"), "never sent to another site after signing in")
	c := w.Result().Cookies()[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/console/", c.Path)
	assert.Len(t, c.Value, 43, "256 random bits")

	b = signIn(t, f, managedtest.WriteToken)
	p = b.do("GET", "/console/", nil)
	require.Equal(t, http.StatusOK, p.code)
	assert.Contains(t, p.body, `data-id="a"`)
	assert.Contains(t, p.body, "ops · write")

	p = b.do("POST", "/console/logout", url.Values{"csrf": {p.csrf(t)}})
	assert.Equal(t, http.StatusSeeOther, p.code)
	assert.Equal(t, http.StatusSeeOther, b.do("GET", "/console/", nil).code, "signed out")
}

func TestSecurityHeaders(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.ReadToken)
	for _, path := range []string{"/console/login", "/console/", "/console/campaigns/a", "/console/exchanges", "/console/static/console.css"} {
		p := b.do("GET", path, nil)
		require.Equal(t, http.StatusOK, p.code, path)
		csp := p.hdr.Get("Content-Security-Policy")
		assert.Contains(t, csp, "script-src 'self'", path)
		assert.Contains(t, csp, "style-src 'self'", path)
		assert.Contains(t, csp, "frame-ancestors 'none'", path)
		assert.NotContains(t, csp, "unsafe-inline", path)
		assert.Equal(t, "nosniff", p.hdr.Get("X-Content-Type-Options"), path)
		assert.Equal(t, "no-store", p.hdr.Get("Cache-Control"), path)
	}
}

// TestNothingExternal: no page loads or links anything but the console
// itself, and no page has an inline script or style.
func TestNothingExternal(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	attr := regexp.MustCompile(`(?i)\s(src|href|action)="([^"]*)"`)
	for _, path := range []string{"/console/login", "/console/", "/console/campaigns/a", "/console/exchanges",
		"/console/campaigns/" + url.PathEscape(xss)} {
		p := b.do("GET", path, nil)
		require.Equal(t, http.StatusOK, p.code, path)
		for _, m := range attr.FindAllStringSubmatch(p.body, -1) {
			v := m[2]
			assert.True(t, strings.HasPrefix(v, "/console/") || strings.HasPrefix(v, "#"), "%s: %s=%q", path, m[1], v)
		}
		assert.NotRegexp(t, `<script>[^<]`, p.body, "%s: an inline script", path)
		assert.NotContains(t, p.body, "<style", path)
		assert.NotContains(t, p.body, ` style="`, path)
	}
	for _, path := range []string{"/console/static/console.css", "/console/static/console.js"} {
		p := b.do("GET", path, nil)
		assert.NotContains(t, p.body, "http", path)
	}
}

// TestCampaignTextIsEscaped: a campaign whose id and advertiser are a
// script shows them as text on every page.
func TestCampaignTextIsEscaped(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	for _, path := range []string{"/console/", "/console/campaigns/" + url.PathEscape(xss)} {
		p := b.do("GET", path, nil)
		require.Equal(t, http.StatusOK, p.code, path)
		assert.Contains(t, p.body, "&lt;script&gt;alert(1)&lt;/script&gt;", path)
		assert.NotContains(t, p.body, xss, path)
	}
}

func TestFormsNeedTheirCSRFToken(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	token := b.do("GET", "/console/", nil).csrf(t)
	pause := url.Values{"status": {"paused"}, "version": {"1"}, "back": {"/console/"}}
	p := b.do("POST", "/console/campaigns/a/status", pause)
	assert.Equal(t, http.StatusForbidden, p.code, "no token")
	wrong := "x"
	if token[0] == 'x' { // one token in 64 begins with it
		wrong = "y"
	}
	pause.Set("csrf", wrong+token[1:])
	assert.Equal(t, http.StatusForbidden, b.do("POST", "/console/campaigns/a/status", pause).code, "a wrong token")
	other := signIn(t, f, managedtest.WriteToken)
	pause.Set("csrf", other.do("GET", "/console/", nil).csrf(t))
	assert.Equal(t, http.StatusForbidden, b.do("POST", "/console/campaigns/a/status", pause).code, "another session's token")
	pause.Set("csrf", token)
	evil := *b
	evil.origin = "http://evil.example"
	assert.Equal(t, http.StatusForbidden, evil.do("POST", "/console/campaigns/a/status", pause).code, "the right token from another origin")
	c, _ := f.Core.Catalog().Campaign("a")
	assert.True(t, c.Active, "nothing refused changed anything")

	p = b.do("POST", "/console/campaigns/a/status", pause)
	require.Equal(t, http.StatusSeeOther, p.code, p.body)
	assert.Equal(t, "/console/?saved=a+paused", p.hdr.Get("Location"))
	c, _ = f.Core.Catalog().Campaign("a")
	assert.False(t, c.Active)
	entries, err := f.Set.Audit(t.Context(), "a", 1)
	require.NoError(t, err)
	assert.Equal(t, "ops", entries[0].Who, "the console's changes are audited with the token's name")
}

func TestReadTokenCannotChange(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.ReadToken)
	p := b.do("GET", "/console/", nil)
	assert.NotContains(t, p.body, "Pause a")
	p = b.do("GET", "/console/campaigns/a", nil)
	assert.Contains(t, p.body, "Your token may read, not change.")
	p = b.do("POST", "/console/campaigns/a/status", url.Values{"csrf": {p.csrf(t)}, "status": {"paused"}, "version": {"1"}})
	assert.Equal(t, http.StatusForbidden, p.code)
}

func TestSessionsEnd(t *testing.T) {
	f, clock := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	clock.Advance(59 * time.Minute)
	require.Equal(t, http.StatusOK, b.do("GET", "/console/", nil).code)
	clock.Advance(59 * time.Minute)
	require.Equal(t, http.StatusOK, b.do("GET", "/console/", nil).code, "use keeps a session alive")
	clock.Advance(61 * time.Minute)
	assert.Equal(t, http.StatusSeeOther, b.do("GET", "/console/", nil).code, "an hour unused ends it")

	b = signIn(t, f, managedtest.WriteToken)
	for range 9 {
		clock.Advance(59 * time.Minute)
		b.do("GET", "/console/", nil)
	}
	assert.Equal(t, http.StatusSeeOther, b.do("GET", "/console/", nil).code, "eight hours end any session")

	// A token taken out of the file ends its sessions at the reload.
	b = signIn(t, f, managedtest.WriteToken)
	viewer := signIn(t, f, managedtest.ReadToken)
	path := f.Tokens.Path()
	require.NoError(t, os.WriteFile(path, []byte(`{"tokens":[{"name":"viewer","token":"`+managedtest.ReadToken+`","role":"read"}]}`), 0o600))
	require.NoError(t, f.Tokens.Reload())
	assert.Equal(t, http.StatusSeeOther, b.do("GET", "/console/", nil).code)
	assert.Equal(t, http.StatusOK, viewer.do("GET", "/console/", nil).code)
}

var problemRE = regexp.MustCompile(`id="p-daily_budget">([^<]*)<`)

func TestSettingsForm(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	p := b.do("GET", "/console/campaigns/a", nil)
	require.Equal(t, http.StatusOK, p.code)
	form := url.Values{"csrf": {p.csrf(t)}, "version": {"1"}, "status": {"active"}, "bid_cpm": {"1.5"}, "daily_budget": {"12.3456789"},
		"pacing": {"asap"}, "open_auction": {"true"}}
	p = b.do("POST", "/console/campaigns/a/settings", form)
	assert.Equal(t, http.StatusBadRequest, p.code)
	m := problemRE.FindStringSubmatch(p.body)
	require.NotNil(t, m, "the problem stands next to its field")
	assert.Contains(t, m[1], "at most 6 digits after the point")
	assert.Contains(t, p.body, `value="12.3456789"`, "what was typed stays in the form")

	form.Set("daily_budget", "250")
	p = b.do("POST", "/console/campaigns/a/settings", form)
	require.Equal(t, http.StatusSeeOther, p.code, p.body)
	c, _ := f.Core.Catalog().Campaign("a")
	assert.EqualValues(t, 250_000_000, c.DailyBudget)
	d, _ := f.Set.Get("a")
	assert.EqualValues(t, 2, d.Version)
	assert.Contains(t, string(d.JSON), `"bid_cpm":1.5`, "an untouched literal stays as written")
	assert.Contains(t, string(d.JSON), `"creatives":[`, "fields the form does not show stay")

	// The same form again, from the page of version 1: stale.
	p = b.do("POST", "/console/campaigns/a/settings", form)
	assert.Equal(t, http.StatusConflict, p.code)
	assert.Contains(t, p.body, "Someone changed this campaign while you edited it")

	// An empty budget removes it.
	form.Set("version", "2")
	form.Set("daily_budget", "")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/console/campaigns/a/settings", form).code)
	c, _ = f.Core.Catalog().Campaign("a")
	assert.False(t, c.Limited())
}

func TestDocumentForm(t *testing.T) {
	f, _ := newFixture(t)
	b := signIn(t, f, managedtest.WriteToken)
	token := b.do("GET", "/console/campaigns/a", nil).csrf(t)
	p := b.do("POST", "/console/campaigns/a/document", url.Values{"csrf": {token}, "version": {"1"},
		"document": {managedtest.Campaign("a", `"targeting":{"country":["US"]}`)}})
	assert.Equal(t, http.StatusBadRequest, p.code)
	assert.Contains(t, p.body, "targeting.country: unknown field")
	p = b.do("POST", "/console/campaigns/a/document", url.Values{"csrf": {token}, "version": {"1"},
		"document": {managedtest.Campaign("a", `"targeting":{"countries":["US"]}`)}})
	require.Equal(t, http.StatusSeeOther, p.code, p.body)
	c, _ := f.Core.Catalog().Campaign("a")
	assert.Equal(t, []string{"US"}, c.Targeting.Countries)
}

func TestListSortsFiltersAndPages(t *testing.T) {
	docs := []string{}
	for i := range 120 {
		docs = append(docs, managedtest.Campaign(string(rune('a'+i%26))+"-"+strings.Repeat("x", i/26)+string(rune('0'+i%10))))
	}
	f := managedtest.New(t, managedtest.File(docs...))
	b := signIn(t, f, managedtest.ReadToken)
	p := b.do("GET", "/console/", nil)
	assert.Equal(t, 50, strings.Count(p.body, "<tr data-id="))
	assert.Contains(t, p.body, "Page 1 of 3")
	p = b.do("GET", "/console/?page=3", nil)
	assert.Equal(t, 20, strings.Count(p.body, "<tr data-id="))
	p = b.do("GET", "/console/?q=z-", nil)
	assert.Equal(t, 4, strings.Count(p.body, "<tr data-id="))
	p = b.do("GET", "/console/?sort=id&dir=desc", nil)
	first := regexp.MustCompile(`data-id="([^"]+)"`).FindStringSubmatch(p.body)[1]
	assert.Equal(t, "z-xxx3", first)
	assert.Contains(t, p.body, `aria-sort="descending"`)
}
