package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api/campaignapi"
	"github.com/recbid/dspd/internal/redistest"
)

const opsToken = "ops-token-0123456789abcdef0123456789"

// tokensFile writes an -api-tokens file with one write token.
func tokensFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"tokens":[{"name":"ops","token":"`+opsToken+`","role":"write"}]}`), 0o600))
	return p
}

// apiCall sends an API request with the write token.
func apiCall(t *testing.T, c *http.Client, method, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+opsToken)
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// patchCampaign changes a campaign at the version etag names and returns
// the new ETag.
func patchCampaign(t *testing.T, c *http.Client, admin, id, etag, patch string) string {
	t.Helper()
	code, hdr, body := apiCall(t, c, "PATCH", "http://"+admin+"/api/v1/campaigns/"+id, patch, "If-Match: "+etag)
	require.Equal(t, http.StatusOK, code, body)
	return hdr.Get("ETag")
}

func etagOf(t *testing.T, c *http.Client, admin, id string) string {
	t.Helper()
	code, hdr, body := apiCall(t, c, "GET", "http://"+admin+"/api/v1/campaigns/"+id, "")
	require.Equal(t, http.StatusOK, code, body)
	return hdr.Get("ETag")
}

func (c *child) logged(s string) bool { return strings.Contains(c.lastLines(), s) }

// TestManagedSetSurvivesKill9: with the disk state, the set the API
// manages is seeded from the campaigns file once; every acknowledged
// change survives a kill -9, and after it the state, not the (changed)
// file, is what serves.
func TestManagedSetSurvivesKill9(t *testing.T) {
	dir := t.TempDir()
	file := copyFile(t, "../../testdata/campaigns.json")
	args := []string{"-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-state", "disk:" + dir, "-campaigns", file,
		"-api-tokens", tokensFile(t), "-events", "none"}
	c := startChild(t, args...)
	assert.True(t, c.logged("the campaigns file seeded it"), c.lastLines())
	client := &http.Client{Timeout: 10 * time.Second}

	// Changes, each acknowledged, then kill -9 at once.
	want := map[string]string{} // campaign → the ETag of its last acknowledged change
	for i := range 20 {
		id := fmt.Sprintf("c-%04d", 1+i%7)
		etag, ok := want[id]
		if !ok {
			etag = etagOf(t, client, c.admin, id)
		}
		want[id] = patchCampaign(t, client, c.admin, id, etag, fmt.Sprintf(`{"daily_budget":%d}`, 1000+i))
	}
	code, _, _ := apiCall(t, client, "POST", "http://"+c.admin+"/api/v1/campaigns", strings.Replace(
		`{"id":"new-one","advertiser":"A","adomain":["a.example"],"cat":["IAB1"],"status":"paused","bid_cpm":1,`+
			`"creatives":[{"id":"x","w":300,"h":250,"image_url":"https://a.example/x.png","click_url":"https://a.example/"}]}`, "\n", "", -1))
	require.Equal(t, http.StatusCreated, code)
	c.kill()

	// The file changes meanwhile: it is not read again.
	require.NoError(t, os.WriteFile(file, []byte(`{"campaigns":[]}`), 0o644))
	c = startChild(t, args...)
	assert.True(t, c.logged("serving the set the API manages in the state"), c.lastLines())
	for id, etag := range want {
		assert.Equal(t, etag, etagOf(t, client, c.admin, id), id)
	}
	_, _, body := apiCall(t, client, "GET", "http://"+c.admin+"/api/v1/campaigns/c-0001", "")
	assert.Contains(t, body, `"daily_budget":1014`, "the last acknowledged value")
	assert.Equal(t, `"1"`, etagOf(t, client, c.admin, "new-one"))
	_, _, list := apiCall(t, client, "GET", "http://"+c.admin+"/api/v1/campaigns", "")
	assert.Contains(t, list, `"count":1161`)

	// A reload takes the exchanges and the tokens, the campaigns from the state.
	code, _, body = apiCall(t, client, "POST", "http://"+c.admin+"/admin/reload", "")
	require.Equal(t, http.StatusOK, code, body)
	assert.JSONEq(t, `{"campaigns":1161,"exchanges":1,"campaigns_from":"managed"}`, body)
	_, _, audit := apiCall(t, client, "GET", "http://"+c.admin+"/api/v1/audit?campaign=c-0001", "")
	assert.Equal(t, 3, strings.Count(audit, `"action":"patch"`), "c-0001's three patches")
	assert.Equal(t, 1, strings.Count(audit, `"action":"seed"`))
}

// TestReplicasFollowWithinASecond: two dspds on one Redis; each change
// made through one is served by the other within a second (the time from
// the PATCH's answer to the other's serving it, over 100 changes), and a
// campaign paused on one stops bidding on the other. The dspds are built
// as they ship: under the race detector, on CI's loaded machine, the lag
// reached 1.3 s.
func TestReplicasFollowWithinASecond(t *testing.T) {
	r := redistest.New(t)
	tokens := tokensFile(t)
	bin := shippedDspd(t) // the lag measured is the product's, not the race detector's
	start := func() *child {
		return startBinary(t, bin, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-state", r.URL(), "-events", "none",
			"-campaigns", "../../testdata/campaigns.json", "-api-tokens", tokens)
	}
	a, b := start(), start()
	client := &http.Client{Timeout: 10 * time.Second}
	served := func(admin string) int64 {
		code, hdr, body := apiCall(t, client, "GET", "http://"+admin+"/api/v1/campaigns/c-0001", "")
		require.Equal(t, http.StatusOK, code, body)
		n, err := strconv.ParseInt(hdr.Get(campaignapi.RevisionHeader), 10, 64)
		require.NoError(t, err)
		return n
	}
	rev := served(a.admin)
	require.Equal(t, rev, served(b.admin), "both serve the seeded set")

	const changes = 100
	var lags []time.Duration
	etag := etagOf(t, client, a.admin, "c-0002")
	for i := range changes {
		etag = patchCampaign(t, client, a.admin, "c-0002", etag, fmt.Sprintf(`{"bid_cpm":%d.5}`, 1+i%5))
		acked := time.Now()
		rev++
		for served(b.admin) < rev {
			require.Less(t, time.Since(acked), 5*time.Second, "replica b never served revision %d", rev)
		}
		lags = append(lags, time.Since(acked))
	}
	slices.Sort(lags)
	t.Logf("from a PATCH's answer on one dspd to the other serving it, %d changes of a set of 1,160 campaigns: median %v, p90 %v, max %v",
		changes, lags[changes/2].Round(time.Microsecond), lags[changes*9/10].Round(time.Microsecond), lags[changes-1].Round(time.Microsecond))
	assert.Less(t, lags[changes-1], time.Second, "every change served by the other replica within a second")

	// A campaign paused on a stops bidding on b within a second.
	winner, ok := bid(t, client, b.public, "u-pause")
	require.True(t, ok)
	patchCampaign(t, client, a.admin, winner.campaign, etagOf(t, client, a.admin, winner.campaign), `{"status":"paused"}`)
	acked := time.Now()
	for {
		got, ok := bid(t, client, b.public, "u-pause")
		if !ok || got.campaign != winner.campaign {
			break
		}
		require.Less(t, time.Since(acked), time.Second, "campaign %s still bids on the other replica a second after its pause", winner.campaign)
	}

	// Spend is kept through an edit: the books are the campaign id's.
	var spentBefore struct {
		SpendMicros int64 `json:"spend_micros"`
	}
	won, ok := bid(t, client, a.public, "u-spend")
	require.True(t, ok)
	status, _ := notice(t, client, a.public, won.id, 1_000_000)
	require.Equal(t, http.StatusNoContent, status)
	_, _, body := apiCall(t, client, "GET", "http://"+b.admin+"/api/v1/campaigns/"+won.campaign+"/stats", "")
	require.NoError(t, json.Unmarshal([]byte(body), &spentBefore))
	assert.EqualValues(t, 1_000_000, spentBefore.SpendMicros, "the win on a is in the shared books b reads")
	patchCampaign(t, client, a.admin, won.campaign, etagOf(t, client, a.admin, won.campaign), `{"daily_budget":99999}`)
	_, _, body = apiCall(t, client, "GET", "http://"+b.admin+"/api/v1/campaigns/"+won.campaign+"/stats", "")
	assert.Contains(t, body, `"spend_micros":1000000`, "an edit keeps the day's spend")
}
