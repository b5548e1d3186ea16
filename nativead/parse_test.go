package nativead

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/jsoncodec"
)

// sample61Assets is what section 6.1's request holds.
var sample61Assets = []Asset{
	{ID: 123, Required: true, Kind: KindTitle, Len: 140, idOK: true},
	{ID: 128, Kind: KindImage, Type: ImageMain, WMin: 836, HMin: 627, idOK: true},
	{ID: 124, Required: true, Kind: KindImage, Type: ImageIcon, WMin: 50, HMin: 50, idOK: true},
	{ID: 126, Required: true, Kind: KindData, Type: DataSponsored, Len: 25, idOK: true},
	{ID: 127, Required: true, Kind: KindData, Type: DataDesc, Len: 140, idOK: true},
}

func TestParseRequestSamples(t *testing.T) {
	wrapped := `{"native":` + sample61 + `}`
	tests := []struct {
		name    string
		data    []byte
		wrapped bool
		assets  []Asset
	}{
		{"6.1 as an object", []byte(sample61), false, sample61Assets},
		{"6.1 as a string", asString(sample61), false, sample61Assets},
		{"6.1 wrapped, as an object", []byte(wrapped), true, sample61Assets},
		{"6.1 wrapped, as a string", asString(wrapped), true, sample61Assets},
		{"6.1 with blanks around", []byte(" \n\t" + string(asString(sample61)) + " \r\n"), false, sample61Assets},
		{"6.2 as a string", asString(sample62), false,
			append([]Asset{{ID: 4, Kind: KindVideo, idOK: true}}, sample61Assets...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Request
			require.NoError(t, ParseRequest(tt.data, &r))
			assert.Equal(t, tt.assets, r.Assets())
			assert.Equal(t, "1.2", r.Ver)
			assert.Equal(t, 11, r.PlcmtType)
			assert.Equal(t, 1, r.PlcmtCnt)
			assert.True(t, r.EventTrackers)
			assert.True(t, r.ImpImg, "event 1 offers method 1")
			assert.True(t, r.ImpJS, "event 1 offers method 2")
			assert.Equal(t, tt.wrapped, r.Wrapped)
			assert.Zero(t, r.Dropped)
		})
	}
	r := parsed(t, sample61)
	assert.Equal(t, 2, r.Context)
	assert.Equal(t, 20, r.ContextSubtype)
}

func TestParseRequestFields(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		check func(t *testing.T, r *Request)
	}{
		{"ver as a number", `{"ver":1.2,"assets":[{"id":1,"title":{}}]}`, func(t *testing.T, r *Request) {
			assert.Equal(t, "1.2", r.Ver)
		}},
		{"ver with escapes", `{"ver":"1\u002e1","assets":[{"id":1,"title":{}}]}`, func(t *testing.T, r *Request) {
			assert.Equal(t, "1.1", r.Ver)
		}},
		{"ver too long, or of another kind: absent", `{"ver":"` + strings.Repeat("9", 17) + `","assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) { assert.Empty(t, r.Ver) }},
		{"ver an object: absent", `{"ver":{"v":1},"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) { assert.Empty(t, r.Ver) }},
		{"the correct trackers' key", `{"eventtrackers":[{"methods":[1],"event":1}],"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				assert.True(t, r.EventTrackers)
				assert.True(t, r.ImpImg, "methods before event")
				assert.False(t, r.ImpJS)
			}},
		{"no trackers listed", `{"assets":[{"id":1,"title":{}}]}`, func(t *testing.T, r *Request) {
			assert.False(t, r.EventTrackers)
			assert.False(t, r.ImpImg)
		}},
		{"empty trackers list", `{"eventtrackers":[],"assets":[{"id":1,"title":{}}]}`, func(t *testing.T, r *Request) {
			assert.True(t, r.EventTrackers)
			assert.False(t, r.ImpImg)
		}},
		{"js only for the impression, img for another event",
			`{"eventtrackers":[{"event":1,"methods":[2]},{"event":2,"methods":[1]}],"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				assert.True(t, r.EventTrackers)
				assert.False(t, r.ImpImg)
				assert.True(t, r.ImpJS)
			}},
		{"malformed trackers: absent",
			`{"eventtrackers":[7,{"event":"1","methods":[1]},{"event":1,"methods":"1"},{"event":1,"methods":["1",1.0,null]}],"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				assert.True(t, r.EventTrackers)
				assert.False(t, r.ImpImg)
			}},
		{"trackers not an array: not listed", `{"eventtrackers":{"event":1,"methods":[1]},"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) { assert.False(t, r.EventTrackers) }},
		{"both trackers' keys add up",
			`{"eventtrackers":[{"event":1,"methods":[2]}],"eventrackers":[{"event":1,"methods":[1]}],"assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) { assert.True(t, r.ImpImg && r.ImpJS) }},
		{"malformed integers: absent",
			`{"context":"2","plcmttype":-1,"plcmtcnt":1.5,"contextsubtype":1e400,"assets":[
				{"id":1,"title":{"len":-5}},
				{"id":2,"title":{"len":1.5}},
				{"id":3,"title":{"len":1e400}},
				{"id":4,"title":{"len":2147483648}},
				{"id":5,"title":{"len":2147483647}},
				{"id":6,"img":{"type":"3","w":"300","h":null,"wmin":true,"hmin":[1]}},
				{"id":7,"data":{"type":1e0,"len":{}}}]}`,
			func(t *testing.T, r *Request) {
				assert.Zero(t, r.Context+r.PlcmtType+r.PlcmtCnt+r.ContextSubtype)
				as := r.Assets()
				require.Len(t, as, 7)
				for _, a := range as[:4] {
					assert.Zero(t, a.Len, "asset %d", a.ID)
				}
				assert.Equal(t, 2147483647, as[4].Len)
				assert.Equal(t, Asset{ID: 6, Kind: KindImage, idOK: true}, as[5])
				assert.Equal(t, Asset{ID: 7, Kind: KindData, idOK: true}, as[6])
			}},
		{"malformed ids and required",
			`{"assets":[
				{"title":{}},
				{"id":"2","required":1,"title":{}},
				{"id":-3,"title":{}},
				{"id":4.0,"title":{}},
				{"id":5,"required":"1","title":{}},
				{"id":6,"required":2,"title":{}},
				{"id":7,"required":true,"title":{}},
				{"id":8,"required":1,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				as := r.Assets()
				require.Len(t, as, 8)
				for _, a := range as[:4] {
					assert.True(t, a.Malformed, "asset %d", a.ID)
				}
				assert.True(t, as[1].Required)
				for _, a := range as[4:7] {
					assert.False(t, a.Required, "asset %d", a.ID)
					assert.False(t, a.Malformed, "asset %d", a.ID)
				}
				assert.True(t, as[7].Required)
			}},
		{"repeated ids: both malformed", `{"assets":[{"id":1,"title":{}},{"id":2,"title":{}},{"id":1,"data":{"type":1}}]}`,
			func(t *testing.T, r *Request) {
				as := r.Assets()
				assert.True(t, as[0].Malformed)
				assert.False(t, as[1].Malformed)
				assert.True(t, as[2].Malformed)
			}},
		{"kinds: none, not objects, mixed, unknown members",
			`{"assets":[
				{"id":1},
				{"id":2,"title":"x","img":7,"data":null,"video":[]},
				{"id":3,"title":{"len":5},"img":{"type":3}},
				{"id":4,"link":{},"ext":{"title":{}},"title":{"len":9,"ext":{}}},
				{"id":5,"video":{},"data":{"type":2}},
				{"id":6,"title":{"len":5},"title":{"len":7}}]}`,
			func(t *testing.T, r *Request) {
				as := r.Assets()
				require.Len(t, as, 6)
				assert.Equal(t, KindNone, as[0].Kind)
				assert.Equal(t, KindNone, as[1].Kind)
				assert.Equal(t, KindMixed, as[2].Kind)
				assert.Equal(t, KindTitle, as[3].Kind)
				assert.Equal(t, 9, as[3].Len)
				assert.Equal(t, KindMixed, as[4].Kind)
				assert.Equal(t, KindTitle, as[5].Kind)
				assert.Equal(t, 7, as[5].Len, "a repeated key: the last value")
			}},
		{"assets that are not objects: absent", `{"assets":[1,"a",null,[],{"id":9,"data":{"type":12,"len":15}},true]}`,
			func(t *testing.T, r *Request) {
				assert.Equal(t, []Asset{{ID: 9, Kind: KindData, Type: DataCTAText, Len: 15, idOK: true}}, r.Assets())
			}},
		{"repeated assets: the last", `{"assets":[{"id":1,"title":{}},{"id":2,"title":{}}],"assets":[{"id":3,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				require.Len(t, r.Assets(), 1)
				assert.Equal(t, 3, r.Assets()[0].ID)
			}},
		{"wrapper with members beside it", `{"ver":"1.0","native":{"plcmttype":4,"assets":[{"id":1,"title":{}}]},"context":3}`,
			func(t *testing.T, r *Request) {
				assert.True(t, r.Wrapped)
				assert.Equal(t, "1.0", r.Ver)
				assert.Equal(t, 4, r.PlcmtType)
				assert.Equal(t, 3, r.Context)
				assert.Len(t, r.Assets(), 1)
			}},
		{"a wrapper in the wrapper is skipped", `{"native":{"native":{"assets":[{"id":2,"title":{}}]},"assets":[{"id":1,"title":{}}]}}`,
			func(t *testing.T, r *Request) {
				require.Len(t, r.Assets(), 1)
				assert.Equal(t, 1, r.Assets()[0].ID)
			}},
		{"native not an object: absent", `{"native":"x","assets":[{"id":1,"title":{}}]}`,
			func(t *testing.T, r *Request) {
				assert.False(t, r.Wrapped)
				assert.Len(t, r.Assets(), 1)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, parsed(t, tt.doc))
			// The same as a string.
			var r Request
			require.NoError(t, ParseRequest(asString(tt.doc), &r))
			tt.check(t, &r)
		})
	}
}

func TestParseRequestTooManyAssets(t *testing.T) {
	doc := func(n, required int) string {
		var b strings.Builder
		b.WriteString(`{"assets":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			req := 0
			if i == required {
				req = 1
			}
			b.WriteString(`{"id":` + strconv.Itoa(i+1) + `,"required":` + strconv.Itoa(req) + `,"title":{"len":90}}`)
		}
		return b.String() + `]}`
	}
	tests := []struct {
		name     string
		n, req   int
		kept     int
		dropped  int
		required bool
	}{
		{"exactly MaxAssets", MaxAssets, 0, MaxAssets, 0, false},
		{"past MaxAssets, optional", MaxAssets + 4, 0, MaxAssets, 4, false},
		{"past MaxAssets, a required one", MaxAssets + 4, MaxAssets + 2, MaxAssets, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parsed(t, doc(tt.n, tt.req))
			assert.Len(t, r.Assets(), tt.kept)
			assert.Equal(t, tt.dropped, r.Dropped)
			assert.Equal(t, tt.required, r.DroppedRequired)
			assert.Equal(t, MaxAssets, r.Assets()[MaxAssets-1].ID)
		})
	}
}

func TestParseRequestRefused(t *testing.T) {
	tests := []struct {
		name string
		data string
		err  error
	}{
		{"empty", ``, ErrNotObject},
		{"blanks", "  \n", ErrNotObject},
		{"null", `null`, ErrNotObject},
		{"a number", `12`, ErrNotObject},
		{"an array", `[{"assets":[{"id":1}]}]`, ErrNotObject},
		{"not JSON", `native`, ErrNotObject},
		{"a string of text", `"abc"`, ErrNotObject},
		{"a string of an array", `"[1]"`, ErrNotObject},
		{"a string of a string", string(asString(string(asString(sample61)))), ErrNotObject},
		{"an empty string", `""`, ErrNotObject},
		{"an object cut short", `{"assets":[{"id":1,"title":{}}]`, ErrSyntax},
		{"trailing text", `{"assets":[{"id":1,"title":{}}]} x`, ErrSyntax},
		{"two objects", `{"assets":[{"id":1,"title":{}}]}{}`, ErrSyntax},
		{"a string cut short", `"{\"assets\":[]}`, ErrSyntax},
		{"a bad escape", `"{\x}"`, ErrSyntax},
		{"trailing text after the string", string(asString(sample61)) + `,`, ErrSyntax},
		{"a string holding bad JSON", string(asString(`{"assets":[{"id":1,}]}`)), ErrSyntax},
		{"a string holding trailing text", string(asString(sample61 + `]`)), ErrSyntax},
		{"a bad value in a skipped member", `{"ext":{"a":tru},"assets":[{"id":1,"title":{}}]}`, ErrSyntax},
		{"no assets", `{"ver":"1.2"}`, ErrNoAssets},
		{"empty assets", `{"assets":[]}`, ErrNoAssets},
		{"assets null", `{"assets":null}`, ErrNoAssets},
		{"assets an object", `{"assets":{"id":1,"title":{}}}`, ErrNoAssets},
		{"no asset objects", `{"assets":[1,"2",null]}`, ErrNoAssets},
		{"no assets, as a string", string(asString(`{"assets":[]}`)), ErrNoAssets},
		{"an empty object", `{}`, ErrNoAssets},
		{"assets inside an unknown member", `{"ext":{"assets":[{"id":1,"title":{}}]}}`, ErrNoAssets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Request
			require.NoError(t, ParseRequest([]byte(sample61), &r)) // a used Request
			err := ParseRequest([]byte(tt.data), &r)
			require.ErrorIs(t, err, tt.err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Empty(t, r.Assets())
			assert.Zero(t, r.Dropped)
		})
	}
	assert.ErrorIs(t, ErrSyntax, jsoncodec.ErrSyntax)
}

// A reused Request keeps nothing of the last request but its buffers.
func TestParseRequestReuse(t *testing.T) {
	var r Request
	require.NoError(t, ParseRequest(asString(`{"native":`+sample62+`}`), &r))
	require.Len(t, r.Assets(), 6)
	require.NoError(t, ParseRequest([]byte(`{"assets":[{"id":5,"title":{}}]}`), &r))
	assert.Equal(t, Request{assets: r.assets, n: 1, doc: r.doc, text: r.text}, r)
	assert.Equal(t, []Asset{{ID: 5, Kind: KindTitle, idOK: true}}, r.Assets())
}

// ParseRequest does not keep data: Ver survives data's reuse.
func TestParseRequestDoesNotKeepData(t *testing.T) {
	for _, data := range [][]byte{[]byte(sample61), asString(sample61)} {
		var r Request
		require.NoError(t, ParseRequest(data, &r))
		for i := range data {
			data[i] = 'x'
		}
		assert.Equal(t, "1.2", r.Ver)
	}
}
