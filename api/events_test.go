package api_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/events"
)

// openLog opens an event log in a new directory for a test server.
func openLog(t testing.TB, cfg events.Config) *events.Log {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Instance = "test-1"
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Fatal = func(msg string) { t.Errorf("event log fatal: %s", msg) }
	l, err := events.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// logged returns the records of l (synced: it rotates first), decoded.
func logged(t *testing.T, l *events.Log) []map[string]any {
	t.Helper()
	require.NoError(t, l.Rotate())
	segs, err := events.List(l.Dir())
	require.NoError(t, err)
	var out []map[string]any
	for _, s := range segs {
		require.NoError(t, events.Read(s, 0, -1, func(line []byte, _ int64) error {
			var m map[string]any
			require.NoError(t, json.Unmarshal(line, &m), "%s", line)
			out = append(out, m)
			return nil
		}))
	}
	return out
}

// ofType returns the records of one type.
func ofType(recs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r["type"] == typ {
			out = append(out, r)
		}
	}
	return out
}

func notice(t *testing.T, srv *testServer, query string) *httptest.ResponseRecorder {
	t.Helper()
	return get(srv.public, "/dsp/win?"+query)
}

// eventStates are the two kinds of state a notice's record is kept with:
// the memory state (the log writes and syncs it before the answer) and the
// disk state (it commits it with its claim, in its outbox).
func eventStates(t *testing.T) map[string]func(*serverOptions) {
	return map[string]func(*serverOptions){
		"memory": func(*serverOptions) {},
		"disk":   func(o *serverOptions) { o.disk = t.TempDir() },
	}
}

func TestBidWinAndBillingRecords(t *testing.T) {
	for name, state := range eventStates(t) {
		t.Run(name, func(t *testing.T) {
			o := serverOptions{events: &events.Config{Window: time.Hour}}
			state(&o)
			srv := buildTestServer(t, testdataCampaigns, o)
			post := readFile(t, "../testdata/post.data")
			bidID, cid, price := bidFor(t, srv, post)

			require.Equal(t, http.StatusNotFound, notice(t, srv, "bidid=00000000000000000000000000000bad&price=1").Code)
			require.Equal(t, http.StatusNoContent, notice(t, srv, "bidid="+bidID+"&price=0.42").Code)
			w := notice(t, srv, "bidid="+bidID+"&price=0.42")
			require.Equal(t, http.StatusNoContent, w.Code)
			require.Equal(t, "1", w.Header().Get("X-Win-Duplicate"))
			for range 2 { // the burl: one billing record, the win already booked
				require.Equal(t, http.StatusNoContent, notice(t, srv, "bidid="+bidID+"&price=0.42&billing=1").Code)
			}

			recs := logged(t, srv.log)
			bids := ofType(recs, "bid")
			require.Len(t, bids, 1)
			b := bids[0]
			assert.Equal(t, bidID, b["bidid"])
			assert.Equal(t, cid, b["campaign"])
			assert.EqualValues(t, price, b["price_micros"])
			assert.Equal(t, "recbid", b["protocol"])
			assert.Equal(t, "7c0f3e9a5b2d4c18a6e1f0d9b8c7a654", b["request_id"])
			assert.Equal(t, "1", b["imp_id"])
			assert.EqualValues(t, 320, b["w"])
			assert.EqualValues(t, 500_000, b["floor_micros"])
			assert.Equal(t, testHashKey.User("u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7").String(), b["user"], "the keyed hash")
			assert.NotContains(t, recs, "u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7")
			assert.Equal(t, "test-1", b["instance"])
			assert.Equal(t, "2026-11-04T08:00:00.000Z", b["time"], "the request's time")

			wins := ofType(recs, "win")
			require.Len(t, wins, 1, "one win record, however many notices")
			assert.Equal(t, bidID, wins[0]["bidid"])
			assert.EqualValues(t, 420_000, wins[0]["price_micros"])
			assert.EqualValues(t, price, wins[0]["bid_price_micros"])
			assert.Equal(t, "2026-11-04T08:00:00Z", wins[0]["bid_time"])
			assert.Equal(t, cid, wins[0]["campaign"])
			billing := ofType(recs, "billing")
			require.Len(t, billing, 1, "one billing record, however many billing notices")
			assert.EqualValues(t, 420_000, billing[0]["price_micros"])
		})
	}
}

// TestBillingNoticeFirst: a burl that arrives before the nurl books the win
// (one win record) and its billing (one billing record); the nurl is then
// a duplicate.
func TestBillingNoticeFirst(t *testing.T) {
	srv := buildTestServer(t, testdataCampaigns, serverOptions{events: &events.Config{Window: time.Hour}})
	bidID, _, _ := bidFor(t, srv, readFile(t, "../testdata/post.data"))
	require.Equal(t, http.StatusNoContent, notice(t, srv, "bidid="+bidID+"&price=1&billing=1").Code)
	w := notice(t, srv, "bidid="+bidID+"&price=1")
	assert.Equal(t, "1", w.Header().Get("X-Win-Duplicate"))
	recs := logged(t, srv.log)
	assert.Len(t, ofType(recs, "win"), 1)
	assert.Len(t, ofType(recs, "billing"), 1)
}

// TestExactlyOnceUnderConcurrency: 16 senders repeat every notice and
// tracker of 20 bids at once: each bid has one win, one billing, one
// impression and one click record.
func TestExactlyOnceUnderConcurrency(t *testing.T) {
	for name, state := range eventStates(t) {
		t.Run(name, func(t *testing.T) {
			o := serverOptions{events: &events.Config{}, track: true}
			state(&o)
			srv := buildTestServer(t, testdataCampaigns, o)
			post := readFile(t, "../testdata/post.data")
			var urls []string
			for range 20 {
				w := postForm(srv.public, post)
				require.Equal(t, http.StatusOK, w.Code)
				bidID := bidIDOf(t, w.Body.Bytes())
				imp, click := trackURLs(t, w.Body.Bytes())
				urls = append(urls, "/dsp/win?bidid="+bidID+"&price=0.5", "/dsp/win?bidid="+bidID+"&price=0.5&billing=1", imp, click)
			}
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, u := range urls {
						w := get(srv.public, u)
						assert.Contains(t, []int{200, 204, 302}, w.Code, "%s: %s", u, w.Body.String())
					}
				}()
			}
			wg.Wait()
			recs := logged(t, srv.log)
			for _, typ := range []string{"win", "billing", "impression", "click"} {
				got := ofType(recs, typ)
				assert.Len(t, got, 20, typ)
				seen := map[any]bool{}
				for _, r := range got {
					assert.False(t, seen[r["bidid"]], "%s twice for %v", typ, r["bidid"])
					seen[r["bidid"]] = true
				}
			}
		})
	}
}

var trackURLPattern = regexp.MustCompile(`http://localhost:9090(/dsp/(?:imp|click)\?[^"\\]+)`)

// trackURLs returns the impression and click URLs in a tracked answer's
// adm, as a browser would request them (HTML entities decoded), paths
// only.
func trackURLs(t *testing.T, body []byte) (imp, click string) {
	t.Helper()
	var resp struct {
		SeatBid []struct {
			Bid []struct {
				Adm string `json:"adm"`
			} `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(body, &resp))
	adm := resp.SeatBid[0].Bid[0].Adm
	for _, m := range trackURLPattern.FindAllStringSubmatch(adm, -1) {
		u := html.UnescapeString(m[1])
		switch {
		case strings.HasPrefix(u, "/dsp/imp?"):
			imp = u
		case strings.HasPrefix(u, "/dsp/click?"):
			click = u
		}
	}
	require.NotEmpty(t, imp, adm)
	require.NotEmpty(t, click, adm)
	return imp, click
}

func bidIDOf(t *testing.T, body []byte) string {
	t.Helper()
	var resp struct {
		BidID string `json:"bidid"`
	}
	require.NoError(t, json.Unmarshal(body, &resp))
	return resp.BidID
}

func TestTrackedAdm(t *testing.T) {
	srv := buildTestServer(t, testdataCampaigns, serverOptions{track: true})
	w := postForm(srv.public, readFile(t, "../testdata/post.data"))
	require.Equal(t, http.StatusOK, w.Code)
	var resp struct {
		SeatBid []struct {
			Bid []struct {
				Adm  string `json:"adm"`
				CrID string `json:"crid"`
				CID  string `json:"cid"`
			} `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	b := resp.SeatBid[0].Bid[0]
	assert.Regexp(t, `^<a href="http://localhost:9090/dsp/click\?b=[0-9a-f]{32}&amp;t=\d+&amp;c=[^"]+&amp;r=[^"]+&amp;s=[A-Za-z0-9_-]{22}" target="_blank"><img src="[^"]+" width="\d+" height="\d+" alt="[^"]*"></a>`+
		`<img src="http://localhost:9090/dsp/imp\?b=[0-9a-f]{32}&amp;t=\d+&amp;c=[^"]+&amp;r=[^"]+&amp;s=[A-Za-z0-9_-]{22}" width="1" height="1" alt="" style="display:none">$`, b.Adm)
	imp, _ := trackURLs(t, w.Body.Bytes())
	u, err := url.Parse(imp)
	require.NoError(t, err)
	assert.Equal(t, b.CID, u.Query().Get("c"))
	assert.Equal(t, b.CrID, u.Query().Get("r"))
	assert.Equal(t, "1793779200", u.Query().Get("t"), "the bid's request time: testNow")

	untracked := buildTestServer(t, testdataCampaigns, serverOptions{})
	w2 := postForm(untracked.public, readFile(t, "../testdata/post.data"))
	assert.NotContains(t, w2.Body.String(), "/dsp/imp", "-track=false: version 2's answer")
}

func TestTrackers(t *testing.T) {
	now := testNow
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := buildTestServer(t, testdataCampaigns, serverOptions{events: &events.Config{Window: time.Hour}, track: true, clock: clock})
	w := postForm(srv.public, readFile(t, "../testdata/post.data"))
	require.Equal(t, http.StatusOK, w.Code)
	imp, click := trackURLs(t, w.Body.Bytes())
	cu, _ := url.Parse(click)
	camp, ok := srv.Catalog().Campaign(cu.Query().Get("c"))
	require.True(t, ok)
	clickURL := camp.Creatives[0].ClickURL
	for _, cr := range camp.Creatives {
		if cr.ID == cu.Query().Get("r") {
			clickURL = cr.ClickURL
		}
	}
	forge := func(u, key, value string) string {
		p, _ := url.Parse(u)
		q := p.Query()
		q.Set(key, value)
		p.RawQuery = q.Encode()
		return p.String()
	}

	w = get(srv.public, imp)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "image/gif", w.Header().Get("Content-Type"))
	assert.Equal(t, PixelGIF, w.Body.Bytes())
	assert.Contains(t, w.Header().Get("Cache-Control"), "no-store")
	require.Equal(t, http.StatusOK, get(srv.public, imp).Code, "a repeat is answered alike")

	w = get(srv.public, click)
	require.Equal(t, http.StatusFound, w.Code)
	assert.Equal(t, clickURL, w.Header().Get("Location"), "the creative's own URL")
	assert.Contains(t, w.Header().Get("Cache-Control"), "no-store")

	for name, tc := range map[string]struct {
		u    string
		code string
	}{
		"another campaign":        {forge(click, "c", "c-0001"), "invalid_signature"},
		"another creative":        {forge(click, "r", "cr-evil"), "invalid_signature"},
		"an impression as click":  {strings.Replace(imp, "/dsp/imp?", "/dsp/click?", 1), "invalid_signature"},
		"another time":            {forge(click, "t", "1893456000"), "invalid_signature"},
		"a redirect target":       {click + "&url=https%3A%2F%2Fevil.example", ""},
		"no signature":            {forge(click, "s", ""), "bad_query"},
		"another exchange's path": {strings.Replace(click, "/dsp/click?", "/dsp/click/adx?", 1), "invalid_signature"},
		"garbage":                 {"/dsp/click?b=zz&t=x&c=&r=&s=", "bad_query"},
	} {
		t.Run(name, func(t *testing.T) {
			w := get(srv.public, tc.u)
			if tc.code == "" { // extra keys are ignored: still the creative's URL
				assert.Equal(t, clickURL, w.Header().Get("Location"))
				return
			}
			assert.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), `"error":"`+tc.code+`"`)
			assert.Empty(t, w.Header().Get("Location"), "no redirect")
		})
	}
	post := httptest.NewRecorder()
	srv.public.ServeHTTP(post, httptest.NewRequest(http.MethodPost, imp, nil))
	assert.Equal(t, http.StatusMethodNotAllowed, post.Code)

	mu.Lock()
	now = now.Add(DefaultTrackTTL + time.Second)
	mu.Unlock()
	w = get(srv.public, forge(click, "x", "1")) // a fresh URL string, the same signed parts
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"error":"expired"`)

	recs := logged(t, srv.log)
	assert.Len(t, ofType(recs, "impression"), 1)
	clicks := ofType(recs, "click")
	require.Len(t, clicks, 1)
	assert.Equal(t, cu.Query().Get("c"), clicks[0]["campaign"])
	assert.Equal(t, cu.Query().Get("b"), clicks[0]["bidid"])
	assert.NotContains(t, clicks[0], "price_micros")
}

// TestEventLogDown: while the event log cannot write, no bid is made and
// notices are refused (503), as on a full state.
func TestEventLogDown(t *testing.T) {
	srv := buildTestServer(t, testdataCampaigns, serverOptions{events: &events.Config{Window: time.Hour, MaxWaitingBytes: 1}})
	post := readFile(t, "../testdata/post.data")
	bidID, _, _ := bidFor(t, srv, post) // the first record fills the waiting room
	w := postForm(srv.public, post)
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "state_unavailable", w.Header().Get("X-Nobid-Reason"), "a bid whose record is refused is not answered")
	require.NoError(t, srv.log.Rotate()) // the waiting record written: room again
	w = notice(t, srv, "bidid="+bidID+"&price=0.5")
	assert.Equal(t, http.StatusNoContent, w.Code)
}

func TestNoBidSample(t *testing.T) {
	srv := buildTestServer(t, testdataCampaigns, serverOptions{events: &events.Config{Window: time.Hour}, nobidSample: 2})
	for range 10 {
		w := postForm(srv.public, "id=r1&imp_id=1&w=300&h=250&cur=EUR")
		require.Equal(t, http.StatusNoContent, w.Code)
	}
	nobids := ofType(logged(t, srv.log), "nobid")
	require.Len(t, nobids, 5, "one in two")
	assert.Equal(t, "currency", nobids[0]["reason"])
	assert.Equal(t, "r1", nobids[0]["request_id"])
}

// TestEventsAllocations: the event log and the tracking URLs allocate
// nothing per request: a bid costs the same allocations with them as
// without.
func TestEventsAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	post := []byte(readFile(t, "../testdata/post.data"))
	measure := func(mod func(*Config)) float64 {
		srv := benchServerWith(t, mod)
		r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", nil)
		r.Header.Set("Content-Type", FormMediaType)
		reader := bytes.NewReader(nil)
		r.Body = io.NopCloser(reader)
		w := &discardWriter{h: http.Header{}}
		h := nethttp.EndpointHandler(srv, EndpointRecbid)
		run := func() {
			w.code = http.StatusOK
			reader.Reset(post)
			r.ContentLength = int64(len(post))
			h(w, r)
		}
		run()
		require.Equal(t, http.StatusOK, w.code)
		return testing.AllocsPerRun(2000, run)
	}
	plain := measure(nil)
	logged := measure(func(c *Config) { c.Events, c.Track = openLog(t, events.Config{Window: time.Hour}), true })
	t.Logf("allocations per bid: %.1f without the event log and tracking, %.1f with", plain, logged)
	assert.LessOrEqual(t, logged, plain)
}
