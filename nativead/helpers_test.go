package nativead

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The requests of the specification's samples (Native 1.2 section 6.1,
// "Social Context, Clickout Response", and 6.2, "Content Context, Video
// Response"), rewritten: the same members and values, in the request
// object alone (the samples show them under imp.native). Both samples
// spell the trackers' key "eventrackers"; 6.2 also has a second,
// response-shaped "eventtrackers" (event, method, url), kept as it is.
const (
	sample61 = `{"ver":"1.2","context":2,"contextsubtype":20,"plcmttype":11,"plcmtcnt":1,
		"aurlsupport":0,"privacy":1,
		"eventrackers":[{"event":1,"methods":[1,2]},{"event":2,"methods":[1]}],
		"assets":[
			{"id":123,"required":1,"title":{"len":140}},
			{"id":128,"required":0,"img":{"wmin":836,"hmin":627,"type":3}},
			{"id":124,"required":1,"img":{"wmin":50,"hmin":50,"type":1}},
			{"id":126,"required":1,"data":{"type":1,"len":25}},
			{"id":127,"required":1,"data":{"type":2,"len":140}}]}`

	sample62 = `{"ver":"1.2","context":1,"contextsubtype":10,"plcmttype":11,"plcmtcnt":1,
		"aurlsupport":0,"privacy":1,
		"eventrackers":[{"event":1,"methods":[1,2]},{"event":2,"methods":[1]}],
		"assets":[
			{"id":4,"video":{"linearity":1,"minduration":15,"maxduration":30,"protocols":[2,3],"mimes":["video/mp4"]}},
			{"id":123,"required":1,"title":{"len":140}},
			{"id":128,"required":0,"img":{"wmin":836,"hmin":627,"type":3}},
			{"id":124,"required":1,"img":{"wmin":50,"hmin":50,"type":1}},
			{"id":126,"required":1,"data":{"type":1,"len":25}},
			{"id":127,"required":1,"data":{"type":2,"len":140}}],
		"eventtrackers":[{"event":1,"method":2,"url":"http://tracker.example/t.js"},
			{"event":2,"method":1,"url":"http://tracker.example/t.gif"}],
		"privacy":"http://privacy.example/"}`
)

// asString returns doc as OpenRTB 2.x sends it: a JSON string.
func asString(doc string) []byte {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// testCreative has every part, and an image that fits section 6.1's.
func testCreative() Creative {
	return Creative{
		Title:     "Fresh coffee, roasted weekly",
		Body:      "Beans from three farms, roasted on Monday and at your door by Friday.",
		Sponsored: "Kaffee & Co",
		CTA:       "Order now",
		ImageURL:  "https://cdn.example/c/1200x627.jpg", ImageW: 1200, ImageH: 627,
		IconURL: "https://cdn.example/c/icon.png", IconW: 80, IconH: 80,
		ClickURL: "https://shop.example/coffee?utm=native&x=1",
	}
}

// parsed parses doc, which must be valid.
func parsed(t testing.TB, doc string) *Request {
	t.Helper()
	var r Request
	require.NoError(t, ParseRequest([]byte(doc), &r))
	return &r
}

// The answer as a test reads it back: every member dspd may write, and
// no other (DisallowUnknownFields).
type nativeDoc struct {
	Ver    string     `json:"ver"`
	Assets []assetDoc `json:"assets"`
	Link   *linkDoc   `json:"link"`
	Events []eventDoc `json:"eventtrackers"`
	Imp    []string   `json:"imptrackers"`
}

type assetDoc struct {
	ID    *int `json:"id"`
	Title *struct {
		Text string `json:"text"`
	} `json:"title"`
	Img *struct {
		URL string `json:"url"`
		W   *int   `json:"w"`
		H   *int   `json:"h"`
	} `json:"img"`
	Data *struct {
		Value string `json:"value"`
	} `json:"data"`
}

type linkDoc struct {
	URL string `json:"url"`
}

type eventDoc struct {
	Event  int    `json:"event"`
	Method int    `json:"method"`
	URL    string `json:"url"`
}

// decodeAdm reads an answer back as an exchange would: adm is placed in a
// bid's JSON as "adm":"…" and read, then the native document it holds is
// read. wrapped: the document was {"native":{…}}.
func decodeAdm(t testing.TB, adm []byte) (doc nativeDoc, wrapped bool) {
	t.Helper()
	bid := append(append([]byte(`{"adm":"`), adm...), `"}`...)
	var outer struct {
		Adm string `json:"adm"`
	}
	require.NoError(t, json.Unmarshal(bid, &outer), "the adm is the inside of a JSON string: %s", adm)
	inner := []byte(outer.Adm)
	require.True(t, json.Valid(inner), "the native document is JSON: %s", inner)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(inner, &top))
	if raw, ok := top["native"]; ok && len(top) == 1 {
		wrapped, inner = true, raw
	}
	dec := json.NewDecoder(bytes.NewReader(inner))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&doc), "%s", inner)
	return doc, wrapped
}

// esc escapes s for the answer the long way: jsoncodec's string escaping
// twice, what a caller does for clickURL and impURL.
func esc(s string) []byte { return AppendEscaped(nil, s) }
