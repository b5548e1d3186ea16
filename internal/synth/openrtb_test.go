package synth

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenRTBTranslation(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	forms := Requests(3000, DefaultSeed, cs)
	out, err := OpenRTBRequests(forms)
	require.NoError(t, err)
	again, err := OpenRTBRequests(forms)
	require.NoError(t, err)
	assert.Equal(t, out, again, "deterministic")

	var wh, format, both, prefixed, stripped, buyeruid, userID int
	for i, body := range out {
		require.NotContains(t, body, "\n")
		require.LessOrEqual(t, len(body), 16<<10)
		q, err := url.ParseQuery(forms[i])
		require.NoError(t, err)
		var r ortbRequest
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&r), body)
		assert.NotContains(t, body, `"ts"`)
		assert.Equal(t, q.Get("id"), r.ID)
		require.Len(t, r.Imp, 1)
		imp := r.Imp[0]
		assert.Equal(t, q.Get("imp_id"), imp.ID)
		assert.Equal(t, q.Get("floor"), imp.BidFloor.String(), "the floor's literal text is kept")
		switch {
		case imp.Banner.W != "" && len(imp.Banner.Format) == 0:
			wh++
		case imp.Banner.W == "":
			format++
		default:
			both++
		}
		if imp.Banner.W != "" {
			assert.Equal(t, []string{q.Get("w"), q.Get("h")}, []string{imp.Banner.W.String(), imp.Banner.H.String()})
		}
		for _, f := range imp.Banner.Format {
			assert.Equal(t, []string{q.Get("w"), q.Get("h")}, []string{f.W.String(), f.H.String()})
		}
		if c := q.Get("country"); c != "" {
			require.NotNil(t, r.Device.Geo)
			assert.Equal(t, alpha3[c], r.Device.Geo.Country)
			if reg := q.Get("region"); reg != "" {
				if r.Device.Geo.Region == reg {
					prefixed++
				} else {
					assert.Equal(t, c+"-"+r.Device.Geo.Region, reg)
					stripped++
				}
			}
		}
		if uid := q.Get("uid"); uid != "" {
			require.NotNil(t, r.User)
			if r.User.BuyerUID != "" {
				assert.Equal(t, uid, r.User.BuyerUID)
				buyeruid++
			} else {
				assert.Equal(t, uid, r.User.ID)
				userID++
			}
		}
		if cat := q.Get("cat"); cat != "" {
			var got []string
			if r.Site != nil {
				got = r.Site.Cat
			} else {
				got = r.App.Cat
			}
			assert.Equal(t, cat, strings.Join(got, ","))
		}
		assert.Equal(t, q.Get("site"), siteDomain(r.Site))
	}
	t.Logf("w/h %d, format %d, both %d; region prefixed %d, stripped %d; user.id %d, buyeruid %d",
		wh, format, both, prefixed, stripped, userID, buyeruid)
	for _, n := range []int{wh, format, both, prefixed, stripped, buyeruid, userID} {
		assert.Positive(t, n, "every way of writing a request occurs")
	}
}

func siteDomain(s *ortbSite) string {
	if s == nil {
		return ""
	}
	return s.Domain
}

func TestOpenRTBPostData(t *testing.T) {
	p := OpenRTBPostData()
	assert.Equal(t, p, OpenRTBPostData())
	assert.True(t, json.Valid([]byte(p)))
	for _, want := range []string{
		`"banner":{"w":320,"h":50,"format":[{"w":320,"h":50}],"pos":3}`,
		`"bidfloor":0.5,"bidfloorcur":"USD","secure":1`,
		`"geo":{"country":"CHN","region":"31","city":"Shanghai","lat":31.2304,"lon":121.4737}`,
		`"user":{"id":"u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7"}`,
		`"cur":["USD"]`,
	} {
		assert.Contains(t, p, want)
	}
	assert.NotContains(t, p, `\u0026`, "no HTML escaping")
	assert.False(t, bytes.HasSuffix([]byte(p), []byte("\n")))
}

func TestOpenRTBRefusesUnknownKeys(t *testing.T) {
	_, err := OpenRTB("id=1&imp_id=1&w=1&h=1&foo=bar")
	assert.ErrorContains(t, err, `"foo"`)
	_, err = OpenRTB("id=%zz")
	assert.Error(t, err)
	s, err := OpenRTB("id=1&imp_id=1&w=300&h=250&cur=EUR&country=ZZ&region=ZZ-1")
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`"bidfloorcur":"EUR"`), s)
	assert.NotContains(t, s, `"cur":[`, "only USD goes into cur[]")
	assert.Contains(t, s, `"country":"ZZ"`, "an alpha-2 code without a known alpha-3 is kept")
}
