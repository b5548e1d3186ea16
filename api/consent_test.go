package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/consent/consenttest"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/internal/synth"
)

// The consent rules through the endpoint (docs/privacy.md): what a
// request's privacy signals let dspd do, seen from outside: whether it
// bids, whether the frequency-capped campaign (which needs the user's
// counter) can win, whether a frequency counter is made, and whether the
// bid's record carries the user's hash.

// consentCampaigns: c-cap (frequency-capped, 9 USD) and c-open (no cap, 5
// USD), both 320x50 on consent.example: with user-level processing c-cap
// wins, without it c-open bids contextually.
var consentCampaigns = []string{
	ortbCampaign("c-cap", "9", `"w":320,"h":50`, `,"freq_cap":{"impressions":1,"period_s":3600},"targeting":{"sites":["consent.example"]}`),
	ortbCampaign("c-open", "5", `"w":320,"h":50`, `,"targeting":{"sites":["consent.example"]}`),
}

const vendor = synth.GVLVendorID

// tcString builds a TC string for vendor: consent to purposes, consent
// (and legitimate interest) for the vendors given.
func tcString(change func(*consenttest.TC)) string {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli() / 100
	vendors := []int{1, 2, 3, 50, 99, 100, 200, vendor, 1001, 1200}
	tc := consenttest.TC{Version: 2, Created: day, LastUpdated: day, CmpID: 7, CmpVersion: 3, ConsentScreen: 1,
		ConsentLanguage: "EN", VendorListVersion: 150, TcfPolicyVersion: 5, IsServiceSpecific: true,
		PurposesConsent: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, PurposesLITransparency: []int{2, 7, 8, 9, 10},
		PublisherCC:               "DE",
		VendorConsents:            consenttest.Vendors{Max: 1200, IDs: vendors},
		VendorLegitimateInterests: consenttest.Vendors{Max: 1200, IDs: vendors}}
	if change != nil {
		change(&tc)
	}
	return tc.String()
}

func without(ids []int, id int) []int {
	var out []int
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// consentBody is an OpenRTB request for consent.example's 320x50 from
// user u-1, with the given top-level signals.
func consentBody(regs, user, device string) string {
	if user == "" {
		user = `"user":{"id":"u-1"}`
	}
	if device == "" {
		device = `"device":{"os":"android"}`
	}
	parts := []string{`"site":{"domain":"consent.example"}`, user, device}
	if regs != "" {
		parts = append(parts, regs)
	}
	return `{"id":"req-1","imp":[{"id":"1","banner":{"w":320,"h":50}}],` + strings.Join(parts, ",") + `}`
}

func TestConsentOutcomes(t *testing.T) {
	full := tcString(nil)
	usnatOptOut := consenttest.GPP{Sections: []consenttest.Section{
		{ID: consenttest.SectionUSNat, Text: consenttest.USNat{SaleOptOut: 1, SaleOptOutNotice: 1}.String()}}}.String()
	usnatNoOptOut := consenttest.GPP{Sections: []consenttest.Section{
		{ID: consenttest.SectionUSNat, Text: consenttest.USNat{SaleOptOut: 2, SaleOptOutNotice: 1,
			SharingOptOut: 2, TargetedAdvertisingOptOut: 2}.String()}}}.String()
	tcInGPP := consenttest.GPP{Sections: []consenttest.Section{{ID: consenttest.SectionTCFEU, Text: full}}}.String()
	tests := []struct {
		name, regs, user, device string
		vendor                   int    // the server's -gvl-vendor-id (0: the test vendor)
		want                     string // the campaign that bids, or the no-bid reason
		userLevel                bool
	}{
		{name: "no signals", want: "c-cap", userLevel: true},
		{name: "gdpr 0", regs: `"regs":{"gdpr":0}`, want: "c-cap", userLevel: true},
		{name: "full consent", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` + full + `"}`, want: "c-cap", userLevel: true},
		{name: "full consent, 2.5 places", regs: `"regs":{"ext":{"gdpr":1}}`, user: `"user":{"id":"u-1","ext":{"consent":"` + full + `"}}`,
			want: "c-cap", userLevel: true},
		{name: "range encoding", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` + tcString(func(tc *consenttest.TC) {
			tc.VendorConsents.Range, tc.VendorLegitimateInterests.Range = true, true
		}) + `"}`, want: "c-cap", userLevel: true},
		{name: "purpose 2 by legitimate interest only: contextual", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` +
			tcString(func(tc *consenttest.TC) { tc.PurposesConsent = nil }) + `"}`, want: "c-open"},
		{name: "no vendor consent, no legitimate interest", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` +
			tcString(func(tc *consenttest.TC) {
				tc.VendorConsents.IDs = without(tc.VendorConsents.IDs, vendor)
				tc.VendorLegitimateInterests.IDs = without(tc.VendorLegitimateInterests.IDs, vendor)
			}) + `"}`, want: "consent"},
		{name: "vendor above MaxVendorId", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` +
			tcString(func(tc *consenttest.TC) {
				tc.VendorConsents = consenttest.Vendors{Max: 999, IDs: []int{1, 2, 999}}
				tc.VendorLegitimateInterests = consenttest.Vendors{Max: 999, IDs: []int{1, 2, 999}}
			}) + `"}`, want: "consent"},
		{name: "publisher restriction against purpose 2", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` +
			tcString(func(tc *consenttest.TC) {
				tc.PubRestrictions = []consenttest.PubRestriction{{Purpose: 2, Type: 0, Vendors: []consenttest.Range{{Start: vendor, End: vendor}}}}
			}) + `"}`, want: "consent"},
		{name: "malformed TC string", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"not a TC string"}`, want: "consent"},
		{name: "gdpr 1 without a string", regs: `"regs":{"gdpr":1}`, want: "consent"},
		{name: "no -gvl-vendor-id", regs: `"regs":{"gdpr":1}`, user: `"user":{"id":"u-1","consent":"` + full + `"}`, vendor: -1, want: "consent"},
		{name: "TC string in GPP", regs: `"regs":{"gdpr":1,"gpp":"` + tcInGPP + `","gpp_sid":[2]}`, want: "c-cap", userLevel: true},
		{name: "us_privacy 1YYN: opt-out of sale", regs: `"regs":{"us_privacy":"1YYN"}`, want: "c-open"},
		{name: "us_privacy 1YNN", regs: `"regs":{"us_privacy":"1YNN"}`, want: "c-cap", userLevel: true},
		{name: "us_privacy 1---", regs: `"regs":{"us_privacy":"1---"}`, want: "c-cap", userLevel: true},
		{name: "us_privacy malformed", regs: `"regs":{"us_privacy":"yes"}`, want: "c-open"},
		{name: "GPP US national opt-out, listed", regs: `"regs":{"gpp":"` + usnatOptOut + `","gpp_sid":[7]}`, want: "c-open"},
		{name: "GPP US national opt-out, not listed", regs: `"regs":{"gpp":"` + usnatOptOut + `","gpp_sid":[]}`, want: "c-cap", userLevel: true},
		{name: "GPP US national, no opt-out", regs: `"regs":{"gpp":"` + usnatNoOptOut + `","gpp_sid":[7]}`, want: "c-cap", userLevel: true},
		{name: "gpp_sid malformed", regs: `"regs":{"gpp":"` + usnatNoOptOut + `","gpp_sid":"7"}`, want: "c-open"},
		{name: "coppa", regs: `"regs":{"coppa":1}`, want: "c-open"},
		{name: "lmt", device: `"device":{"os":"android","lmt":1}`, want: "c-open"},
		{name: "lmt malformed: read as 1", device: `"device":{"os":"android","lmt":"yes"}`, want: "c-open"},
		{name: "dnt alone changes nothing", device: `"device":{"os":"android","dnt":1}`, want: "c-cap", userLevel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := vendor
			if tt.vendor < 0 {
				v = 0
			}
			srv := buildTestServer(t, writeCampaigns(t, consentCampaigns...),
				serverOptions{vendor: v, events: &events.Config{Window: time.Hour}})
			freqBefore := freqCounters(srv)
			w := postOpenRTB(srv.public, consentBody(tt.regs, tt.user, tt.device))
			if tt.want == "consent" {
				require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
				assert.Equal(t, "consent", w.Header().Get("X-Nobid-Reason"))
				assert.Equal(t, freqBefore, freqCounters(srv), "no frequency counter for a request without a bid")
				assert.Empty(t, ofType(logged(t, srv.log), "bid"))
				return
			}
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			var resp bidResponse
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
			assert.Equal(t, tt.want, resp.SeatBid[0].Bid[0].CID)
			bids := ofType(logged(t, srv.log), "bid")
			require.Len(t, bids, 1)
			if tt.userLevel {
				assert.Equal(t, testHashKey.User("u-1").String(), bids[0]["user"], "the user's keyed hash")
				assert.Greater(t, freqCounters(srv), freqBefore, "c-cap's frequency counter made for the win")
			} else {
				assert.Nil(t, bids[0]["user"], "no user hash without a legal basis")
				assert.Equal(t, freqBefore, freqCounters(srv), "no frequency counter read or written")
			}
		})
	}
}

// freqCounters is how many frequency counters the memory ledger holds.
func freqCounters(srv *testServer) int {
	_, freq := srv.ledger.Sizes()
	return freq
}

// TestConsentCappedOnly: when the only match is frequency-capped and the
// user may not be processed, the no bid says consent (not freq_cap); a
// later consented request from the same user is not capped by it.
func TestConsentCappedOnly(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, consentCampaigns[0]), serverOptions{vendor: vendor})
	w := postOpenRTB(srv.public, consentBody(`"regs":{"us_privacy":"1YYN"}`, "", ""))
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "consent", w.Header().Get("X-Nobid-Reason"))
	w = postOpenRTB(srv.public, consentBody("", "", ""))
	require.Equal(t, http.StatusOK, w.Code, "the user's counter was never touched")
	w = postOpenRTB(srv.public, consentBody(`"regs":{"us_privacy":"1YYN"}`, "", ""))
	assert.Equal(t, "consent", w.Header().Get("X-Nobid-Reason"))
	m := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, m, `dspd_consent_total{outcome="usp_optout"} 2`)
	assert.Contains(t, m, `dspd_nobid_total{exchange="default",reason="consent"} 2`)
	st, ok, err := srv.engine.Stats(t.Context(), "c-cap", "", bidder.DayOfTime(testNow))
	require.NoError(t, err)
	require.True(t, ok)
	assert.EqualValues(t, 1, st.Bids)
}

// TestConsentNbr: an exchange that asks for reasons gets nbr 0 for consent
// (privacy.md section 8).
func TestConsentNbr(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, consentCampaigns...), serverOptions{vendor: vendor})
	w := postOpenRTBTo(srv.public, "/openrtb2/bid?nbr=1", []byte(consentBody(`"regs":{"gdpr":1}`, "", "")))
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `{"id":"req-1","nbr":0}`, w.Body.String())
}
