// Package parity_test checks that the Java baseline (java-baseline/, run
// through run.sh) and the Go server (api + bidder, in process) answer the
// same requests alike: the same status, no-bid reason and error body, and for
// bids the same campaign, creative, price and bytes (the random bid id
// aside). The Java baseline has two HTTP front ends over one core (run.sh
// -http tomcat, the default, and -http netty): every test that starts it
// starts one of each beside the Go server and holds both to the Go answers.
//
// The Java side is built by build.sh from Debian packages. Without them the
// test is skipped, unless CI is set: then it fails.
package parity_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api"
	fastfront "github.com/recbid/dspd/api/fasthttp"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/internal/conntest"
	"github.com/recbid/dspd/internal/problems"
	"github.com/recbid/dspd/state/memory"
)

// Both servers get the same seat and public URL, so their bids have the same
// bytes apart from the bid id.
const (
	seat      = "dsp"
	publicURL = "http://localhost:9090"

	testdataCampaigns = "../testdata/campaigns.json"
	formType          = "application/x-www-form-urlencoded"
	validBody         = "id=req-1&imp_id=1&w=300&h=250&ts=1793779200000"
)

const installHint = "install the Debian packages openjdk-17-jdk-headless libtomcat10-embed-java libtomcat10-java " +
	"libnetty-java libjackson2-databind-java (java-baseline/build.sh does it when run as root)"

var (
	buildOnce sync.Once
	buildErr  error
	buildOut  []byte
)

// noJava is build.sh's exit status when the Java packages are missing and
// cannot be installed.
const noJava = 3

// requireJava builds the Java baseline once. Without the Java packages the
// test fails under CI and is skipped elsewhere; a build that fails for
// another reason (a compile error) always fails.
func requireJava(t *testing.T) {
	t.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a first build may install packages
		defer cancel()
		buildOut, buildErr = exec.CommandContext(ctx, "./build.sh").CombinedOutput()
	})
	if buildErr == nil {
		return
	}
	var exitErr *exec.ExitError
	if !errors.As(buildErr, &exitErr) || exitErr.ExitCode() != noJava {
		t.Fatalf("java-baseline/build.sh failed: %v\n%s", buildErr, buildOut)
	}
	msg := fmt.Sprintf("no Java toolchain for the Java baseline:\n%s%s", buildOut, installHint)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "\n(CI is set: a missing Java side fails the suite)")
	}
	t.Skip(msg)
}

// server is one of the servers under comparison.
type server struct {
	name string // go, or the Java front end: tomcat, netty
	base string // http://127.0.0.1:PORT
}

var client = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 8},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// answer is what a server said, with the headers the contract fixes.
type answer struct {
	status      int
	contentType string
	nobid       string // X-Nobid-Reason
	duplicate   string // X-Win-Duplicate
	allow       string
	body        []byte
}

func (s *server) do(t *testing.T, method, target, contentType string, body []byte, headers ...string) answer {
	t.Helper()
	a, err := s.fetch(method, target, contentType, body, headers...)
	require.NoError(t, err)
	return a
}

// fetch is do without assertions, for other goroutines than the test's.
func (s *server) fetch(method, target, contentType string, body []byte, headers ...string) (answer, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	return s.send(method, target, contentType, r, headers...)
}

// unsized hides a body's length from net/http, which then sends it chunked.
type unsized struct{ io.Reader }

// send is fetch with any body: an unsized one goes chunked.
func (s *server) send(method, target, contentType string, r io.Reader, headers ...string) (answer, error) {
	req, err := http.NewRequest(method, s.base+target, r)
	if err != nil {
		return answer{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s %s: %w", s.name, method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s %s: %w", s.name, method, target, err)
	}
	return answer{
		status:      resp.StatusCode,
		contentType: resp.Header.Get("Content-Type"),
		nobid:       resp.Header.Get("X-Nobid-Reason"),
		duplicate:   resp.Header.Get("X-Win-Duplicate"),
		allow:       resp.Header.Get("Allow"),
		body:        b,
	}, nil
}

func (s *server) post(t *testing.T, body string) answer {
	return s.do(t, http.MethodPost, "/dsp/recbid", formType, []byte(body))
}

// bid is the part of a bid answer the comparison looks at.
type bid struct {
	BidID   string `json:"bidid"`
	SeatBid []struct {
		Bid []struct {
			CID   string      `json:"cid"`
			CrID  string      `json:"crid"`
			Price json.Number `json:"price"`
		} `json:"bid"`
	} `json:"seatbid"`
}

var bidIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func parseBid(t *testing.T, who string, a answer) bid {
	t.Helper()
	var b bid
	require.NoError(t, json.Unmarshal(a.body, &b), "%s: %s", who, a.body)
	require.Regexp(t, bidIDPattern, b.BidID, who)
	require.Len(t, b.SeatBid, 1, who)
	require.Len(t, b.SeatBid[0].Bid, 1, who)
	return b
}

// masked returns a bid answer with its bid id replaced by zeros.
func masked(a answer, bidID string) []byte {
	return bytes.ReplaceAll(a.body, []byte(bidID), []byte(strings.Repeat("0", 32)))
}

// mismatch describes how two answers differ, or returns "" when they agree:
// the same status and headers, and the same body (bid ids masked).
func mismatch(t *testing.T, g, j answer) string {
	t.Helper()
	var diffs []string
	if g.status != j.status {
		diffs = append(diffs, fmt.Sprintf("status go %d, java %d", g.status, j.status))
	}
	if g.nobid != j.nobid {
		diffs = append(diffs, fmt.Sprintf("X-Nobid-Reason go %q, java %q", g.nobid, j.nobid))
	}
	if g.duplicate != j.duplicate {
		diffs = append(diffs, fmt.Sprintf("X-Win-Duplicate go %q, java %q", g.duplicate, j.duplicate))
	}
	if g.allow != j.allow {
		diffs = append(diffs, fmt.Sprintf("Allow go %q, java %q", g.allow, j.allow))
	}
	if len(g.body) > 0 || len(j.body) > 0 {
		if g.contentType != j.contentType {
			diffs = append(diffs, fmt.Sprintf("Content-Type go %q, java %q", g.contentType, j.contentType))
		}
	}
	if len(diffs) == 0 && g.status == http.StatusOK {
		gb, jb := parseBid(t, "go", g), parseBid(t, "java", j)
		gbid, jbid := gb.SeatBid[0].Bid[0], jb.SeatBid[0].Bid[0]
		if gbid.CID != jbid.CID || gbid.CrID != jbid.CrID || gbid.Price != jbid.Price {
			diffs = append(diffs, fmt.Sprintf("bid go cid=%s crid=%s price=%s, java cid=%s crid=%s price=%s",
				gbid.CID, gbid.CrID, gbid.Price, jbid.CID, jbid.CrID, jbid.Price))
		}
		if len(g.body) != len(j.body) {
			diffs = append(diffs, fmt.Sprintf("bid length go %d, java %d", len(g.body), len(j.body)))
		}
		if gm, jm := masked(g, gb.BidID), masked(j, jb.BidID); !bytes.Equal(gm, jm) {
			diffs = append(diffs, fmt.Sprintf("bid bytes differ:\n  go   %s\n  java %s", gm, jm))
		}
	} else if len(diffs) == 0 && !bytes.Equal(g.body, j.body) {
		diffs = append(diffs, fmt.Sprintf("body go %s, java %s", g.body, j.body))
	}
	return strings.Join(diffs, "; ")
}

// frontEnds are the Java baseline's HTTP front ends (run.sh -http).
var frontEnds = []string{"tomcat", "netty"}

// contenders are the Go server and the Java baseline on each front end, on
// the same campaigns file; each Java server is compared with the Go one.
type contenders struct {
	goSrv *server
	javas []*server // in the order of frontEnds
}

// timeMode is how the servers under comparison tell the time.
type timeMode struct {
	trustTS    bool      // -trust-request-ts: a request's ts is its request time
	clockStart time.Time // -clock-start, when not zero
}

// The two modes of the contract's version 2 that tests use: replaying
// recorded requests on their own ts, and the server clock pinned to the
// week testdata's requests are stamped with (2026-11-04 08:00 UTC), so that
// no test depends on the hour it runs at.
var (
	replayMode = timeMode{trustTS: true}
	clockMode  = timeMode{clockStart: time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)}
)

// flags returns the command-line flags of the mode.
func (m timeMode) flags() []string {
	var f []string
	if m.trustTS {
		f = append(f, "-trust-request-ts")
	}
	if !m.clockStart.IsZero() {
		f = append(f, "-clock-start", m.clockStart.Format(time.RFC3339))
	}
	return f
}

// startContenders starts the Go server and one Java server per front end
// (the JVMs side by side) on the campaigns, in the time mode, and on an
// exchanges file when one is given.
func startContenders(t *testing.T, campaigns string, mode timeMode, exchanges ...string) *contenders {
	t.Helper()
	requireJava(t)
	var procs []*javaProc
	for _, fe := range frontEnds {
		procs = append(procs, launchJava(t, fe, campaigns, mode, exchanges...))
	}
	c := &contenders{goSrv: startGo(t, campaigns, mode, exchanges...)}
	for _, p := range procs {
		c.javas = append(c.javas, p.ready(t))
	}
	return c
}

// startGo serves the Go server's public handler in process, on the
// defaults of cmd/dspd (in-memory state, random bid ids) and the time mode.
func startGo(t *testing.T, campaigns string, mode timeMode, exchanges ...string) *server {
	t.Helper()
	now := time.Now
	if !mode.clockStart.IsZero() {
		now = clock.StartingAt(mode.clockStart)
	}
	engine := bidder.NewEngine(bidder.Config{Clock: now},
		memory.NewLedger(memory.LedgerConfig{Clock: now}),
		memory.NewBidStore(memory.BidStoreConfig{}))
	srv, err := api.NewServer(api.Config{
		Seat:           seat,
		PublicURL:      publicURL,
		CampaignsPath:  campaigns,
		ExchangesPath:  strings.Join(exchanges, ""),
		TrustRequestTS: mode.trustTS,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, engine)
	require.NoError(t, err)
	_, err = srv.Reload(context.Background())
	require.NoError(t, err)
	return startGoFrontEnd(t, srv, os.Getenv("DSPD_FRONT_END"))
}

// frontEnd is a Go front end's server, as dspd runs it.
type frontEnd interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// startGoFrontEnd serves the Go server on the front end dspd -http names
// (net/http, or with "fasthttp" valyala/fasthttp), configured as dspd
// configures it, on a loopback port.
func startGoFrontEnd(t *testing.T, srv *api.Server, name string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	quiet := slog.New(slog.DiscardHandler)
	var fe frontEnd = nethttp.NewPublic(srv, nethttp.Config{Logger: quiet})
	if name == "fasthttp" {
		fe = fastfront.NewPublic(srv, fastfront.Config{Logger: quiet})
	}
	served := make(chan error, 1)
	go func() { served <- fe.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, fe.Shutdown(context.Background()))
		require.NoError(t, <-served)
	})
	return &server{name: "go", base: "http://" + ln.Addr().String()}
}

// syncBuffer collects a process's output.
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

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// javaProc is the Java baseline started by run.sh, not yet ready.
type javaProc struct {
	frontEnd, addr string
	out            *syncBuffer
	exited         chan error
	stopped        bool // it exited before it was ready: nothing to stop
}

// launchJava starts java-baseline/run.sh -http frontEnd on a free loopback
// port. At cleanup it sends SIGTERM and requires exit status 0.
func launchJava(t *testing.T, frontEnd, campaigns string, mode timeMode, exchanges ...string) *javaProc {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	args := append([]string{"-http", frontEnd, "-addr", addr, "-campaigns", campaigns, "-seat", seat,
		"-public-url", publicURL}, mode.flags()...)
	for _, f := range exchanges {
		args = append(args, "-exchanges", f)
	}
	cmd := exec.Command("./run.sh", args...)
	// A small fixed heap and the client compiler: a short test needs no more.
	cmd.Env = append(os.Environ(), "JAVA_HEAP=256m", "JAVA_OPTS=-XX:TieredStopAtLevel=1 "+os.Getenv("JAVA_OPTS"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	p := &javaProc{frontEnd: frontEnd, addr: addr, out: out, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()

	t.Cleanup(func() {
		if p.stopped {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-p.exited:
			if err != nil {
				t.Errorf("java-baseline -http %s did not exit 0 on SIGTERM: %v\n%s", frontEnd, err, out)
			}
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
			t.Errorf("java-baseline -http %s did not stop within 20 s of SIGTERM\n%s", frontEnd, out)
		}
	})
	return p
}

// ready waits until the Java server has printed its start-up line and
// answers, and returns it.
func (p *javaProc) ready(t *testing.T) *server {
	t.Helper()
	s := &server{name: p.frontEnd, base: "http://" + p.addr}
	listening := "java-baseline listening on " + p.addr + " ("
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-p.exited:
			p.stopped = true
			t.Fatalf("java-baseline -http %s exited before it was ready: %v\n%s", p.frontEnd, err, p.out)
		default:
		}
		resp, err := client.Get(s.base + "/")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound && strings.Contains(p.out.String(), listening) {
				// The line names the front end by its settings.
				assert.Contains(t, p.out.String(), map[string]string{"tomcat": ", maxThreads ", "netty": ", netty "}[p.frontEnd])
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("java-baseline -http %s not ready on %s within 60 s: %v\n%s", p.frontEnd, p.addr, err, p.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), api.MaxBodyBytes+1)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// tmaxOf returns the tmax of a request body, 100 when absent.
func tmaxOf(body string) int {
	for _, kv := range strings.Split(body, "&") {
		if v, ok := strings.CutPrefix(kv, "tmax="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return 100
}

// TestParityReplay replays testdata/requests.txt against the Go server and
// both Java front ends and requires the same answer to every request, and
// checks each Java answer to post.data against the golden file. It runs in
// both time modes: replaying each line on its own ts (-trust-request-ts),
// and on the pinned server clock (-clock-start) with every line's ts moved
// wildly off (years away, or 0), which must change nothing, and they must
// still agree.
func TestParityReplay(t *testing.T) {
	lines := readLines(t, "../testdata/requests.txt")
	require.GreaterOrEqual(t, len(lines), 10_000)
	ts := regexp.MustCompile(`(^|&)ts=[0-9]*`)
	offTS := make([]string, len(lines))
	for i, l := range lines {
		off := []string{"ts=0", "ts=253402300799999", "ts=946684800000", "ts=1893456000000"}[i%4]
		offTS[i] = ts.ReplaceAllString(l, "${1}"+off)
	}
	for _, m := range []struct {
		name  string
		mode  timeMode
		lines []string
	}{{"trust-request-ts", replayMode, lines}, {"clock-start, ts off", clockMode, offTS}} {
		t.Run(m.name, func(t *testing.T) {
			p := startContenders(t, testdataCampaigns, m.mode)
			post := readFile(t, "../testdata/post.data")
			for _, java := range p.javas {
				t.Run("golden post.data/"+java.name, func(t *testing.T) {
					for range 20 { // also a warm-up: the replay's decisions must not run into tmax on a cold JVM
						java.post(t, post)
					}
					j := java.post(t, post)
					require.Equal(t, http.StatusOK, j.status, "%s", j.body)
					assert.Equal(t, "application/json", j.contentType)
					b := parseBid(t, java.name, j)
					got := bytes.ReplaceAll(j.body, []byte(b.BidID), []byte("00000000000000000000000000000001"))
					assert.Equal(t, readFile(t, "../testdata/golden/post.data.json"), string(got))
				})
			}
			t.Run("requests.txt", func(t *testing.T) { replayAll(t, p, m.lines) })
		})
	}
}

// replayAll sends every line to the Go server and each Java server and
// requires the same answers.
func replayAll(t *testing.T, p *contenders, lines []string) {
	// Replayed without win notices, a request's answer depends on the
	// request alone (and the pinned day and hour), so the lines can be sent
	// in any order, a few at a time, and any line can be asked again.
	type result struct {
		g   answer
		js  []answer // in the order of p.javas
		err error
	}
	results := make([]result, len(lines))
	var wg sync.WaitGroup
	const workers = 4
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(lines); i += workers {
				r := &results[i]
				body := []byte(lines[i])
				if r.g, r.err = p.goSrv.fetch(http.MethodPost, "/dsp/recbid", formType, body); r.err != nil {
					continue
				}
				r.js = make([]answer, len(p.javas))
				for k, java := range p.javas {
					if r.js[k], r.err = java.fetch(http.MethodPost, "/dsp/recbid", formType, body); r.err != nil {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	outcomes := map[string]int{}
	goBytes, javaBytes := 0, make([]int, len(p.javas))
	failures := 0
	for i, body := range lines {
		r := results[i]
		require.NoError(t, r.err, "line %d", i+1)
		agreed := true
		var first answer // the Go answer the first Java server agreed with
		for k, java := range p.javas {
			g, j, diff := r.g, r.js[k], mismatch(t, r.g, r.js[k])
			if diff != "" && isPause(g, j, tmaxOf(body)) {
				g, j, diff = compare(t, p.goSrv, java, func(s *server) answer { return s.post(t, body) }, tmaxOf(body))
			}
			if diff != "" {
				agreed = false
				t.Errorf("line %d, %s: %s\n  body: %s", i+1, java.name, diff, body)
				if failures++; failures == 20 {
					t.Fatal("stopping after 20 differences")
				}
				continue
			}
			if k == 0 {
				first = g
			}
			if g.status == http.StatusOK {
				javaBytes[k] += len(j.body)
			}
		}
		if !agreed {
			continue
		}
		switch first.status {
		case http.StatusOK:
			outcomes["bid"]++
			goBytes += len(first.body)
		case http.StatusNoContent:
			outcomes[first.nobid]++
		default:
			outcomes[http.StatusText(first.status)]++
		}
	}
	var sizes []string
	for k, java := range p.javas {
		sizes = append(sizes, fmt.Sprintf("%s %d", java.name, javaBytes[k]))
	}
	t.Logf("%d requests, the same answer from go and each Java front end: %v; bid bytes go %d, %s",
		len(lines), outcomes, goBytes, strings.Join(sizes, ", "))
	// The corpus must exercise the decision, not only agree.
	assert.Greater(t, outcomes["bid"], len(lines)/5, "bids")
	for _, reason := range []string{"currency", "no_match", "below_floor", "freq_cap", "budget", "timeout"} {
		assert.Positive(t, outcomes[reason], reason)
	}
}

// isPause reports whether two answers differ only as a pause of this shared
// machine (GC, JIT, the race detector, a neighbour's load) would make them:
// a timeout on one side only, for a tmax far above the 5 ms safety margin.
func isPause(g, j answer, tmax int) bool {
	return tmax > 5 && (g.nobid == "timeout") != (j.nobid == "timeout")
}

// compare sends a request to the Go server and a Java server and returns
// their answers and how they differ. A difference that is a pause (see
// isPause) is asked again, twice at most: send must be safe to repeat.
func compare(t *testing.T, goSrv, java *server, send func(*server) answer, tmax int) (g, j answer, diff string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		g, j = send(goSrv), send(java)
		diff = mismatch(t, g, j)
		if diff == "" || attempt == 2 || !isPause(g, j, tmax) {
			return g, j, diff
		}
		t.Logf("%s; asking again", diff)
	}
}

// TestParityErrors sends the error cases of api/recbid_test.go (and the
// public listener's 404s) to the Go server and each Java front end: the
// same status, headers and error body, byte for byte. Bodies go with their
// length, or chunked (which each front end bounds as it reads), or after
// Expect: 100-continue.
func TestParityErrors(t *testing.T) {
	p := startContenders(t, testdataCampaigns, clockMode)
	long := func(n int) string { return strings.Repeat("x", n) }
	post := readFile(t, "../testdata/post.data")
	atLimit := validBody + "&pad="
	atLimit += long(api.MaxBodyBytes - len(atLimit))
	expect := []string{"Expect", "100-continue"}
	tests := []struct {
		name, method, target, contentType, body string
		chunked                                 bool
		headers                                 []string
	}{
		{name: "GET", method: "GET", body: validBody},
		{name: "PUT with bad body too", method: "PUT", body: "%"},
		{name: "HEAD", method: "HEAD"},
		{name: "TRACE", method: "TRACE"},
		{name: "no content type", contentType: "-", body: validBody},
		{name: "json", contentType: "application/json", body: validBody},
		{name: "multipart", contentType: "multipart/form-data; boundary=x", body: validBody},
		{name: "other parameter", contentType: formType + "; foo=bar", body: validBody},
		{name: "charset allowed", contentType: "Application/X-WWW-Form-Urlencoded; charset=UTF-8", body: validBody},
		{name: "quoted charset", contentType: formType + `; charset="utf-8"`, body: validBody},
		{name: "trailing semicolon", contentType: formType + ";", body: validBody},
		{name: "RFC 2231 charset", contentType: formType + "; charset*=utf-8''x", body: validBody},
		{name: "undecodable RFC 2231 parameter", contentType: formType + "; foo*=x", body: validBody},
		{name: "RFC 2231 continuation", contentType: formType + "; charset*0=x", body: validBody},
		{name: "orphan continuation", contentType: formType + "; foo*1=x", body: validBody},
		{name: "space before semicolon", contentType: formType + " ;charset=x;", body: validBody},
		{name: "duplicate charset", contentType: formType + "; charset=a; charset=b", body: validBody},
		{name: "bad parameter", contentType: formType + "; charset", body: validBody},
		{name: "content type before size", contentType: "text/plain", body: long(api.MaxBodyBytes + 1)},
		{name: "too large", body: validBody + "&pad=" + long(api.MaxBodyBytes)},
		{name: "size before encoding", body: "%" + long(api.MaxBodyBytes)},
		{name: "at the limit", body: atLimit},
		{name: "bad encoding", body: validBody + "&x=%G0"},
		{name: "encoding before fields", body: "w=abc&x=%"},
		{name: "truncated escape", body: validBody + "&x=%4"},
		{name: "empty body", body: ""},
		{name: "id missing", body: "imp_id=1&w=300&h=250"},
		{name: "id empty is absent", body: "id=&imp_id=1&w=300&h=250"},
		{name: "id too long", body: "id=" + long(65) + "&imp_id=1&w=300&h=250"},
		{name: "id with a space", body: "id=a+b&imp_id=1&w=300&h=250"},
		{name: "id with a control", body: "id=a%01&imp_id=1&w=300&h=250"},
		{name: "imp_id non-ASCII", body: "id=a&imp_id=%C3%A9&w=300&h=250"},
		{name: "w not a number", body: "id=a&imp_id=1&w=abc&h=250"},
		{name: "w zero", body: "id=a&imp_id=1&w=0&h=250"},
		{name: "w signed", body: "id=a&imp_id=1&w=%2B300&h=250"},
		{name: "h missing", body: "id=a&imp_id=1&w=300"},
		{name: "missing h before bad floor", body: "id=a&imp_id=1&w=300&floor=-1"},
		{name: "floor negative", body: validBody + "&floor=-1"},
		{name: "floor 7 decimals", body: validBody + "&floor=1.1234567"},
		{name: "floor exponent", body: validBody + "&floor=1e2"},
		{name: "floor leading point", body: validBody + "&floor=.5"},
		{name: "cur 2 letters", body: validBody + "&cur=US"},
		{name: "site not a domain", body: validBody + "&site=a+b"},
		{name: "bundle too long", body: validBody + "&bundle=" + long(257)},
		{name: "os with a space", body: validBody + "&os=windows+phone"},
		{name: "devtype 8", body: validBody + "&devtype=8"},
		{name: "country 3 letters", body: validBody + "&country=CHN"},
		{name: "region malformed", body: validBody + "&region=Shanghai"},
		{name: "city too long", body: validBody + "&city=" + long(257)},
		{name: "uid too long", body: validBody + "&uid=" + long(129)},
		{name: "ts negative", body: "id=a&imp_id=1&w=300&h=250&ts=-1"},
		{name: "ts past year 9999", body: "id=a&imp_id=1&w=300&h=250&ts=253402300800000"},
		{name: "tmax zero", body: validBody + "&tmax=0"},
		{name: "test 2", body: validBody + "&test=2"},
		{name: "secure true", body: validBody + "&secure=true"},
		{name: "first error in table order", body: validBody + "&secure=9&country=CHN&floor=x"},
		{name: "later value ignored", body: validBody + "&floor=1&floor=x"},
		{name: "ignored key may be long", body: validBody + "&ua=" + long(2000)},
		{name: "keys are case-sensitive", body: "ID=a&imp_id=1&w=300&h=250"},
		{name: "no-bid currency", body: validBody + "&cur=EUR"},
		{name: "no-bid no_match", body: "id=a&imp_id=1&w=7&h=7"},
		{name: "no-bid below_floor", body: "floor=1000&" + post},
		{name: "no-bid timeout", body: "tmax=5&" + post},
		{name: "root", method: "GET", target: "/"},
		{name: "metrics", method: "GET", target: "/metrics"},
		{name: "healthz", method: "GET", target: "/healthz"},
		{name: "dsp", method: "GET", target: "/dsp"},
		{name: "below recbid", method: "POST", target: "/dsp/recbid/x", body: validBody},
		{name: "escaped path", method: "POST", target: "/dsp/%72ecbid", body: validBody},
		{name: "path parameter", method: "POST", target: "/dsp/recbid;x", body: validBody},
		{name: "win by POST", method: "POST", target: "/dsp/win?bidid=x&price=1"},
		{name: "win by HEAD", method: "HEAD", target: "/dsp/win?bidid=x&price=1"},
		{name: "chunked", body: validBody, chunked: true},
		{name: "chunked at the limit", body: atLimit, chunked: true},
		{name: "chunked too large", body: validBody + "&pad=" + long(api.MaxBodyBytes), chunked: true},
		{name: "chunked, far too large", body: validBody + "&pad=" + long(300<<10), chunked: true},
		{name: "chunked bad encoding", body: validBody + "&x=%G0", chunked: true},
		{name: "chunked, content type first", contentType: "text/plain", body: long(api.MaxBodyBytes + 1), chunked: true},
		{name: "expect 100-continue", body: validBody, headers: expect},
		{name: "expect 100-continue, wrong content type", contentType: "text/plain", body: validBody, headers: expect},
		{name: "expect 100-continue, too large", body: validBody + "&pad=" + long(api.MaxBodyBytes), headers: expect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case on connections of its own: a case's answer is
			// compared, not what an earlier case left on a kept-alive
			// connection (once in CI, on fasthttp, a stray 431 arrived on an
			// idle connection and two later cases read it as theirs: an open
			// bug, named in the closing note of 2026-12-02).
			client.CloseIdleConnections()
			method, target, ct := tt.method, tt.target, tt.contentType
			if method == "" {
				method = http.MethodPost
			}
			if target == "" {
				target = "/dsp/recbid"
			}
			switch ct {
			case "":
				ct = formType
			case "-":
				ct = ""
			}
			var body []byte
			if tt.body != "" || method == http.MethodPost {
				body = []byte(tt.body)
			}
			send := func(s *server) answer {
				// A body the server refuses unread is dropped by a lingering
				// close for half a second: a client stalled longer than that
				// (the race detector's test binary beside the JVMs on a busy
				// CI machine) gets a reset instead of the answer, as from
				// net/http. Such a reset is asked again, twice at most.
				for try := 1; ; try++ {
					var a answer
					var err error
					if tt.chunked {
						a, err = s.send(method, target, ct, unsized{bytes.NewReader(body)}, tt.headers...)
					} else {
						a, err = s.fetch(method, target, ct, body, tt.headers...)
					}
					if err != nil && try < 3 && len(body) > api.MaxBodyBytes && errors.Is(err, syscall.ECONNRESET) {
						t.Logf("%v; asking again", err)
						continue
					}
					require.NoError(t, err)
					return a
				}
			}
			var g answer
			for _, java := range p.javas {
				var diff string
				g, _, diff = compare(t, p.goSrv, java, send, tmaxOf(tt.body))
				assert.Empty(t, diff, java.name)
			}
			if g.status >= 400 && method != http.MethodHead {
				var e struct{ Error, Field, Message string }
				require.NoError(t, json.Unmarshal(g.body, &e), "%s", g.body)
				assert.NotEmpty(t, e.Error)
			}
		})
	}
}

// TestParityKeepAliveIsHonest holds every server to conntest's keep-alive
// rule for bodies it does not read whole.
func TestParityKeepAliveIsHonest(t *testing.T) {
	p := startContenders(t, testdataCampaigns, clockMode)
	for _, u := range conntest.UnreadBodies {
		for _, srv := range append([]*server{p.goSrv}, p.javas...) {
			t.Run(u.Name+"/"+srv.name, func(t *testing.T) {
				// Tomcat closes after an error answer; the others drop a small body.
				conntest.KeepAliveIsHonest(t, strings.TrimPrefix(srv.base, "http://"), u, validBody, srv.name != "tomcat")
			})
		}
	}
	for _, srv := range append([]*server{p.goSrv}, p.javas...) {
		t.Run("OPTIONS */"+srv.name, func(t *testing.T) {
			conntest.OptionsAsteriskKeepsTheRules(t, strings.TrimPrefix(srv.base, "http://"), validBody)
		})
	}
}

// TestParityListenerLimits holds the Go server and the Netty baseline to
// conntest's listener limits: the exact 16 KiB header limit, no 5xx for a
// transfer coding, and a declared body over 16 KiB refused unread. Tomcat
// is not held to them: it answers 400 to a header block over its limit and
// 501 to a transfer coding it does not implement, before any of the
// baseline's code runs (docs/operations.md).
func TestParityListenerLimits(t *testing.T) {
	p := startContenders(t, testdataCampaigns, clockMode)
	for _, srv := range append([]*server{p.goSrv}, p.javas...) {
		if srv.name == "tomcat" {
			continue
		}
		addr := strings.TrimPrefix(srv.base, "http://")
		t.Run("header limit/"+srv.name, func(t *testing.T) { conntest.HeaderLimitIsExact(t, addr, validBody) })
		t.Run("transfer codings/"+srv.name, func(t *testing.T) { conntest.TransferCodings(t, addr, validBody) })
		t.Run("large body unread/"+srv.name, func(t *testing.T) { conntest.LargeBodyRefusedUnread(t, addr) })
	}
}

// sequenceCampaigns are the campaigns of TestWinsDriveFrequencyAndBudget
// (api/win_test.go), each on a size of its own, and the escaping campaign of
// api/golden_test.go.
func sequenceCampaigns(t *testing.T) string {
	campaign := func(id, extra string, w, h int) string {
		return `{"id":"` + id + `","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":2,` + extra +
			fmt.Sprintf(`"creatives":[{"id":"cr","w":%d,"h":%d,"image_url":"https://a.example/i","click_url":"https://a.example/"}]}`, w, h)
	}
	escaping := `{"id":"c-esc","advertiser":"Smith & \"Sons\" <Ltd> 'O'\b\f\n\r\t\u0001\u001f\u2028 Café 华夏",
 "adomain":["smith\"sons.example","a\\b.example"],"cat":["IAB22-\u00014","IAB<1>"],"status":"active","bid_cpm":0.85,
 "creatives":[{"id":"cr-\"x\"","w":160,"h":600,"secure":true,
  "image_url":"https://cdn.example/i.jpg?a=1&b='2'&c=<3>",
  "click_url":"https://smith.example/l?x=\"y\"&z=1#frag"}]}`
	path := filepath.Join(t.TempDir(), "campaigns.json")
	file := `{"campaigns":[` + strings.Join([]string{
		campaign("capped", `"freq_cap":{"impressions":2,"period_s":3600},`, 300, 250),
		campaign("small", `"daily_budget":0.005,`, 728, 90),
		campaign("zero", `"daily_budget":0,`, 468, 60),
		escaping,
	}, ",") + `]}`
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	return path
}

// step is one request of a sequence, sent to each server in turn.
type step struct {
	name   string
	path   string // default /dsp/recbid for a bid, /dsp/win for a win notice
	auth   string // a bearer token to send
	method string // default POST /dsp/recbid with body; GET /dsp/win with query
	body   string // a bid request
	win    string // a win notice query; "{bid:NAME}" stands for each server's own bid id of step NAME
	want   int    // the status all must answer
	reason string // the X-Nobid-Reason all must answer
	dup    bool
	cid    string // for a bid: the campaign all must bid for, when given
	crid   string // for a bid: the creative all must bid with, when given
}

// TestParityWinSequences plays bid and win sequences against every server:
// a frequency-capped campaign stops bidding for a user after its cap, a
// campaign stops when the next bid would pass its daily budget, and win
// notices are answered alike, rule by rule, as in api/win_test.go.
func TestParityWinSequences(t *testing.T) {
	p := startContenders(t, sequenceCampaigns(t), replayMode)
	user := func(u string) string { return validBody + "&uid=" + u }
	small := "id=req-1&imp_id=1&w=728&h=90&ts=1793779200000"
	steps := []step{
		// frequency: 2 impressions an hour for user-1
		{name: "f1", body: user("user-1"), want: 200},
		{name: "f1 win", win: "bidid={bid:f1}&price=1", want: 204},
		{name: "f2", body: user("user-1"), want: 200},
		{name: "f2 win", win: "bidid={bid:f2}&price=1", want: 204},
		{name: "f3 capped", body: user("user-1"), want: 204, reason: "freq_cap"},
		{name: "no uid", body: validBody, want: 204, reason: "freq_cap"},
		{name: "another user", body: user("user-2"), want: 200},
		{name: "the next hour's window", body: "id=r&imp_id=1&w=300&h=250&uid=user-1&ts=1793783000000", want: 200},
		// budget: 0.005 USD a day = 5,000,000 CPM micros, bids of 2 CPM
		{name: "b1", body: small, want: 200},
		{name: "b1 win", win: "bidid={bid:b1}&price=2", want: 204},
		{name: "b2", body: small, want: 200},
		{name: "b2 win", win: "bidid={bid:b2}&price=2", want: 204},
		{name: "b3 over budget", body: small, want: 204, reason: "budget"},
		{name: "the next UTC day", body: "id=r&imp_id=1&w=728&h=90&ts=1793865600000", want: 200},
		// the win notice's rules, in order, on a bid of 2 CPM
		{name: "w", body: user("user-3"), want: 200},
		{name: "POST", method: "POST", win: "bidid={bid:w}&price=1", want: 405},
		{name: "bad query", win: "bidid={bid:w}&price=%zz", want: 400},
		{name: "bad query in an ignored key", win: "bidid={bid:w}&price=1&x=%", want: 400},
		{name: "bidid missing", win: "price=1", want: 400},
		{name: "bidid empty", win: "bidid=&price=1", want: 400},
		{name: "price missing", win: "bidid={bid:w}", want: 400},
		{name: "price macro not filled", win: "bidid={bid:w}&price=${AUCTION_PRICE}", want: 400},
		{name: "price negative", win: "bidid={bid:w}&price=-1", want: 400},
		{name: "price 7 decimals", win: "bidid={bid:w}&price=0.1234567", want: 400},
		{name: "price zero", win: "bidid={bid:w}&price=0", want: 400},
		{name: "unknown bid", win: "bidid=00000000000000000000000000000bad&price=1", want: 404},
		{name: "malformed bid id", win: "bidid=xyz&price=1", want: 404},
		{name: "price above the bid", win: "bidid={bid:w}&price=2.000001", want: 400},
		{name: "first notice", win: "bidid={bid:w}&price=0.42", want: 204},
		{name: "price checked before the duplicate test", win: "bidid={bid:w}&price=2.000001", want: 400},
		{name: "repeat, upper case", win: "bidid={BID:w}&price=0.42", want: 204, dup: true},
		{name: "repeat at another price", win: "bidid={bid:w}&price=0.1", want: 204, dup: true},
		// a test bid: answered the same, claimed once, records nothing
		{name: "t", body: user("user-4") + "&test=1", want: 200},
		{name: "t win", win: "bidid={bid:t}&price=0.5", want: 204},
		{name: "t repeat", win: "bidid={bid:t}&price=0.5", want: 204, dup: true},
		{name: "t recorded nothing", body: user("user-4"), want: 200},
		// the response escaping of api/golden_test.go
		{name: "escaping", body: "id=r%22q%5C1&imp_id=imp%3C1%3E&w=160&h=600&secure=1&ts=1793779200000", want: 200},
	}
	playSteps(t, p, steps)
}

// TestParityServerClock plays the version 2 rules on the pinned server
// clock: a ts of another day or window moves nothing, and a zero budget
// never bids.
func TestParityServerClock(t *testing.T) {
	p := startContenders(t, sequenceCampaigns(t), clockMode)
	user := func(u string) string { return "id=req-1&imp_id=1&w=300&h=250&uid=" + u }
	small := "id=req-1&imp_id=1&w=728&h=90"
	playSteps(t, p, []step{
		{name: "f1", body: user("user-1"), want: 200},
		{name: "f1 win", win: "bidid={bid:f1}&price=1", want: 204},
		{name: "f2", body: user("user-1") + "&ts=0", want: 200},
		{name: "f2 win", win: "bidid={bid:f2}&price=1", want: 204},
		{name: "capped", body: user("user-1"), want: 204, reason: "freq_cap"},
		{name: "capped whatever the ts", body: user("user-1") + "&ts=1793783000000", want: 204, reason: "freq_cap"},
		{name: "b1", body: small + "&ts=1700000000000", want: 200},
		{name: "b1 win", win: "bidid={bid:b1}&price=2", want: 204},
		{name: "b2", body: small, want: 200},
		{name: "b2 win", win: "bidid={bid:b2}&price=2", want: 204},
		{name: "over budget", body: small, want: 204, reason: "budget"},
		{name: "over budget whatever the ts", body: small + "&ts=1793865600000", want: 204, reason: "budget"},
		{name: "ts still validated", body: small + "&ts=x", want: 400},
		{name: "a zero budget never bids", body: "id=req-1&imp_id=1&w=468&h=60", want: 204, reason: "budget"},
	})
}

// playSteps sends each step to each server in turn and requires the same
// answer, and the one the step wants.
func playSteps(t *testing.T, p *contenders, steps []step) {
	t.Helper()
	all := append([]*server{p.goSrv}, p.javas...)
	bidIDs := map[string]map[string]string{} // server → step → bid id
	for _, s := range all {
		bidIDs[s.name] = map[string]string{}
	}
	for _, st := range steps {
		answers := map[string]answer{}
		for _, s := range all {
			var a answer
			if st.win != "" {
				q := st.win
				for name, id := range bidIDs[s.name] {
					q = strings.ReplaceAll(q, "{bid:"+name+"}", id)
					q = strings.ReplaceAll(q, "{BID:"+name+"}", strings.ToUpper(id))
				}
				method := st.method
				if method == "" {
					method = http.MethodGet
				}
				a = s.do(t, method, cmp.Or(st.path, "/dsp/win")+"?"+q, "", nil)
			} else {
				var headers []string
				if st.auth != "" {
					headers = []string{"Authorization", "Bearer " + st.auth}
				}
				// The longest tmax: a pause of this shared machine must not
				// turn a step into a timeout on one side.
				a = s.do(t, cmp.Or(st.method, http.MethodPost), cmp.Or(st.path, "/dsp/recbid"), formType,
					[]byte(st.body+"&tmax=10000"), headers...)
				if a.status == http.StatusOK {
					bidIDs[s.name][st.name] = parseBid(t, s.name, a).BidID
				}
			}
			answers[s.name] = a
		}
		g := answers["go"]
		for _, java := range p.javas {
			require.Empty(t, mismatch(t, g, answers[java.name]), "%s: %s", st.name, java.name)
		}
		require.Equal(t, st.want, g.status, "%s: %s", st.name, g.body)
		assert.Equal(t, st.reason, g.nobid, st.name)
		assert.Equal(t, st.dup, g.duplicate == "1", st.name)
		if st.cid != "" || st.crid != "" {
			b := parseBid(t, "go", g).SeatBid[0].Bid[0] // the Java servers' are the same (mismatch)
			assert.Equal(t, st.cid, b.CID, "%s: the campaign", st.name)
			assert.Equal(t, st.crid, b.CrID, "%s: the creative", st.name)
		}
	}
}

// version3Campaigns are campaigns with contract version 3's fields:
// campaigns that bid only in deals (open_auction false), with deals and in
// the open auction, with only video or only native creatives, with banners
// among video and native creatives, and ordinary banners.
func version3Campaigns(t *testing.T) string {
	campaign := func(id, bid, extra string, creatives ...string) string {
		return `{"id":"` + id + `","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":` + bid +
			`,` + extra + `"creatives":[` + strings.Join(creatives, ",") + `]}`
	}
	banner := func(id string, w, h int, fields ...string) string {
		return fmt.Sprintf(`{"id":%q,"w":%d,"h":%d,"image_url":"https://a.example/%s.jpg","click_url":"https://a.example/"%s}`,
			id, w, h, id, strings.Join(append([]string{""}, fields...), ","))
	}
	video := func(id string, w, h int, secure bool) string {
		return fmt.Sprintf(`{"id":%q,"type":"video","w":%d,"h":%d,"secure":%t,"duration_s":30,"mime":"video/mp4",`+
			`"media_url":"https://cdn.a.example/%s.mp4","bitrate_kbps":1500,"vast_version":"4.0","click_url":"https://a.example/v"}`,
			id, w, h, secure, id)
	}
	native := func(id string) string {
		return `{"id":"` + id + `","type":"native","title":"Run further","body":"Light shoes.","sponsored":"Acme","cta":"Shop",` +
			`"image_url":"https://cdn.a.example/m.jpg","image_w":1200,"image_h":627,` +
			`"icon_url":"https://cdn.a.example/i.png","icon_w":80,"icon_h":80,"click_url":"https://a.example/n"}`
	}
	path := filepath.Join(t.TempDir(), "campaigns-v3.json")
	file := `{"campaigns":[` + strings.Join([]string{
		// The top bidder at 300x250 trades only in deals: never on the form endpoint.
		campaign("deal-only", "9", `"deals":["D-1","D-2"],"open_auction":false,`, banner("deal-only-300x250", 300, 250)),
		campaign("open", "5", ``, banner("open-300x250", 300, 250), banner("open-728x90", 728, 90)),
		campaign("deal-and-open", "7", `"deals":["D-1"],"open_auction":true,`, banner("deal-and-open-728x90", 728, 90)),
		campaign("video-only", "10", ``, video("video-640x360", 640, 360, false), video("video-320x480", 320, 480, true)),
		campaign("native-only", "10", ``, native("native-1")),
		// Mixed: a video first in file order, and its banner of the same size.
		campaign("mixed", "6", ``, video("mixed-video-300x600", 300, 600, true), native("mixed-native"),
			banner("mixed-300x600", 300, 600), video("mixed-video-320x480", 320, 480, false)),
		campaign("secure-video", "4", ``, video("sv-video-970x250", 970, 250, true), banner("sv-970x250", 970, 250)),
		// Deal-only, alone at its size, with a zero budget: it would be the
		// reason budget if it were in the open auction.
		campaign("deal-only-zero", "8", `"deals":["D-3"],"open_auction":false,"daily_budget":0,`,
			banner("deal-only-zero-468x60", 468, 60)),
		// Deal-only and frequency-capped before an open campaign at its size.
		campaign("deal-only-capped", "8", `"deals":["D-4"],"open_auction":false,"freq_cap":{"impressions":1,"period_s":3600},`,
			banner("deal-only-capped-320x50", 320, 50)),
		campaign("open-320x50", "1", ``, banner("open-320x50", 320, 50)),
		campaign("explicit", "3", `"open_auction":true,"deals":[],`, banner("explicit-336x280", 336, 280, `"type":"banner"`)),
		campaign("nulls", "2", `"open_auction":null,"deals":null,`,
			banner("nulls-480x320", 480, 320, `"type":null`, `"mime":null`, `"title":null`, `"icon_w":null`)),
	}, ",\n") + "\n]}"
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	return path
}

// TestParityVersion3Decisions: both servers load a campaigns file with
// contract version 3's fields and decide alike on the form endpoint, which
// serves banners only and no deals: a campaign that bids only in deals
// never bids there and changes no no-bid reason, video and native creatives
// never answer whatever their size, and a mixed campaign bids with its
// banner.
func TestParityVersion3Decisions(t *testing.T) {
	p := startContenders(t, version3Campaigns(t), clockMode)
	req := func(size string, more ...string) string {
		return "id=req-1&imp_id=1&" + size + strings.Join(append([]string{""}, more...), "&")
	}
	playSteps(t, p, []step{
		{name: "a deal-only campaign would win: the next one does", body: req("w=300&h=250"), want: 200,
			cid: "open", crid: "open-300x250"},
		{name: "a floor only the deal-only campaign clears", body: req("w=300&h=250", "floor=6"), want: 204, reason: "below_floor"},
		{name: "a campaign in deals and the open auction", body: req("w=728&h=90"), want: 200,
			cid: "deal-and-open", crid: "deal-and-open-728x90"},
		{name: "only a video of the size", body: req("w=640&h=360"), want: 204, reason: "no_match"},
		{name: "only videos of the size, secure", body: req("w=320&h=480", "secure=1"), want: 204, reason: "no_match"},
		{name: "only videos of the size", body: req("w=320&h=480"), want: 204, reason: "no_match"},
		{name: "a native's image size", body: req("w=1200&h=627"), want: 204, reason: "no_match"},
		{name: "a native's icon size", body: req("w=80&h=80"), want: 204, reason: "no_match"},
		{name: "mixed: its banner, not the video before it", body: req("w=300&h=600"), want: 200,
			cid: "mixed", crid: "mixed-300x600"},
		{name: "mixed: only the video is secure", body: req("w=300&h=600", "secure=1"), want: 204, reason: "no_match"},
		{name: "a secure video does not make its banner secure", body: req("w=970&h=250", "secure=1"), want: 204, reason: "no_match"},
		{name: "the banner beside a secure video", body: req("w=970&h=250"), want: 200, cid: "secure-video", crid: "sv-970x250"},
		{name: "deal-only with a zero budget: no reason budget", body: req("w=468&h=60"), want: 204, reason: "no_match"},
		{name: "deal-only, above a floor: no reason below_floor", body: req("w=468&h=60", "floor=100"), want: 204, reason: "no_match"},
		{name: "deal-only and capped, no uid: the open campaign", body: req("w=320&h=50"), want: 200,
			cid: "open-320x50", crid: "open-320x50"},
		{name: "deal-only and capped, below it a floor", body: req("w=320&h=50", "floor=2"), want: 204, reason: "below_floor"},
		{name: "open_auction true, deals empty, type banner", body: req("w=336&h=280"), want: 200,
			cid: "explicit", crid: "explicit-336x280"},
		{name: "nulls for the new fields", body: req("w=480&h=320"), want: 200, cid: "nulls", crid: "nulls-480x320"},
	})
}

// TestParityRefusesBadCampaigns checks that the Java baseline, like the Go
// server, refuses to start on a campaigns file with errors and names every
// problem.
func TestParityRefusesBadCampaigns(t *testing.T) {
	requireJava(t)
	path := filepath.Join(t.TempDir(), "bad.json")
	file := `{"campaigns":[
{"id":"c-1","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":2.5e0,"pacing":"slow",
 "creatives":[{"id":"cr","w":0,"h":250,"secure":true,"image_url":"http://a.example/i","click_url":"https://a.example/"}]},
{"id":"c-1","advertiser":"B","adomain":[],"cat":["IAB1"],"status":"on","bid_cpm":"2","pacing":"even",
 "creatives":[{"id":"cr","w":300,"h":250,"image_url":"ftp://a.example/i","click_url":"https://a.example/"}]}
]}`
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	_, goErr := bidder.LoadCatalogFile(path, nil, 0)
	var ce *problems.Error
	require.True(t, errors.As(goErr, &ce), "%v", goErr)
	pacing := 0
	for _, p := range ce.Problems {
		if strings.Contains(p, "pacing") {
			pacing++
			assert.Equal(t, `campaign c-1: pacing: must be "asap" or "even"`, p)
		}
	}
	assert.Equal(t, 1, pacing, "slow is refused, even is not")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./run.sh", "-addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "-campaigns", path)
	cmd.Env = append(os.Environ(), "JAVA_HEAP=64m")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "java-baseline must refuse to start: %v\n%s", err, out)
	assert.NotEqual(t, 0, exitErr.ExitCode())
	for _, problem := range ce.Problems {
		assert.Contains(t, string(out), problem, "the Java baseline names the Go server's problem")
	}
	assert.NotContains(t, string(out), "listening on")
}

// javaRefuses runs the Java baseline on a campaigns file it must refuse and
// returns its output and the problems it names (the lines after its
// "N problem(s):").
func javaRefuses(t *testing.T, path string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./run.sh", "-addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "-campaigns", path)
	cmd.Env = append(os.Environ(), "JAVA_HEAP=64m")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "java-baseline must refuse to start: %v\n%s", err, out)
	assert.NotEqual(t, 0, exitErr.ExitCode())
	assert.NotContains(t, string(out), "listening on")
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(l, "  "); ok {
			lines = append(lines, p)
		}
	}
	return string(out), lines
}

// badVersion3Campaigns is a campaigns file that breaks each rule of contract
// version 3's fields at least once (deals, open_auction, a creative's type,
// the video and the native fields, another type's fields on each type), and
// no other rule.
func badVersion3Campaigns(t *testing.T) string {
	campaign := func(id, extra string, creatives ...string) string {
		return `{"id":"` + id + `","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":2,` +
			extra + `"creatives":[` + strings.Join(creatives, ",") + `]}`
	}
	banner := `{"id":"b","w":300,"h":250,"image_url":"https://a.example/i","click_url":"https://a.example/"}`
	cr := func(id string, fields ...string) string {
		return `{"id":"` + id + `",` + strings.Join(fields, ",") + `}`
	}
	video := func(id string, fields ...string) string {
		return cr(id, append([]string{`"type":"video"`, `"click_url":"https://a.example/v"`}, fields...)...)
	}
	native := func(id string, fields ...string) string {
		return cr(id, append([]string{`"type":"native"`, `"click_url":"https://a.example/n"`}, fields...)...)
	}
	with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }
	videoOK := []string{`"w":640`, `"h":360`, `"duration_s":30`, `"media_url":"https://cdn.a.example/30s.mp4"`, `"bitrate_kbps":1500`}
	mime := func(id, m string) string { return video(id, with(videoOK, `"mime":"`+m+`"`)...) }
	nativeOK := []string{`"title":"Run further"`, `"sponsored":"Acme"`, `"image_url":"https://cdn.a.example/m.jpg"`,
		`"image_w":1200`, `"image_h":627`}
	tooMany := make([]string, 257)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf(`"D-%d"`, i)
	}
	path := filepath.Join(t.TempDir(), "bad-v3.json")
	file := `{"campaigns":[` + strings.Join([]string{
		campaign("no-deal", `"open_auction":false,`, banner),
		campaign("empty-deals", `"deals":[],"open_auction":false,`, banner),
		campaign("deals", `"deals":["","D 1","D-1","D-1","`+strings.Repeat("d", 65)+`","Dé",null,"`+strings.Repeat("d", 64)+`"],`, banner),
		campaign("too-many-deals", `"deals":[`+strings.Join(tooMany, ",")+`],"open_auction":false,`, banner),
		campaign("types", ``,
			cr("audio", `"type":"audio"`, `"click_url":"ftp://not.checked/"`, `"w":0`), // an unknown type: nothing else checked
			cr("upper", `"type":"Video"`, `"click_url":"https://a.example/"`),
			cr("empty", `"type":""`, `"w":300`, `"h":250`, `"click_url":"https://a.example/"`), // "": a banner
			cr("null", `"type":null`, `"w":300`, `"h":250`, `"image_url":"https://a.example/i"`, `"click_url":"https://a.example/"`)),
		campaign("video-required", ``, video("v")),
		campaign("video-bounds", ``,
			video("v1", `"w":0`, `"h":10001`, `"duration_s":3601`, `"mime":"video"`, `"media_url":"ftp://cdn.a.example/a.mp4"`,
				`"bitrate_kbps":0`, `"vast_version":"3.1"`),
			video("v2", `"w":"640"`, `"h":360.5`, `"duration_s":0`, `"mime":""`, `"media_url":"/30s.mp4"`,
				`"bitrate_kbps":100001`, `"vast_version":""`),
			video("v3", with(videoOK, `"mime":"video/mp4"`, `"vast_version":"2.0"`)...),
			video("v4", with(videoOK, `"mime":"video/mp4"`, `"vast_version":null`, `"image_url":null`)...)),
		campaign("video-mimes", ``,
			mime("m1", "video/"), mime("m2", "/mp4"), mime("m3", "video/mp 4"), mime("m4", "video/mp4/x"), mime("m5", "vidéo/mp4"),
			mime("m6", "video/"+strings.Repeat("x", 128)), mime("m7", "application/vnd.apple.mpegurl"),
			mime("m8", "Video/X-FLV+a!#$&-^_."), mime("m9", "video/mp4; codecs=avc1")),
		campaign("video-secure", ``,
			cr("v", `"type":"video"`, `"secure":true`, `"click_url":"http://a.example/v"`, `"w":640`, `"h":360`, `"duration_s":30`,
				`"mime":"video/mp4"`, `"media_url":"http://cdn.a.example/30s.mp4"`, `"bitrate_kbps":1500`)),
		campaign("video-others", ``,
			video("v", with(videoOK, `"mime":"video/mp4"`, `"image_url":"https://a.example/i.png"`, `"title":"t"`, `"body":""`,
				`"sponsored":"s"`, `"cta":"c"`, `"image_w":1`, `"image_h":1`, `"icon_url":"https://a.example/i"`, `"icon_w":1`,
				`"icon_h":1`)...)),
		campaign("native-required", ``, native("n")),
		campaign("native-texts", ``, // byte counts: 中 is 3 bytes, é 2
			native("n1", with(nativeOK[2:], `"title":"`+strings.Repeat("t", 141)+`"`, `"body":"`+strings.Repeat("b", 501)+`"`,
				`"sponsored":""`, `"cta":"`+strings.Repeat("c", 33)+`"`)...),
			native("n2", with(nativeOK[2:], `"title":"`+strings.Repeat("中", 47)+`"`, `"sponsored":"`+strings.Repeat("é", 33)+`"`,
				`"cta":"`+strings.Repeat("é", 17)+`"`)...),
			native("n3", with(nativeOK[2:], `"title":"`+strings.Repeat("中", 46)+`"`, `"body":""`,
				`"sponsored":"`+strings.Repeat("é", 32)+`"`, `"cta":"`+strings.Repeat("é", 16)+`"`)...)),
		campaign("native-images", ``,
			native("n1", with(nativeOK[:2], `"image_url":"cdn.a.example/m.jpg"`, `"image_w":0`, `"image_h":10001`)...),
			native("n2", with(nativeOK, `"icon_w":80`, `"icon_h":80`)...),
			native("n3", with(nativeOK, `"icon_url":"https://a.example/icon.png"`)...),
			native("n4", with(nativeOK, `"icon_url":""`, `"icon_w":0`, `"icon_h":"80"`)...),
			cr("n5", `"type":"native"`, `"secure":true`, `"click_url":"https://a.example/n"`, nativeOK[0], nativeOK[1],
				`"image_url":"http://cdn.a.example/m.jpg"`, nativeOK[3], nativeOK[4], `"icon_url":"http://a.example/i"`,
				`"icon_w":80`, `"icon_h":80`)),
		campaign("native-others", ``,
			native("n", with(nativeOK, `"w":300`, `"h":250`, `"duration_s":30`, `"mime":"video/mp4"`,
				`"media_url":"https://a.example/a.mp4"`, `"bitrate_kbps":1500`, `"vast_version":"4.2"`)...)),
		campaign("banner-others", ``,
			cr("b1", `"type":"banner"`, `"w":300`, `"h":250`, `"click_url":"https://a.example/"`),
			cr("b2", `"w":300`, `"h":250`, `"image_url":"https://a.example/i"`, `"click_url":"https://a.example/"`,
				`"duration_s":30`, `"mime":"video/mp4"`, `"media_url":"https://a.example/a.mp4"`, `"bitrate_kbps":1`,
				`"vast_version":"4.2"`, `"title":"t"`, `"body":"b"`, `"sponsored":"s"`, `"cta":"c"`, `"image_w":1`,
				`"image_h":1`, `"icon_url":"https://a.example/i"`, `"icon_w":1`, `"icon_h":1`)),
	}, ",\n") + "\n]}"
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	return path
}

// TestParityRefusesBadVersion3Campaigns: the Java baseline, like the Go
// server, refuses a campaigns file that uses version 3's fields wrongly,
// naming each problem with the Go server's words, in its order. A value of
// the wrong JSON type (open_auction "no") is refused by both too, but in
// each one's own words, as for every field of the campaigns file:
// encoding/json's there, Jackson's here.
func TestParityRefusesBadVersion3Campaigns(t *testing.T) {
	requireJava(t)
	t.Run("rules", func(t *testing.T) {
		path := badVersion3Campaigns(t)
		_, goErr := bidder.LoadCatalogFile(path, nil, 0)
		var ce *problems.Error
		require.True(t, errors.As(goErr, &ce), "%v", goErr)
		all := strings.Join(ce.Problems, "\n")
		for _, rule := range []string{"open_auction: false needs at least one deal in deals",
			"deals[0]: must be 1–64 printable ASCII characters", `duplicate deal "D-1"`, "deals: at most 256 deals",
			`type: must be "banner", "video" or "native"`, "duration_s: must be an integer 1–3600",
			"bitrate_kbps: must be an integer 1–100000", "mime: must be a media type such as video/mp4",
			"media_url: must be https on a secure creative", "media_url: must be an absolute http or https URL",
			`vast_version: must be "2.0", "3.0", "4.0", "4.1" or "4.2"`, "image_url: only on banner and native creatives",
			"title: only on native creatives", "mime: only on video creatives", "w: only on banner and video creatives",
			"icon_w: only with icon_url", "icon_w: required", "image_w: required", "title: must be 1–140 bytes",
			"body: must be 0–500 bytes", "sponsored: must be 1–64 bytes", "cta: must be 0–32 bytes"} {
			assert.Contains(t, all, rule, "the file breaks this rule")
		}
		out, lines := javaRefuses(t, path)
		for _, problem := range ce.Problems {
			assert.Contains(t, out, problem, "the Java baseline names the Go server's problem")
		}
		assert.Equal(t, ce.Problems, lines, "the same problems, in the same order")
	})
	t.Run("wrong JSON types", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "types.json")
		banner := `"creatives":[{"id":"b","w":300,"h":250,"image_url":"https://a.example/i","click_url":"https://a.example/"}]`
		c := func(id, extra string) string {
			return `{"id":"` + id + `","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"active","bid_cpm":2,` +
				extra + `,` + banner + `}`
		}
		require.NoError(t, os.WriteFile(path, []byte(`{"campaigns":[`+c("oa", `"open_auction":"no"`)+`,`+
			c("deals", `"deals":"D-1"`)+`]}`), 0o644))
		_, goErr := bidder.LoadCatalogFile(path, nil, 0)
		var ce *problems.Error
		require.True(t, errors.As(goErr, &ce), "%v", goErr)
		_, lines := javaRefuses(t, path)
		require.Len(t, ce.Problems, 2, "%q", ce.Problems)
		require.Len(t, lines, 2, "%q", lines)
		for i, field := range []string{"open_auction", "deals"} {
			assert.Contains(t, ce.Problems[i], "json: cannot unmarshal")
			assert.Contains(t, ce.Problems[i], "."+field+" of type")
			assert.Contains(t, lines[i], ": "+field+": ", "Jackson's words, the field named")
		}
	})
}

// TestParityExchanges plays section 7 against every server on one
// exchanges file: the paths of each exchange, who they admit, the nurl of
// their bids, and win notices with clear, encrypted, forged and misplaced
// prices. (All the servers are on loopback, so the test's client is
// 127.0.0.1.)
func TestParityExchanges(t *testing.T) {
	const eKey, iKey = "sIxwz7yw62yrfoLGt12lIHKuYrK_S5kLuApI2BQe7Ac=", "v3fsVcMBMMHYzRhi7SpM0sdqwzvAxM6KPTu9OtVod5I="
	const token = "parity-token-0123456789"
	file := filepath.Join(t.TempDir(), "exchanges.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"exchanges":[
 {"id":"default","price":{"encoding":"clear"}},
 {"id":"adx","allow":["127.0.0.0/8"],"token":"`+token+`",
  "price":{"encoding":"hmac-sha1","e_key":"`+eKey+`","i_key":"`+iKey+`","unit":"cpm_micros"}},
 {"id":"cpi","price":{"encoding":"hmac-sha1","e_key":"`+eKey+`","i_key":"`+iKey+`","unit":"cpi_micros"},"price_macro":"%%PRICE%%"},
 {"id":"far","allow":["10.0.0.0/8"],"price":{"encoding":"clear"}}
]}`), 0o644))
	p := startContenders(t, sequenceCampaigns(t), clockMode, file)
	ek, _ := base64.URLEncoding.DecodeString(eKey)
	ik, _ := base64.URLEncoding.DecodeString(iKey)
	cpm, err := exchange.EncryptedPricing(ek, ik, false)
	require.NoError(t, err)
	cpi, err := exchange.EncryptedPricing(ek, ik, true)
	require.NoError(t, err)
	mint := func(p *exchange.Pricing, v uint64) string {
		s, err := p.Encrypt(v, strings.NewReader(strings.Repeat("parity-iv", 2)))
		require.NoError(t, err)
		return s
	}
	forged := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef01234567wxyz"))
	body := "id=req-1&imp_id=1&w=160&h=600&secure=1" // the escaping campaign: 0.85 CPM, no caps
	playSteps(t, p, []step{
		{name: "bare: default", body: body, want: 200},
		{name: "adx with its token", path: "/dsp/recbid/adx", auth: token, body: body, want: 200},
		{name: "adx without a token", path: "/dsp/recbid/adx", body: body, want: 403},
		{name: "adx with a wrong token", path: "/dsp/recbid/adx", auth: token + "x", body: body, want: 403},
		{name: "adx: the method first", path: "/dsp/recbid/adx", method: http.MethodGet, want: 405},
		{name: "far: outside its allow", path: "/dsp/recbid/far", body: body, want: 403},
		{name: "cpi, its own macro", path: "/dsp/recbid/cpi", body: body, want: 200},
		{name: "default by its name", path: "/dsp/recbid/default", body: body, want: 404},
		{name: "an undeclared exchange", path: "/dsp/recbid/nope", body: body, want: 404},
		{name: "adx's bid on the bare path", win: "bidid={bid:adx with its token}&price=0.5", want: 404},
		{name: "adx's bid on far's path", path: "/dsp/win/far", win: "bidid={bid:adx with its token}&price=0.5", want: 404},
		{name: "a clear price to adx", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=0.5", want: 400},
		{name: "a forged price", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" + forged, want: 400},
		{name: "a price spelled non-canonically", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" +
			nonCanonical(mint(cpm, 850_000)), want: 400},
		{name: "an encrypted zero", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" + mint(cpm, 0), want: 400},
		{name: "above the bid", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" + mint(cpm, 850_001), want: 400},
		{name: "adx's price", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" + mint(cpm, 850_000), want: 204},
		{name: "again, padded", path: "/dsp/win/adx", win: "bidid={bid:adx with its token}&price=" + mint(cpm, 1) + "==", want: 204, dup: true},
		{name: "cpi micros", path: "/dsp/win/cpi", win: "bidid={bid:cpi, its own macro}&price=" + mint(cpi, 850), want: 204},
		{name: "default's clear price", win: "bidid={bid:bare: default}&price=0.5", want: 204},
		{name: "unknown bid first", path: "/dsp/win/adx", win: "bidid=00000000000000000000000000000bad&price=x", want: 404},
	})
}

// TestParityRefusesBadExchanges: the Java baseline, like the Go server,
// refuses to start on an exchanges file with errors and names every
// problem.
func TestParityRefusesBadExchanges(t *testing.T) {
	requireJava(t)
	path := filepath.Join(t.TempDir(), "bad.json")
	file := `{"exchanges":[
{"id":"Bad Id","price":{"encoding":"clear"}},
{"id":"a","allow":[],"price":{"encoding":"clear"}},
{"id":"b","allow":["10.0.0.1/8","nope"],"price":{"encoding":"clear"}},
{"id":"c","token":"short","price":{"encoding":"clear"}},
{"id":"d"},
{"id":"f","price":{"encoding":"hmac-sha1","e_key":"c2hvcnQ","unit":"cpm"}},
{"id":"h","price":{"encoding":"clear"},"price_macro":"a&b"},
{"id":"j","price":{"encoding":"clear"}},
{"id":"j","price":{"encoding":"clear"}}
]}`
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	_, goErr := exchange.Load(path)
	var fe *problems.Error
	require.True(t, errors.As(goErr, &fe), "%v", goErr)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./run.sh", "-addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"-campaigns", testdataCampaigns, "-exchanges", path)
	cmd.Env = append(os.Environ(), "JAVA_HEAP=64m")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "java-baseline must refuse to start: %v\n%s", err, out)
	for _, problem := range fe.Problems {
		assert.Contains(t, string(out), problem, "the Java baseline names the Go server's problem")
	}
	assert.NotContains(t, string(out), "listening on")
}

// TestParityRefusesBadFrontEnd: run.sh knows two front ends, and refuses
// any other, or a number of event loops that is not a positive integer, as
// a bad flag (exit status 2).
func TestParityRefusesBadFrontEnd(t *testing.T) {
	requireJava(t)
	for _, tt := range []struct{ flag, value, message string }{
		{"-http", "jetty", "java-baseline: invalid value jetty for -http: must be tomcat or netty"},
		{"-event-loops", "0", "java-baseline: invalid value 0 for -event-loops"},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "./run.sh", "-addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
				"-campaigns", testdataCampaigns, "-http", "netty", tt.flag, tt.value)
			cmd.Env = append(os.Environ(), "JAVA_HEAP=64m")
			out, err := cmd.CombinedOutput()
			var exitErr *exec.ExitError
			require.True(t, errors.As(err, &exitErr), "java-baseline must refuse to start: %v\n%s", err, out)
			assert.Equal(t, 2, exitErr.ExitCode(), "%s", out)
			assert.Contains(t, string(out), tt.message+"\n")
			assert.NotContains(t, string(out), "listening on")
		})
	}
}

// nonCanonical spells an unpadded 28-byte base64 string's bytes another
// way: its last character with an unused low bit set.
func nonCanonical(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last^1])
}
