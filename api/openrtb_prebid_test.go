package api_test

import (
	"bytes"
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
)

// prebidRequest is a BidRequest as Prebid Server's pass-through adapters
// forward it to a bidder: the publisher's params under imp.ext.bidder,
// what is left of imp.ext.prebid and ext.prebid, a buyeruid from the
// bidder's user sync, source.tid and schain, and (as PBS down-converts for
// a bidder declared OpenRTB 2.5) gdpr, consent, us_privacy and schain in
// their 2.5 ext places. Its banner offers c-a's 728x90 (secure, 3 USD)
// with a floor of 2.50 EUR (2.70 USD at the test rate).
const prebidRequest = `{"id":"5e3f0c6b-7d6e-4a53-9f3b-1d2c3b4a5f60",
 "imp":[{"id":"div-gpt-ad-leaderboard","banner":{"format":[{"w":728,"h":90},{"w":970,"h":90}],"pos":1},
  "tagid":"leaderboard","secure":1,"bidfloor":2.5,"bidfloorcur":"EUR","exp":300,
  "ext":{"bidder":{"placementId":"lb-1"},"prebid":{"is_rewarded_inventory":0},"gpid":"/1234/home/leaderboard",
   "tid":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","data":{"pbadslot":"/1234/home/leaderboard"}}}],
 "site":{"domain":"news.example","page":"https://news.example/story","publisher":{"id":"pub-1","domain":"news.example"},
  "ext":{"amp":0}},
 "device":{"ua":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36","ip":"203.0.113.9",
  "geo":{"country":"DEU","region":"BE","type":2},"language":"de","devicetype":2,"os":"macOS","js":1},
 "user":{"buyeruid":"dspd-7f3a9c","ext":{"consent":"` + fakeConsent + `","eids":[{"source":"pubcid.example","uids":[{"id":"a1b2","atype":1}]}]}},
 "at":1,"tmax":800,"cur":["USD"],
 "source":{"tid":"5e3f0c6b-7d6e-4a53-9f3b-1d2c3b4a5f60","ext":{"schain":{"complete":1,"ver":"1.0",
  "nodes":[{"asi":"ssp.example","sid":"pub-1","hp":1}]}}},
 "regs":{"ext":{"gdpr":1,"us_privacy":"1---"}},
 "ext":{"prebid":{"bidderparams":{"dspd":{"seat":"s-1"}},"channel":{"name":"pbjs","version":"9.20.0"},
  "currency":{"rates":{"EUR":{"USD":1.08}},"usepbsrates":true},"integration":"pbjs",
  "server":{"externalurl":"https://pbs.example","gvlid":1,"datacenter":"eu-west"},
  "targeting":{"includebrandcategory":{"primaryadserver":1}}}}}`

// fakeConsent stands for the TC string of prebidRequest, which the test
// puts in (package consent reads a real one).
const fakeConsent = "TC-STRING"

// TestPrebidServerRequests: requests shaped as Prebid Server's pass-through
// adapters send them are each answered with a bid that carries mtype 1:
// without a Content-Type, gzipped (endpointCompression: gzip), with one,
// as OpenRTB 2.6 (the down-conversion undone), and for an app.
func TestPrebidServerRequests(t *testing.T) {
	rates := filepath.Join(t.TempDir(), "rates.json")
	require.NoError(t, os.WriteFile(rates, []byte(`{"dataAsOf":"2026-11-01T00:00:00.000Z","generatedAt":"2026-11-01T04:00:00.000Z",`+
		`"conversions":{"USD":{"USD":1,"EUR":0.9263914,"GBP":0.78219473},"GBP":{"USD":1.2784543,"EUR":1.18441}}}`), 0o644))
	srv := buildTestServer(t, writeCampaigns(t, openrtbCampaigns...), serverOptions{rates: rates, vendor: vendor})

	// The user consented to dspd's vendor id (gdpr is 1): a TC string the
	// test's own encoder writes.
	prebidRequest := strings.Replace(prebidRequest, fakeConsent, tcString(nil), 1)
	v26 := strings.NewReplacer(
		`"user":{"buyeruid":"dspd-7f3a9c","ext":{"consent":`, `"user":{"buyeruid":"dspd-7f3a9c","consent":`,
		`"regs":{"ext":{"gdpr":1,"us_privacy":"1---"}}`, `"regs":{"gdpr":1,"us_privacy":"1---","gpp":"DBABMA~CPXxRfA","gpp_sid":[2]}`,
		`"source":{"tid":"5e3f0c6b-7d6e-4a53-9f3b-1d2c3b4a5f60","ext":{"schain"`, `"source":{"tid":"5e3f0c6b-7d6e-4a53-9f3b-1d2c3b4a5f60","schain"`,
	).Replace(prebidRequest)
	v26 = strings.Replace(strings.Replace(v26, `"atype":1}]}]}},`, `"atype":1}]}]},`, 1), `"hp":1}]}}},`, `"hp":1}]}},`, 1)
	require.True(t, json.Valid([]byte(v26)), v26)
	app := strings.NewReplacer(
		`"site":{"domain":"news.example","page":"https://news.example/story","publisher":{"id":"pub-1","domain":"news.example"},
  "ext":{"amp":0}}`, `"app":{"bundle":"com.example.news","storeurl":"https://apps.example/news","publisher":{"id":"pub-1"},"ver":"4.2"}`,
		`"devicetype":2,"os":"macOS"`, `"devicetype":4,"os":"iOS","ifa":"6D92078A-8246-4BA4-AE5B-76104861E7DC","ext":{"atts":3}`,
		`"bidfloorcur":"EUR"`, `"bidfloorcur":"GBP"`, // 2.50 GBP = 3.196 USD: over c-a's 3
		`"bidfloor":2.5`, `"bidfloor":2.3`, // 2.94 USD
	).Replace(prebidRequest)
	require.True(t, json.Valid([]byte(app)), app)

	tests := []struct {
		name    string
		body    string
		headers map[string]string
		gzip    bool
	}{
		{"no Content-Type, gzipped", prebidRequest, map[string]string{"Content-Encoding": "gzip"}, true},
		{"no Content-Type", prebidRequest, nil, false},
		{"with Content-Type", prebidRequest, map[string]string{"Content-Type": "application/json;charset=utf-8"}, false},
		{"OpenRTB 2.6", v26, map[string]string{"Content-Type": "application/json", "X-Openrtb-Version": "2.6"}, false},
		{"app", app, map[string]string{"Content-Type": "application/json"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			if tt.gzip {
				body = gzipBytes(t, body)
			}
			r := httptest.NewRequest(http.MethodPost, OpenRTBPath, bytes.NewReader(body))
			r.Header.Set("X-Prebid", "pbs-go/3.0.0")
			r.Header.Set("User-Agent", "Go-http-client/1.1")
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			srv.public.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			var resp bidResponse
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
			assert.Equal(t, "USD", resp.Cur)
			require.Len(t, resp.SeatBid, 1)
			require.Len(t, resp.SeatBid[0].Bid, 1)
			b := resp.SeatBid[0].Bid[0]
			assert.Equal(t, 1, b.MType, "typed banner, as adapters that read mtype need")
			assert.Equal(t, "div-gpt-ad-leaderboard", b.ImpID)
			assert.Equal(t, "c-a", b.CID, "the secure creative: imp.secure is 1")
			assert.Equal(t, []int{728, 90}, []int{b.W, b.H})
			assert.Equal(t, "3", string(b.Price), "in USD, over the converted floor")
			assert.NotEmpty(t, b.CrID, "Prebid Server drops a bid without crid")
			assert.Regexp(t, `"h":90,"mtype":1,"nurl":`, w.Body.String())
		})
	}
	// The same floor over the bid once converted: no bid, and not for
	// currency.
	w := postOpenRTB(srv.public, strings.Replace(prebidRequest, `"bidfloor":2.5,"bidfloorcur":"EUR"`, `"bidfloor":2.8,"bidfloorcur":"EUR"`, 1))
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "below_floor", w.Header().Get("X-Nobid-Reason"), "2.80 EUR is 3.0225 USD")
}
