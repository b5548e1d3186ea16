package bidder

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/problems"
)

// Contract version 3's campaigns file: deals, open_auction, and video and
// native creatives.

const videoCreative = `{"id":"v-1","type":"video","w":640,"h":360,"duration_s":30,"mime":"video/mp4",
 "media_url":"https://cdn.acme.example/30s.mp4","bitrate_kbps":1500,"click_url":"https://acme.example/v"}`

const nativeCreative = `{"id":"n-1","type":"native","title":"Run further","body":"Light shoes for long runs.",
 "sponsored":"Acme Shoes","cta":"Shop now","image_url":"https://cdn.acme.example/1200x627.jpg","image_w":1200,"image_h":627,
 "icon_url":"https://cdn.acme.example/icon.png","icon_w":80,"icon_h":80,"click_url":"https://acme.example/n"}`

// v3Campaign is validCampaign with its creatives replaced and extra
// top-level fields.
func v3Campaign(t *testing.T, creatives, extra string) string {
	c := withField(t, "creatives", "["+creatives+"]")
	if extra != "" {
		c = strings.TrimSuffix(c, "}") + "," + extra + "}"
	}
	return c
}

func TestVersion3Fields(t *testing.T) {
	file := `{"campaigns":[` + v3Campaign(t, videoCreative+","+nativeCreative, `"deals":["D-1","D-2"],"open_auction":false`) + `]}`
	cat, err := ParseCatalog([]byte(file))
	require.NoError(t, err)
	c := cat.Campaigns()[0]
	assert.Equal(t, []string{"D-1", "D-2"}, c.Deals)
	assert.True(t, c.DealsOnly)
	assert.True(t, c.HasDeal("D-2"))
	assert.False(t, c.HasDeal("D-3"))
	v, n := c.Creatives[0], c.Creatives[1]
	assert.Equal(t, Creative{ID: "v-1", Kind: Video, W: 640, H: 360, Secure: false, ClickURL: "https://acme.example/v", DurationS: 30,
		Mime: "video/mp4", MediaURL: "https://cdn.acme.example/30s.mp4", BitrateKbps: 1500, VASTVersion: "4.2"}, v)
	assert.Equal(t, Native, n.Kind)
	assert.Equal(t, "Run further", n.Title)
	assert.Equal(t, 1200, n.ImageW)
	assert.Equal(t, "https://cdn.acme.example/icon.png", n.IconURL)
	assert.Zero(t, n.W, "a native ad has no size of its own")

	plain, err := ParseCatalog([]byte(`{"campaigns":[` + validCampaign + `]}`))
	require.NoError(t, err)
	pc := plain.Campaigns()[0]
	assert.False(t, pc.DealsOnly, "open_auction defaults to true")
	assert.Equal(t, Banner, pc.Creatives[0].Kind, "type defaults to banner")
}

func TestVersion3Rules(t *testing.T) {
	video := func(field, raw string) string { return withRaw(t, videoCreative, field, raw) }
	native := func(field, raw string) string { return withRaw(t, nativeCreative, field, raw) }
	tests := []struct {
		name, creatives, extra string
		want                   []string // every problem named ("": valid)
	}{
		{"a deal-only campaign", videoCreative, `"deals":["D-1"],"open_auction":false`, nil},
		{"open_auction false without deals", videoCreative, `"open_auction":false`,
			[]string{"campaign c-0001: open_auction: false needs at least one deal in deals"}},
		{"open_auction not a bool", videoCreative, `"open_auction":"no"`, []string{"campaign c-0001: json: cannot unmarshal"}},
		{"deals", videoCreative, `"deals":["","D 1","D-1","D-1"]`, []string{
			"campaign c-0001: deals[0]: must be 1–64 printable ASCII characters",
			"campaign c-0001: deals[1]: must be 1–64 printable ASCII characters",
			`campaign c-0001: deals[3]: duplicate deal "D-1"`}},
		{"an unknown type", `{"id":"x","type":"audio","click_url":"https://a.example/"}`, "",
			[]string{`campaign c-0001: creatives[0].type: must be "banner", "video" or "native"`}},
		{"video: a banner's image", video("image_url", `"https://a.example/i.png"`), "",
			[]string{"campaign c-0001: creatives[0].image_url: only on banner and native creatives"}},
		{"video: required fields", video("duration_s", "") + "," + video("mime", ""), "", []string{
			"campaign c-0001: creatives[0].duration_s: required",
			`campaign c-0001: creatives[1].mime: required`,
			`campaign c-0001: creatives[1].id: duplicate creative id "v-1"`}},
		{"video: bounds", withRaw(t, withRaw(t, withRaw(t, video("duration_s", "3601"), "bitrate_kbps", "0"), "mime", `"video"`),
			"vast_version", `"3.1"`), "", []string{
			"campaign c-0001: creatives[0].duration_s: must be an integer 1–3600",
			"campaign c-0001: creatives[0].mime: must be a media type such as video/mp4",
			"campaign c-0001: creatives[0].bitrate_kbps: must be an integer 1–100000",
			`campaign c-0001: creatives[0].vast_version: must be "2.0", "3.0", "4.0", "4.1" or "4.2"`}},
		{"video: secure needs https media", withRaw(t, video("secure", "true"), "media_url", `"http://cdn.example/a.mp4"`), "",
			[]string{"campaign c-0001: creatives[0].media_url: must be https on a secure creative"}},
		{"video: a native field", video("title", `"t"`), "", []string{"campaign c-0001: creatives[0].title: only on native creatives"}},
		{"native: a size", native("w", "300"), "", []string{"campaign c-0001: creatives[0].w: only on banner and video creatives"}},
		{"native: texts", withRaw(t, withRaw(t, native("title", `"`+strings.Repeat("t", 141)+`"`), "sponsored", `""`), "cta",
			`"`+strings.Repeat("c", 33)+`"`), "", []string{
			"campaign c-0001: creatives[0].title: must be 1–140 bytes",
			"campaign c-0001: creatives[0].sponsored: must be 1–64 bytes",
			"campaign c-0001: creatives[0].cta: must be 0–32 bytes"}},
		{"native: no body, no cta, no icon", withRaw(t, withRaw(t, withRaw(t, withRaw(t, withRaw(t, nativeCreative, "body", ""),
			"cta", ""), "icon_url", ""), "icon_w", ""), "icon_h", ""), "", nil},
		{"native: an icon's size without it", native("icon_url", ""), "", []string{
			"campaign c-0001: creatives[0].icon_w: only with icon_url", "campaign c-0001: creatives[0].icon_h: only with icon_url"}},
		{"native: the main image", withRaw(t, native("image_w", ""), "image_url", ""), "", []string{
			"campaign c-0001: creatives[0].image_url: required", "campaign c-0001: creatives[0].image_w: required"}},
		{"native: a video field", native("duration_s", "30"), "", []string{"campaign c-0001: creatives[0].duration_s: only on video creatives"}},
		{"banner: a video field", withRaw(t, `{"id":"b","w":300,"h":250,"image_url":"https://a.example/i","click_url":"https://a.example/"}`,
			"mime", `"video/mp4"`), "", []string{"campaign c-0001: creatives[0].mime: only on video creatives"}},
		{"banner: image_url still required", `{"id":"b","type":"banner","w":300,"h":250,"click_url":"https://a.example/"}`, "",
			[]string{"campaign c-0001: creatives[0].image_url: required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCatalog([]byte(`{"campaigns":[` + v3Campaign(t, tt.creatives, tt.extra) + `]}`))
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var ce *problems.Error
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.True(t, errors.Is(err, ErrInvalidCatalog))
			for _, w := range tt.want {
				found := false
				for _, p := range ce.Problems {
					found = found || strings.HasPrefix(p, w)
				}
				assert.True(t, found, "%q not among %q", w, ce.Problems)
			}
			if !strings.Contains(tt.want[0], "json:") {
				assert.Len(t, ce.Problems, len(tt.want), "%q", ce.Problems)
			}
		})
	}
}

// withRaw returns the JSON object obj with key set to raw JSON, or removed
// when raw is "".
func withRaw(t *testing.T, obj, key, raw string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(obj), &m))
	if raw == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(raw)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}
