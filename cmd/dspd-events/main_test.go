package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/state/disk"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func id(n byte) bidder.BidID { return bidder.BidID{0xe0, 15: n} }

// records: on 2026-12-01, c-1 bids twice on x1 (bid 1 won at 1.25, bid 2
// not won) and once on x2 (bid 3, won at 2.5 after midnight); c-2 makes
// a test bid (4); a bid of the next day (5).
func records() []*events.Record {
	bid := func(n byte, campaign, exchange, when string) *events.Record {
		return &events.Record{Type: events.TypeBid, Time: at(when), BidID: id(n), Exchange: exchange, Campaign: campaign,
			Creative: "cr", Price: 3_000_000, Protocol: "recbid", W: 300, H: 250}
	}
	win := func(n byte, campaign, exchange, when, bidTime string, price bidder.Micros) *events.Record {
		return &events.Record{Type: events.TypeWin, Time: at(when), BidID: id(n), Exchange: exchange, Campaign: campaign,
			Creative: "cr", Price: price, BidTimeS: at(bidTime).Unix(), BidPrice: 3_000_000}
	}
	test := bid(4, "c-2", "x1", "2026-12-01T09:00:00.000Z")
	test.Test = true
	return []*events.Record{
		bid(1, "c-1", "x1", "2026-12-01T08:00:00.000Z"),
		win(1, "c-1", "x1", "2026-12-01T08:00:01.000Z", "2026-12-01T08:00:00Z", 1_250_000),
		bid(2, "c-1", "x1", "2026-12-01T08:30:00.000Z"),
		test,
		bid(3, "c-1", "x2", "2026-12-01T23:59:59.999Z"),
		win(3, "c-1", "x2", "2026-12-02T00:00:03.000Z", "2026-12-01T23:59:59Z", 2_500_000),
		bid(5, "c-1", "x1", "2026-12-02T07:00:00.000Z"),
	}
}

// logDir writes the records to a new event log directory.
func logDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "events")
	l, err := events.Open(events.Config{Dir: dir, Instance: "dspd-1", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	for _, r := range records() {
		f, err := l.Add(r, true)
		require.NoError(t, err)
		require.NoError(t, f.Wait(context.Background()))
	}
	require.NoError(t, l.Close())
	return dir
}

// stateDir books the records in a new disk state, plus extra wins, and
// returns its directory, stopped unless keepOpen.
func stateDir(t *testing.T, keepOpen bool, extra ...bidder.Win) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	now := at("2026-12-02T08:00:00Z")
	s, err := disk.Open(disk.Config{Dir: dir, Clock: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	for _, r := range records() {
		switch r.Type {
		case events.TypeBid:
			_, err := s.Bids().Save(ctx, bidder.BidRecord{CampaignID: r.Campaign, Exchange: r.Exchange, TimeS: r.Time.Unix(),
				Price: r.Price, Test: r.Test}, now)
			require.NoError(t, err)
		case events.TypeWin:
			extra = append(extra, bidder.Win{CampaignID: r.Campaign, Exchange: r.Exchange, Day: bidder.DayOfSec(r.BidTimeS), Price: r.Price})
		}
	}
	for _, w := range extra {
		require.NoError(t, s.Ledger().RecordWin(ctx, w))
	}
	if keepOpen {
		t.Cleanup(func() { _ = s.Close() })
	} else {
		require.NoError(t, s.Close())
	}
	return dir
}

// runCmd runs the command and returns its exit status and outputs.
func runCmd(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, exitUsage, "Usage: dspd-events COMMAND"},
		{[]string{"-h"}, exitOK, "tail        print the records that match"},
		{[]string{"cat"}, exitUsage, `unknown command "cat"`},
		{[]string{"tail", "-h"}, exitOK, "Prints the records of the event log directories"},
		{[]string{"reconcile", "-h"}, exitOK, "compares them with dspd's books"},
		{[]string{"tail", "-type", "wins"}, exitUsage, `-type "wins" is none of bid, win,`},
		{[]string{"tail", "-since", "yesterday"}, exitUsage, `-since "yesterday" is neither`},
		{[]string{"tail", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"tail", "-dir", "/nonexistent/events"}, exitUsage, "no such file or directory"},
		{[]string{"reconcile"}, exitUsage, "-day is needed"},
		{[]string{"reconcile", "-day", "2026-12-01"}, exitUsage, "one of -admin and -state is needed"},
		{[]string{"reconcile", "-day", "2026-12-01", "-admin", "http://127.0.0.1:1", "-state", "data"}, exitUsage, "one of -admin and -state"},
		{[]string{"reconcile", "-day", "2026-12-01", "-state", "data", "-campaigns", "c.json"}, exitUsage, "-campaigns goes with -admin"},
		{[]string{"reconcile", "-day", "2026-12-01", "-state", "data", "-exchange", "x1"}, exitUsage, "-exchange goes with -invoice"},
		{[]string{"reconcile", "-invoice", "i.csv", "-state", "data"}, exitUsage, "-invoice compares with the log only"},
		{[]string{"reconcile", "-day", "12/01/2026", "-state", "data"}, exitUsage, `-day "12/01/2026" is not YYYY-MM-DD`},
		{[]string{"reconcile", "-day", "2026-12-01", "-state", "data", "-dir", "/nonexistent/events"}, exitUsage, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCmd(context.Background(), tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestReconcileState(t *testing.T) {
	log := logDir(t)
	tests := []struct {
		name     string
		state    string
		code     int
		stdout   []string
		stderr   string
		noStdout string
	}{
		{name: "exact", state: stateDir(t, false), code: exitOK,
			stdout: []string{"day 2026-12-01: 7 records read, 5 counted, 0 duplicates dropped, 1 test bids left out", "exact: the log and the ledger agree to the micro"}},
		{name: "a win the log lacks", state: stateDir(t, false, bidder.Win{CampaignID: "c-1", Exchange: "x2", Day: bidder.DayOfTime(at("2026-12-01T00:00:00Z")), Price: 1}),
			code: exitDifferences, stdout: []string{
				"4 differences (log − ledger):",
				"campaign c-1, all exchanges: wins log 2, ledger 3 (-1)",
				"campaign c-1, all exchanges: spend_micros log 3750000, ledger 3750001 (-1)",
				"campaign c-1, exchange x2: wins log 1, ledger 2 (-1)",
				"campaign c-1, exchange x2: spend_micros log 2500000, ledger 2500001 (-1)",
			}, noStdout: "only in"},
		{name: "a running dspd's", state: stateDir(t, true), code: exitUsage, stderr: "stop dspd first or reconcile against its admin listener"},
		{name: "not a state directory", state: t.TempDir(), code: exitUsage, stderr: "is not a dspd state directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(context.Background(), "reconcile", "-day", "2026-12-01", "-dir", log, "-state", "disk:"+tt.state)
			assert.Equal(t, tt.code, code, stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
			assert.Contains(t, stderr, tt.stderr)
			if tt.noStdout != "" {
				assert.NotContains(t, stdout, tt.noStdout)
			}
		})
	}
}

// TestReconcileDuplicatesAndStreams: the same records in two directories
// and in a dump on standard input's stead are counted once.
func TestReconcileDuplicatesAndStreams(t *testing.T) {
	log, state := logDir(t), stateDir(t, false)
	var dump bytes.Buffer
	for _, r := range records() {
		dump.Write(events.Append(nil, r))
	}
	in := writeFile(t, "topic.jsonl", dump.String())
	code, stdout, stderr := runCmd(context.Background(), "reconcile", "-day", "2026-12-01", "-dir", log, "-dir", log, "-in", in, "-state", state)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "21 records read, 5 counted, 10 duplicates dropped, 3 test bids left out")
}

// fakeAdmin answers /admin/stats from books as api/admin does, behind a
// token.
func fakeAdmin(t *testing.T, token string, books map[string]bidder.DayStats) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"unauthorized","field":"","message":"token"}`)
			return
		}
		q := r.URL.Query()
		mu.Lock()
		st, ok := books[q.Get("campaign")+"/"+q.Get("exchange")]
		mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"unknown_campaign","field":"campaign","message":"no such campaign and no counters for it"}`)
			return
		}
		ex := ""
		if e := q.Get("exchange"); e != "" {
			ex = fmt.Sprintf(`,"exchange":%q`, e)
		}
		fmt.Fprintf(w, `{"campaign":%q%s,"day":%q,"bids":%d,"wins":%d,"spend_micros":%d}`, q.Get("campaign"), ex, q.Get("day"), st.Bids, st.Wins, st.Spend)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReconcileAdmin(t *testing.T) {
	const token = "an-admin-token-of-at-least-32-characters"
	books := map[string]bidder.DayStats{
		"c-1/":   {Bids: 3, Wins: 2, Spend: 3_750_000},
		"c-1/x1": {Bids: 2, Wins: 1, Spend: 1_250_000},
		"c-1/x2": {Bids: 1, Wins: 1, Spend: 2_500_000},
		"c-7/":   {Bids: 4},
	}
	srv := fakeAdmin(t, token, books)
	log := logDir(t)
	campaigns := writeFile(t, "campaigns.json", `{"campaigns":[{"id":"c-1"},{"id":"c-7"}]}`)
	tests := []struct {
		name   string
		token  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "exact", token: token, code: exitOK, stdout: "note: the admin listener cannot list campaigns"},
		{name: "a campaign the log lacks", token: token, args: []string{"-campaigns", campaigns}, code: exitDifferences, stdout: "only in the ledger: c-7"},
		{name: "without the token", code: exitUsage, stderr: "401: the admin listener wants its bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(adminTokenEnv, tt.token)
			args := append([]string{"reconcile", "-day", "2026-12-01", "-dir", log, "-admin", srv.URL}, tt.args...)
			code, stdout, stderr := runCmd(context.Background(), args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stdout, tt.stdout)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestReconcileInvoice(t *testing.T) {
	log := logDir(t)
	tests := []struct {
		name    string
		invoice string
		args    []string
		code    int
		stdout  []string
		stderr  string
	}{
		{name: "matching", invoice: "bidid,price\n" + id(1).String() + ",1.25\n" + id(3).String() + ",2.5\n", code: exitOK,
			stdout: []string{"2 billed at their win's price", "exact: the invoice bills the log's wins at their prices"}},
		{name: "one exchange, one day, micros", invoice: "bidid,price_micros\n" + id(1).String() + ",1250000\n",
			args: []string{"-exchange", "x1", "-day", "2026-12-01"}, code: exitOK},
		{name: "missing both ways and a price off", invoice: id(1).String() + ",1.26\n" + id(9).String() + ",1\n", code: exitDifferences,
			stdout: []string{
				"line 2: bid " + id(9).String() + ", price 1: no win record",
				"won, not billed (1):\n  bid " + id(3).String() + ": campaign c-1, exchange x2, price 2.5",
				"line 1: bid " + id(1).String() + ": billed 1.26, won at 1.25 (+0.01)",
			}},
		{name: "another exchange's bid", invoice: id(3).String() + ",2.5\n", args: []string{"-exchange", "x1"}, code: exitDifferences,
			stdout: []string{"the log's win is x2's, not x1's", "won, not billed (1):\n  bid " + id(1).String()}},
		{name: "malformed", invoice: "bidid,price\n" + id(1).String() + ",1.25\n" + id(3).String() + ",2.5.0\n", code: exitUsage,
			stderr: "malformed invoice: line 3: price \"2.5.0\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := writeFile(t, "invoice.csv", tt.invoice)
			args := append([]string{"reconcile", "-invoice", inv, "-dir", log}, tt.args...)
			code, stdout, stderr := runCmd(context.Background(), args...)
			assert.Equal(t, tt.code, code, stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestTail(t *testing.T) {
	log := logDir(t)
	tests := []struct {
		name string
		args []string
		want []int // indexes in records()
	}{
		{"all", nil, []int{0, 1, 2, 3, 4, 5, 6}},
		{"wins", []string{"-type", "win"}, []int{1, 5}},
		{"an exchange", []string{"-exchange", "x2"}, []int{4, 5}},
		{"a campaign", []string{"-campaign", "c-2"}, []int{3}},
		{"since", []string{"-since", "2026-12-02T00:00:00Z"}, []int{5, 6}},
		{"since a while ago", []string{"-since", "87600h"}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"all filters", []string{"-type", "bid", "-campaign", "c-1", "-exchange", "x1", "-since", "2026-12-01T08:00:00.001Z"}, []int{2, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(context.Background(), append([]string{"tail", "-dir", log}, tt.args...)...)
			require.Equal(t, exitOK, code, stderr)
			var want strings.Builder
			recs := records()
			for _, i := range tt.want {
				recs[i].Instance = "dspd-1"
				want.Write(events.Append(nil, recs[i]))
			}
			assert.Equal(t, want.String(), stdout, "the records as they are, one a line")
		})
	}
}

// TestTailFollow: -f prints the records written later, and stops with its
// context (the interrupt).
func TestTailFollow(t *testing.T) {
	log := logDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"tail", "-f", "-dir", log, "-type", "click"}, out, out) }()

	l, err := events.Open(events.Config{Dir: log, Instance: "dspd-1", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer l.Close()
	f, err := l.Add(&events.Record{Type: events.TypeClick, Time: at("2026-12-02T09:00:00Z"), BidID: id(1), Exchange: "x1", Campaign: "c-1"}, true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(ctx))
	require.Eventually(t, func() bool { return strings.Contains(out.String(), `"type":"click"`) }, 10*time.Second, 10*time.Millisecond)
	cancel()
	assert.Equal(t, exitOK, <-done)
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), out.String())
}

// syncBuffer is a buffer the command writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestReconcileToday: a day not over yet is reconciled with a warning
// that its counters may still move.
func TestReconcileToday(t *testing.T) {
	state := t.TempDir()
	s, err := disk.Open(disk.Config{Dir: state, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	code, stdout, stderr := runCmd(context.Background(), "reconcile", "-day", time.Now().UTC().Format(time.DateOnly),
		"-dir", t.TempDir(), "-state", state)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "(no counters on either side)")
	assert.Contains(t, stdout, "note: the day's win notices may still come")
}
