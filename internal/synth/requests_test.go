package synth

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyOrder is the order keys appear in, when they appear.
var keyOrder = []string{
	"id", "imp_id", "tmax", "ts", "test", "secure", "w", "h", "pos", "floor", "cur",
	"site", "page", "ref", "bundle", "app_name", "cat", "bcat", "badv", "ua", "ip", "os", "osv",
	"make", "model", "devtype", "ifa", "lmt", "connectiontype", "carrier", "lang",
	"country", "region", "city", "lat", "lon", "gdpr", "uid",
}

var (
	catListRE = regexp.MustCompile(`^IAB[0-9]{1,2}(-[0-9]{1,2})?(,IAB[0-9]{1,2}(-[0-9]{1,2})?)*$`)
	ipv4RE    = regexp.MustCompile(`^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$`)
)

func TestRequestsDeterministic(t *testing.T) {
	cs := Campaigns(200, 7)
	a := Requests(500, 7, cs)
	b := Requests(500, 7, cs)
	c := Requests(500, 8, cs)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	assert.Empty(t, Requests(0, 7, cs))
	assert.Len(t, Requests(50, 7, nil), 50, "works without campaigns")
}

// checkBody checks one body against section 1 of the contract and the
// generator's own promises, and returns its parsed values.
func checkBody(t *testing.T, body string) url.Values {
	t.Helper()
	require.NotContains(t, body, "\n")
	require.LessOrEqual(t, len(body), 16<<10)
	q, err := url.ParseQuery(body)
	require.NoError(t, err, body)

	var keys []string
	for _, pair := range strings.Split(body, "&") {
		k, _, _ := strings.Cut(pair, "=")
		keys = append(keys, k)
	}
	pos := 0
	for _, k := range keys {
		for pos < len(keyOrder) && keyOrder[pos] != k {
			pos++
		}
		require.Less(t, pos, len(keyOrder), "key %q out of order or unknown in %s", k, body)
	}
	for k, vs := range q {
		require.Len(t, vs, 1, "key %s repeats", k)
		assert.LessOrEqual(t, len(vs[0]), 256, k)
	}

	intIn := func(k string, lo, hi int) {
		n, err := strconv.Atoi(q.Get(k))
		if assert.NoError(t, err, "%s in %s", k, body) {
			assert.GreaterOrEqual(t, n, lo, k)
			assert.LessOrEqual(t, n, hi, k)
		}
	}
	assert.True(t, printableASCII(q.Get("id"), 64), "id")
	assert.True(t, printableASCII(q.Get("imp_id"), 64), "imp_id")
	intIn("w", 1, 10000)
	intIn("h", 1, 10000)
	ts, err := strconv.ParseInt(q.Get("ts"), 10, 64)
	require.NoError(t, err, "ts is always present")
	assert.GreaterOrEqual(t, ts, TSStart)
	assert.Less(t, ts, TSEnd)
	if q.Get("tmax") != "" {
		intIn("tmax", 1, 10000)
	}
	if q.Get("devtype") != "" {
		intIn("devtype", 1, 7)
	}
	for _, k := range []string{"test", "secure"} {
		if v := q.Get(k); v != "" {
			assert.Contains(t, []string{"0", "1"}, v, k)
		}
	}
	if f := q.Get("floor"); f != "" {
		_, ok := testMicros(f)
		assert.True(t, ok, "floor %q", f)
	}
	if c := q.Get("cur"); c != "" {
		assert.Regexp(t, `^[A-Z]{3}$`, c)
	}
	assert.True(t, (q.Get("site") == "") != (q.Get("bundle") == ""), "exactly one of site and bundle")
	for _, k := range []string{"cat", "bcat"} {
		if v := q.Get(k); v != "" {
			assert.Regexp(t, catListRE, v, k)
		}
	}
	assert.Contains(t, allOSes, q.Get("os"))
	if c := q.Get("country"); c != "" {
		assert.Regexp(t, `^[A-Z]{2}$`, c)
		if r := q.Get("region"); r != "" {
			assert.True(t, strings.HasPrefix(r, c+"-"), "region %s in %s", r, c)
		}
		if city := q.Get("city"); city != "" {
			ct, ok := cityByName(city)
			require.True(t, ok, city)
			assert.Equal(t, c, ct.region[:2], "city %s in %s", city, c)
		}
	} else {
		assert.Empty(t, q.Get("region"))
		assert.Empty(t, q.Get("city"))
	}
	if u := q.Get("uid"); u != "" {
		assert.GreaterOrEqual(t, len(u), 16)
		assert.LessOrEqual(t, len(u), 40)
	}
	assert.Regexp(t, ipv4RE, q.Get("ip"))
	assert.NotEmpty(t, q.Get("ua"))
	return q
}

func TestRequestsValid(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	bodies := Requests(2000, DefaultSeed, cs)
	require.Len(t, bodies, 2000)

	var app, uid, country, region, city, floorAbsent, highFloor, nonUSD, test, secure, tmaxAbsent, encodedUA int
	ids := map[string]bool{}
	for _, body := range bodies {
		q := checkBody(t, body)
		assert.False(t, ids[q.Get("id")], "duplicate id")
		ids[q.Get("id")] = true
		count := func(cond bool, n *int) {
			if cond {
				*n++
			}
		}
		count(q.Get("bundle") != "", &app)
		count(q.Get("uid") != "", &uid)
		count(q.Get("country") != "", &country)
		count(q.Get("region") != "", &region)
		count(q.Get("city") != "", &city)
		count(q.Get("floor") == "", &floorAbsent)
		f, _ := testMicros(q.Get("floor"))
		count(f >= 10_000_000, &highFloor)
		count(q.Get("cur") != "" && q.Get("cur") != "USD", &nonUSD)
		count(q.Get("test") == "1", &test)
		count(q.Get("secure") == "1", &secure)
		count(q.Get("tmax") == "", &tmaxAbsent)
		count(strings.Contains(body, "ua=Mozilla%2F5.0+%28"), &encodedUA)
	}
	n := float64(len(bodies))
	tests := []struct {
		name   string
		count  int
		lo, hi float64
	}{
		{"app", app, 0.55, 0.65},
		{"uid", uid, 0.70, 0.82},
		{"country", country, 0.86, 0.94},
		{"region", region, 0.35, 0.47},
		{"city", city, 0.19, 0.31},
		{"floor absent", floorAbsent, 0.05, 0.15},
		{"high floor", highFloor, 0.05, 0.12},
		{"non-USD", nonUSD, 0.005, 0.04},
		{"test", test, 0.002, 0.03},
		{"secure", secure, 0.44, 0.56},
		{"tmax absent", tmaxAbsent, 0.05, 0.15},
		{"encoded ua", encodedUA, 0.99, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := float64(tt.count) / n
			assert.GreaterOrEqual(t, s, tt.lo)
			assert.LessOrEqual(t, s, tt.hi)
		})
	}
}

// TestRequestsWin checks, with an independent decision procedure on fresh
// state, that a good share of requests win a bid and that the no-bid reasons
// that do not need state occur. (freq_cap and budget mostly arise from state:
// on fresh state another campaign usually takes the request.)
func TestRequestsWin(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	bodies := Requests(1500, DefaultSeed, cs)
	reasons := map[string]int{}
	winners := map[string]bool{}
	for _, body := range bodies {
		d, err := decide(body, cs)
		require.NoError(t, err)
		reasons[d.reason]++
		if d.reason == "" {
			winners[d.campaign] = true
		}
	}
	t.Logf("decisions: %v, %d distinct winners", reasons, len(winners))
	assert.Greater(t, reasons[""], len(bodies)/5, "at least 20 %% of requests win")
	assert.Greater(t, len(winners), 20, "wins spread over many campaigns")
	for _, r := range []string{"no_match", "below_floor", "currency"} {
		assert.Positive(t, reasons[r], r)
	}
}
