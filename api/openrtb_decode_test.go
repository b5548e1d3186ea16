package api

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestDecodeBidRequestSyntax pins how the walk reads JSON at the edges of
// its syntax, as it read it with json-iterator: which bodies are JSON to it
// (bad_body otherwise), and what it then reads. Some readings are lenient
// beyond JSON (a null that closes an object, -.5, -01, control characters
// after an escape): they are kept so that no request served before is
// refused now. Field errors, the city and tmax are checked for the bodies
// read as JSON.
func TestDecodeBidRequestSyntax(t *testing.T) {
	const req = `{"id":"a","imp":[{"id":"1","banner":{"w":300,"h":250}}]`
	tests := []struct {
		body   string
		jsonOK bool
		ferr   string // "code field", or ""
		city   string
		tmax   int
	}{
		// after the request's object: blanks only; a null ends it as '}' would, a '{' reads as ','.
		{req + `}`, true, "", "", 0},
		{req + `} `, true, "", "", 0},
		{req + `}}`, false, "", "", 0},
		{req + `} {}`, false, "", "", 0},
		{req + ` null`, true, "", "", 0},
		{req + ` null}`, false, "", "", 0},
		{req + `{"tmax":50}`, true, "", "", 50},
		{req + `{"tmax":50}}`, false, "", "", 0},
		// walked objects: a null ends one, a null key or an empty key without a value ends one, a value after an end is an error.
		{req + `,"device":{"geo":{"city":"x"} null,"tmax":50}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"x"}} null`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/" null,"tmax":50}`, true, "", "", 50},
		{req + `,"site":{"page":"http://a.example/",null:2}}`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/",null:},"tmax":50}`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/",null:}`, true, "", "", 0},
		{req + `,"site":{"":},"tmax":50}`, false, "", "", 0},
		{req + `,"site":{"":}`, true, "", "", 0},
		{req + `,"site":{"":,"tmax":50}`, true, "", "", 50},
		{req + `,"site":{"":"x","page":"http://a.example/"}}`, true, "", "", 0},
		{req + `,"site":{"" : 1 , "":2}}`, true, "", "", 0},
		// skipped objects take null keys after the first.
		{req + `,"x":{"a":1,null:2}}`, true, "", "", 0},
		{req + `,"x":{null:2}}`, false, "", "", 0},
		// arrays: in a walked one '[' reads as ',' and null ends it.
		{req + `,"x":[1 2]}`, false, "", "", 0},
		{req + `,"bcat":["a" "b"]}`, false, "", "", 0},
		{req + `,"bcat":["a" ["b"]}`, true, "", "", 0},
		{req + `,"bcat":["a" null,"tmax":50}`, true, "", "", 50},
		{req + `,"bcat":["a",]}`, false, "", "", 0},
		{req + `,"bcat":[,"a"]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} {"id":"2"}]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} ["x"]]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} null,"tmax":50}`, false, "", "", 0},
		// keys: escapes resolved, the last value of a repeated key counts.
		{`{"\u0069d":"a","imp":[{"id":"1"}]}`, true, "", "", 0},
		{`{"i\d":"a","imp":[{"id":"1"}]}`, false, "", "", 0},
		{`{"id":"a","id":"b","imp":[{"id":"1"}]}`, true, "", "", 0},
		{`{"id":"a","id":null,"imp":[{"id":"1"}]}`, true, "missing_field id", "", 0},
		{`{"id":"a","id":5,"imp":[{"id":"1"}]}`, true, "invalid_field id", "", 0},
		// numbers, as json-iterator's Skip read them (not quite JSON).
		{req + `,"x":-.5}`, true, "", "", 0},
		{req + `,"x":-.5e3}`, true, "", "", 0},
		{req + `,"x":-01}`, true, "", "", 0},
		{req + `,"x":-01e1}`, true, "", "", 0},
		{req + `,"x":01}`, false, "", "", 0},
		{req + `,"x":-0}`, true, "", "", 0},
		{req + `,"x":-}`, false, "", "", 0},
		{req + `,"x":--1}`, false, "", "", 0},
		{req + `,"x":1.}`, false, "", "", 0},
		{req + `,"x":1.e5}`, false, "", "", 0},
		{req + `,"x":1e5}`, true, "", "", 0},
		{req + `,"x":1E+5}`, true, "", "", 0},
		{req + `,"x":1e}`, false, "", "", 0},
		// Numbers of any magnitude are valid JSON (json-iterator refused
		// these; the decoder's Scanner reads any magnitude).
		{req + `,"x":1e400}`, true, "", "", 0},
		{req + `,"x":-1e400}`, true, "", "", 0},
		{req + `,"x":1e-400}`, true, "", "", 0},
		{req + `,"x":0.5e39}`, true, "", "", 0},
		{req + `,"x":0.5e38}`, true, "", "", 0},
		{req + `,"x":0e400}`, true, "", "", 0},
		{req + `,"x":5e-400}`, true, "", "", 0},
		{req + `,"x":0.}`, false, "", "", 0},
		{req + `,"x":0.1.2}`, false, "", "", 0},
		{req + `,"x":1.2.3}`, false, "", "", 0},
		{req + `,"x":1..2}`, false, "", "", 0},
		{req + `,"x":1-2}`, false, "", "", 0},
		{req + `,"x":1+2}`, false, "", "", 0},
		{req + ",\"x\":5\r}", true, "", "", 0},
		{req + `,"x":5:}`, false, "", "", 0},
		{req + `,"x":-.5x}`, false, "", "", 0},
		{req + `,"x":tru}`, false, "", "", 0},
		{req + `,"x":nul}`, false, "", "", 0},
		{req + `,"x":falsey}`, false, "", "", 0},
		// numbers in used fields.
		{req + `,"tmax":-.5}`, true, "", "", 0},
		{req + `,"tmax":-01}`, true, "", "", 0},
		{req + `,"tmax":1e2}`, true, "", "", 0},
		{req + `,"tmax":050}`, false, "", "", 0},
		{req + `,"device":{"devicetype":-01}}`, true, "", "", 0},
		// strings: escapes and halves of surrogate pairs; control characters only after an escape.
		{req + `,"device":{"geo":{"city":"\ud800x"}}}`, true, "", "\ufffdx", 0},
		{req + `,"device":{"geo":{"city":"\udc00\ud800"}}}`, true, "", "\ufffd\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\ude00"}}}`, true, "", "😀", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\n"}}}`, true, "", "\ufffd\n", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\u0041"}}}`, true, "", "\ufffdA", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\ud83d\ude00"}}}`, true, "", "\ufffd\ufffd\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\x"}}}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"\ud83d"}}}`, true, "", "\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\u00e9\u0000\/"}}}`, true, "", "é\x00/", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"a\\n\x01\x1fb\"}}}", true, "", "a\n\x01\x1fb", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"\x01\"}}}", false, "", "", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"\xff\xfe\"}}}", true, "", "\xff\xfe", 0},
		{req + `,"device":{"geo":{"city":"\u12"}}}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"\U0041"}}}`, false, "", "", 0},
		{req + ",\"x\":\"\\n\x01\"}", true, "", "", 0},
		{req + ",\"x\":\"\x01\\n\"}", false, "", "", 0},
		{req + ",\"x\":{\"\\n\x01\":1}}", true, "", "", 0},
		{req + ",\"x\":{\"\x01\":1}}", false, "", "", 0},
		// syntax errors, blanks, values of the wrong kind.
		{req + `,"x":{"a" 1}}`, false, "", "", 0},
		{req + `,"x":{"a":1 "b":2}}`, false, "", "", 0},
		{req + `,"x":{"a":1,}}`, false, "", "", 0},
		{req + `,"x":{,}}`, false, "", "", 0},
		{req + `,"x":[1,]}`, false, "", "", 0},
		{req + `,"x":[,]}`, false, "", "", 0},
		{req + `,"x":[]}`, true, "", "", 0},
		{req + `,"x":{}}`, true, "", "", 0},
		{req + `,"x":null}`, true, "", "", 0},
		{req + `,"x":}`, false, "", "", 0},
		{req + `,"x" 1}`, false, "", "", 0},
		{req + `,:1}`, false, "", "", 0},
		{req + `,1:1}`, false, "", "", 0},
		{req + `,"tmax" : 50 , "test" : 1 }`, true, "", "", 50},
		{"\t\r\n {\"id\":\"a\",\"imp\":[{\"id\":\"1\",\"banner\":{\"w\":300,\"h\":250}}]}\t\r\n ", true, "", "", 0},
		{req + `,"site":"x"}`, true, "", "", 0},
		{req + `,"site":[1,{"a":"b"}]}`, true, "", "", 0},
	}
	for _, tt := range tests {
		st := new(openrtbState)
		ferr, ok := decodeBidRequest([]byte(tt.body), st, DefaultSeat)
		if !assert.Equal(t, tt.jsonOK, ok, "%q", tt.body) || !ok {
			continue
		}
		got := ""
		if ferr != nil {
			got = ferr.code + " " + ferr.field
		}
		assert.Equal(t, tt.ferr, got, "%q", tt.body)
		assert.Equal(t, tt.city, st.req.city, "%q", tt.body)
		assert.Equal(t, tt.tmax, st.req.tmax, "%q", tt.body)
	}
}

// decodeOne decodes body and returns the request (its strings copied).
func decodeOne(t *testing.T, body string) (openrtbRequest, *fieldError) {
	t.Helper()
	st := new(openrtbState)
	ferr, ok := decodeBidRequest([]byte(body), st, DefaultSeat)
	require.True(t, ok, "valid JSON: %s", body)
	r := st.req
	r.imps = append([]openrtbImp(nil), r.imps...)
	return r, ferr
}

func TestDecodeBidRequestMapping(t *testing.T) {
	r, ferr := decodeOne(t, `{"id":"r1","imp":[
		{"id":"1","banner":{"format":[{"w":728,"h":90},{"w":300,"h":250},{"w":728,"h":90}],"w":300,"h":250},
		 "bidfloor":1.50,"bidfloorcur":"usd","secure":1,"tagid":"slot-1"},
		{"id":"2","banner":{"w":320,"h":50}},
		{"id":"3","native":{}}],
		"site":{"domain":"News.Example","cat":["IAB12"," IAB12-1 ",""],"page":"https://news.example/"},
		"app":{"bundle":"com.example","cat":["IAB1"]},
		"device":{"os":"iOS","devicetype":4,"ua":"UA","ip":"1.2.3.4","geo":{"region":"ca","country":"usa","city":"San Francisco"}},
		"user":{"buyeruid":"b-1","id":"u-1"},
		"tmax":150,"test":1,"bcat":["IAB25","IAB26"],"badv":["a.example","b.example"],"cur":["EUR","GBP"]}`)
	require.Nil(t, ferr)
	assert.Equal(t, "r1", r.id)
	require.Len(t, r.imps, 3)
	i0 := r.imps[0]
	assert.Equal(t, "1", i0.id)
	assert.Equal(t, []openrtbSize{{300, 250}, {728, 90}}, i0.sizes[:i0.nsizes], "w/h first, then format[], repeats dropped")
	assert.Equal(t, bidder.Micros(1_500_000), i0.floor)
	assert.Equal(t, "usd", i0.floorCur)
	assert.True(t, i0.secure)
	assert.Equal(t, []openrtbSize{{320, 50}}, r.imps[1].sizes[:r.imps[1].nsizes])
	assert.Zero(t, r.imps[2].nsizes, "no banner, no size")
	assert.Equal(t, "News.Example", r.site)
	assert.Equal(t, "com.example", r.bundle)
	assert.Equal(t, "IAB12, IAB12-1 ,IAB1", r.cat, "site.cat then app.cat; empty items dropped")
	assert.Equal(t, "iOS", r.os)
	assert.Equal(t, 4, r.devType)
	assert.Equal(t, "US", r.country)
	assert.Equal(t, "US-ca", r.region, "the region is prefixed with the country, whatever their order")
	assert.Equal(t, "San Francisco", r.city)
	assert.Equal(t, "u-1", r.uid)
	assert.Equal(t, "b-1", r.buyerUID)
	assert.Equal(t, 150, r.tmax)
	assert.True(t, r.test)
	assert.Equal(t, "IAB25,IAB26", r.bcat)
	assert.Equal(t, "a.example,b.example", r.badv)
	assert.Equal(t, "EUR", r.curDenied)

	req := r.engineRequest(testNow)
	assert.Equal(t, bidder.Request{ID: "r1", Cur: "EUR", Site: "News.Example", Bundle: "com.example",
		Cat: "IAB12, IAB12-1 ,IAB1", BCat: "IAB25,IAB26", BAdv: "a.example,b.example", OS: "iOS", DevType: 4,
		Country: "US", Region: "US-ca", City: "San Francisco", UID: "u-1", TimeMs: testNow.UnixMilli(),
		TMax: 150 * time.Millisecond, Test: true, Arrived: testNow}, req)
}

func TestDecodeBidRequestLeniency(t *testing.T) {
	tests := []struct {
		name, body                               string
		country, region, os, uid, curDenied, cat string
		devType                                  int
	}{
		{name: "alpha-2 country", body: `"device":{"geo":{"country":"cn","region":"31"}}`, country: "CN", region: "CN-31"},
		{name: "prefixed region", body: `"device":{"geo":{"country":"USA","region":"US-NY"}}`, country: "US", region: "US-NY"},
		{name: "prefixed region, other country", body: `"device":{"geo":{"country":"CAN","region":"US-NY"}}`, country: "CA", region: "US-NY"},
		{name: "region without country", body: `"device":{"geo":{"region":"CA"}}`},
		{name: "unknown alpha-3", body: `"device":{"geo":{"country":"XYZ","region":"CA"}}`},
		{name: "withdrawn code", body: `"device":{"geo":{"country":"ANT"}}`},
		{name: "region name", body: `"device":{"geo":{"country":"USA","region":"California"}}`, country: "US"},
		{name: "region with a space", body: `"device":{"geo":{"country":"USA","region":"C A"}}`, country: "US"},
		{name: "free-text os", body: `"device":{"os":"Mac OS X"}`},
		{name: "devicetype 8", body: `"device":{"devicetype":8}`},
		{name: "devicetype 0", body: `"device":{"devicetype":0}`},
		{name: "devicetype big", body: `"device":{"devicetype":123456789012345678901234567890}`},
		{name: "devicetype 7", body: `"device":{"devicetype":7}`, devType: 7},
		{name: "buyeruid when no id", body: `"user":{"buyeruid":"b-1"}`, uid: "b-1"},
		{name: "empty id: buyeruid", body: `"user":{"id":"","buyeruid":"b-1"}`, uid: "b-1"},
		{name: "cur with USD", body: `"cur":["EUR","usd"]`},
		{name: "cur empty", body: `"cur":[]`},
		{name: "cur repeated: the last counts", body: `"cur":["EUR"],"cur":["USD"]`},
		{name: "cat repeated: the last counts", body: `"site":{"cat":["IAB1"],"cat":["IAB2"]}`, cat: "IAB2"},
		{name: "app cat alone", body: `"app":{"cat":["IAB3"]}`, cat: "IAB3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ferr := decodeOne(t, ortbBody(tt.body, ""))
			require.Nil(t, ferr)
			req := r.engineRequest(testNow)
			assert.Equal(t, tt.country, req.Country, "country")
			assert.Equal(t, tt.region, req.Region, "region")
			assert.Equal(t, tt.os, req.OS, "os")
			assert.Equal(t, tt.devType, req.DevType, "devtype")
			assert.Equal(t, tt.uid, req.UID, "uid")
			assert.Equal(t, tt.curDenied, req.Cur, "cur")
			assert.Equal(t, tt.cat, req.Cat, "cat")
		})
	}
}

func TestCountryAlpha2(t *testing.T) {
	require.Len(t, iso3166, 249, "every officially assigned ISO 3166-1 code")
	seen := map[string]bool{}
	for a3, a2 := range iso3166 {
		assert.Regexp(t, `^[A-Z]{3}$`, a3)
		assert.Regexp(t, `^[A-Z]{2}$`, a2)
		assert.False(t, seen[a2], "%s twice", a2)
		seen[a2] = true
		assert.Equal(t, a2, countryAlpha2([]byte(a3)))
		assert.Equal(t, a2, countryAlpha2([]byte(strings.ToLower(a3))))
		assert.Equal(t, a2, countryAlpha2([]byte(a2)))
	}
	for a3, a2 := range map[string]string{"USA": "US", "CHN": "CN", "GBR": "GB", "DEU": "DE", "JPN": "JP",
		"FRA": "FR", "IND": "IN", "BRA": "BR", "CAN": "CA", "AUS": "AU", "KOR": "KR", "PRK": "KP", "ESP": "ES",
		"ITA": "IT", "MEX": "MX", "IDN": "ID", "NLD": "NL", "CHE": "CH", "AUT": "AT", "ZAF": "ZA", "SRB": "RS",
		"MNE": "ME", "SSD": "SS", "XKX": "", "ANT": "", "UK": "", "EU": "", "U": "", "USAA": "", "U5A": "", "": ""} {
		assert.Equal(t, a2, countryAlpha2([]byte(a3)), a3)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { countryAlpha2([]byte("usa")) }))
}

// TestRecbidFragmentLayout guards what encodeOpenRTB relies on in recbid's
// pre-encoded fragments.
func TestRecbidFragmentLayout(t *testing.T) {
	srv := coreServer(t, testdataCampaigns)
	cur := srv.current.Load()
	require.NotEmpty(t, cur.creatives)
	for _, cr := range cur.creatives {
		if cr.kind != bidder.Banner {
			continue // the form protocol's fragments are a banner's
		}
		require.True(t, bytes.HasPrefix(cr.tail, []byte(`,"adm":`)))
		require.True(t, bytes.HasSuffix(cr.tail, []byte(`"}`+responseClose)))
		require.True(t, bytes.HasSuffix(cr.head, []byte(`,"nurl":`)))
	}
}
