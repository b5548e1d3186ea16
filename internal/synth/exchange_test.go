package synth

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/consent/consenttest"
)

func TestExchangeTrafficDeterministic(t *testing.T) {
	cs := Campaigns(200, 7)
	bodies := Requests(300, 7, cs)
	cs = append(cs, MediaCampaigns(200, 7)...)
	a, err := ExchangeTraffic(400, 7, bodies, cs)
	require.NoError(t, err)
	b, err := ExchangeTraffic(400, 7, bodies, cs)
	require.NoError(t, err)
	c, err := ExchangeTraffic(400, 8, bodies, cs)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	empty, err := ExchangeTraffic(0, 7, bodies, cs)
	require.NoError(t, err)
	assert.Empty(t, empty)
}

// corpusSignals reads a request's privacy signals from its JSON, generically
// and apart from the generator: each in its OpenRTB 2.6 place, else in its
// 2.5 ext place. place says where the TC string was: "user.consent",
// "user.ext.consent", "regs.gpp" (the EU TCF section, listed) or "".
func corpusSignals(t *testing.T, line string) (sig consent.Signals, gdprPlace, place string) {
	t.Helper()
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	regs, user, device := obj(r["regs"]), obj(r["user"]), obj(r["device"])
	regsExt, userExt := obj(regs["ext"]), obj(user["ext"])
	first := func(a, b map[string]any, key string) (any, bool) {
		if v, ok := a[key]; ok {
			return v, true
		}
		v, ok := b[key]
		return v, ok
	}
	one := func(v any) bool { f, ok := v.(float64); return ok && f == 1 }
	sig.GDPR = -1
	if v, ok := regs["gdpr"]; ok {
		gdprPlace = "regs.gdpr"
		if f, ok := v.(float64); ok && (f == 0 || f == 1) {
			sig.GDPR = int8(f)
		}
	} else if v, ok := regsExt["gdpr"]; ok {
		gdprPlace = "regs.ext.gdpr"
		if f, ok := v.(float64); ok && (f == 0 || f == 1) {
			sig.GDPR = int8(f)
		}
	}
	if s, ok := user["consent"].(string); ok {
		sig.TCString, place = s, "user.consent"
	} else if s, ok := userExt["consent"].(string); ok {
		sig.TCString, place = s, "user.ext.consent"
	}
	if v, ok := first(regs, regsExt, "us_privacy"); ok {
		sig.USPrivacy, _ = v.(string)
	}
	if v, ok := first(regs, regsExt, "gpp"); ok {
		sig.GPP, _ = v.(string)
	}
	if v, ok := first(regs, regsExt, "gpp_sid"); ok {
		ids, _ := v.([]any)
		for _, id := range ids {
			f, _ := id.(float64)
			sig.GPPSID = append(sig.GPPSID, int(f))
			if f == 2 && place == "" {
				place = "regs.gpp"
			}
		}
	}
	sig.COPPA, sig.LMT, sig.DNT = one(regs["coppa"]), one(device["lmt"]), one(device["dnt"])
	return sig, gdprPlace, place
}

// TestExchangeTrafficConsent decides every request of the corpus gendata
// writes with package consent for GVLVendorID, and checks the distribution
// ExchangeTraffic's doc comment gives (loosely: 2,000 requests are a
// sample), and where the TC strings are.
func TestExchangeTrafficConsent(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	lines, err := ExchangeTraffic(2000, DefaultSeed, Requests(2000, DefaultSeed, cs), append(cs, MediaCampaigns(1000, DefaultSeed)...))
	require.NoError(t, err)
	c, err := consent.New(consent.Config{VendorID: GVLVendorID})
	require.NoError(t, err)

	outcomes := map[consent.Outcome]int{}
	var gdpr, tcs, gppTCF, gpp, usp, uspOptOut, coppa, lmt, dnt int
	for n, line := range lines {
		sig, gdprPlace, place := corpusSignals(t, line)
		d := c.Decide(sig)
		outcomes[d.Outcome]++
		if sig.GDPR == 1 || (sig.GDPR == -1 && sig.TCString != "") {
			gdpr++
		}
		switch {
		case place == "":
		case sig.GDPR == 0:
			t.Fatalf("line %d: a TC string with gdpr=0", n+1)
		case gdprPlace == "regs.gdpr":
			assert.Contains(t, []string{"user.consent", "regs.gpp"}, place, "line %d: a 2.6 request", n+1)
		case gdprPlace == "regs.ext.gdpr":
			assert.Equal(t, "user.ext.consent", place, "line %d: a 2.5 request", n+1)
		}
		if place != "" {
			tcs++
		}
		if place == "regs.gpp" {
			gppTCF++
			assert.Empty(t, sig.TCString, "line %d", n+1)
		}
		if sig.GPP != "" {
			gpp++
			assert.Equal(t, "regs.gdpr", gdprPlace, "line %d: GPP in the 2.6 places only", n+1)
			assert.NotEmpty(t, sig.GPPSID, "line %d", n+1)
		}
		if sig.USPrivacy != "" {
			usp++
			assert.Contains(t, []string{"1YNN", "1---", "1YYN"}, sig.USPrivacy, "line %d", n+1)
			if sig.USPrivacy == "1YYN" {
				uspOptOut++
			}
		}
		for _, f := range []struct {
			on bool
			n  *int
		}{{sig.COPPA, &coppa}, {sig.LMT, &lmt}, {sig.DNT, &dnt}} {
			if f.on {
				*f.n++
			}
		}
	}
	t.Logf("%d requests: GDPR %d, TC strings %d (%d in GPP), GPP %d, us_privacy %d (%d 1YYN), coppa %d, lmt %d, dnt %d; outcomes %v",
		len(lines), gdpr, tcs, gppTCF, gpp, usp, uspOptOut, coppa, lmt, dnt, outcomes)

	between := func(name string, got, lo, hi int) {
		t.Helper()
		assert.True(t, lo <= got && got <= hi, "%s: %d, not in %d–%d", name, got, lo, hi)
	}
	between("requests where GDPR applies", gdpr, 250, 450)
	between("consented", outcomes[consent.Consented], gdpr*55/100, gdpr*80/100)
	between("no_purpose1 (Purpose 2 by legitimate interest only, or no Purpose 1 consent)", outcomes[consent.NoPurpose1], gdpr*6/100, gdpr*22/100)
	between("no_vendor", outcomes[consent.NoVendor], gdpr*3/100, gdpr*15/100)
	between("restricted", outcomes[consent.Restricted], 1, gdpr*9/100)
	between("malformed", outcomes[consent.Malformed], gdpr*2/100, gdpr*14/100)
	assert.Zero(t, outcomes[consent.NoPurpose2])
	between("TC strings in GPP", gppTCF, 10, gdpr*45/100)
	between("GPP strings", gpp, 100, 300)
	between("us_privacy 1YYN", uspOptOut, usp*4/100, usp*14/100)
	between("usp_optout", outcomes[consent.USPOptOut], 50, 200)
	between("gpp_optout", outcomes[consent.GPPOptOut], 10, 80)
	between("coppa=1", coppa, 5, 40)
	between("lmt=1", lmt, 50, 160)
	between("dnt=1", dnt, 50, 160)
	assert.Positive(t, outcomes[consent.COPPA])
	assert.Positive(t, outcomes[consent.LMT])
	assert.Greater(t, outcomes[consent.NoGDPR], len(lines)/2)
}

func TestVendorSection(t *testing.T) {
	assert.Equal(t, consentVendors(0, false, nil), vendorSection(nil))
	var scattered, runs []int
	for id := 3; id <= 1300; id += 7 {
		scattered = append(scattered, id)
	}
	for id := 1; id <= 1300; id += 100 {
		for k := range 15 {
			runs = append(runs, id+k)
		}
	}
	assert.Equal(t, consentVendors(1298, false, scattered), vendorSection(scattered), "186 scattered ids: a bit field")
	assert.Equal(t, consentVendors(1215, true, runs), vendorSection(runs), "13 runs: ranges")
	assert.Equal(t, []int{1, 5, 1000, 1001}, withVendor([]int{1, 5, 1001}, 1000))
	assert.Equal(t, []int{1000}, withVendor(nil, 1000))
	assert.Equal(t, []int{999, 1000}, withVendor([]int{999, 1000}, 1000))
	assert.Equal(t, []int{1, 2, 3, 5, 8}, union([]int{1, 3, 8}, []int{2, 3, 5}))
}

func consentVendors(max int, isRange bool, ids []int) consenttest.Vendors {
	return consenttest.Vendors{Max: max, Range: isRange, IDs: ids}
}
