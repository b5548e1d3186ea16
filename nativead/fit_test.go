package nativead

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fitBoth fits cr to r both ways (Fit, and the prepared creative's), which
// must agree.
func fitBoth(t *testing.T, r *Request, cr *Creative) (Plan, bool) {
	t.Helper()
	p, ok := Fit(r, cr)
	pp, pok := Prepare(cr).Fit(r)
	require.Equal(t, ok, pok)
	require.Equal(t, p, pp)
	return p, ok
}

// one is a request of one required asset.
func one(asset string) string {
	return `{"assets":[{"id":7,"required":1,` + asset + `}]}`
}

func TestFitRules(t *testing.T) {
	e := strings.Repeat("é", 25) // 25 characters, 50 bytes
	tests := []struct {
		name  string
		asset string
		cr    func(*Creative)
		fill  Fill // FillNone: a mismatch
		miss  Miss
	}{
		// title
		{"title within len", `"title":{"len":90}`, nil, FillTitle, MissNone},
		{"title of exactly len characters, multibyte", `"title":{"len":25}`, func(c *Creative) { c.Title = e }, FillTitle, MissNone},
		{"title one character over len, multibyte: never cut", `"title":{"len":25}`, func(c *Creative) { c.Title = e + "e" }, FillNone, MissTitleLen},
		{"title of len characters in more bytes than len", `"title":{"len":3}`, func(c *Creative) { c.Title = "日本語" }, FillTitle, MissNone},
		{"title of four-byte characters", `"title":{"len":2}`, func(c *Creative) { c.Title = "☕🫘" }, FillTitle, MissNone},
		{"title too long", `"title":{"len":10}`, nil, FillNone, MissTitleLen},
		{"title without len: any length", `"title":{}`, func(c *Creative) { c.Title = strings.Repeat("x", 500) }, FillTitle, MissNone},
		{"title with len 0: any length", `"title":{"len":0}`, func(c *Creative) { c.Title = strings.Repeat("x", 500) }, FillTitle, MissNone},
		{"no title", `"title":{"len":90}`, func(c *Creative) { c.Title = "" }, FillNone, MissText},
		// main image
		{"main image at least wmin x hmin", `"img":{"type":3,"wmin":836,"hmin":627}`, nil, FillImage, MissNone},
		{"main image exactly wmin x hmin", `"img":{"type":3,"wmin":1200,"hmin":627}`, nil, FillImage, MissNone},
		{"main image too narrow", `"img":{"type":3,"wmin":1201,"hmin":627}`, nil, FillNone, MissImageSize},
		{"main image too low", `"img":{"type":3,"wmin":836,"hmin":628}`, nil, FillNone, MissImageSize},
		{"main image exactly w x h", `"img":{"type":3,"w":1200,"h":627}`, nil, FillImage, MissNone},
		{"main image larger than w x h: exact", `"img":{"type":3,"w":1000,"h":627}`, nil, FillNone, MissImageSize},
		{"main image smaller than w x h", `"img":{"type":3,"w":1200,"h":628}`, nil, FillNone, MissImageSize},
		{"w x h with wmin x hmin: the minimum counts", `"img":{"type":3,"w":1000,"h":500,"wmin":600,"hmin":300}`, nil, FillImage, MissNone},
		{"wmin with exact h", `"img":{"type":3,"wmin":600,"h":627}`, nil, FillImage, MissNone},
		{"wmin with another exact h", `"img":{"type":3,"wmin":600,"h":600}`, nil, FillNone, MissImageSize},
		{"w only: any height", `"img":{"type":3,"w":1200}`, nil, FillImage, MissNone},
		{"no size: any", `"img":{"type":3}`, nil, FillImage, MissNone},
		{"unknown size meets no minimum", `"img":{"type":3,"wmin":1,"hmin":1}`, func(c *Creative) { c.ImageW, c.ImageH = 0, 0 }, FillNone, MissImageSize},
		{"unknown size, no size asked", `"img":{"type":3}`, func(c *Creative) { c.ImageW, c.ImageH = 0, 0 }, FillImage, MissNone},
		{"no main image", `"img":{"type":3}`, func(c *Creative) { c.ImageURL = "" }, FillNone, MissImage},
		// icon
		{"icon at least 50 x 50", `"img":{"type":1,"wmin":50,"hmin":50}`, nil, FillIcon, MissNone},
		{"icon too small", `"img":{"type":1,"wmin":100,"hmin":100}`, nil, FillNone, MissImageSize},
		{"icon exactly 80 x 80", `"img":{"type":1,"w":80,"h":80}`, nil, FillIcon, MissNone},
		{"icon not 50 x 50 exactly", `"img":{"type":1,"w":50,"h":50}`, nil, FillNone, MissImageSize},
		{"no icon", `"img":{"type":1}`, func(c *Creative) { c.IconURL = "" }, FillNone, MissIcon},
		{"no icon, though a main image", `"img":{"type":1,"wmin":50,"hmin":50}`, func(c *Creative) { c.IconURL = "" }, FillNone, MissIcon},
		{"logo (type 2): the icon", `"img":{"type":2,"wmin":50,"hmin":50}`, nil, FillIcon, MissNone},
		{"img without a type", `"img":{"wmin":50,"hmin":50}`, nil, FillNone, MissImageType},
		{"img of an exchange's type", `"img":{"type":500}`, nil, FillNone, MissImageType},
		// data
		{"sponsored", `"data":{"type":1,"len":25}`, nil, FillSponsored, MissNone},
		{"sponsored too long", `"data":{"type":1,"len":10}`, nil, FillNone, MissDataLen},
		{"sponsored without len", `"data":{"type":1}`, func(c *Creative) { c.Sponsored = strings.Repeat("s", 300) }, FillSponsored, MissNone},
		{"no sponsored", `"data":{"type":1}`, func(c *Creative) { c.Sponsored = "" }, FillNone, MissText},
		{"desc", `"data":{"type":2,"len":140}`, nil, FillBody, MissNone},
		{"desc of exactly len characters", `"data":{"type":2,"len":5}`, func(c *Creative) { c.Body = "naïve" }, FillBody, MissNone},
		{"desc too long", `"data":{"type":2,"len":4}`, func(c *Creative) { c.Body = "naïve" }, FillNone, MissDataLen},
		{"no desc", `"data":{"type":2}`, func(c *Creative) { c.Body = "" }, FillNone, MissText},
		{"ctatext", `"data":{"type":12,"len":15}`, nil, FillCTA, MissNone},
		{"ctatext too long", `"data":{"type":12,"len":8}`, nil, FillNone, MissDataLen},
		{"no ctatext", `"data":{"type":12}`, func(c *Creative) { c.CTA = "" }, FillNone, MissText},
		{"rating", `"data":{"type":3}`, nil, FillNone, MissDataType},
		{"price", `"data":{"type":6}`, nil, FillNone, MissDataType},
		{"phone", `"data":{"type":8}`, nil, FillNone, MissDataType},
		{"address", `"data":{"type":9}`, nil, FillNone, MissDataType},
		{"data without a type", `"data":{"len":25}`, nil, FillNone, MissDataType},
		// other kinds
		{"video", `"video":{"mimes":["video/mp4"]}`, nil, FillNone, MissVideo},
		{"no kind", `"ext":{}`, nil, FillNone, MissUnknown},
		{"two kinds", `"title":{},"data":{"type":1}`, nil, FillNone, MissMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := testCreative()
			if tt.cr != nil {
				tt.cr(&cr)
			}
			r := parsed(t, one(tt.asset))
			p, ok := fitBoth(t, r, &cr)
			miss, id := p.Miss()
			assert.Equal(t, tt.miss, miss, miss.String())
			if tt.fill == FillNone {
				assert.False(t, ok)
				assert.Equal(t, 7, id)
				assert.Empty(t, p.Slots())
			} else {
				assert.True(t, ok)
				assert.Equal(t, []Slot{{ID: 7, Fill: tt.fill}}, p.Slots())
			}

			// Not required: the asset is left out, and the answer holds
			// the other one, required.
			other, otherFill := `"title":{}`, FillTitle
			if strings.Contains(tt.asset, `"title"`) {
				other, otherFill = `"data":{"type":2}`, FillBody
			}
			r = parsed(t, `{"assets":[{"id":1,"required":1,`+other+`},{"id":7,`+tt.asset+`}]}`)
			p, ok = fitBoth(t, r, &cr)
			require.True(t, ok)
			want := []Slot{{ID: 1, Fill: otherFill}}
			if tt.fill != FillNone {
				want = append(want, Slot{ID: 7, Fill: tt.fill})
			}
			assert.Equal(t, want, p.Slots())
			miss, _ = p.Miss()
			assert.Equal(t, MissNone, miss)
		})
	}
}

func TestFitRequest(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		cr    func(*Creative)
		ok    bool
		miss  Miss
		slots []Slot
		track Tracking
	}{
		{"6.1", sample61, nil, true, MissNone, []Slot{
			{123, FillTitle}, {128, FillImage}, {124, FillIcon}, {126, FillSponsored}, {127, FillBody}}, TrackEvent},
		{"6.1 without an icon", sample61, func(c *Creative) { c.IconURL = "" }, false, MissIcon, nil, TrackEvent},
		{"6.1 with a small main image: left out", sample61, func(c *Creative) { c.ImageW, c.ImageH = 600, 314 }, true, MissNone, []Slot{
			{123, FillTitle}, {124, FillIcon}, {126, FillSponsored}, {127, FillBody}}, TrackEvent},
		{"6.2: the optional video left out", sample62, nil, true, MissNone, []Slot{
			{123, FillTitle}, {128, FillImage}, {124, FillIcon}, {126, FillSponsored}, {127, FillBody}}, TrackEvent},
		{"6.2 with the video required", strings.Replace(sample62, `{"id":4,`, `{"id":4,"required":1,`, 1),
			nil, false, MissVideo, nil, TrackEvent},
		{"the first required asset at fault counts", `{"assets":[{"id":1,"required":1,"data":{"type":3}},{"id":2,"required":1,"video":{}}]}`,
			nil, false, MissDataType, nil, TrackImpTrackers},
		{"no click URL", sample61, func(c *Creative) { c.ClickURL = "" }, false, MissNoClickURL, nil, TrackEvent},
		{"nothing to fill", `{"assets":[{"id":1,"data":{"type":3}},{"id":2,"video":{}}]}`, nil, false, MissNothing, nil, TrackImpTrackers},
		{"a malformed required asset", `{"assets":[{"id":1,"required":1,"title":{}},{"id":1,"title":{}}]}`, nil, false, MissMalformed, nil, TrackImpTrackers},
		{"a malformed optional asset is left out", `{"assets":[{"required":1,"title":{}},{"id":2,"title":{}}]}`, nil, false, MissMalformed, nil, TrackImpTrackers},
		{"a malformed optional asset is left out, the rest fits", `{"assets":[{"title":{}},{"id":2,"required":1,"title":{}}]}`, nil, true, MissNone,
			[]Slot{{2, FillTitle}}, TrackImpTrackers},
		{"asset id 0", `{"assets":[{"id":0,"required":1,"title":{}}]}`, nil, true, MissNone, []Slot{{0, FillTitle}}, TrackImpTrackers},
		{"the same fill twice", `{"assets":[{"id":1,"title":{"len":25}},{"id":2,"title":{"len":140}}]}`, func(c *Creative) { c.Title = "short" },
			true, MissNone, []Slot{{1, FillTitle}, {2, FillTitle}}, TrackImpTrackers},
		{"js only for the impression: imptrackers", strings.Replace(sample61, `"methods":[1,2]`, `"methods":[2]`, 1),
			nil, true, MissNone, []Slot{{123, FillTitle}, {128, FillImage}, {124, FillIcon}, {126, FillSponsored}, {127, FillBody}}, TrackImpTrackers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := testCreative()
			if tt.cr != nil {
				tt.cr(&cr)
			}
			p, ok := fitBoth(t, parsed(t, tt.doc), &cr)
			assert.Equal(t, tt.ok, ok)
			miss, _ := p.Miss()
			assert.Equal(t, tt.miss, miss, miss.String())
			if tt.ok {
				assert.Equal(t, tt.slots, p.Slots())
			}
			assert.Equal(t, tt.track, p.Tracking())
		})
	}
}

func TestFitTooManyAssets(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"assets":[{"id":0,"required":1,"title":{}}`)
	for i := 1; i < MaxAssets+3; i++ {
		b.WriteString(`,{"id":` + strconv.Itoa(i) + `,"data":{"type":2}}`)
	}
	doc := b.String() + `]}`
	cr := testCreative()

	p, ok := fitBoth(t, parsed(t, doc), &cr)
	require.True(t, ok, "the assets past MaxAssets are optional")
	assert.Len(t, p.Slots(), MaxAssets)

	required := strings.Replace(doc, `,"data":{"type":2}}]}`, `,"required":1,"data":{"type":2}}]}`, 1)
	require.NotEqual(t, doc, required)
	p, ok = fitBoth(t, parsed(t, required), &cr)
	assert.False(t, ok)
	miss, _ := p.Miss()
	assert.Equal(t, MissTooMany, miss)
}

func TestFitTracking(t *testing.T) {
	assets := `"assets":[{"id":1,"title":{}}]`
	tests := []struct {
		name     string
		doc      string
		tracking Tracking
	}{
		{"img offered for the impression", `{"eventtrackers":[{"event":1,"methods":[1]}],` + assets + `}`, TrackEvent},
		{"img and js offered", `{"eventtrackers":[{"event":1,"methods":[2,1]}],` + assets + `}`, TrackEvent},
		{"js only", `{"eventtrackers":[{"event":1,"methods":[2]}],` + assets + `}`, TrackImpTrackers},
		{"img for another event only", `{"eventtrackers":[{"event":2,"methods":[1]}],` + assets + `}`, TrackImpTrackers},
		{"an empty list", `{"eventtrackers":[],` + assets + `}`, TrackImpTrackers},
		{"no list (1.0, 1.1)", `{` + assets + `}`, TrackImpTrackers},
		{"the samples' spelling", `{"eventrackers":[{"event":1,"methods":[1]}],` + assets + `}`, TrackEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := testCreative()
			p, ok := fitBoth(t, parsed(t, tt.doc), &cr)
			require.True(t, ok)
			assert.Equal(t, tt.tracking, p.Tracking())
		})
	}
}

func TestMissString(t *testing.T) {
	seen := map[string]bool{}
	for m := MissNone; m <= MissNothing; m++ {
		s := m.String()
		assert.NotEqual(t, "unknown", s, "Miss %d", m)
		assert.False(t, seen[s], s)
		seen[s] = true
	}
	assert.Equal(t, "unknown", (MissNothing + 1).String())
}
