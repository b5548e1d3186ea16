package api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/recbid/dspd/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenRTBPolicyDecisions: what a bad used field turns into, seen in
// the decision a request gets.
func TestOpenRTBPolicyDecisions(t *testing.T) {
	capped := `"banner":{"w":320,"h":50}` // c-cap's size; it targets the site cap.example
	tests := []struct {
		name, body, reason string
	}{
		{"the site that a campaign targets", `{"id":"r","imp":[{"id":"1",` + capped + `}],"site":{"domain":"cap.example"},"user":{"id":"u"}}`, ""},
		{"a bad domain matches no site targeting", `{"id":"r","imp":[{"id":"1",` + capped + `}],"site":{"domain":"cap,example"},"user":{"id":"u"}}`, "no_match"},
		{"the page's host in its place", `{"id":"r","imp":[{"id":"1",` + capped + `}],"site":{"domain":"cap,example","page":"https://cap.example/x"},"user":{"id":"u"}}`, ""},
		{"secure 2 keeps out a non-secure creative", ortbBody("", `"secure":2`), "no_match"},
		{"secure 2 serves a secure one", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"secure":2}]}`, ""},
		{"private auction", ortbBody("", `"pmp":{"private_auction":1,"deals":[{"id":"d"}]}`), "no_match"},
		{"floor a hair above the bid", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":3.0000000001}]}`, "below_floor"},
		{"floor a hair below the bid", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":2.9999999999}]}`, ""},
		{"floor with an exponent", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":3e0}]}`, ""},
		{"floor above any price", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":1e300}]}`, "below_floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openrtbServer(t)
			w := postOpenRTB(srv.public, tt.body)
			if tt.reason == "" {
				require.Equal(t, http.StatusOK, w.Code, w.Body.String())
				return
			}
			require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
			assert.Equal(t, tt.reason, w.Header().Get("X-Nobid-Reason"))
			assert.Zero(t, srv.bids.Len())
		})
	}

	// test 2 is not a test: its win is booked. test 1's is not.
	srv := openrtbServer(t)
	for _, tt := range []struct {
		test  string
		spend float64
	}{{"2", 2_500_000}, {"1", 0}} {
		w := postOpenRTB(srv.public, `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90}}],"test":`+tt.test+`}`)
		require.Equal(t, http.StatusOK, w.Code)
		var resp bidResponse
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
		nurl := strings.ReplaceAll(resp.SeatBid[0].Bid[0].NURL, "${AUCTION_PRICE}", "2.5")
		require.Equal(t, http.StatusNoContent, get(srv.public, strings.TrimPrefix(nurl, "http://localhost:9090")).Code)
		assert.Equal(t, tt.spend, stats(t, srv, "c-a", testNow.Format(time.DateOnly))["spend_micros"], "test %s", tt.test)
		srv = openrtbServer(t)
	}
}

// TestOpenRTBInvalidFieldMetricsAndLog: bad used fields are counted by
// field, once per request, and sampled in the log at most once a second
// with the first one's value.
func TestOpenRTBInvalidFieldMetricsAndLog(t *testing.T) {
	var logs bytes.Buffer
	srv := openrtbServer(t)
	now := time.Unix(1_800_000_000, 0)
	srv.SetInvalidLog(slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return now })
	for i := range 3 {
		w := postOpenRTB(srv.public, `{"id":"bad-`+strconv.Itoa(i)+`","imp":[{"id":"1","banner":{"w":300,"h":250}}],`+
			`"site":{"domain":"news,example"},"test":2,"device":{"geo":{"country":"Narnia"}}}`)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	w := postOpenRTB(srv.public, ortbBody(`"test":"yes"`, ""))
	require.Equal(t, http.StatusOK, w.Code)
	postOpenRTB(srv.public, ortbBody("", "")) // nothing bad: nothing counted

	m := get(srv.admin, "/metrics").Body.String()
	for _, line := range []string{
		`dspd_openrtb_invalid_fields_total{field="site.domain"} 3`,
		`dspd_openrtb_invalid_fields_total{field="test"} 4`,
		`dspd_openrtb_invalid_fields_total{field="device.geo.country"} 3`,
		`dspd_openrtb_invalid_fields_total{field="user.id"} 0`,
	} {
		assert.Contains(t, m, line+"\n")
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 1, "one line a second: %s", logs.String())
	assert.Contains(t, lines[0], "level=WARN")
	assert.Contains(t, lines[0], `request=bad-0 field=site.domain value="\"news,example\""`, "the first bad field, quoted")

	now = now.Add(time.Second)
	postOpenRTB(srv.public, ortbBody(`"user":{"id":"`+strings.Repeat("u", 200)+`"}`, ""))
	lines = strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `field=user.id value="\"`+strings.Repeat("u", MaxExample)+`\"…"`, "a long value is cut")
	assert.Contains(t, lines[1], "suppressed_since_last=3")
}

// TestOpenRTBCurrencyRates: with -currency-rates, a floor in a listed
// currency is converted to USD, rounded up, and compared; a currency
// without a rate, and a request whose cur excludes USD, are no bids
// (currency). c-a bids 3 USD on 728x90; 1 EUR = 1.0794573829 USD.
func TestOpenRTBCurrencyRates(t *testing.T) {
	rates := filepath.Join(t.TempDir(), "rates.json")
	require.NoError(t, os.WriteFile(rates, []byte(`{"dataAsOf":"2026-11-01","conversions":{"USD":{"JPY":151.873},"EUR":{"USD":1.0794573829}}}`), 0o644))
	srv := buildTestServer(t, writeCampaigns(t, openrtbCampaigns...), serverOptions{rates: rates})
	without := openrtbServer(t)
	imp := func(floor, cur string) string {
		return `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":` + floor + `,"bidfloorcur":"` + cur + `"}]}`
	}
	tests := []struct {
		name, body, reason string
	}{
		{"EUR floor under the bid", imp("2.77", "EUR"), ""},           // 2.990096… USD
		{"EUR floor over the bid", imp("2.78", "EUR"), "below_floor"}, // 3.000891… USD
		{"EUR floor, any case", imp("2.77", "eur"), ""},               //
		{"rounding up keeps the floor", imp("2.779174", "EUR"), ""},   // 2.99999989… → 3.000000
		{"one micro more", imp("2.779175", "EUR"), "below_floor"},     // 3.00000097… → 3.000001
		{"JPY by USD's inverse", imp("455.619", "JPY"), ""},           // exactly 3 USD
		{"JPY a yen more", imp("455.62", "JPY"), "below_floor"},       //
		{"no rate", imp("0.01", "CHF"), "currency"},                   //
		{"cur excludes USD", `{"id":"r","imp":[{"id":"1","banner":{"w":728,"h":90},"bidfloor":1,"bidfloorcur":"EUR"}],"cur":["EUR"]}`, "currency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := postOpenRTB(srv.public, tt.body)
			if tt.reason == "" {
				require.Equal(t, http.StatusOK, w.Code, w.Body.String())
				assert.Contains(t, w.Body.String(), `"cur":"USD"`, "the bid stays in USD")
				assert.Contains(t, w.Body.String(), `"price":3,`)
			} else {
				require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
				assert.Equal(t, tt.reason, w.Header().Get("X-Nobid-Reason"))
			}
			if !strings.Contains(tt.body, `"USD"`) {
				w = postOpenRTB(without.public, tt.body)
				assert.Equal(t, "currency", w.Header().Get("X-Nobid-Reason"), "without rates, as before")
			}
		})
	}
	m := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, m, "dspd_currency_rates 3\n", "USD, JPY and EUR")
	assert.Contains(t, m, "dspd_currency_rates_as_of_timestamp_seconds 1.7934912e+09\n")
	assert.Contains(t, get(without.admin, "/metrics").Body.String(), "dspd_currency_rates 1\n")

	// The rates are reloaded with the campaigns; a bad file is refused and
	// the old rates serve on.
	require.NoError(t, os.WriteFile(rates, []byte(`{"conversions":{"EUR":{"USD":0}}}`), 0o644))
	w := postReload(srv.admin)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"error":"invalid_rates"`)
	assert.Contains(t, w.Body.String(), "conversions.EUR.USD: must be above 0")
	assert.Equal(t, http.StatusOK, postOpenRTB(srv.public, imp("2.77", "EUR")).Code, "the old rates serve")
	require.NoError(t, os.WriteFile(rates, []byte(`{"conversions":{"EUR":{"USD":1.2}}}`), 0o644))
	w = postReload(srv.admin)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "below_floor", postOpenRTB(srv.public, imp("2.77", "EUR")).Header().Get("X-Nobid-Reason"),
		"2.77 EUR is 3.324 USD at the new rate")
}
