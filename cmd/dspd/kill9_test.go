package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

// The kill -9 tests run dspd on the disk state in a process of its own,
// drive bids and win notices at it from several connections, kill it with
// SIGKILL at a random moment, restart it on the same directory and check
// the durability contract (docs/operations.md):
//
//   - every notice answered 204 before the kill is in /admin/stats, and a
//     re-sent one is a duplicate;
//   - every bid answered 200 can still be won (its notice gets 204), but
//     with -bid-window W those answered in the last W (plus a commit,
//     counted generously as 100 ms here) before the kill, which may be lost;
//   - spend is the sum of the acknowledged wins to the micro, and wins
//     their count: nothing is counted twice (the notices whose answer the
//     kill cut are re-sent, as an exchange retries them);
//   - a user capped before the kill is still capped.
//
// make test runs one small round of each kind; make soak sets
// DSPD_KILL9_RUNS and DSPD_KILL9_ACKS for many large ones.

// kill9Campaigns: "capped" (one win a user an hour, the dearest) and
// "free" (no limit), both 320x50, secure and untargeted: they match
// post.data.
const kill9Campaigns = `{"campaigns":[
 {"id":"capped","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":5,
  "freq_cap":{"impressions":1,"period_s":3600},
  "creatives":[{"id":"capped-a","w":320,"h":50,"secure":true,"image_url":"https://a.example/i.png","click_url":"https://a.example/"}]},
 {"id":"free","advertiser":"B","adomain":["b.example"],"cat":["IAB1"],"status":"active","bid_cpm":1,
  "creatives":[{"id":"free-a","w":320,"h":50,"secure":true,"image_url":"https://b.example/i.png","click_url":"https://b.example/"}]}]}`

// kill9Users: the users the requests come from.
const kill9Users = 500

func TestKill9KeepsTheBooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dspd processes")
	}
	runs, acks := envInt(t, "DSPD_KILL9_RUNS", 1), envInt(t, "DSPD_KILL9_ACKS", 1000)
	for _, window := range []time.Duration{0, 2 * time.Millisecond} {
		var total kill9Totals
		for _, during := range []string{"load", "reload", "duplicates"} {
			t.Run(fmt.Sprintf("bid-window %v/%s", window, during), func(t *testing.T) {
				for run := range runs {
					seed := uint64(time.Now().UnixNano())
					r := rand.New(rand.NewPCG(seed, uint64(run)))
					killAt := acks/2 + r.IntN(acks/2+1)
					t.Logf("run %d: seed %d, kill after %d acknowledged operations", run, seed, killAt)
					total.add(kill9Round(t, during, window, killAt, r))
				}
			})
		}
		t.Logf("kill -9, -bid-window %v: %d runs, %d bids acknowledged (%d in the window before the kill, %d of them lost, answered at most %v before the kill), %d wins acknowledged (%d before the kill), all %d found after the restart (re-sent: duplicates), %d capped users still capped, slowest restart to ready %v",
			window, total.runs, total.bids, total.inWindow, total.lost, total.oldestLost.Round(10*time.Microsecond), total.wins, total.winsBefore, total.found, total.capped, total.slowestReady.Round(time.Millisecond))
		t.Logf("event log after kill -9, -bid-window %v: %d win records for the %d acknowledged wins, %d duplicated; %d bid records for the %d bids acknowledged outside the window; %d torn tails cut at restart",
			window, total.winRecords, total.wins, total.dupRecords, total.bidRecords, total.bids-total.inWindow, total.torn)
	}
}

type kill9Totals struct {
	runs, bids, inWindow, lost, wins, winsBefore, found, capped int
	winRecords, bidRecords, dupRecords, torn                    int // the event log
	slowestReady                                                time.Duration
	oldestLost                                                  time.Duration // before the kill
}

func (t *kill9Totals) add(o kill9Totals) {
	t.runs += o.runs
	t.bids += o.bids
	t.wins += o.wins
	t.inWindow += o.inWindow
	t.lost += o.lost
	t.winsBefore += o.winsBefore
	t.found += o.found
	t.capped += o.capped
	t.winRecords += o.winRecords
	t.bidRecords += o.bidRecords
	t.dupRecords += o.dupRecords
	t.torn += o.torn
	t.slowestReady = max(t.slowestReady, o.slowestReady)
	t.oldestLost = max(t.oldestLost, o.oldestLost)
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}

// kill9Bid is a bid as the test (the exchange) knows it.
type kill9Bid struct {
	id, campaign, user string
	price              int64     // the win price sent, in micros of CPM
	acked              time.Time // when its 200 was read
}

// kill9Books is what the exchange side saw acknowledged.
type kill9Books struct {
	post    string // post.data
	mu      sync.Mutex
	bids    []kill9Bid          // answered 200
	won     map[string]int64    // bid id → price, answered 204 (not a duplicate)
	unknown map[string]kill9Bid // notices sent whose answer the kill cut
	capped  map[string]bool     // users with an acknowledged win on "capped"
	acks    atomic.Int64        // bids and notices acknowledged
	bidsOut atomic.Int64        // bid requests whose answer the kill cut
}

func kill9Round(t *testing.T, during string, window time.Duration, killAt int, r *rand.Rand) kill9Totals {
	dir := t.TempDir()
	campaigns := filepath.Join(dir, "campaigns.json")
	require.NoError(t, os.WriteFile(campaigns, []byte(kill9Campaigns), 0o644))
	args := []string{"-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-campaigns", campaigns,
		"-state", "disk:" + filepath.Join(dir, "data"), "-bid-window", window.String(), "-clock-start", testClockStart.Format(time.RFC3339)}
	dspd := startChild(t, args...)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()
	books := &kill9Books{post: string(postData(t)), won: map[string]int64{}, unknown: map[string]kill9Bid{}, capped: map[string]bool{}}

	var killed atomic.Bool
	var once sync.Once
	var killedAt time.Time
	kill := func() { once.Do(func() { killedAt = time.Now(); killed.Store(true); dspd.kill() }) }
	giveUp := time.AfterFunc(2*time.Minute, func() {
		t.Errorf("fewer than %d operations acknowledged in two minutes:\n%s", killAt, dspd.lastLines())
		kill()
	})
	defer giveUp.Stop()
	var wg sync.WaitGroup
	for w := range 8 {
		wr := rand.New(rand.NewPCG(r.Uint64(), uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !killed.Load() {
				if during == "duplicates" && w%2 == 1 {
					books.resendOne(client, dspd.public, wr)
				} else {
					books.bidAndWin(client, dspd.public, wr)
				}
				if books.acks.Load() >= int64(killAt) && during != "reload" {
					kill()
				}
			}
		}()
	}
	if during == "reload" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !killed.Load() {
				resp, err := http.Post("http://"+dspd.admin+"/admin/reload", "application/json", nil)
				if books.acks.Load() >= int64(killAt) {
					kill() // right after a reload was asked for, likely while it runs
				}
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	client.CloseIdleConnections()

	winsBefore := len(books.won)
	again := startChild(t, args...)
	out := kill9Totals{runs: 1, bids: len(books.bids), winsBefore: winsBefore, slowestReady: again.ready}
	// With a bid window, the records of the bids answered in it may be lost.
	inWindow := func(b kill9Bid) bool { return window > 0 && b.acked.After(killedAt.Add(-window-100*time.Millisecond)) }
	lost := map[string]bool{}
	for _, b := range books.bids {
		if inWindow(b) {
			out.inWindow++
		}
	}

	// The notices the kill cut: the exchange retries them.
	for id, b := range books.unknown {
		status, _ := notice(t, client, again.public, id, b.price) // recorded now, or a duplicate of one recorded before
		if status == http.StatusNotFound && inWindow(b) {
			lost[id] = true
			out.oldestLost = max(out.oldestLost, killedAt.Sub(b.acked))
			continue
		}
		require.Equal(t, http.StatusNoContent, status, "a retried notice whose answer was cut")
		books.won[id] = b.price
		if b.campaign == "capped" {
			books.capped[b.user] = true
		}
	}
	// Every acknowledged win is there: re-sent, it is a duplicate.
	for id, price := range books.won {
		status, dup := notice(t, client, again.public, id, price)
		require.Equal(t, http.StatusNoContent, status)
		require.True(t, dup, "an acknowledged win was lost: bid %s", id)
		out.found++
	}
	// Every acknowledged bid not yet won can be won.
	for _, b := range books.bids {
		if _, ok := books.won[b.id]; ok || lost[b.id] {
			continue
		}
		status, dup := notice(t, client, again.public, b.id, b.price)
		if status == http.StatusNotFound && inWindow(b) {
			lost[b.id] = true
			out.oldestLost = max(out.oldestLost, killedAt.Sub(b.acked))
			continue
		}
		require.Equal(t, http.StatusNoContent, status, "an acknowledged bid cannot be won after the restart: %s", b.id)
		require.False(t, dup, "a bid never won is recorded as won: %s", b.id)
		books.won[b.id] = b.price
		if b.campaign == "capped" {
			books.capped[b.user] = true
		}
	}
	out.wins, out.lost = len(books.won), len(lost)

	// Spend and wins to the micro; bids between those answered and those sent.
	want := map[string][2]int64{}
	bidsOf := map[string]int64{}
	campaignOf := map[string]string{}
	for _, b := range books.bids {
		campaignOf[b.id] = b.campaign
		if !inWindow(b) {
			bidsOf[b.campaign]++
		}
	}
	for id, price := range books.won {
		c := campaignOf[id]
		w := want[c]
		want[c] = [2]int64{w[0] + 1, w[1] + price}
	}
	for _, c := range []string{"capped", "free"} {
		st := adminStats(t, again.admin, c)
		assert.Equal(t, want[c][0], st.Wins, "%s: wins", c)
		assert.Equal(t, want[c][1], st.SpendMicros, "%s: spend", c)
		assert.GreaterOrEqual(t, st.Bids, bidsOf[c], "%s: bids answered 200 are counted", c)
	}
	total := adminStats(t, again.admin, "capped").Bids + adminStats(t, again.admin, "free").Bids
	assert.LessOrEqual(t, total, int64(len(books.bids))+books.bidsOut.Load(), "no bid counted that was not asked for")

	// Capped users stay capped.
	for u := range books.capped {
		b, ok := bid(t, client, again.public, u)
		if ok {
			assert.NotEqual(t, "capped", b.campaign, "user %s won capped before the kill and bids on it again", u)
		}
		out.capped++
	}
	again.kill()
	checkEventLog(t, args, filepath.Join(dir, "data", "events"), books, inWindow, &out)
	return out
}

// checkEventLog checks the event log the killed dspd left, once a third
// start has taken what the state's outbox still held (the win records
// committed with their wins but not yet written when the kill came) and
// stopped cleanly: every acknowledged win has one win record, no record
// is there twice, and every bid acknowledged outside the window has its
// bid record.
func checkEventLog(t *testing.T, args []string, dir string, books *kill9Books, inWindow func(kill9Bid) bool, out *kill9Totals) {
	third := startChild(t, args...)
	third.stop(t)
	for _, line := range strings.Split(third.lastLines(), "\n") {
		if strings.Contains(line, "torn record") {
			out.torn++
		}
	}
	segs, err := events.List(dir)
	require.NoError(t, err)
	seen := map[string]int{}
	wins := map[string]int{}
	bids := map[string]bool{}
	for _, s := range segs {
		require.NoError(t, events.Read(s, 0, -1, func(line []byte, _ int64) error {
			var r struct {
				Type  string `json:"type"`
				BidID string `json:"bidid"`
				Price int64  `json:"price_micros"`
			}
			require.NoError(t, json.Unmarshal(line, &r), "a whole record: %q", line)
			seen[r.Type+":"+r.BidID]++
			switch r.Type {
			case "win":
				wins[r.BidID]++
				assert.Equal(t, books.won[r.BidID], r.Price, "the win record's price is the acknowledged one")
			case "bid":
				bids[r.BidID] = true
			}
			return nil
		}))
	}
	for k, n := range seen {
		if n > 1 {
			out.dupRecords++
			t.Errorf("record %s is in the log %d times", k, n)
		}
	}
	for id := range books.won {
		if assert.Equal(t, 1, wins[id], "the win record of acknowledged win %s", id) {
			out.winRecords++
		}
	}
	assert.Len(t, wins, len(books.won), "no win record without an acknowledged win")
	for _, b := range books.bids {
		if !inWindow(b) {
			if assert.True(t, bids[b.id], "the bid record of acknowledged bid %s", b.id) {
				out.bidRecords++
			}
		}
	}
}

// bidAndWin asks for a bid and, most of the time, sends its win notice.
func (k *kill9Books) bidAndWin(c *http.Client, public string, r *rand.Rand) {
	user := fmt.Sprintf("u-%d", r.IntN(kill9Users))
	resp, err := c.Post("http://"+public+"/dsp/recbid", "application/x-www-form-urlencoded", strings.NewReader(withUser(k.post, user)))
	if err != nil {
		k.bidsOut.Add(1)
		return
	}
	b, ok, err := readBid(resp, user)
	if err != nil {
		k.bidsOut.Add(1)
		return
	}
	if !ok {
		return
	}
	if b.campaign == "capped" {
		b.price = int64(r.IntN(5_000_000) + 1)
	} else {
		b.price = int64(r.IntN(1_000_000) + 1)
	}
	b.acked = time.Now()
	k.mu.Lock()
	k.bids = append(k.bids, b)
	k.mu.Unlock()
	k.acks.Add(1)
	if r.IntN(4) == 0 {
		return // never won: it must still be winnable after the restart
	}
	k.send(c, public, b)
}

// send sends a bid's win notice and books what its answer says.
func (k *kill9Books) send(c *http.Client, public string, b kill9Bid) {
	resp, err := c.Get(noticeURL(public, b.id, b.price))
	if err != nil {
		k.mu.Lock()
		if _, won := k.won[b.id]; !won {
			k.unknown[b.id] = b
		}
		k.mu.Unlock()
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return
	}
	k.mu.Lock()
	k.won[b.id] = b.price
	delete(k.unknown, b.id)
	if b.campaign == "capped" {
		k.capped[b.user] = true
	}
	k.mu.Unlock()
	k.acks.Add(1)
}

// resendOne re-sends the notice of a bid already won: a duplicate.
func (k *kill9Books) resendOne(c *http.Client, public string, r *rand.Rand) {
	k.mu.Lock()
	var pick kill9Bid
	if n := len(k.bids); n > 0 {
		pick = k.bids[r.IntN(n)]
	}
	_, won := k.won[pick.id]
	k.mu.Unlock()
	if !won {
		k.bidAndWin(c, public, r)
		return
	}
	k.send(c, public, pick)
}

// withUser returns post.data asking for a bid for user.
func withUser(post, user string) string {
	return strings.Replace(post, "uid=u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7", "uid="+user, 1)
}

func noticeURL(public, id string, price int64) string {
	return "http://" + public + "/dsp/win?bidid=" + id + "&price=" + strconv.FormatFloat(float64(price)/1e6, 'f', -1, 64)
}

// notice sends a win notice and returns its status and whether it was a
// duplicate.
func notice(t *testing.T, c *http.Client, public, id string, price int64) (int, bool) {
	t.Helper()
	resp, err := c.Get(noticeURL(public, id, price))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Win-Duplicate") == "1"
}

// bid asks for a bid for user; a no bid is logged with its reason and
// returned as not ok.
func bid(t *testing.T, c *http.Client, public, user string) (kill9Bid, bool) {
	t.Helper()
	resp := postRecbid(t, c, public, withUser(string(postData(t)), user))
	reason := resp.Header.Get("X-Nobid-Reason")
	b, ok, err := readBid(resp, user)
	require.NoError(t, err)
	if !ok {
		t.Logf("no bid for %s: reason %q", user, reason)
	}
	return b, ok
}

// readBid reads a recbid answer: a bid (200) or none (204).
func readBid(resp *http.Response, user string) (kill9Bid, bool, error) {
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return kill9Bid{}, false, err
	}
	if resp.StatusCode == http.StatusNoContent {
		return kill9Bid{}, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return kill9Bid{}, false, fmt.Errorf("recbid answered %d: %s", resp.StatusCode, raw)
	}
	var a struct {
		SeatBid []struct {
			Bid []struct {
				CID  string `json:"cid"`
				NURL string `json:"nurl"`
			} `json:"bid"`
		} `json:"seatbid"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || len(a.SeatBid) != 1 || len(a.SeatBid[0].Bid) != 1 {
		return kill9Bid{}, false, fmt.Errorf("unreadable bid %q: %v", raw, err)
	}
	u, err := url.Parse(a.SeatBid[0].Bid[0].NURL)
	if err != nil {
		return kill9Bid{}, false, err
	}
	return kill9Bid{id: u.Query().Get("bidid"), campaign: a.SeatBid[0].Bid[0].CID, user: user}, true, nil
}

type campaignStats struct {
	Bids        int64 `json:"bids"`
	Wins        int64 `json:"wins"`
	SpendMicros int64 `json:"spend_micros"`
}

func adminStats(t *testing.T, admin, campaign string) campaignStats {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/admin/stats?campaign=" + campaign)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var st campaignStats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	return st
}
