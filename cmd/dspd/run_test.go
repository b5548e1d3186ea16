package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/currency"
)

// logLines is a slog handler that forwards every message to a channel, so a
// test can wait for "campaigns loaded" instead of sleeping.
type logLines chan string

func (e logLines) Enabled(context.Context, slog.Level) bool      { return true }
func (e logLines) Handle(_ context.Context, r slog.Record) error { e <- r.Message; return nil }
func (e logLines) WithAttrs([]slog.Attr) slog.Handler            { return e }
func (e logLines) WithGroup(string) slog.Handler                 { return e }

// waitFor reads the log until msg; a log that never says it fails the test
// after a generous minute instead of hanging the suite.
func (e logLines) waitFor(t *testing.T, msg string) {
	t.Helper()
	giveUp := time.After(time.Minute)
	for {
		select {
		case m, ok := <-e:
			if !ok {
				t.Fatalf("log closed before %q", msg)
			}
			if m == msg {
				return
			}
		case <-giveUp:
			t.Fatalf("no %q in the log within a minute", msg)
		}
	}
}

func testConfig(t *testing.T) config {
	cfg := defaultConfig()
	cfg.addr, cfg.admin = "127.0.0.1:0", "127.0.0.1:0"
	cfg.campaigns = copyFile(t, "../../testdata/campaigns.json")
	cfg.publicURL = "http://127.0.0.1:9090"
	cfg.state = "disk:" + t.TempDir() // the default kind of state, in a directory of the test's own
	if f := os.Getenv("DSPD_FRONT_END"); f != "" {
		cfg.http = f // make test runs these tests on both front ends
	}
	// -clock-start: testdata's flights and hours hold whenever the test runs.
	cfg.clockStart = testClockStart
	return cfg
}

// testClockStart is the server clock's start in these tests: 2026-11-04
// 08:00 UTC, inside the week testdata's requests are stamped with.
var testClockStart = time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)

func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
	return dst
}

func TestRunRefusesInvalidCampaigns(t *testing.T) {
	cfg := testConfig(t)
	require.NoError(t, os.WriteFile(cfg.campaigns, []byte(`{"campaigns":[{"id":"x"}]}`), 0o644))
	err := run(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, hooks{
		listening: func(net.Addr, net.Addr) { t.Error("listened with an invalid campaigns file") },
	})
	require.Error(t, err)
	assert.True(t, errors.Is(err, bidder.ErrInvalidCatalog))
	assert.Contains(t, err.Error(), "campaign x: advertiser: required")
}

func TestRunRefusesInvalidRates(t *testing.T) {
	cfg := testConfig(t)
	cfg.currencyRates = filepath.Join(t.TempDir(), "rates.json")
	require.NoError(t, os.WriteFile(cfg.currencyRates, []byte(`{"conversions":{"USD":{"EUR":"0.92"}}}`), 0o644))
	err := run(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, hooks{
		listening: func(net.Addr, net.Addr) { t.Error("listened with an invalid rates file") },
	})
	require.Error(t, err)
	assert.True(t, errors.Is(err, currency.ErrInvalidRates))
	assert.Contains(t, err.Error(), "conversions.USD.EUR: must be a number")
}

// TestRunServesReloadsAndDrains starts dspd on loopback, bids, reloads on
// SIGHUP, and shuts down while a request is in flight: the request is
// answered in full and run returns nil.
func TestRunServesReloadsAndDrains(t *testing.T) {
	cfg := testConfig(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	log := make(logLines, 100)
	hup := make(chan os.Signal, 1)
	addrs := make(chan [2]net.Addr, 1)
	draining := make(chan struct{})
	active := make(chan struct{}, 100)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(log), hup, hooks{
			listening: func(p, a net.Addr) { addrs <- [2]net.Addr{p, a} },
			draining:  func() { close(draining) },
			active:    func() { active <- struct{}{} },
		})
		close(log)
	}()
	a := <-addrs
	public, admin := "http://"+a[0].String(), "http://"+a[1].String()
	post, err := os.ReadFile("../../testdata/post.data")
	require.NoError(t, err)

	resp := postRecbid(t, http.DefaultClient, strings.TrimPrefix(public, "http://"), string(post))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"nurl":"http://127.0.0.1:9090/dsp/win?bidid=`)
	resp, err = http.Get(admin + "/admin/stats?campaign=c-0790")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.JSONEq(t, `{"campaign":"c-0790","day":"2026-11-04","bids":1,"wins":0,"spend_micros":0}`, string(body),
		"the bid is on the day of -clock-start, the stats' default day")

	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/debug/pprof/": 200} {
		resp, err := http.Get(admin + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, path)
		resp, err = http.Get(public + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, "public "+path)
	}

	// SIGHUP reloads: a broken file is refused, a good one taken.
	require.NoError(t, os.WriteFile(cfg.campaigns, []byte(`{"campaigns":[{}]}`), 0o644))
	hup <- os.Interrupt
	log.waitFor(t, "reload rejected; the previous campaigns, exchanges and rates keep serving")
	one := `{"campaigns":[{"id":"only","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":1,` +
		`"creatives":[{"id":"cr","w":320,"h":50,"secure":true,"image_url":"https://a.example/i","click_url":"https://a.example/"}]}]}`
	require.NoError(t, os.WriteFile(cfg.campaigns, []byte(one), 0o644))
	hup <- os.Interrupt
	log.waitFor(t, "campaigns loaded")
	resp = postRecbid(t, http.DefaultClient, strings.TrimPrefix(public, "http://"), string(post))
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), `"cid":"only"`)

	// A request in flight when shutdown starts is answered in full.
	http.DefaultClient.CloseIdleConnections()
	for len(active) > 0 {
		<-active
	}
	conn, err := net.Dial("tcp", a[0].String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /dsp/recbid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(post), post[:100])
	require.NoError(t, err)
	<-active // the server has read the headers: the request is in flight
	cancel()
	<-draining
	_, err = conn.Write(post[100:])
	require.NoError(t, err)
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	r.Body.Close()

	require.NoError(t, <-done)
	_, err = net.Dial("tcp", a[0].String())
	assert.Error(t, err, "the listener is closed")
}

// TestPublicURLRule: on loopback the public URL defaults to the listen
// address; anywhere else dspd refuses to start without -public-url, with one
// line saying why and what to pass.
func TestPublicURLRule(t *testing.T) {
	tests := []struct {
		addr, want string // want "": refused
	}{
		{"127.0.0.1:9090", "http://127.0.0.1:9090"},
		{"127.1.2.3:80", "http://127.1.2.3:80"},
		{"[::1]:9090", "http://[::1]:9090"},
		{"localhost:9090", "http://localhost:9090"},
		{":9090", ""},
		{"0.0.0.0:9090", ""},
		{"[::]:80", ""},
		{"192.0.2.7:9090", ""},
		{"bid.example:8080", ""},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		cfg, err := parseFlags([]string{"-addr", tt.addr}, &stderr)
		if tt.want != "" {
			require.NoError(t, err, tt.addr)
			assert.Equal(t, tt.want, cfg.publicURL, tt.addr)
			continue
		}
		require.Error(t, err, tt.addr)
		assert.Equal(t, "dspd: -addr "+tt.addr+" is not a loopback address, so -public-url is required: "+
			"pass the URL exchanges reach this server at (e.g. -public-url https://bid.example.com)\n", stderr.String())
		cfg, err = parseFlags([]string{"-addr", tt.addr, "-public-url", "https://bid.example.com"}, io.Discard)
		require.NoError(t, err, tt.addr)
		assert.Equal(t, "https://bid.example.com", cfg.publicURL)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9090", cfg.addr, "a bare dspd listens on loopback")
	assert.Equal(t, "127.0.0.1:6060", cfg.admin)
	assert.Equal(t, "testdata/campaigns.json", cfg.campaigns)
	assert.Equal(t, "dsp", cfg.seat)
	assert.Equal(t, "http://127.0.0.1:9090", cfg.publicURL)
	assert.False(t, cfg.trustRequestTS)
	assert.True(t, cfg.clockStart.IsZero())
	assert.Equal(t, "disk:data", cfg.state, "a bare dspd keeps its books in ./data")
	assert.Equal(t, 2*time.Millisecond, cfg.bidWindow)
	assert.Empty(t, cfg.currencyRates, "no rates: only USD floors can bid")
	if os.Getenv("DSPD_FRONT_END") == "" {
		assert.Equal(t, "chi", cfg.http, "chi on net/http by default")
	}

	cfg, err = parseFlags([]string{"-addr", "127.0.0.1:8000", "-seat", "s1", "-public-url", "https://bid.example/",
		"-trust-request-ts", "-clock-start", "2026-11-04T08:00:00Z", "-currency-rates", "rates.json"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://bid.example/", cfg.publicURL, "the trailing slash is dropped by the server")
	assert.Equal(t, "s1", cfg.seat)
	assert.True(t, cfg.trustRequestTS)
	assert.Equal(t, time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC), cfg.clockStart.UTC())
	assert.Equal(t, "rates.json", cfg.currencyRates)

	cfg, err = parseFlags([]string{"-http", "fasthttp"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "fasthttp", cfg.http)

	for _, bad := range [][]string{
		{"-http", "netty"},
		{"-clock-start", "yesterday"},
		{"-bid-ttl", "25h"},
		{"-max-bids", "5000000000"},
	} {
		_, err = parseFlags(bad, io.Discard)
		assert.Error(t, err, "%v", bad)
	}
	_, err = parseFlags([]string{"-nope"}, io.Discard)
	assert.Error(t, err)
	_, err = parseFlags([]string{"extra"}, io.Discard)
	assert.Error(t, err)
}

// TestAdminOffLoopbackNeedsAToken: -admin on any address but loopback
// refuses to start without -admin-token (or $DSPD_ADMIN_TOKEN), and a token
// must be long enough to guess at no better than chance.
func TestAdminOffLoopbackNeedsAToken(t *testing.T) {
	token := strings.Repeat("t", 32)
	for _, tt := range []struct {
		args []string
		env  string
		err  string // "" when it starts
	}{
		{args: []string{"-admin", "127.0.0.1:6060"}},
		{args: []string{"-admin", "0.0.0.0:6060"}, err: "-admin 0.0.0.0:6060 is not a loopback address, so -admin-token (or $DSPD_ADMIN_TOKEN) is required"},
		{args: []string{"-admin", ":6060"}, err: "-admin-token (or $DSPD_ADMIN_TOKEN) is required"},
		{args: []string{"-admin", "0.0.0.0:6060", "-admin-token", token}},
		{args: []string{"-admin", "0.0.0.0:6060"}, env: token},
		{args: []string{"-admin", "0.0.0.0:6060", "-admin-token", "short"}, err: "-admin-token: at least 32 characters"},
		{args: []string{"-admin-token", "short"}, err: "-admin-token: at least 32 characters"},
	} {
		t.Run(strings.Join(tt.args, " ")+" env="+tt.env, func(t *testing.T) {
			t.Setenv("DSPD_ADMIN_TOKEN", tt.env)
			cfg, err := parseFlags(tt.args, io.Discard)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			if tt.env != "" {
				assert.Equal(t, tt.env, cfg.adminToken)
			}
		})
	}
}

// TestAdminTokenStaysSecret: a token from $DSPD_ADMIN_TOKEN is not printed
// in the usage text, and one with spaces is refused (a bearer token is one
// word: it could never match).
func TestAdminTokenStaysSecret(t *testing.T) {
	secret := strings.Repeat("s", 40)
	t.Setenv("DSPD_ADMIN_TOKEN", secret)
	var usage strings.Builder
	_, err := parseFlags([]string{"-no-such-flag"}, &usage)
	require.Error(t, err)
	assert.NotContains(t, usage.String(), secret)
	cfg, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, secret, cfg.adminToken, "read from the environment")
	for _, bad := range []string{" " + secret, secret + "\n", secret[:20] + " " + secret[:20]} {
		_, err := parseFlags([]string{"-admin-token", bad}, io.Discard)
		assert.ErrorContains(t, err, "no spaces", "%q", bad)
	}
	for _, bad := range []string{"-1", "100000000000000"} {
		_, err := parseFlags([]string{"-max-campaigns-bytes", bad}, io.Discard)
		assert.ErrorContains(t, err, "-max-campaigns-bytes", bad)
	}
}
