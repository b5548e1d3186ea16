package bidder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/problems"
)

// validCampaign is the contract's example campaign.
const validCampaign = `{
  "id": "c-0001", "advertiser": "Acme Shoes", "adomain": ["acme.example"], "cat": ["IAB18"],
  "status": "active", "bid_cpm": 2.5, "daily_budget": 100,
  "start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z",
  "freq_cap": {"impressions": 3, "period_s": 86400},
  "targeting": {
    "countries": ["CN", "US"], "regions": ["CN-31"], "cities": ["Shanghai"],
    "os": ["android", "ios"], "devtypes": [1, 4, 5],
    "sites": ["news.example.com"], "bundles": ["com.example.news"],
    "exclude_sites": [], "exclude_bundles": [],
    "cats": ["IAB12"], "hours": [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]
  },
  "creatives": [
    {"id": "cr-0001-a", "w": 300, "h": 250, "secure": true,
     "image_url": "https://cdn.acme.example/300x250.jpg",
     "click_url": "https://acme.example/landing?src=dsp&c=1"}
  ]
}`

// withField returns validCampaign with one key (a dotted path) set to raw
// JSON, or removed when raw is "".
func withField(t *testing.T, path, raw string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(validCampaign), &m))
	parts := strings.Split(path, ".")
	obj := m
	for _, p := range parts[:len(parts)-1] {
		if p == "creatives[0]" {
			obj = obj["creatives"].([]any)[0].(map[string]any)
			continue
		}
		obj = obj[p].(map[string]any)
	}
	last := parts[len(parts)-1]
	if raw == "" {
		delete(obj, last)
	} else {
		obj[last] = json.RawMessage(raw)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

func TestParseCatalogValid(t *testing.T) {
	cat, err := ParseCatalog([]byte(`{"campaigns":[` + validCampaign + `]}`))
	require.NoError(t, err)
	require.Equal(t, 1, cat.Len())
	c, ok := cat.Campaign("c-0001")
	require.True(t, ok)
	assert.Equal(t, Micros(2_500_000), c.BidCPM)
	assert.Equal(t, Micros(100_000_000), c.DailyBudget)
	assert.Equal(t, FreqCap{Impressions: 3, PeriodS: 86400}, c.FreqCap)
	assert.True(t, c.Active)
	assert.Equal(t, []int{1, 4, 5}, c.Targeting.DevTypes)
	assert.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), c.Start.UTC())
	require.Len(t, c.Creatives, 1)
	assert.Equal(t, Creative{ID: "cr-0001-a", W: 300, H: 250, Secure: true,
		ImageURL: "https://cdn.acme.example/300x250.jpg",
		ClickURL: "https://acme.example/landing?src=dsp&c=1"}, c.Creatives[0])
}

// TestDailyBudgetMeaning: absent or null means no daily limit, 0 a campaign
// that never bids (contract version 2).
func TestDailyBudgetMeaning(t *testing.T) {
	tests := []struct {
		raw  string
		want Micros
	}{{"", NoDailyLimit}, {"null", NoDailyLimit}, {"0", 0}, {"0.000001", 1}, {"100", 100_000_000}}
	for _, tt := range tests {
		cat, err := ParseCatalog([]byte(`{"campaigns":[` + withField(t, "daily_budget", tt.raw) + `]}`))
		require.NoError(t, err, tt.raw)
		c, _ := cat.Campaign("c-0001")
		assert.Equal(t, tt.want, c.DailyBudget, "daily_budget %q", tt.raw)
		assert.Equal(t, tt.want != NoDailyLimit, c.Limited(), "daily_budget %q", tt.raw)
	}
}

func TestParseCatalogRules(t *testing.T) {
	tests := []struct {
		path, raw string // the field changed ("" raw: removed)
		want      string // the problem named; "" when the change is valid
	}{
		{"id", "", "campaign #0: id: required"},
		{"id", `"` + strings.Repeat("x", 65) + `"`, "id: must be 1–64 printable ASCII"},
		{"id", `"c 1"`, "id: must be 1–64 printable ASCII"},
		{"advertiser", "", "advertiser: required"},
		{"advertiser", `"` + strings.Repeat("a", 129) + `"`, "advertiser: must be 1–128 bytes"},
		{"adomain", `[]`, "adomain: at least one entry is required"},
		{"adomain", "", "adomain: at least one entry is required"},
		{"cat", `[]`, "cat: at least one entry is required"},
		{"cat", `[""]`, "cat[0]: must not be empty"},
		{"status", `"running"`, `status: must be "active" or "paused"`},
		{"status", `"paused"`, ""},
		{"status", "", "status: required"},
		{"bid_cpm", `0`, "bid_cpm: must be > 0"},
		{"bid_cpm", `-1`, "bid_cpm: must not be negative"},
		{"bid_cpm", `1e2`, "bid_cpm: must be written without an exponent"},
		{"bid_cpm", `1.1234567`, "bid_cpm: must have at most 6 digits"},
		{"bid_cpm", `"2.5"`, "bid_cpm: must be a JSON number"},
		{"bid_cpm", "", "bid_cpm: required"},
		{"bid_cpm", `0.000001`, ""},
		{"daily_budget", "", ""},
		{"daily_budget", `0`, ""},
		{"daily_budget", `-5`, "daily_budget: must not be negative"},
		{"daily_budget", `12.0000001`, "daily_budget: must have at most 6 digits"},
		{"start", `"2026-01-01"`, "start: must be an RFC 3339 time"},
		{"end", `"2025-01-01T00:00:00Z"`, "end: must be after start"},
		{"end", "", ""},
		{"pacing", `"even"`, ""},
		{"pacing", `"asap"`, ""},
		{"pacing", `"slow"`, `pacing: must be "asap" or "even"`},
		{"pacing", `"EVEN"`, `pacing: must be "asap" or "even"`},
		{"freq_cap.impressions", `0`, "freq_cap.impressions: must be an integer 1–"},
		{"freq_cap.period_s", `1.5`, "freq_cap.period_s: must be an integer 1–"},
		{"freq_cap.period_s", "", "freq_cap.period_s: required"},
		{"freq_cap.period_s", `31536000`, ""},
		{"freq_cap.period_s", `31536001`, "freq_cap.period_s: must be an integer 1–31536000"},
		{"freq_cap.period_s", `1099511627776`, "freq_cap.period_s: must be an integer 1–31536000"},
		{"targeting.countries", `["CHN"]`, `targeting.countries[0]: malformed value "CHN"`},
		{"targeting.regions", `["Shanghai"]`, `targeting.regions[0]: malformed value`},
		{"targeting.devtypes", `[8]`, "targeting.devtypes[0]: must be an integer 1–7"},
		{"targeting.hours", `[24]`, "targeting.hours[0]: must be an integer 0–23"},
		{"targeting.os", `["windows phone"]`, "targeting.os[0]: malformed value"},
		{"targeting.cats", `[]`, ""},
		{"targeting.exchanges", `["default"]`, ""},
		{"targeting.exchanges", `[]`, ""},
		{"targeting.exchanges", `["adx"]`, `targeting.exchanges[0]: unknown exchange "adx": no exchange declares it`},
		{"targeting.exchanges", `[""]`, "targeting.exchanges[0]: must not be empty"},
		{"creatives", `[]`, "creatives: at least one creative is required"},
		{"creatives[0].w", `0`, "campaign c-0001: creatives[0].w: must be an integer 1–10000"},
		{"creatives[0].h", `10001`, "creatives[0].h: must be an integer 1–10000"},
		{"creatives[0].id", `""`, "creatives[0].id: required"},
		{"creatives[0].image_url", `"/img.jpg"`, "creatives[0].image_url: must be an absolute http or https URL"},
		{"creatives[0].click_url", `"http://acme.example/"`, "creatives[0].click_url: must be https on a secure creative"},
		{"creatives[0].secure", `false`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path+"="+tt.raw, func(t *testing.T) {
			file := `{"campaigns":[` + withField(t, tt.path, tt.raw) + `]}`
			cat, err := ParseCatalog([]byte(file))
			if tt.want == "" {
				require.NoError(t, err)
				assert.Equal(t, 1, cat.Len())
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidCatalog))
			var ce *problems.Error
			require.True(t, errors.As(err, &ce))
			assert.Contains(t, strings.Join(ce.Problems, "\n"), tt.want)
			assert.Nil(t, cat)
		})
	}
}

func TestPacingField(t *testing.T) {
	for raw, want := range map[string]Pacing{"": PacingASAP, `"asap"`: PacingASAP, `"even"`: PacingEven} {
		cat, err := ParseCatalog([]byte(`{"campaigns":[` + withField(t, "pacing", raw) + `]}`))
		require.NoError(t, err)
		assert.Equal(t, want, cat.Campaigns()[0].Pacing, raw)
		assert.Equal(t, want == PacingEven, cat.Campaigns()[0].Paced(), "%s: the campaign has a daily budget", raw)
	}
}

func TestParseCatalogNamesEveryProblem(t *testing.T) {
	second := strings.Replace(validCampaign, `"c-0001"`, `"c-0002"`, 1)
	second = strings.Replace(second, `"w": 300`, `"w": 0`, 1)
	third := strings.Replace(validCampaign, `"status": "active"`, `"status": "on"`, 1) // duplicate id too
	file := `{"campaigns":[` + validCampaign + `,` + second + `,` + third + `,{"id":5}]}`
	_, err := ParseCatalog([]byte(file))
	var ce *problems.Error
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, []string{
		"campaign c-0002: creatives[0].w: must be an integer 1–10000",
		`campaign c-0001: status: must be "active" or "paused"`,
		"campaign c-0001: id: duplicate of campaign #0",
		"campaign #3: json: cannot unmarshal number into Go struct field fileCampaign.id of type string",
	}, ce.Problems)
}

func TestParseCatalogNotACampaignsFile(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"campaigns":{}}`, `{}`, `{"campaigns":[`} {
		_, err := ParseCatalog([]byte(in))
		assert.ErrorIs(t, err, ErrInvalidCatalog, in)
	}
}

func TestLoadCatalogFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"campaigns":[`+validCampaign+`]}`), 0o644))
	cat, err := LoadCatalogFile(path, nil, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, cat.Len())

	_, err = LoadCatalogFile(filepath.Join(dir, "missing.json"), nil, 0)
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
	assert.False(t, errors.Is(err, ErrInvalidCatalog))
}

// TestCatalogExchanges: a campaign may target the exchanges the server
// trades with, and no other.
func TestCatalogExchanges(t *testing.T) {
	file := []byte(`{"campaigns":[` + withField(t, "targeting.exchanges", `["adx","ox"]`) + `]}`)
	_, err := ParseCatalog(file)
	var ce *problems.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{
		`campaign c-0001: targeting.exchanges[0]: unknown exchange "adx": no exchange declares it`,
		`campaign c-0001: targeting.exchanges[1]: unknown exchange "ox": no exchange declares it`,
	}, ce.Problems)
	cat, err := ParseCatalogFor(file, []string{"adx", "ox", "other"})
	require.NoError(t, err)
	c, _ := cat.Campaign("c-0001")
	assert.Equal(t, []string{"adx", "ox"}, c.Targeting.Exchanges)
}
