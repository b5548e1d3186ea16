package nativead

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerBoth writes the answer both ways (from the Creative, and from the
// prepared one), which must give the same bytes, after a prefix that must
// stay.
func answerBoth(t *testing.T, p *Plan, cr *Creative, click, imp []byte) []byte {
	t.Helper()
	prefix := []byte(`"adm":"`)
	a := AppendResponse(append([]byte(nil), prefix...), p, cr, click, imp)
	b := Prepare(cr).AppendResponse(append([]byte(nil), prefix...), p, click, imp)
	require.Equal(t, string(a), string(b))
	require.Equal(t, string(prefix), string(a[:len(prefix)]))
	return a[len(prefix):]
}

func ptr(n int) *int { return &n }

func TestAppendResponseSample(t *testing.T) {
	const (
		click = "https://dsp.example/dsp/click?b=0f1e&t=1700000000&c=camp%201&r=cr&s=AbC-_"
		imp   = "https://dsp.example/dsp/imp?b=0f1e&t=1700000000&c=camp%201&r=cr&s=AbC-_"
	)
	cr := testCreative()
	for _, form := range []struct {
		name    string
		data    []byte
		wrapped bool
	}{
		{"string", asString(sample61), false},
		{"object", []byte(sample61), false},
		{"1.0 wrapper", asString(`{"native":` + sample61 + `}`), true},
	} {
		t.Run(form.name, func(t *testing.T) {
			var r Request
			require.NoError(t, ParseRequest(form.data, &r))
			p, ok := fitBoth(t, &r, &cr)
			require.True(t, ok)
			doc, wrapped := decodeAdm(t, answerBoth(t, &p, &cr, esc(click), esc(imp)))
			assert.Equal(t, form.wrapped, wrapped)
			assert.Equal(t, "1.2", doc.Ver)
			require.Len(t, doc.Assets, 5)
			a := doc.Assets
			assert.Equal(t, []int{123, 128, 124, 126, 127}, []int{*a[0].ID, *a[1].ID, *a[2].ID, *a[3].ID, *a[4].ID}, "the request's order")
			require.NotNil(t, a[0].Title)
			assert.Equal(t, cr.Title, a[0].Title.Text)
			require.NotNil(t, a[1].Img)
			assert.Equal(t, cr.ImageURL, a[1].Img.URL)
			assert.Equal(t, ptr(1200), a[1].Img.W)
			assert.Equal(t, ptr(627), a[1].Img.H)
			require.NotNil(t, a[2].Img)
			assert.Equal(t, cr.IconURL, a[2].Img.URL)
			assert.Equal(t, ptr(80), a[2].Img.W)
			assert.Equal(t, ptr(80), a[2].Img.H)
			require.NotNil(t, a[3].Data)
			assert.Equal(t, cr.Sponsored, a[3].Data.Value)
			require.NotNil(t, a[4].Data)
			assert.Equal(t, cr.Body, a[4].Data.Value)
			for _, x := range a {
				n := 0
				for _, set := range []bool{x.Title != nil, x.Img != nil, x.Data != nil} {
					if set {
						n++
					}
				}
				assert.Equal(t, 1, n, "one kind per asset")
			}
			require.NotNil(t, doc.Link)
			assert.Equal(t, click, doc.Link.URL)
			assert.Equal(t, []eventDoc{{Event: 1, Method: 1, URL: imp}}, doc.Events)
			assert.Nil(t, doc.Imp)
		})
	}
}

// The creative's texts go through two escapings and come back as they
// were.
func TestAppendResponseEscaping(t *testing.T) {
	texts := []string{
		`say "hi"`,
		`back\slash \" \\ \u0041 \n`,
		`<script>alert('x')</script> & </div>`,
		"line one\nline two\r\n\ttabbed",
		"controls \x00\x01\x07\b\f\x1f\x7f end",
		"naïve café, 日本語, emoji ☕🫘, U+2028 \u2028 U+2029 \u2029",
		`{"json":"inside"}`,
		"}]},\"",
	}
	for _, s := range texts {
		t.Run(s, func(t *testing.T) {
			cr := Creative{
				Title: s, Body: "body " + s, Sponsored: "sp " + s, CTA: "cta " + s,
				ImageURL: "https://cdn.example/i.png?q=" + s, ImageW: 10, ImageH: 20,
				IconURL: "https://cdn.example/c.png?q=" + s, IconW: 1, IconH: 1,
				ClickURL: "https://shop.example/?q=" + s,
			}
			r := parsed(t, `{"assets":[{"id":1,"title":{}},{"id":2,"data":{"type":2}},{"id":3,"data":{"type":1}},
				{"id":4,"data":{"type":12}},{"id":5,"img":{"type":3}},{"id":6,"img":{"type":1}}]}`)
			p, ok := fitBoth(t, r, &cr)
			require.True(t, ok)
			for _, click := range [][]byte{nil, esc("https://dsp.example/click?u=" + s)} {
				doc, _ := decodeAdm(t, answerBoth(t, &p, &cr, click, esc("https://dsp.example/imp?u="+s)))
				require.Len(t, doc.Assets, 6)
				assert.Equal(t, s, doc.Assets[0].Title.Text)
				assert.Equal(t, cr.Body, doc.Assets[1].Data.Value)
				assert.Equal(t, cr.Sponsored, doc.Assets[2].Data.Value)
				assert.Equal(t, cr.CTA, doc.Assets[3].Data.Value)
				assert.Equal(t, cr.ImageURL, doc.Assets[4].Img.URL)
				assert.Equal(t, cr.IconURL, doc.Assets[5].Img.URL)
				if click == nil {
					assert.Equal(t, cr.ClickURL, doc.Link.URL, "the creative's own link")
				} else {
					assert.Equal(t, "https://dsp.example/click?u="+s, doc.Link.URL)
				}
				assert.Equal(t, "https://dsp.example/imp?u="+s, doc.Imp[0])
			}
		})
	}
}

// A byte that is not UTF-8 becomes U+FFFD, one per byte, as many
// characters as Fit counted.
func TestAppendResponseInvalidUTF8(t *testing.T) {
	cr := testCreative()
	cr.Title = "a\xffb\xe2\x82c\xed\xa0\x80"
	r := parsed(t, `{"assets":[{"id":1,"required":1,"title":{"len":9}}]}`)
	p, ok := fitBoth(t, r, &cr)
	require.True(t, ok, "9 characters")
	adm := answerBoth(t, &p, &cr, nil, nil)
	doc, _ := decodeAdm(t, adm)
	want := "a\uFFFDb\uFFFD\uFFFDc\uFFFD\uFFFD\uFFFD"
	assert.Equal(t, want, doc.Assets[0].Title.Text)
	assert.Equal(t, 9, len([]rune(want)))

	r = parsed(t, `{"assets":[{"id":1,"required":1,"title":{"len":8}}]}`)
	_, ok = fitBoth(t, r, &cr)
	assert.False(t, ok)
}

func TestAppendResponseForms(t *testing.T) {
	imp := "https://dsp.example/imp?b=1"
	tests := []struct {
		name  string
		doc   string
		cr    func(*Creative)
		imp   string
		check func(t *testing.T, doc nativeDoc, wrapped bool)
	}{
		{"imptrackers when no eventtrackers are listed", `{"assets":[{"id":1,"title":{}}]}`, nil, imp,
			func(t *testing.T, doc nativeDoc, wrapped bool) {
				assert.Equal(t, []string{imp}, doc.Imp)
				assert.Nil(t, doc.Events)
				assert.False(t, wrapped)
			}},
		{"imptrackers when the impression offers js only", `{"eventtrackers":[{"event":1,"methods":[2]}],"assets":[{"id":1,"title":{}}]}`, nil, imp,
			func(t *testing.T, doc nativeDoc, _ bool) {
				assert.Equal(t, []string{imp}, doc.Imp)
				assert.Nil(t, doc.Events)
			}},
		{"no tracker without an impression URL", `{"eventtrackers":[{"event":1,"methods":[1]}],"assets":[{"id":1,"title":{}}]}`, nil, "",
			func(t *testing.T, doc nativeDoc, _ bool) {
				assert.Nil(t, doc.Imp)
				assert.Nil(t, doc.Events)
			}},
		{"wrapped, with imptrackers", `{"native":{"assets":[{"id":1,"title":{}}]}}`, nil, imp,
			func(t *testing.T, doc nativeDoc, wrapped bool) {
				assert.True(t, wrapped)
				assert.Equal(t, []string{imp}, doc.Imp)
			}},
		{"image sizes unknown: left out", `{"assets":[{"id":1,"img":{"type":3}},{"id":2,"img":{"type":1}}]}`,
			func(c *Creative) { c.ImageW, c.ImageH, c.IconW, c.IconH = 0, 0, 64, 0 }, imp,
			func(t *testing.T, doc nativeDoc, _ bool) {
				require.Len(t, doc.Assets, 2)
				assert.Nil(t, doc.Assets[0].Img.W)
				assert.Nil(t, doc.Assets[0].Img.H)
				assert.Equal(t, ptr(64), doc.Assets[1].Img.W)
				assert.Nil(t, doc.Assets[1].Img.H)
			}},
		{"one asset", `{"assets":[{"id":2147483647,"required":1,"data":{"type":12,"len":15}}]}`, nil, imp,
			func(t *testing.T, doc nativeDoc, _ bool) {
				require.Len(t, doc.Assets, 1)
				assert.Equal(t, ptr(2147483647), doc.Assets[0].ID)
				assert.Equal(t, "Order now", doc.Assets[0].Data.Value)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := testCreative()
			if tt.cr != nil {
				tt.cr(&cr)
			}
			p, ok := fitBoth(t, parsed(t, tt.doc), &cr)
			require.True(t, ok)
			doc, wrapped := decodeAdm(t, answerBoth(t, &p, &cr, nil, esc(tt.imp)))
			assert.Equal(t, "1.2", doc.Ver)
			assert.Equal(t, cr.ClickURL, doc.Link.URL)
			tt.check(t, doc, wrapped)
		})
	}
}

// A plan made for another creative: the slots this one cannot fill are
// left out, and the answer stays valid.
func TestAppendResponseForeignPlan(t *testing.T) {
	full := testCreative()
	p, ok := fitBoth(t, parsed(t, sample61), &full)
	require.True(t, ok)
	bare := Creative{Title: "only a title", ClickURL: "https://x.example/"}
	doc, _ := decodeAdm(t, answerBoth(t, &p, &bare, nil, nil))
	require.Len(t, doc.Assets, 1)
	assert.Equal(t, "only a title", doc.Assets[0].Title.Text)

	var zero Plan
	doc, _ = decodeAdm(t, answerBoth(t, &zero, &bare, nil, nil))
	assert.Empty(t, doc.Assets)
}

// The exact bytes of one answer, so that a change of form is seen.
func TestAppendResponseBytes(t *testing.T) {
	cr := Creative{Title: `T "1"`, Sponsored: "S", ImageURL: "https://i.example/a.png", ImageW: 300, ImageH: 250, ClickURL: "https://c.example/"}
	r := parsed(t, `{"eventtrackers":[{"event":1,"methods":[1]}],"assets":[{"id":1,"title":{"len":25}},{"id":2,"img":{"type":3}},{"id":3,"data":{"type":1}}]}`)
	p, ok := fitBoth(t, r, &cr)
	require.True(t, ok)
	got := answerBoth(t, &p, &cr, nil, []byte("https://t.example/i?b=1"))
	want := `{\"ver\":\"1.2\",\"assets\":[` +
		`{\"id\":1,\"title\":{\"text\":\"T \\\"1\\\"\"}},` +
		`{\"id\":2,\"img\":{\"url\":\"https://i.example/a.png\",\"w\":300,\"h\":250}},` +
		`{\"id\":3,\"data\":{\"value\":\"S\"}}],` +
		`\"link\":{\"url\":\"https://c.example/\"},` +
		`\"eventtrackers\":[{\"event\":1,\"method\":1,\"url\":\"https://t.example/i?b=1\"}]}`
	assert.Equal(t, want, string(got))
	assert.False(t, strings.Contains(string(got), "required"), "no required echoed")
}
