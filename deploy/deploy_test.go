package deploy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/recbid/dspd/abrate"
	"github.com/recbid/dspd/loadtest"
)

// The files under test, from the repository's root.
const (
	configFile    = "deploy/prometheus/prometheus.yml"
	rulesFile     = "deploy/prometheus/dspd.rules.yml"
	rulesTestFile = "deploy/prometheus/dspd.rules.test.yml"
	dashboardFile = "deploy/grafana/dspd.json"
)

// inRoot makes the repository's root the working directory for the rest
// of the test: abrate builds ./cmd/NAME from it, and testdata/ is there.
func inRoot(t *testing.T) {
	t.Chdir("..")
}

// need returns the path of command. It skips the test when the command is
// not installed, and fails it under CI (CI set), where make test's set-up
// (scripts/deps.sh) installs pkg.
func need(t *testing.T, command, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(command)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("%s is not installed: apt-get install %s", command, pkg)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: a missing tool fails the suite)")
	}
	t.Skip(msg)
	return ""
}

// TestPromtool: the configuration and the rules are valid, and the rules'
// unit tests pass (each alert fires on its trouble, and not on a healthy
// replica).
func TestPromtool(t *testing.T) {
	promtool := need(t, "promtool", "prometheus")
	inRoot(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"check config", []string{"check", "config", configFile}},
		{"check rules", []string{"check", "rules", rulesFile}},
		{"test rules", []string{"test", "rules", rulesTestFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, promtool, tc.args...).CombinedOutput()
			require.NoError(t, err, "promtool %s:\n%s", strings.Join(tc.args, " "), out)
		})
	}
}

// dashboard is what the tests read of a Grafana dashboard.
type dashboard struct {
	SchemaVersion int `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Query      json.RawMessage `json:"query"` // a string, or the query editor's object
			Definition string          `json:"definition"`
			Datasource *datasourceRef  `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *datasourceRef `json:"datasource"`
	GridPos    struct {
		X int `json:"x"`
		W int `json:"w"`
	} `json:"gridPos"`
	Targets []struct {
		RefID      string         `json:"refId"`
		Expr       string         `json:"expr"`
		Datasource *datasourceRef `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(b, &d), "%s is not valid JSON", dashboardFile)
	return d
}

// all is every panel, those of collapsed rows included.
func (d dashboard) all() []panel {
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}

// The dashboard's panels read from the ${datasource} variable, the
// variables dspd's metrics need are there, and the panels the operators
// look at first are present.
func TestDashboardShape(t *testing.T) {
	inRoot(t)
	d := readDashboard(t)
	assert.GreaterOrEqual(t, d.SchemaVersion, 39)

	vars := map[string]int{}
	for i, v := range d.Templating.List {
		vars[v.Name] = i
	}
	require.Contains(t, vars, "datasource")
	require.Contains(t, vars, "instance")
	ds := d.Templating.List[vars["datasource"]]
	assert.Equal(t, "datasource", ds.Type)
	assert.JSONEq(t, `"prometheus"`, string(ds.Query))
	inst := d.Templating.List[vars["instance"]]
	assert.Equal(t, "query", inst.Type)
	assert.Equal(t, &datasourceRef{"prometheus", "${datasource}"}, inst.Datasource)
	assert.Contains(t, inst.Definition, "label_values(")

	prom := &datasourceRef{"prometheus", "${datasource}"}
	ids := map[int]bool{}
	var titles []string
	for _, p := range d.all() {
		assert.False(t, ids[p.ID], "panel id %d twice", p.ID)
		ids[p.ID] = true
		assert.LessOrEqual(t, p.GridPos.X+p.GridPos.W, 24, "panel %q is wider than the grid", p.Title)
		if p.Type == "row" {
			continue
		}
		titles = append(titles, p.Title)
		assert.Equal(t, prom, p.Datasource, "panel %q", p.Title)
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			assert.NotEmpty(t, tg.Expr, "panel %q, query %s", p.Title, tg.RefID)
			assert.Equal(t, prom, tg.Datasource, "panel %q, query %s", p.Title, tg.RefID)
			assert.False(t, refs[tg.RefID], "panel %q: refId %s twice", p.Title, tg.RefID)
			refs[tg.RefID] = true
		}
	}
	for _, want := range []string{"Requests", "Bids", "No-bid reasons", "Win notices", "Spend against budget (paced campaigns)",
		"Decision latency", "State health", "Shipping lag", "Event log failures"} {
		assert.Contains(t, titles, want)
	}
}

// TestQueriesFindDspdSeries runs a real dspd (on a disk state, shipping
// its event log to an in-process Kafka, some campaigns paced), sends it
// bid requests and win notices, and has a real Prometheus scrape it every
// second through prometheus.yml with dspd.rules.yml loaded. Then every
// rule's expression and every panel's query runs through the query API:
// each metric selector in them (name and label matchers) must find series,
// and each recording rule and panel query must return some, so that a
// misspelt metric or label fails here. Alert expressions may return
// nothing (a healthy dspd fires none), so only their selectors must.
func TestQueriesFindDspdSeries(t *testing.T) {
	promBin := need(t, "prometheus", "prometheus")
	need(t, "taskset", "util-linux") // abrate starts its processes through taskset
	inRoot(t)
	tmp := t.TempDir()
	began := time.Now()
	buildDspd(t, tmp)
	built := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const topic = "dspd-events"
	kafka, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	require.NoError(t, err)
	t.Cleanup(kafka.Close)

	cpus := allowedCPUs(t)
	public, admin, promAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	dspdLog := filepath.Join(tmp, "dspd.log")
	launch(ctx, t, abrate.ServerSpec{
		Name: "dspd",
		Argv: []string{filepath.Join(tmp, "dspd"), "-addr", public, "-admin", admin,
			"-state", "disk:" + filepath.Join(tmp, "state"), "-campaigns", pacedCampaigns(t, tmp),
			"-events", "kafka://" + kafka.ListenAddrs()[0] + "/" + topic, "-log-level", "warn"},
		CPUs: cpus, Ready: abrate.Ready{URL: "http://" + admin + "/readyz"}, LogPath: dspdLog,
	})
	promLog := filepath.Join(tmp, "prometheus.log")
	launch(ctx, t, abrate.ServerSpec{
		Name: "prometheus",
		Argv: []string{promBin, "--config.file=" + scrapeConfig(t, tmp, admin),
			"--storage.tsdb.path=" + filepath.Join(tmp, "tsdb"), "--web.listen-address=" + promAddr, "--log.level=warn"},
		CPUs: cpus, Ready: abrate.Ready{URL: "http://" + promAddr + "/-/ready"}, LogPath: promLog,
	})

	sendTraffic(ctx, t, public)

	api := promAPI{base: "http://" + promAddr}
	rulesText, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	wantRules := strings.Count(string(rulesText), "- record:") + strings.Count(string(rulesText), "- alert:")
	d := readDashboard(t)

	// Poll until every query finds its series: the scrapes and the rules'
	// evaluations come every second.
	var rules []rule
	var problems []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		rules, problems = checkAll(ctx, api, wantRules, d)
		if len(problems) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, queries that find nothing or fail:\n  %s\n\ndspd's log:\n%s\nprometheus's log:\n%s",
				time.Since(built).Round(time.Second), strings.Join(problems, "\n  "), tail(dspdLog), tail(promLog))
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(500 * time.Millisecond): // polling Prometheus: it has nothing to wait on
		}
	}

	// What an operator reads of each alert.
	for _, r := range rules {
		if r.Type != "alerting" {
			continue
		}
		assert.Positive(t, r.Duration, "%s has no for:", r.Name)
		assert.Contains(t, []string{"critical", "warning"}, r.Labels["severity"], "%s: severity", r.Name)
		assert.NotEmpty(t, r.Annotations["summary"], "%s: summary", r.Name)
		assert.NotEmpty(t, r.Annotations["description"], "%s: description", r.Name)
		assert.Contains(t, r.Annotations["runbook_url"], "docs/operations.md#", "%s: runbook_url", r.Name)
	}
	t.Logf("%d rules and %d panels checked; build %s, the rest %s", len(rules), len(d.all()),
		built.Sub(began).Round(100*time.Millisecond), time.Since(built).Round(100*time.Millisecond))
}

// checkAll runs every rule's expression and every panel's query, and
// returns the rules Prometheus loaded and what is wrong.
func checkAll(ctx context.Context, api promAPI, wantRules int, d dashboard) ([]rule, []string) {
	var problems []string
	rules, err := api.rules(ctx)
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(rules) != wantRules {
		problems = append(problems, fmt.Sprintf("Prometheus loaded %d rules of %s, want %d", len(rules), rulesFile, wantRules))
	}
	checked := map[string]bool{}
	selectorsFind := func(where, expr string) {
		for _, sel := range selectors(expr) {
			if checked[sel] {
				continue
			}
			if n, err := api.query(ctx, sel); err != nil || n == 0 {
				problems = append(problems, fmt.Sprintf("%s: selector %s finds no series (%v)", where, sel, err))
				continue
			}
			checked[sel] = true
		}
	}
	for _, r := range rules {
		where := fmt.Sprintf("rule %s", r.Name)
		if r.Health != "ok" {
			problems = append(problems, fmt.Sprintf("%s: health %q %s", where, r.Health, r.LastError))
		}
		n, err := api.query(ctx, r.Query)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
		case n == 0 && r.Type == "recording":
			problems = append(problems, where+": no series")
		}
		selectorsFind(where, r.Query)
	}
	for _, v := range d.Templating.List {
		selectorsFind("variable "+v.Name, v.Definition)
	}
	for _, p := range d.all() {
		for _, tg := range p.Targets {
			where := fmt.Sprintf("panel %q, query %s", p.Title, tg.RefID)
			expr := grafanaVars.Replace(tg.Expr)
			if strings.Contains(expr, "$") {
				problems = append(problems, fmt.Sprintf("%s: a variable the test does not know: %s", where, expr))
				continue
			}
			if n, err := api.query(ctx, expr); err != nil || n == 0 {
				problems = append(problems, fmt.Sprintf("%s: %d series (%v): %s", where, n, err, expr))
			}
			selectorsFind(where, expr)
		}
	}
	return rules, problems
}

// grafanaVars stands in for what Grafana substitutes in a panel's query.
var grafanaVars = strings.NewReplacer("${__rate_interval}", "1m", "$__rate_interval", "1m",
	"${instance}", ".*", "$instance", ".*")

var (
	// token is a PromQL identifier and the label matchers after it.
	token = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})?`)
	// metricName is the names of the series the files read: dspd's, the
	// recording rules' (LEVEL:dspd_NAME:OPERATIONS) and Prometheus's up.
	metricName = regexp.MustCompile(`^(up|(\w+:)?dspd_\w+(:\w+)?|go_\w+|process_\w+)$`)
)

// selectors returns the metric selectors of a PromQL expression (or of a
// Grafana label_values() query): each metric name with its matchers.
func selectors(expr string) []string {
	var out []string
	for _, tok := range token.FindAllString(expr, -1) {
		name, _, _ := strings.Cut(tok, "{")
		if metricName.MatchString(name) && !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out
}

func TestSelectors(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up{job="dspd"} == 0`, []string{`up{job="dspd"}`}},
		{`sum by (job, instance) (rate(dspd_nobid_total{reason="state_unavailable"}[5m]))`,
			[]string{`dspd_nobid_total{reason="state_unavailable"}`}},
		{`instance:dspd_requests:rate5m > 1 and instance:dspd_bids:rate5m == 0`,
			[]string{"instance:dspd_requests:rate5m", "instance:dspd_bids:rate5m"}},
		{`histogram_quantile(0.99, sum by (le) (rate(dspd_decision_seconds_bucket{instance=~".*"}[1m])))`,
			[]string{`dspd_decision_seconds_bucket{instance=~".*"}`}},
		{`time() - min by (job, instance) (dspd_pacing_tick_timestamp_seconds) > 300`, []string{"dspd_pacing_tick_timestamp_seconds"}},
		{`label_values(dspd_campaigns, instance)`, []string{"dspd_campaigns"}},
	} {
		assert.Equal(t, tc.want, selectors(tc.expr), tc.expr)
	}
}

// rule is one rule as Prometheus's /api/v1/rules reports it.
type rule struct {
	Name        string            `json:"name"`
	Query       string            `json:"query"`
	Type        string            `json:"type"` // recording or alerting
	Health      string            `json:"health"`
	LastError   string            `json:"lastError"`
	Duration    float64           `json:"duration"` // an alert's for:, in seconds
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// promAPI is a Prometheus server's HTTP API.
type promAPI struct{ base string }

var promClient = &http.Client{Timeout: 5 * time.Second}

// get decodes the data of an API answer into data.
func (p promAPI) get(ctx context.Context, path string, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := promClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var answer struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return fmt.Errorf("GET %s: %s: %w", path, resp.Status, err)
	}
	if answer.Status != "success" {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, answer.Error)
	}
	return json.Unmarshal(answer.Data, data)
}

// query runs an instant query and returns how many series (or values) it
// found.
func (p promAPI) query(ctx context.Context, expr string) (int, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := p.get(ctx, "/api/v1/query?query="+url.QueryEscape(expr), &data); err != nil {
		return 0, err
	}
	if data.ResultType == "scalar" || data.ResultType == "string" {
		return 1, nil
	}
	var series []json.RawMessage
	err := json.Unmarshal(data.Result, &series)
	return len(series), err
}

// rules returns every rule of every group Prometheus loaded.
func (p promAPI) rules(ctx context.Context) ([]rule, error) {
	var data struct {
		Groups []struct {
			Rules []rule `json:"rules"`
		} `json:"groups"`
	}
	if err := p.get(ctx, "/api/v1/rules", &data); err != nil {
		return nil, err
	}
	var out []rule
	for _, g := range data.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// buildDspd builds ./cmd/dspd into dir with abrate, the way the packages
// of this test run are built: without cmd/dspd's profile (-pgo=off), and
// with the race detector when this test has it. Its dependencies are then
// the objects go test has compiled for the other packages' tests (make
// test runs go test -race ./...): 13-28 s here. A plain go build, with the
// profile, compiles every one of them again: 6 minutes from a cold cache
// here. What the test reads, the metrics, depends on neither flag.
func buildDspd(t *testing.T, dir string) {
	t.Helper()
	// Long enough for a build that finds the cache cold.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	flags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -pgo=off")
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				flags += " -race"
			}
		}
	}
	var log bytes.Buffer
	setup := abrate.DefaultSetup(&log)
	run := setup.Exec
	setup.Exec = func(ctx context.Context, env []string, argv ...string) error {
		return run(ctx, append(env, "GOFLAGS="+flags), argv...)
	}
	require.NoError(t, setup.Build(ctx, []string{"dspd"}, dir), "go build (GOFLAGS=%s): %s", flags, log.String())
}

// launch starts a server with abrate (pinned to cpus through taskset,
// ready once its URL answers 2xx) and stops it when the test ends.
func launch(ctx context.Context, t *testing.T, spec abrate.ServerSpec) {
	t.Helper()
	p, err := abrate.Processes{ReadyTimeout: 30 * time.Second}.Launch(ctx, spec)
	require.NoError(t, err, "start %s", spec.Name)
	t.Cleanup(func() { _ = p.Stop() })
}

// allowedCPUs is the CPUs this test may run on, as taskset lists them:
// the servers share them, unpinned beyond that.
func allowedCPUs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list in /proc/self/status")
	return ""
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// pacedCampaigns writes testdata/campaigns.json to dir with every 50th
// campaign paced even, so that dspd exports the dspd_pacing_* series
// (only paced campaigns have them), and returns its path.
func pacedCampaigns(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/campaigns.json")
	require.NoError(t, err)
	var file map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &file))
	var campaigns []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(file["campaigns"], &campaigns))
	for i := 0; i < len(campaigns); i += 50 {
		campaigns[i]["pacing"] = json.RawMessage(`"even"`)
	}
	file["campaigns"], err = json.Marshal(campaigns)
	require.NoError(t, err)
	b, err = json.Marshal(file)
	require.NoError(t, err)
	path := filepath.Join(dir, "campaigns.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// scrapeConfig writes prometheus.yml to dir, scraping the admin listener
// at admin every second and evaluating the rules every second, with
// dspd.rules.yml beside it, and returns its path.
func scrapeConfig(t *testing.T, dir, admin string) string {
	t.Helper()
	b, err := os.ReadFile(configFile)
	require.NoError(t, err)
	cfg := string(b)
	for _, r := range [][2]string{
		{"scrape_interval: 15s", "scrape_interval: 1s"},
		{"evaluation_interval: 15s", "evaluation_interval: 1s"},
		{"- 127.0.0.1:6060", "- " + admin},
	} {
		require.Equal(t, 1, strings.Count(cfg, r[0]), "%s should hold %q once", configFile, r[0])
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	rules, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(rulesFile)), rules, 0o644))
	path := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	return path
}

// sendTraffic sends dspd 300 form and 300 OpenRTB bid requests of
// testdata, the win notices of a few of its bids, and one notice for a bid
// it never made (404 unknown_bid).
func sendTraffic(ctx context.Context, t *testing.T, public string) {
	t.Helper()
	form := corpus(t, "testdata/requests.txt", 300)
	for _, load := range []struct {
		path, contentType string
		bodies            [][]byte
		headers           []string
	}{
		{"/dsp/recbid", "application/x-www-form-urlencoded", form, nil},
		{"/openrtb2/bid", "application/json", corpus(t, "testdata/openrtb/requests.jsonl", 300), []string{"x-openrtb-version: 2.6"}},
	} {
		res, err := loadtest.Run(ctx, loadtest.Config{URL: "http://" + public + load.path, Bodies: load.bodies,
			ContentType: load.contentType, Headers: load.headers, Requests: int64(len(load.bodies)), Concurrency: 4,
			KeepAlive: true, VariableLength: true, Timeout: 5 * time.Second})
		require.NoError(t, err, load.path)
		require.Zero(t, res.Failed, "%s: failed requests: %v", load.path, res.Errors)
		require.Zero(t, res.Non2xx, "%s: answers not 2xx: %v", load.path, res.StatusCodes)
	}

	const wins = 5
	won := 0
	for _, body := range form {
		if won == wins {
			break
		}
		nurl, ok := bid(ctx, t, public, body)
		if !ok {
			continue
		}
		assert.Equal(t, http.StatusNoContent, get(ctx, t, nurl), nurl)
		won++
	}
	require.Equal(t, wins, won, "bids to win among %d requests", len(form))
	assert.Equal(t, http.StatusNotFound, get(ctx, t, "http://"+public+"/dsp/win?bidid="+strings.Repeat("0", 32)+"&price=1"))
}

// bid posts a form bid request and returns the win notice URL of its bid,
// filled in with the bid's own price, if it got one.
func bid(ctx context.Context, t *testing.T, public string, body []byte) (string, bool) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+public+"/dsp/recbid", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := promClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return "", false
	}
	var answer struct {
		Seatbid []struct {
			Bid []struct {
				Price float64 `json:"price"`
				Nurl  string  `json:"nurl"`
			} `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	require.NotEmpty(t, answer.Seatbid)
	require.NotEmpty(t, answer.Seatbid[0].Bid)
	b := answer.Seatbid[0].Bid[0]
	return strings.Replace(b.Nurl, "${AUCTION_PRICE}", strconv.FormatFloat(b.Price, 'f', -1, 64), 1), true
}

// get sends a GET and returns the answer's status.
func get(ctx context.Context, t *testing.T, u string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	require.NoError(t, err)
	resp, err := promClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// corpus returns the first n non-empty lines of a file of request bodies.
func corpus(t *testing.T, path string, n int) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for len(out) < n && sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, bytes.Clone(line))
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, n, "%s: too few bodies", path)
	return out
}

// tail is the end of a log file, for a failure's message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b[max(0, len(b)-4000):])
}
