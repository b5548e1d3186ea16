package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
)

// TestUsedFieldNames: every used field has its label, and the labels are
// unique.
func TestUsedFieldNames(t *testing.T) {
	seen := map[string]bool{}
	for f := usedField(0); f < numUsedFields; f++ {
		name := usedFieldNames[f]
		require.NotEmpty(t, name, "field %d", f)
		assert.False(t, seen[name], "%s twice", name)
		seen[name] = true
	}
	assert.Less(t, int(numUsedFields), 64, "a fieldSet has a bit for each")
}

// TestOpenRTBFieldPolicy: a bad value of a used field never causes a 400;
// it is treated as absent (or, for secure, as 1) and counted under its
// field; ignored fields are not even counted.
func TestOpenRTBFieldPolicy(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name, top, imp string
		bad            string // the used field counted, "" for none
		check          func(t *testing.T, r *openrtbRequest, req *bidder.Request)
	}{
		{name: "site not an object", top: `"site":["news.example"]`, bad: "site",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "domain with a comma", top: `"site":{"domain":"news,example.com"}`, bad: "site.domain",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "a URL for a domain", top: `"site":{"domain":"https://news.example/"}`, bad: "site.domain",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "domain too long", top: `"site":{"domain":"` + long(257) + `"}`, bad: "site.domain",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "bad domain: the page's host stands in", top: `"site":{"domain":"news,example","page":"https://news.example/a"}`, bad: "site.domain",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "news.example", req.Site) }},
		{name: "no domain: the page's host", top: `"site":{"page":"HTTPS://News.Example:8443/a?b=c#d"}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "News.Example", req.Site) }},
		{name: "page host with userinfo", top: `"site":{"page":"https://user@news.example/"}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "page not http", top: `"site":{"page":"android-app://com.example/"}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "page not a string", top: `"site":{"page":{"url":"https://news.example/"}}`, bad: "site.page",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Site) }},
		{name: "domain wins over page", top: `"site":{"page":"https://other.example/","domain":"news.example"}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "news.example", req.Site) }},
		{name: "cat as a string", top: `"site":{"cat":"IAB12,IAB1"}`, bad: "site.cat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB12,IAB1", req.Cat) }},
		{name: "cat items of other kinds", top: `"site":{"cat":["IAB12",5,null,{},true,"` + long(257) + `"]}`, bad: "site.cat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB12,5", req.Cat) }},
		{name: "cat item with commas", top: `"site":{"cat":["IAB12,IAB1"," "]}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB12,IAB1", req.Cat) }},
		{name: "cat an object", top: `"site":{"cat":{"a":1}},"app":{"cat":["IAB3"]}`, bad: "site.cat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB3", req.Cat) }},
		{name: "app not an object", top: `"app":"com.example"`, bad: "app",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Bundle) }},
		{name: "bundle a number", top: `"app":{"bundle":1234567890}`, bad: "app.bundle",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Bundle) }},
		{name: "app cat item", top: `"app":{"cat":[["IAB1"],"IAB2"]}`, bad: "app.cat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB2", req.Cat) }},
		{name: "device not an object", top: `"device":"iPhone"`, bad: "device",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.OS) }},
		{name: "os a number", top: `"device":{"os":7}`, bad: "device.os",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.OS) }},
		{name: "os free text", top: `"device":{"os":"Mac OS X"}`, bad: "device.os",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.OS) }},
		{name: "devicetype a string", top: `"device":{"devicetype":"4"}`, bad: "device.devicetype",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.DevType) }},
		{name: "devicetype a fraction", top: `"device":{"devicetype":4.5}`, bad: "device.devicetype",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.DevType) }},
		{name: "devicetype last value counts", top: `"device":{"devicetype":4,"devicetype":"x"}`, bad: "device.devicetype",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.DevType) }},
		{name: "devicetype 8 is not bad", top: `"device":{"devicetype":8}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.DevType) }},
		{name: "ua and ip are ignored", top: `"device":{"ua":5,"ip":[],"devicetype":4}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, 4, req.DevType) }},
		{name: "geo an array", top: `"device":{"geo":[],"os":"ios"}`, bad: "device.geo",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "ios", req.OS) }},
		{name: "country a name", top: `"device":{"geo":{"country":"United States","region":"CA"}}`, bad: "device.geo.country",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) {
				assert.Empty(t, req.Country)
				assert.Empty(t, req.Region, "no country to prefix the region with")
			}},
		{name: "country a number", top: `"device":{"geo":{"country":840}}`, bad: "device.geo.country",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Country) }},
		{name: "region a name", top: `"device":{"geo":{"country":"USA","region":"California"}}`, bad: "device.geo.region",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) {
				assert.Equal(t, "US", req.Country)
				assert.Empty(t, req.Region)
			}},
		{name: "region a number", top: `"device":{"geo":{"country":"USA","region":5}}`, bad: "device.geo.region",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.Region) }},
		{name: "city too long", top: `"device":{"geo":{"country":"FRA","city":"` + long(257) + `"}}`, bad: "device.geo.city",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) {
				assert.Empty(t, req.City)
				assert.Equal(t, "FR", req.Country)
			}},
		{name: "user a string", top: `"user":"u-1"`, bad: "user",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.UID) }},
		{name: "user id too long: buyeruid stands in", top: `"user":{"id":"` + long(129) + `","buyeruid":"b-1"}`, bad: "user.id",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "b-1", req.UID) }},
		{name: "buyeruid a number", top: `"user":{"buyeruid":12}`, bad: "user.buyeruid",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.UID) }},
		{name: "user eids ignored", top: `"user":{"id":"u","eids":"x"}`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "u", req.UID) }},
		{name: "consent not a string: no consent string", top: `"user":{"id":"u","consent":7}`, bad: "user.consent",
			check: func(t *testing.T, r *openrtbRequest, req *bidder.Request) {
				assert.Equal(t, "u", req.UID)
				assert.Empty(t, r.signals.tc)
			}},
		{name: "user.ext not an object", top: `"user":{"id":"u","ext":[]}`, bad: "user",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "u", req.UID) }},
		{name: "tmax 0: the default", top: `"tmax":0`, bad: "tmax",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.TMax) }},
		{name: "tmax too long", top: `"tmax":120000`, bad: "tmax",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.TMax) }},
		{name: "tmax a string", top: `"tmax":"500"`, bad: "tmax",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.TMax) }},
		{name: "tmax last value counts", top: `"tmax":300,"tmax":-1`, bad: "tmax",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Zero(t, req.TMax) }},
		{name: "test 2 is not a test", top: `"test":2`, bad: "test",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.False(t, req.Test) }},
		{name: "test a string", top: `"test":"1"`, bad: "test",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.False(t, req.Test) }},
		{name: "test true", top: `"test":true`, bad: "test",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.False(t, req.Test) }},
		{name: "bcat numbers still block", top: `"bcat":[25,"IAB26",{},"` + long(300) + `"]`, bad: "bcat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "25,IAB26", req.BCat) }},
		{name: "bcat a string still blocks", top: `"bcat":"IAB25,IAB26"`, bad: "bcat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Equal(t, "IAB25,IAB26", req.BCat) }},
		{name: "bcat an object", top: `"bcat":{"IAB25":true}`, bad: "bcat",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.Empty(t, req.BCat) }},
		{name: "badv item too long", top: `"badv":["a.example","` + long(257) + `","b.example"]`, bad: "badv",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) {
				assert.Equal(t, "a.example,b.example", req.BAdv)
			}},
		{name: "secure 2 serves secure creatives", imp: `"secure":2`, bad: "imp.secure",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.True(t, req.Secure) }},
		{name: "secure true", imp: `"secure":true`, bad: "imp.secure",
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.True(t, req.Secure) }},
		{name: "secure 0", imp: `"secure":0`,
			check: func(t *testing.T, _ *openrtbRequest, req *bidder.Request) { assert.False(t, req.Secure) }},
		{name: "tagid ignored", imp: `"tagid":5`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.Len(t, r.imps, 1) }},
		{name: "pmp not an object", imp: `"pmp":[]`, bad: "imp.pmp",
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.False(t, r.imps[0].private) }},
		{name: "private auction", imp: `"pmp":{"private_auction":1,"deals":[{"id":"d1","bidfloor":5}]}`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.True(t, r.imps[0].private) }},
		{name: "open auction with deals", imp: `"pmp":{"private_auction":0,"deals":[{"id":"d1"}]}`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.False(t, r.imps[0].private) }},
		{name: "private_auction 2", imp: `"pmp":{"private_auction":2}`, bad: "imp.pmp",
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.False(t, r.imps[0].private) }},
		{name: "floor rounded up", imp: `"bidfloor":0.8500000000000001`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) {
				assert.Equal(t, bidder.Micros(850_001), r.imps[0].floor)
			}},
		{name: "floor with an exponent", imp: `"bidfloor":2.5E-1`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) {
				assert.Equal(t, bidder.Micros(250_000), r.imps[0].floor)
			}},
		{name: "floor above any price", imp: `"bidfloor":1e12`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) {
				assert.Equal(t, bidder.AboveAnyPrice, r.imps[0].floor)
			}},
		{name: "floor beyond float64", imp: `"bidfloor":1e400`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) {
				assert.Equal(t, bidder.AboveAnyPrice, r.imps[0].floor, "a number like any other, above any price")
			}},
		{name: "an ignored number beyond float64", top: `"device":{"geo":{"lat":1e400,"lon":-1e400}},"ext":{"x":0.5e39}`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.Equal(t, "req-1", r.id) }},
		{name: "source and ext ignored", top: `"source":7,"ext":[1],"at":"first"`,
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) { assert.Equal(t, "req-1", r.id) }},
		{name: "regs not an object: gdpr and coppa 1", top: `"regs":"gdpr"`, bad: "regs",
			check: func(t *testing.T, r *openrtbRequest, _ *bidder.Request) {
				sig, _ := r.signals.consentSignals()
				assert.EqualValues(t, 1, sig.GDPR)
				assert.True(t, sig.COPPA)
			}},
	}
	srv := coreServer(t, writeCampaigns(t, openrtbCampaigns...))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ortbBody(tt.top, tt.imp)
			r, ferr := decodeOne(t, body)
			require.Nil(t, ferr, "a bad used field is no error")
			req := r.engineRequest(testNow)
			req.Secure = r.imps[0].secure
			tt.check(t, &r, &req)
			var bad []string
			for f := usedField(0); f < numUsedFields; f++ {
				if r.invalid.has(f) {
					bad = append(bad, usedFieldNames[f])
				}
			}
			if tt.bad == "" {
				assert.Empty(t, bad)
			} else {
				assert.Equal(t, []string{tt.bad}, bad)
			}
			resp := AcquireResponse()
			defer resp.Release()
			srv.Serve(EndpointOpenRTB, exchange.DefaultID, &Request{Ctx: t.Context(), Method: "POST",
				Body: strings.NewReader(body)}, resp)
			assert.Contains(t, []int{http.StatusOK, http.StatusNoContent}, resp.Status, "served: %s", resp.Body())
		})
	}
}

// TestOpenRTBLimitsAreNotErrors: impressions beyond 32 and formats beyond
// 16 are not tried, and counted; the rest of the request is served.
func TestOpenRTBLimitsAreNotErrors(t *testing.T) {
	r, ferr := decodeOne(t, `{"id":"r","imp":[`+impList(maxImps+3)+`]}`)
	require.Nil(t, ferr)
	assert.Len(t, r.imps, maxImps)
	assert.True(t, r.invalid.has(fieldImps))

	var formats []string
	for i := range maxFormats + 4 {
		formats = append(formats, `{"w":`+strconv.Itoa(300+i)+`,"h":250}`)
	}
	r, ferr = decodeOne(t, `{"id":"r","imp":[{"id":"1","banner":{"format":[`+strings.Join(formats, ",")+`]}}]}`)
	require.Nil(t, ferr)
	assert.Equal(t, maxFormats, r.imps[0].nsizes)
	assert.True(t, r.invalid.has(fieldFormats))
	assert.Equal(t, "imp[0].banner.format[16]", r.example.field.String(), "the first format not tried")
}

// TestOpenRTBSecurePerImpression: a bad secure makes its own impression
// secure, not the ones after it.
func TestOpenRTBSecurePerImpression(t *testing.T) {
	r, ferr := decodeOne(t, `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"secure":"yes"},`+
		`{"id":"2","banner":{"w":300,"h":250}},{"id":"3","banner":{"w":300,"h":250},"secure":0}]}`)
	require.Nil(t, ferr)
	require.Len(t, r.imps, 3)
	assert.Equal(t, []bool{true, false, false}, []bool{r.imps[0].secure, r.imps[1].secure, r.imps[2].secure})
}
