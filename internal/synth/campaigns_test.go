package synth

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// campaignsFile returns Campaigns(n, seed) and the file WriteCampaigns makes
// of them.
func campaignsFile(t *testing.T, n int, seed uint64) ([]Campaign, []byte) {
	t.Helper()
	cs := Campaigns(n, seed)
	var buf bytes.Buffer
	require.NoError(t, WriteCampaigns(&buf, cs))
	return cs, buf.Bytes()
}

func TestCampaignsDeterministic(t *testing.T) {
	_, a := campaignsFile(t, 300, 42)
	_, b := campaignsFile(t, 300, 42)
	_, c := campaignsFile(t, 300, 43)
	assert.Equal(t, a, b, "same seed must give the same bytes")
	assert.NotEqual(t, a, c, "another seed must give other campaigns")
}

func TestCampaignsValid(t *testing.T) {
	tests := []struct {
		n    int
		seed uint64
	}{
		{1, 1}, {7, 2}, {250, 3}, {1000, DefaultSeed}, {1000, 99},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.n)+"/"+strconv.FormatUint(tt.seed, 10), func(t *testing.T) {
			cs, data := campaignsFile(t, tt.n, tt.seed)
			require.Len(t, cs, tt.n)
			assert.Empty(t, validateCampaignsFile(data))
		})
	}
}

func TestCampaignIDs(t *testing.T) {
	tests := []struct {
		n     int
		first string
		last  string
	}{
		{5, "c-0001", "c-0005"},
		{1000, "c-0001", "c-1000"},
		{10000, "c-00001", "c-10000"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			cs := Campaigns(tt.n, DefaultSeed)
			ids := make([]string, len(cs))
			seen := map[string]bool{}
			for i, c := range cs {
				ids[i] = c.ID
				assert.False(t, seen[c.ID], "duplicate id %s", c.ID)
				seen[c.ID] = true
				for j, cr := range c.Creatives {
					assert.Equal(t, "cr-"+strings.TrimPrefix(c.ID, "c-")+"-"+string(rune('a'+j)), cr.ID)
				}
			}
			assert.True(t, sort.StringsAreSorted(ids), "ids must sort in byte order")
			assert.Equal(t, tt.first, ids[0])
			assert.Equal(t, tt.last, ids[len(ids)-1])
		})
	}
	assert.Empty(t, Campaigns(0, 1))
}

func TestWriteCampaignsLayout(t *testing.T) {
	_, data := campaignsFile(t, 20, 5)
	lines := strings.Split(string(data), "\n")
	require.Len(t, lines, 20+3) // header, 20 campaigns, footer, "" after the final newline
	assert.Equal(t, `{"campaigns":[`, lines[0])
	assert.Equal(t, `]}`, lines[21])
	assert.Equal(t, "", lines[22])
	for i, line := range lines[1:21] {
		obj := line
		if i < 19 {
			require.True(t, strings.HasSuffix(line, "},"), "line %d must end with a comma", i+1)
			obj = strings.TrimSuffix(line, ",")
		}
		assert.True(t, json.Valid([]byte(obj)), "line %d is one JSON object", i+1)
		assert.True(t, strings.HasPrefix(obj, `{"id":"c-`), "keys in contract order")
	}
	assert.NotContains(t, string(data), "[]", "empty lists are omitted")
	assert.NotContains(t, string(data), `\u0026`, "HTML characters are not escaped")

	var empty bytes.Buffer
	require.NoError(t, WriteCampaigns(&empty, nil))
	assert.Equal(t, "{\"campaigns\":[\n]}\n", empty.String())
}

func TestCampaignMoney(t *testing.T) {
	for _, c := range Campaigns(1000, DefaultSeed) {
		for _, n := range []json.Number{c.BidCPM, c.DailyBudget} {
			if n == "" {
				continue
			}
			s := string(n)
			assert.Regexp(t, `^(0|[1-9][0-9]*)(\.[0-9]{0,5}[1-9])?$`, s, "%s: shortest decimal, ≤ 6 fractional digits, no exponent", c.ID)
		}
		bid, ok := testMicros(string(c.BidCPM))
		require.True(t, ok)
		assert.GreaterOrEqual(t, bid, int64(200_000), c.ID)
		assert.LessOrEqual(t, bid, int64(12_000_000), c.ID)
		_, frac, _ := strings.Cut(string(c.BidCPM), ".")
		assert.LessOrEqual(t, len(frac), 4, "%s: bid_cpm has at most 4 fractional digits", c.ID)
	}
}

// TestCampaignMix checks the proportions the generator promises, loosely.
func TestCampaignMix(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	share := func(pred func(c Campaign) bool) float64 {
		k := 0
		for _, c := range cs {
			if pred(c) {
				k++
			}
		}
		return float64(k) / float64(len(cs))
	}
	tests := []struct {
		name   string
		pred   func(c Campaign) bool
		lo, hi float64
	}{
		{"active", func(c Campaign) bool { return c.Status == "active" }, 0.85, 0.95},
		{"no daily limit", func(c Campaign) bool { return c.DailyBudget == "" }, 0.15, 0.25},
		{"a zero budget, which never bids", func(c Campaign) bool { return c.DailyBudget == "0" }, 0, 0},
		{"tiny budget", func(c Campaign) bool {
			b, _ := testMicros(string(c.DailyBudget))
			bid, _ := testMicros(string(c.BidCPM))
			return b > 0 && b*1000 < bid
		}, 0.02, 0.08},
		{"no flight", func(c Campaign) bool { return c.Start == "" && c.End == "" }, 0.15, 0.25},
		{"ended", func(c Campaign) bool { return c.End != "" && c.End < "2026-11-01" }, 0.02, 0.08},
		{"freq cap", func(c Campaign) bool { return c.FreqCap != nil }, 0.24, 0.36},
		{"countries", func(c Campaign) bool { return len(c.Targeting.Countries) > 0 }, 0.52, 0.68},
		{"regions", func(c Campaign) bool { return len(c.Targeting.Regions) > 0 }, 0.10, 0.20},
		{"cities", func(c Campaign) bool { return len(c.Targeting.Cities) > 0 }, 0.06, 0.14},
		{"os", func(c Campaign) bool { return len(c.Targeting.OS) > 0 }, 0.33, 0.47},
		{"devtypes", func(c Campaign) bool { return len(c.Targeting.Devtypes) > 0 }, 0.24, 0.36},
		{"sites or bundles", func(c Campaign) bool { return len(c.Targeting.Sites)+len(c.Targeting.Bundles) > 0 }, 0.19, 0.31},
		{"exclusions", func(c Campaign) bool { return len(c.Targeting.ExcludeSites)+len(c.Targeting.ExcludeBundles) > 0 }, 0.06, 0.14},
		{"cats", func(c Campaign) bool { return len(c.Targeting.Cats) > 0 }, 0.29, 0.41},
		{"hours", func(c Campaign) bool { return len(c.Targeting.Hours) > 0 }, 0.15, 0.25},
		{"secure first creative", func(c Campaign) bool { return c.Creatives[0].Secure }, 0.62, 0.80},
		{"escaping advertiser", func(c Campaign) bool { return strings.ContainsAny(c.Advertiser, `&'"<`) }, 0.02, 0.15},
		{"non-ASCII advertiser", func(c Campaign) bool { return !isASCII(c.Advertiser) }, 0.01, 0.10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := share(tt.pred)
			assert.GreaterOrEqual(t, s, tt.lo)
			assert.LessOrEqual(t, s, tt.hi)
		})
	}
}

// TestCampaignTargetingConsistent checks that geographic lists agree with each
// other and that hours are ascending.
func TestCampaignTargetingConsistent(t *testing.T) {
	for _, c := range Campaigns(1000, DefaultSeed) {
		tg := c.Targeting
		for _, r := range tg.Regions {
			if len(tg.Countries) > 0 {
				assert.Contains(t, tg.Countries, r[:2], "%s: region %s outside its countries", c.ID, r)
			}
		}
		for _, name := range tg.Cities {
			ct, ok := cityByName(name)
			require.True(t, ok, name)
			if len(tg.Regions) > 0 {
				assert.Contains(t, tg.Regions, ct.region, "%s: city %s outside its regions", c.ID, name)
			}
			if len(tg.Countries) > 0 {
				assert.Contains(t, tg.Countries, ct.region[:2], "%s: city %s outside its countries", c.ID, name)
			}
		}
		assert.True(t, sort.IntsAreSorted(tg.Hours), c.ID)
		for _, d := range c.Adomain {
			assert.Equal(t, strings.ToLower(d), d)
		}
		for _, s := range tg.Sites {
			assert.NotContains(t, tg.ExcludeSites, s, c.ID)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
