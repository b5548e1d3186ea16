package nativead

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseRequest: ParseRequest never panics; what it keeps is within
// its bounds; and when a creative (whose title the fuzzer also writes)
// fits, both ways of answering give the same bytes, which an exchange
// reads as a JSON string holding a JSON native document with the plan's
// assets.
func FuzzParseRequest(f *testing.F) {
	for _, doc := range []string{
		sample61, sample62, `{"native":` + sample61 + `}`,
		`{"assets":[{"id":1,"required":1,"title":{"len":5}}]}`,
		`{"eventtrackers":[{"event":1,"methods":[2]}],"assets":[{"id":1,"img":{"type":1,"w":80,"h":80}},{"id":1,"data":{"type":12}}]}`,
		`{"assets":[1,{"id":-1},{"id":"2","title":{}},{"id":3,"title":{},"img":{}}]}`,
		`{"assets":[]}`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(doc), "Fresh coffee")
		f.Add(asString(doc), "Ünïcödé \"quoted\" \\ <b>\n")
	}
	cr := testCreative()
	var r Request
	f.Fuzz(func(t *testing.T, data []byte, title string) {
		err := ParseRequest(data, &r)
		if err != nil {
			if len(r.Assets()) != 0 || r.Dropped != 0 {
				t.Fatalf("refused (%v) with assets", err)
			}
			return
		}
		if len(r.Assets()) > MaxAssets || len(r.Assets())+r.Dropped == 0 {
			t.Fatalf("%d assets, %d dropped", len(r.Assets()), r.Dropped)
		}
		for _, a := range r.Assets() {
			if a.ID < 0 || a.Len < 0 || a.W < 0 || a.H < 0 || a.WMin < 0 || a.HMin < 0 || a.Type < 0 {
				t.Fatalf("negative: %+v", a)
			}
		}
		c := cr
		c.Title = title
		p, ok := Fit(&r, &c)
		pc := Prepare(&c)
		pp, pok := pc.Fit(&r)
		if ok != pok || p != pp {
			t.Fatalf("Fit %v %+v, prepared %v %+v", ok, p, pok, pp)
		}
		if !ok {
			return
		}
		click, imp := AppendEscaped(nil, "https://c.example/?t="+title), AppendEscaped(nil, "https://i.example/")
		adm := AppendResponse(nil, &p, &c, click, imp)
		if pa := pc.AppendResponse(nil, &p, click, imp); string(pa) != string(adm) {
			t.Fatalf("answers differ:\n%s\n%s", adm, pa)
		}
		var outer struct{ Adm string }
		if err := json.Unmarshal(append(append([]byte(`{"adm":"`), adm...), `"}`...), &outer); err != nil {
			t.Fatalf("adm is not the inside of a JSON string: %v\n%s", err, adm)
		}
		if !utf8.ValidString(outer.Adm) {
			t.Fatalf("not UTF-8: %q", outer.Adm)
		}
		var doc struct {
			Native *json.RawMessage `json:"native"`
			Assets []struct {
				ID    int `json:"id"`
				Title *struct {
					Text string `json:"text"`
				} `json:"title"`
			} `json:"assets"`
		}
		if err := json.Unmarshal([]byte(outer.Adm), &doc); err != nil {
			t.Fatalf("native document: %v\n%s", err, outer.Adm)
		}
		if p.Wrapped() {
			if doc.Native == nil {
				t.Fatal("not wrapped")
			}
			if err := json.Unmarshal(*doc.Native, &doc); err != nil {
				t.Fatal(err)
			}
		}
		if len(doc.Assets) != len(p.Slots()) {
			t.Fatalf("%d assets, plan %d", len(doc.Assets), len(p.Slots()))
		}
		for i, s := range p.Slots() {
			if doc.Assets[i].ID != s.ID {
				t.Fatalf("asset %d: id %d, plan %d", i, doc.Assets[i].ID, s.ID)
			}
			if s.Fill == FillTitle && (doc.Assets[i].Title == nil || utf8.ValidString(title) && doc.Assets[i].Title.Text != title) {
				t.Fatalf("title %q, want %q", doc.Assets[i].Title, title)
			}
		}
	})
}
