package api_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/recbid/dspd/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/clock"
	"github.com/recbid/dspd/state/memory"
)

// The keys of exchange adx in these tests: the first published pair, and a
// second to re-key it with.
const (
	adxEKey  = "sIxwz7yw62yrfoLGt12lIHKuYrK_S5kLuApI2BQe7Ac="
	adxIKey  = "v3fsVcMBMMHYzRhi7SpM0sdqwzvAxM6KPTu9OtVod5I="
	adxEKey2 = "skU7Ax_NL5pPAFyKdkfZjZz2-VhIN8bjj1rVFOaJ_5o="
	adxIKey2 = "arO23ykdNqUQ5LEoQ0FVmPkBd7xB5CO89PDZlSjpFxo="
	adxToken = "adx-token-0123456789"
)

// exchangesFile declares default (open, clear), adx (loopback only, a
// token, encrypted prices under the keys given) and ox (10/8, clear, its
// own macro).
func exchangesFile(eKey, iKey string) string {
	return `{"exchanges":[
 {"id":"default","price":{"encoding":"clear"}},
 {"id":"adx","allow":["127.0.0.0/8"],"token":"` + adxToken + `",
  "price":{"encoding":"hmac-sha1","e_key":"` + eKey + `","i_key":"` + iKey + `","unit":"cpm_micros"}},
 {"id":"ox","allow":["10.0.0.0/8"],"price":{"encoding":"clear"},"price_macro":"{PRICE}"}
]}`
}

func writeFile(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// exchangeServer serves one untargeted campaign (bid 2 CPM) and exchanges.
func exchangeServer(t testing.TB, o serverOptions, campaigns ...string) *testServer {
	t.Helper()
	if len(campaigns) == 0 {
		campaigns = []string{sequenceCampaign("c", ``)}
	}
	if o.exFile == "" {
		o.exFile = writeFile(t, "exchanges.json", exchangesFile(adxEKey, adxIKey))
	}
	return buildTestServer(t, writeCampaigns(t, campaigns...), o)
}

// send makes a request with the client address and headers ("Name",
// "value" pairs) given.
func send(h http.Handler, method, target, remote, body string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if remote != "" {
		r.RemoteAddr = remote
	}
	if body != "" && strings.HasPrefix(target, "/dsp/recbid") {
		r.Header.Set("Content-Type", FormMediaType)
	}
	if strings.HasPrefix(target, "/openrtb2/bid") {
		r.Header.Set("Content-Type", JSONMediaType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const (
	loopback = "127.0.0.1:40000"
	outside  = "192.0.2.1:40000"
	tenNet   = "10.1.2.3:40000"
)

var bearer = []string{"Authorization", "Bearer " + adxToken}

// TestExchangeEndpoints: each exchange has its own bid paths, guarded by
// its sources and token (after the method, before everything else), and
// its bids carry its own win path and price macro.
func TestExchangeEndpoints(t *testing.T) {
	srv := exchangeServer(t, serverOptions{})
	tests := []struct {
		name, method, target, remote, body string
		headers                            []string
		status                             int
		code                               string
		nurl                               string // a bid's nurl, bid id masked as B
	}{
		{name: "bare path: the default exchange", method: "POST", target: "/dsp/recbid", remote: outside, body: validBody,
			status: 200, nurl: "http://localhost:9090/dsp/win?bidid=B&price=${AUCTION_PRICE}"},
		{name: "adx, from loopback, with its token", method: "POST", target: "/dsp/recbid/adx", remote: loopback, body: validBody,
			headers: bearer, status: 200, nurl: "http://localhost:9090/dsp/win/adx?bidid=B&price=${AUCTION_PRICE}"},
		{name: "ox, its own macro", method: "POST", target: "/dsp/recbid/ox", remote: tenNet, body: validBody,
			status: 200, nurl: "http://localhost:9090/dsp/win/ox?bidid=B&price={PRICE}"},
		{name: "adx from outside allow", method: "POST", target: "/dsp/recbid/adx", remote: outside, body: validBody,
			headers: bearer, status: 403, code: "forbidden"},
		{name: "adx without its token", method: "POST", target: "/dsp/recbid/adx", remote: loopback, body: validBody,
			status: 403, code: "forbidden"},
		{name: "adx with another's token", method: "POST", target: "/dsp/recbid/adx", remote: loopback, body: validBody,
			headers: []string{"Authorization", "Bearer nope-nope-nope-nope"}, status: 403, code: "forbidden"},
		{name: "the method before the source", method: "GET", target: "/dsp/recbid/adx", remote: outside, status: 405, code: "method_not_allowed"},
		{name: "the source before the body", method: "POST", target: "/dsp/recbid/adx", remote: outside, body: "%zz", status: 403, code: "forbidden"},
		{name: "the token before the content type", method: "POST", target: "/dsp/recbid/adx", remote: loopback, body: "",
			headers: []string{"Content-Type", "text/plain"}, status: 403, code: "forbidden"},
		{name: "an undeclared exchange", method: "POST", target: "/dsp/recbid/nope", remote: loopback, body: validBody, status: 404, code: "not_found"},
		{name: "default only on the bare path", method: "POST", target: "/dsp/recbid/default", remote: loopback, body: validBody, status: 404, code: "not_found"},
		{name: "OpenRTB on adx", method: "POST", target: "/openrtb2/bid/adx", remote: loopback, body: ortbBody("", ""),
			headers: bearer, status: 200, nurl: "http://localhost:9090/dsp/win/adx?bidid=B&price=${AUCTION_PRICE}"},
		{name: "OpenRTB on adx from outside", method: "POST", target: "/openrtb2/bid/adx", remote: outside, body: ortbBody("", ""),
			headers: bearer, status: 403, code: "forbidden"},
		{name: "OpenRTB on ox", method: "POST", target: "/openrtb2/bid/ox", remote: tenNet, body: ortbBody("", ""),
			status: 200, nurl: "http://localhost:9090/dsp/win/ox?bidid=B&price={PRICE}"},
	}
	for _, tt := range tests {
		w := send(srv.public, tt.method, tt.target, tt.remote, tt.body, tt.headers...)
		require.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body.String())
		if tt.code != "" {
			assert.Equal(t, tt.code, decodeError(t, w).Error, tt.name)
			continue
		}
		var resp bidResponse
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp), tt.name)
		b := resp.SeatBid[0].Bid[0]
		assert.Equal(t, tt.nurl, strings.Replace(b.NURL, b.ID, "B", 1), tt.name)
		if strings.HasPrefix(tt.target, "/openrtb2") {
			assert.Equal(t, tt.nurl+"&billing=1", strings.Replace(b.BURL, b.ID, "B", 1), tt.name)
		}
	}
	metrics := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, metrics, `dspd_exchange_refused_total{cause="source",exchange="adx"} 3`)
	assert.Contains(t, metrics, `dspd_exchange_refused_total{cause="token",exchange="adx"} 3`)
	assert.Contains(t, metrics, `dspd_recbid_requests_total{exchange="adx",outcome="bid"} 1`)
	assert.Contains(t, metrics, `dspd_recbid_requests_total{exchange="ox",outcome="bid"} 1`)
	assert.Contains(t, metrics, `dspd_openrtb_requests_total{exchange="adx",outcome="rejected"} 1`)
	assert.Contains(t, metrics, `dspd_exchanges 3`)
	assert.NotContains(t, metrics, `exchange="nope"`, "a path cannot add series")
}

// bidOn makes a bid on an exchange's path and returns its bid id.
func bidOn(t *testing.T, srv *testServer, exchangeID, remote string, headers ...string) string {
	t.Helper()
	target := "/dsp/recbid"
	if exchangeID != "default" {
		target += "/" + exchangeID
	}
	w := send(srv.public, http.MethodPost, target, remote, validBody, headers...)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var resp bidResponse
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	return resp.BidID
}

func adxPricing(t testing.TB, e, i string) *exchange.Pricing {
	t.Helper()
	ek, err := base64.URLEncoding.DecodeString(e)
	require.NoError(t, err)
	ik, err := base64.URLEncoding.DecodeString(i)
	require.NoError(t, err)
	p, err := exchange.EncryptedPricing(ek, ik, false)
	require.NoError(t, err)
	return p
}

// encrypt mints the price an exchange with pricing p would send.
func encrypt(t testing.TB, p *exchange.Pricing, micros uint64) string {
	t.Helper()
	s, err := p.Encrypt(micros, rand.Reader)
	require.NoError(t, err)
	return s
}

// TestExchangeWinNotices: a bid's notice counts only on its exchange's win
// path, with a price its exchange's rules accept.
func TestExchangeWinNotices(t *testing.T) {
	srv := exchangeServer(t, serverOptions{})
	adx := adxPricing(t, adxEKey, adxIKey)
	other := adxPricing(t, adxEKey2, adxIKey2)
	id := bidOn(t, srv, "adx", loopback, bearer...)
	forged := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef01234567wxyz"))
	tests := []struct {
		name, target string
		status       int
		code         string
		dup          bool
	}{
		{"on the bare path", "/dsp/win?bidid=" + id + "&price=" + encrypt(t, adx, 1_000_000), 404, "unknown_bid", false},
		{"on another exchange's path", "/dsp/win/ox?bidid=" + id + "&price=1", 404, "unknown_bid", false},
		{"on an undeclared exchange's path", "/dsp/win/nope?bidid=" + id + "&price=1", 404, "unknown_bid", false},
		{"a clear decimal", "/dsp/win/adx?bidid=" + id + "&price=1", 400, "invalid_field", false},
		{"forged", "/dsp/win/adx?bidid=" + id + "&price=" + forged, 400, "invalid_field", false},
		{"signed with other keys", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, other, 1_000_000), 400, "invalid_field", false},
		{"zero", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, adx, 0), 400, "invalid_field", false},
		{"above the bid", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, adx, 2_000_001), 400, "invalid_field", false},
		{"the first valid notice", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, adx, 1_750_000), 204, "", false},
		{"a repeat", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, adx, 1_000_000), 204, "", true},
		{"a repeat, padded", "/dsp/win/adx?bidid=" + id + "&price=" + encrypt(t, adx, 1_000_000) + "==", 204, "", true},
	}
	for _, tt := range tests {
		w := send(srv.public, http.MethodGet, tt.target, outside, "") // notices are not filtered by source
		require.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body.String())
		if tt.code != "" {
			assert.Equal(t, tt.code, decodeError(t, w).Error, tt.name)
		}
		assert.Equal(t, tt.dup, w.Header().Get("X-Win-Duplicate") == "1", tt.name)
	}
	assert.Equal(t, map[string]any{"campaign": "c", "exchange": "adx", "day": "2026-11-04", "bids": 1.0, "wins": 1.0,
		"spend_micros": 1750000.0}, getJSON(t, srv.admin, "/admin/stats?campaign=c&exchange=adx"))
	assert.Equal(t, map[string]any{"campaign": "c", "exchange": "ox", "day": "2026-11-04", "bids": 0.0, "wins": 0.0,
		"spend_micros": 0.0}, getJSON(t, srv.admin, "/admin/stats?campaign=c&exchange=ox"), "a known campaign: zeros")
	assert.Equal(t, 1750000.0, getJSON(t, srv.admin, "/admin/stats?campaign=c")["spend_micros"], "all exchanges")
	assert.Contains(t, get(srv.admin, "/metrics").Body.String(), `dspd_spend_micros_total{exchange="adx"} 1.75e+06`)

	// ox prices are clear, with its own zero rule.
	oxID := bidOn(t, srv, "ox", tenNet)
	assert.Equal(t, 400, get(srv.public, "/dsp/win/ox?bidid="+oxID+"&price=0").Code)
	assert.Equal(t, 400, get(srv.public, "/dsp/win/ox?bidid="+oxID+"&price="+encrypt(t, adx, 1)).Code)
	assert.Equal(t, 204, get(srv.public, "/dsp/win/ox?bidid="+oxID+"&price=1.5").Code)
}

func getJSON(t *testing.T, h http.Handler, target string) map[string]any {
	t.Helper()
	w := get(h, target)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v))
	return v
}

// TestExchangesWithoutDefault: with a file that declares no default
// exchange, the bare bid paths answer 404.
func TestExchangesWithoutDefault(t *testing.T) {
	file := writeFile(t, "exchanges.json", `{"exchanges":[{"id":"ox","price":{"encoding":"clear"}}]}`)
	srv := exchangeServer(t, serverOptions{exFile: file})
	assert.Equal(t, http.StatusNotFound, postForm(srv.public, validBody).Code)
	assert.Equal(t, http.StatusNotFound, postOpenRTB(srv.public, ortbBody("", "")).Code)
	assert.Equal(t, http.StatusOK, send(srv.public, http.MethodPost, "/dsp/recbid/ox", outside, validBody).Code)
}

// TestReloadKeepsEarlierBidsWinnable: a reload that re-keys one exchange
// and removes another leaves their earlier bids winnable under the rules
// they were made under, until their time to live; new bids take the new
// rules.
func TestReloadKeepsEarlierBidsWinnable(t *testing.T) {
	file := writeFile(t, "exchanges.json", exchangesFile(adxEKey, adxIKey))
	srv := exchangeServer(t, serverOptions{exFile: file})
	oldADX := bidOn(t, srv, "adx", loopback, bearer...)
	oldOX := bidOn(t, srv, "ox", tenNet)

	rekeyed := strings.Replace(exchangesFile(adxEKey2, adxIKey2), `,
 {"id":"ox","allow":["10.0.0.0/8"],"price":{"encoding":"clear"},"price_macro":"{PRICE}"}`, "", 1)
	require.NoError(t, os.WriteFile(file, []byte(rekeyed), 0o644))
	w := postReload(srv.admin)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"campaigns":1,"exchanges":2,"campaigns_from":"file"}`, w.Body.String())

	assert.Equal(t, http.StatusNotFound, send(srv.public, http.MethodPost, "/dsp/recbid/ox", tenNet, validBody).Code, "ox is gone")
	newADX := bidOn(t, srv, "adx", loopback, bearer...)
	v1, v2 := adxPricing(t, adxEKey, adxIKey), adxPricing(t, adxEKey2, adxIKey2)
	for _, tt := range []struct {
		name, target string
		status       int
	}{
		{"an earlier bid, under the keys it was made under", "/dsp/win/adx?bidid=" + oldADX + "&price=" + encrypt(t, v1, 1_000_000), 204},
		{"an earlier bid of a removed exchange", "/dsp/win/ox?bidid=" + oldOX + "&price=1", 204},
		{"a new bid under the old keys", "/dsp/win/adx?bidid=" + newADX + "&price=" + encrypt(t, v1, 1_000_000), 400},
		{"a new bid under the new keys", "/dsp/win/adx?bidid=" + newADX + "&price=" + encrypt(t, v2, 1_000_000), 204},
	} {
		w := get(srv.public, tt.target)
		assert.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body.String())
	}
}

// TestReloadRefusesBadExchanges: an exchanges file with errors, or
// campaigns that target an exchange nobody declares, are refused whole and
// the old sets keep serving.
func TestReloadRefusesBadExchanges(t *testing.T) {
	file := writeFile(t, "exchanges.json", exchangesFile(adxEKey, adxIKey))
	srv := exchangeServer(t, serverOptions{exFile: file})
	require.NoError(t, os.WriteFile(file, []byte(`{"exchanges":[{"id":"ADX","price":{"encoding":"clear"}}]}`), 0o644))
	w := postReload(srv.admin)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"error":"invalid_exchanges"`)
	assert.Contains(t, w.Body.String(), "exchange #0: id: must be 1–32 of a-z, 0-9, _ and -")
	assert.Equal(t, http.StatusOK, send(srv.public, http.MethodPost, "/dsp/recbid/ox", tenNet, validBody).Code, "the old set serves")

	targeting := writeCampaigns(t, sequenceCampaign("t", `"targeting":{"exchanges":["adx","gone"]},`))
	bad := buildTestServer(t, "", serverOptions{exFile: file})
	bad.SetCampaignsPath(targeting)
	require.NoError(t, os.WriteFile(file, []byte(exchangesFile(adxEKey, adxIKey)), 0o644))
	_, err := bad.Reload(t.Context())
	require.ErrorIs(t, err, bidder.ErrInvalidCatalog)
	assert.Contains(t, err.Error(), `campaign t: targeting.exchanges[1]: unknown exchange "gone": no exchange declares it`)
}

// TestCampaignsTargetExchanges: a campaign that targets exchanges bids on
// their paths only.
func TestCampaignsTargetExchanges(t *testing.T) {
	srv := exchangeServer(t, serverOptions{}, sequenceCampaign("only-ox", `"targeting":{"exchanges":["ox"]},`))
	assert.Equal(t, http.StatusOK, send(srv.public, http.MethodPost, "/dsp/recbid/ox", tenNet, validBody).Code)
	w := send(srv.public, http.MethodPost, "/dsp/recbid/adx", loopback, validBody, bearer...)
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "no_match", w.Header().Get("X-Nobid-Reason"))
	assert.Equal(t, "no_match", postForm(srv.public, validBody).Header().Get("X-Nobid-Reason"), "default")
}

// TestTrustedProxies: the client behind a trusted proxy is the one its
// X-Forwarded-For names; an untrusted peer's X-Forwarded-For is ignored.
func TestTrustedProxies(t *testing.T) {
	proxies, err := exchange.ParseProxies("198.51.100.0/24")
	require.NoError(t, err)
	srv := exchangeServer(t, serverOptions{proxies: proxies})
	for _, tt := range []struct {
		name, remote, xff string
		status            int
	}{
		{"a trusted proxy for a loopback client", "198.51.100.7:1", "127.0.0.9", 200},
		{"a trusted proxy for an outside client", "198.51.100.7:1", "203.0.113.9", 403},
		{"a client that forges the chain", "198.51.100.7:1", "127.0.0.9, 203.0.113.9", 403},
		{"an untrusted peer claiming loopback", "203.0.113.9:1", "127.0.0.9", 403},
		{"a trusted proxy with garbage", "198.51.100.7:1", "localhost", 403},
	} {
		w := send(srv.public, http.MethodPost, "/dsp/recbid/adx", tt.remote, validBody,
			append([]string{"X-Forwarded-For", tt.xff}, bearer...)...)
		assert.Equal(t, tt.status, w.Code, tt.name)
	}
}

// BenchmarkRecbidExchange is the router on an exchange's path with an
// allow list and a token, next to the bare path of the open exchange.
func BenchmarkRecbidExchange(b *testing.B) {
	// testdata's campaigns, so that post.data bids, on a running clock and
	// with room for every bid of the run.
	srv := buildTestServer(b, testdataCampaigns, serverOptions{clock: clock.StartingAt(testNow), maxBids: memory.DefaultMaxBids,
		random: true, exFile: writeFile(b, "exchanges.json", exchangesFile(adxEKey, adxIKey))})
	post := []byte(readFile(b, "../testdata/post.data"))
	for _, tt := range []struct{ name, target, remote string }{
		{"bare", "/dsp/recbid", outside}, {"adx", "/dsp/recbid/adx", loopback},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodPost, tt.target, nil)
			r.RemoteAddr = tt.remote
			r.Header.Set("Content-Type", FormMediaType)
			r.Header.Set("Authorization", "Bearer "+adxToken)
			benchPost(b, srv.public.ServeHTTP, r, [][]byte{post})
		})
	}
}
