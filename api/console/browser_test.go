package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/managedtest"
)

// These tests drive Debian's chromium, headless, through chromedp: what a
// person does in the console, in a real browser. Without chromium they
// skip, and fail under CI (scripts/deps.sh installs it). Each writes
// screenshots of the pages it sees to out/console/.

// chromium finds the browser.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (scripts/deps.sh installs it): the console's browser tests cannot run")
	}
	t.Skip("chromium is not installed: the console's browser tests skip (scripts/deps.sh installs it)")
	return ""
}

// session is one browser on one fixture's console.
type session struct {
	t       *testing.T
	f       *managedtest.Fixture
	ctx     context.Context
	base    string
	dialogs *atomic.Int64
}

func openBrowser(t *testing.T, width, height int) *session {
	t.Helper()
	exe := chromium(t)
	f, _ := newFixture(t)
	srv := httptest.NewServer(f.Admin)
	t.Cleanup(srv.Close)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(width, height),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("no-first-run", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	s := &session{t: t, f: f, ctx: ctx, base: srv.URL, dialogs: new(atomic.Int64)}
	require.NoError(t, chromedp.Do(ctx)) // starts the browser
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			s.dialogs.Add(1)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	s.run(chromedp.Navigate(s.base + "/console/"))
	return s
}

func (s *session) run(actions ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	require.NoError(s.t, chromedp.Do(s.ctx, actions...))
}

// value runs an action that reads a value.
func value[T any](s *session, a chromedp.Action[T]) T {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, a)
	require.NoError(s.t, err)
	return v
}

func (s *session) text(sel string) string { return value(s, chromedp.Text(chromedp.CSS(sel))) }

func (s *session) eval(expr string) string {
	return value(s, chromedp.Evaluate[string]("String("+expr+")"))
}

// shot writes a screenshot of the whole page to out/console/NAME.png.
func (s *session) shot(name string) {
	s.t.Helper()
	png := value(s, chromedp.FullScreenshot(100))
	dir := filepath.Join(repoRoot(s.t), "out", "console")
	require.NoError(s.t, os.MkdirAll(dir, 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
}

func (s *session) signIn(token string) {
	s.t.Helper()
	s.run(chromedp.Navigate(s.base + "/console/"))
	s.run(chromedp.WaitVisible(chromedp.ID("token")))
	s.run(chromedp.SendKeys(chromedp.ID("token"), token))
	s.run(chromedp.Submit(chromedp.ID("token")))
	s.run(chromedp.WaitVisible(chromedp.ID("campaigns"))) // signed in: the campaigns page
}

// bidOnA sends the public handler a form request only campaign a can bid
// on, and says whether it bid.
func (s *session) bidOnA() bool {
	body := "id=r1&imp_id=1&tmax=120&ts=1&w=300&h=250&floor=0.5&cur=USD&ip=1.2.3.4&country=US&os=ios&devtype=4&uid=u1"
	req := httptest.NewRequest("POST", "/dsp/recbid", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	s.f.Public.ServeHTTP(w, req)
	return w.Code == http.StatusOK && strings.Contains(w.Body.String(), `"cid":"a"`)
}

// traffic runs the fixture's clock on by minutes, with bids on and wins
// of campaign summer-sale (728x90) each minute, so that its charts and the
// lists have something to show.
func (s *session) traffic(minutes int) {
	s.t.Helper()
	for m := range minutes {
		for i := range 4 + m%3 {
			body := fmt.Sprintf("id=r%d-%d&imp_id=1&tmax=120&ts=1&w=728&h=90&floor=0.5&cur=USD&ip=1.2.3.4&country=US&os=ios&devtype=2&uid=u%d", m, i, i)
			req := httptest.NewRequest("POST", "/dsp/recbid", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w := httptest.NewRecorder()
			s.f.Public.ServeHTTP(w, req)
			if w.Code != http.StatusOK || i%2 == 1 {
				continue
			}
			var bid struct {
				Seatbid []struct{ Bid []struct{ Nurl, Adm string } }
			}
			require.NoError(s.t, json.Unmarshal(w.Body.Bytes(), &bid))
			b := bid.Seatbid[0].Bid[0]
			nurl := strings.Replace(strings.TrimPrefix(b.Nurl, "http://127.0.0.1:9090"), "${AUCTION_PRICE}", "1.8", 1)
			s.f.Public.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", nurl, nil))
			for _, t := range trackerRE.FindAllStringSubmatch(b.Adm, -1) { // the impression pixel; a click now and then
				if u := html.UnescapeString(t[1]); strings.HasPrefix(u, "/dsp/imp") || (i == 0 && m%4 == 0) {
					s.f.Public.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", u, nil))
				}
			}
		}
		s.f.Advance(time.Minute)
		require.NoError(s.t, s.f.Engine.TickPacing(s.ctx, s.f.Engine.PacingNow()))
	}
}

// trackerRE finds dspd's tracking URLs in an adm.
var trackerRE = regexp.MustCompile(`"http://127\.0\.0\.1:9090(/dsp/(?:imp|click)\?[^"]+)"`)

func TestBrowserSignInAndCampaigns(t *testing.T) {
	s := openBrowser(t, 1280, 800)
	s.run(chromedp.WaitVisible(chromedp.ID("token")))
	s.shot("login")
	s.run(chromedp.SendKeys(chromedp.ID("token"), "not-a-token-not-a-token-not-a-token"), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("login-error")))
	assert.Contains(t, s.text("#login-error"), "not one of this dspd")

	s.signIn(managedtest.WriteToken)
	s.traffic(180)
	s.run(chromedp.Navigate(s.base+"/console/?sort=spend&dir=desc"), chromedp.WaitVisible(chromedp.ID("campaigns")))
	assert.Equal(t, "4", s.eval(`document.querySelectorAll("#campaigns tbody tr").length`))
	assert.Contains(t, s.eval(`[...document.querySelectorAll("#campaigns td.name a")].map(a => a.textContent).join("|")`), xss)
	s.shot("campaigns")
	assert.Equal(t, "summer-sale", s.eval(`document.querySelector("#campaigns tbody tr").dataset.id`), "sorted by spend")
	s.run(chromedp.Navigate(s.base+"/console/campaigns/summer-sale"), chromedp.WaitVisible(chromedp.ID("settings")))
	assert.Equal(t, "4", s.eval(`[...document.querySelectorAll("figure.chart polyline")].filter(p => p.points.numberOfItems > 30).length`),
		"four lines drawn (spend, pacing target, bids, wins), each of the day so far")
	s.shot("campaign")

	// The campaign named with a script shows its name, and nothing ran.
	s.run(chromedp.Navigate(s.base+"/console/campaigns/"+url.PathEscape(xss)), chromedp.WaitVisible(chromedp.ID("campaign-id")))
	assert.Equal(t, xss, s.text("#campaign-id"))
	assert.Zero(t, s.dialogs.Load(), "no script of a campaign's ran")

	// No horizontal scrolling at 1280×800.
	s.run(chromedp.Navigate(s.base+"/console/"), chromedp.WaitVisible(chromedp.ID("campaigns")))
	assert.Equal(t, "false", s.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`), "the table fits 1280 pixels")

	// The exchanges page.
	s.run(chromedp.Navigate(s.base+"/console/exchanges"), chromedp.WaitVisible(chromedp.ID("exchanges")))
	assert.Contains(t, s.text("#exchanges"), "default")
	s.shot("exchanges")

	// Sign out.
	s.run(chromedp.Click(chromedp.CSS("button.link")), chromedp.WaitVisible(chromedp.ID("token")))
	s.run(chromedp.Navigate(s.base+"/console/campaigns/a"), chromedp.WaitVisible(chromedp.ID("token")))
	assert.Contains(t, value(s, chromedp.Location()), "/console/login", "signed out: back to the sign-in")
}

// TestBrowserPauseStopsBids: the pause button of a campaign stops its bids
// within a second.
func TestBrowserPauseStopsBids(t *testing.T) {
	s := openBrowser(t, 1280, 800)
	require.True(t, s.bidOnA(), "campaign a bids before")
	s.signIn(managedtest.WriteToken)
	pause, resume := chromedp.CSS(`button[aria-label="Pause a"]`), chromedp.CSS(`button[aria-label="Resume a"]`)
	s.run(chromedp.WaitVisible(pause), chromedp.Click(pause), chromedp.WaitVisible(resume))
	deadline := time.Now().Add(time.Second)
	stopped := false
	for !stopped && time.Now().Before(deadline) {
		stopped = !s.bidOnA()
	}
	assert.True(t, stopped, "no bid from the paused campaign within 1 s")
	assert.Contains(t, s.text(".flash"), "a paused")
	s.run(chromedp.Click(resume), chromedp.WaitVisible(pause))
	assert.True(t, s.bidOnA(), "resumed, it bids again")
}

// TestBrowserEditBudget: a budget with too many decimals is refused with
// the problem next to its field; a valid one is saved and served.
func TestBrowserEditBudget(t *testing.T) {
	s := openBrowser(t, 1280, 800)
	s.signIn(managedtest.WriteToken)
	budget := chromedp.ID("f-daily_budget")
	s.run(chromedp.Navigate(s.base+"/console/campaigns/a"), chromedp.WaitVisible(chromedp.ID("settings")))
	s.run(chromedp.SetValue(budget, "12.3456789"), chromedp.Submit(budget), chromedp.WaitVisible(chromedp.ID("p-daily_budget")))
	assert.Contains(t, s.text("#p-daily_budget"), "at most 6 digits after the point")
	assert.Equal(t, "f-daily_budget", s.eval(`document.activeElement.id`), "the field with the problem has the focus")
	s.shot("campaign-problem")
	c, _ := s.f.Core.Catalog().Campaign("a")
	assert.EqualValues(t, 100_000_000, c.DailyBudget, "nothing saved")

	s.run(chromedp.SetValue(budget, "250"), chromedp.Submit(budget), chromedp.WaitVisible(chromedp.CSS(".flash")))
	assert.Contains(t, s.text(".flash"), "Saved: version 2")
	c, _ = s.f.Core.Catalog().Campaign("a")
	assert.EqualValues(t, 250_000_000, c.DailyBudget)
	assert.Equal(t, "250", value(s, chromedp.Value(budget)))
}

// TestBrowserKeyboardAndNarrow: the console by keyboard alone, and in a
// narrow window without horizontal scrolling.
func TestBrowserKeyboardAndNarrow(t *testing.T) {
	s := openBrowser(t, 420, 800)
	s.signIn(managedtest.ReadToken)
	s.run(chromedp.WaitVisible(chromedp.ID("campaigns")))
	assert.Equal(t, "false", s.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`),
		"no horizontal scrolling at 420 pixels")
	s.shot("campaigns-narrow")
	assert.Equal(t, "0", s.eval(`document.querySelectorAll("button[aria-label^=Pause]").length`), "a read token has no pause button")

	// Tab reaches the skip link first; "/" jumps to the search box.
	s.run(chromedp.KeyEvent("\t"))
	assert.Equal(t, "skip", s.eval(`document.activeElement.className`))
	s.run(chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("/"))
	assert.Equal(t, "q", s.eval(`document.activeElement.id`))
	// Enter on a campaign's link opens it.
	s.run(chromedp.Focus(chromedp.CSS("#campaigns td.name a")), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("campaign-id")))
	assert.Contains(t, value(s, chromedp.Location()), "/console/campaigns/")
}
