package synth

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mediaKind names a campaign of MediaCampaigns by what it holds.
func mediaKind(c Campaign) string {
	switch t := c.Creatives[0].Type; {
	case t != "":
		return t
	case c.OpenAuction != nil && !*c.OpenAuction:
		return "deal-only banner"
	}
	return "premium banner"
}

func TestMediaCampaignsDeterministic(t *testing.T) {
	assert.Equal(t, MediaCampaigns(1000, 42), MediaCampaigns(1000, 42))
	assert.NotEqual(t, MediaCampaigns(1000, 42), MediaCampaigns(1000, 43))
	assert.Empty(t, MediaCampaigns(0, 1))
}

// TestMediaCampaigns checks the file they make with Campaigns' against
// the contract's rules (the independent validator), and the mix
// MediaCampaigns' doc comment gives.
func TestMediaCampaigns(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	media := MediaCampaigns(1000, DefaultSeed)
	var buf bytes.Buffer
	require.NoError(t, WriteCampaigns(&buf, append(cs, media...)))
	assert.Empty(t, validateCampaignsFile(buf.Bytes()))

	kinds := map[string]int{}
	dealIDs := map[string]int{}
	var videos, natives, webm, defaultVAST, icons, longTitles, withDeals int
	for i, c := range media {
		assert.Equal(t, "c-"+strconv.Itoa(1001+i), c.ID, "ids continue Campaigns'")
		k := mediaKind(c)
		kinds[k]++
		if len(c.Deals) > 0 {
			withDeals++
		}
		for _, d := range c.Deals {
			assert.Regexp(t, `^D-[0-9]{4}$`, d)
			dealIDs[d]++
		}
		for j, cr := range c.Creatives {
			assert.Equal(t, "cr-"+strings.TrimPrefix(c.ID, "c-")+"-"+string(rune('a'+j)), cr.ID)
			assert.Equal(t, c.Creatives[0].Type, cr.Type, "%s: one kind of creative per campaign", c.ID)
			switch cr.Type {
			case "video":
				videos++
				assert.Contains(t, []int{6, 15, 30, 60}, cr.DurationS)
				assert.Contains(t, []size{{1920, 1080}, {1280, 720}, {640, 360}, {640, 480}}, size{cr.W, cr.H})
				assert.Contains(t, []string{"video/mp4", "video/webm"}, cr.Mime)
				assert.Contains(t, []string{"", "3.0", "4.0", "4.1"}, cr.VASTVersion)
				if cr.Mime == "video/webm" {
					webm++
				}
				if cr.VASTVersion == "" {
					defaultVAST++
				}
			case "native":
				natives++
				assert.LessOrEqual(t, len(cr.Title), 140)
				assert.True(t, utf8.ValidString(cr.Title+cr.Body+cr.CTA))
				assert.Equal(t, c.Advertiser, cr.Sponsored)
				assert.Equal(t, []int{1200, 627}, []int{cr.ImageW, cr.ImageH})
				if cr.IconURL != "" {
					icons++
					assert.Equal(t, []int{80, 80}, []int{cr.IconW, cr.IconH})
				}
				if utf8.RuneCountInString(cr.Title) > 90 {
					longTitles++
				}
			default:
				if k == "premium banner" {
					assert.Contains(t, premiumSizes, size{cr.W, cr.H})
				}
			}
		}
	}
	t.Logf("kinds %v; %d deal ids listed, %d campaigns with deals; %d videos (%d webm, %d in the default VAST), %d natives (%d with icons, %d titles over 90 characters)",
		kinds, len(dealIDs), withDeals, videos, webm, defaultVAST, natives, icons, longTitles)
	assert.Equal(t, map[string]int{"video": 60, "native": 40, "deal-only banner": 40, "premium banner": 20}, kinds)
	assert.Greater(t, len(dealIDs), 40)
	assert.Positive(t, webm)
	assert.Greater(t, defaultVAST, videos/2)
	assert.Positive(t, videos-defaultVAST)
	assert.Positive(t, icons)
	assert.Less(t, icons, natives, "some natives have no icon")
	assert.Positive(t, longTitles)
}

// TestMediaCampaignsLeaveRecbidAlone: the form protocol's decisions, by
// the independent matcher, are the same with MediaCampaigns after
// Campaigns as without them, for Requests' bodies and PostData; and no
// request of Requests asks for a premium size.
func TestMediaCampaignsLeaveRecbidAlone(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	all := append(cs[:len(cs):len(cs)], MediaCampaigns(1000, DefaultSeed)...)
	bodies := append(Requests(3000, DefaultSeed, cs), PostData())
	for i, body := range bodies {
		before, err := decide(body, cs)
		require.NoError(t, err)
		after, err := decide(body, all)
		require.NoError(t, err)
		require.Equal(t, before, after, "body %d", i+1)
		q, err := url.ParseQuery(body)
		require.NoError(t, err)
		w, _ := strconv.Atoi(q.Get("w"))
		h, _ := strconv.Atoi(q.Get("h"))
		assert.NotContains(t, premiumSizes, size{w, h}, "body %d", i+1)
	}
	for _, s := range premiumSizes {
		assert.NotContains(t, creativeSizes, s)
		assert.NotContains(t, uncommonSizes, s)
		assert.NotEqual(t, nicheCappedSize, s)
		assert.NotEqual(t, nicheBudgetSize, s)
	}
}

// TestExchangeTrafficMedia reads the corpus gendata writes and checks the
// mix of impressions ExchangeTraffic's doc comment gives (loosely), that
// the rewrite left the fields of other streams alone, and the shapes of
// the media objects and deals.
func TestExchangeTrafficMedia(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	media := MediaCampaigns(1000, DefaultSeed)
	bodies := Requests(10000, DefaultSeed, cs) // as gendata writes them: the corpus of testdata
	lines, err := ExchangeTraffic(2000, DefaultSeed, bodies, append(cs[:len(cs):len(cs)], media...))
	require.NoError(t, err)
	ours := map[string]bool{}
	for _, c := range media {
		for _, d := range c.Deals {
			ours[d] = true
		}
	}
	type imp struct {
		Banner json.RawMessage `json:"banner"`
		Video  *struct {
			Mimes     []string `json:"mimes"`
			Protocols []int    `json:"protocols"`
		} `json:"video"`
		Native *struct {
			Request json.RawMessage `json:"request"`
		} `json:"native"`
		Audio json.RawMessage `json:"audio"`
		PMP   *struct {
			Private *int `json:"private_auction"`
			Deals   []struct {
				ID       string   `json:"id"`
				At       int      `json:"at"`
				Cur      string   `json:"bidfloorcur"`
				WSeat    []string `json:"wseat"`
				WADomain []string `json:"wadomain"`
			} `json:"deals"`
		} `json:"pmp"`
	}
	count := map[string]int{}
	var imps, bannerOnly int
	nativeStringRE := regexp.MustCompile(`^"\{`)
	for n, line := range lines {
		var r struct {
			Imp []imp `json:"imp"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r), "line %d", n+1)
		allBanner := true
		for _, im := range r.Imp {
			imps++
			switch {
			case im.Banner != nil:
				count["banner"]++
				if im.Video != nil {
					count["banner and video"]++
				}
			case im.Video != nil:
				count["video"]++
				allBanner = false
				if len(im.Video.Mimes) == 0 {
					count["video without mimes"]++
				}
				p := im.Video.Protocols
				if len(p) > 0 && !contains(p, 2) && !contains(p, 3) && !contains(p, 7) && !contains(p, 11) && !contains(p, 13) {
					count["video, wrappers only"]++
				}
			case im.Native != nil:
				count["native"]++
				allBanner = false
				if nativeStringRE.Match(im.Native.Request) {
					count["native as a string"]++
				}
			default:
				allBanner = false
				count["audio"]++
			}
			if im.PMP != nil && len(im.PMP.Deals) > 0 {
				count["deal"]++
				mine := false
				for _, d := range im.PMP.Deals {
					if ours[d.ID] {
						mine = true
						count["deals at "+strconv.Itoa(d.At)]++
						if d.Cur != "" {
							count["deals in "+d.Cur]++
						}
						if d.WSeat != nil {
							count["deals with wseat"]++
						}
						if d.WADomain != nil {
							count["deals with wadomain"]++
						}
					}
				}
				if mine {
					count["deal (ours)"]++
				}
				if im.PMP.Private != nil && *im.PMP.Private == 1 {
					count["private auction"]++
				}
			}
		}
		if allBanner {
			bannerOnly++
		}
	}
	t.Logf("%d requests, %d impressions, %d requests of banners only: %v", len(lines), imps, bannerOnly, count)
	between := func(name string, got, lo, hi int) {
		t.Helper()
		assert.True(t, lo <= got && got <= hi, "%s: %d, not in %d–%d", name, got, lo, hi)
	}
	between("video impressions", count["video"], imps*12/100, imps*18/100)
	between("native impressions", count["native"], imps*8/100, imps*13/100)
	between("impressions with deals", count["deal"], imps*12/100, imps*19/100)
	between("impressions with our deals", count["deal (ours)"], imps*4/100, imps*10/100)
	between("requests of banners only", bannerOnly, len(lines)*60/100, len(lines)*80/100)
	assert.Greater(t, count["native as a string"], count["native"]/2)
	for _, k := range []string{"banner and video", "video without mimes", "video, wrappers only", "private auction",
		"deals at 0", "deals at 1", "deals at 2", "deals at 3", "deals in USD", "deals in EUR", "deals in GBP",
		"deals with wseat", "deals with wadomain"} {
		assert.Positive(t, count[k], k)
	}

	// Without the rewrite, every line is what it is but for its
	// impressions, and those keep their ids.
	plain, err := exchangeTraffic(2000, DefaultSeed, bodies, nil, false)
	require.NoError(t, err)
	for i := range lines {
		var a, b map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &a))
		require.NoError(t, json.Unmarshal([]byte(plain[i]), &b))
		require.Len(t, a, len(b), "line %d", i+1)
		for k := range b {
			if k != "imp" {
				assert.Equal(t, string(b[k]), string(a[k]), "line %d: %s", i+1, k)
			}
		}
		var ia, ib []struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(a["imp"], &ia))
		require.NoError(t, json.Unmarshal(b["imp"], &ib))
		assert.Equal(t, ib, ia, "line %d", i+1)
	}
}
