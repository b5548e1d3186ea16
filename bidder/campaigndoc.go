package bidder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// One campaign as a document of its own: what the management API takes
// and gives (package managed), in the campaigns file's spelling. The file
// loader is lenient about fields it does not know (a file written for a
// later version still loads); a document is not: an unknown field is a
// problem, so that a typo in a money field cannot pass silently.

// FieldProblem is one problem of a campaign document: the field, as a
// path ("daily_budget", "creatives[0].w", "targeting.countries[2]"), and
// what is wrong with it.
type FieldProblem struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// MaxCampaignDocBytes bounds one campaign document.
const MaxCampaignDocBytes = 1 << 20

// CheckCampaignDoc decodes one campaign document, validates it by the
// campaigns file's rules for a server trading with exchanges (nil:
// DefaultExchange only) and returns the campaign and the document's
// canonical text: the fields in the file's order, absent ones left out,
// numbers exactly as written. A document with any problem returns them
// all, every unknown field among them, and no campaign.
func CheckCampaignDoc(doc []byte, exchanges []string) (*Campaign, []byte, []FieldProblem) {
	c, canon, probs, _ := checkDoc(doc, exchanges, true)
	return c, canon, probs
}

// checkDoc is CheckCampaignDoc; not strict, the unknown fields are
// returned apart (ignored), not as problems, as the file loader ignores
// them.
func checkDoc(doc []byte, exchanges []string, strict bool) (c *Campaign, canon []byte, probs, ignored []FieldProblem) {
	if len(doc) > MaxCampaignDocBytes {
		return nil, nil, []FieldProblem{{Field: "", Problem: fmt.Sprintf("a campaign is at most %d bytes", MaxCampaignDocBytes)}}, nil
	}
	var top any
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, nil, []FieldProblem{{Field: "", Problem: "not JSON: " + err.Error()}}, nil
	}
	if _, ok := top.(map[string]any); !ok {
		return nil, nil, []FieldProblem{{Field: "", Problem: "a campaign must be a JSON object"}}, nil
	}
	unknownFields(doc, reflect.TypeOf(fileCampaign{}), "", &ignored)
	if strict {
		probs, ignored = ignored, nil
	}
	var fc fileCampaign
	if err := json.Unmarshal(doc, &fc); err != nil {
		return nil, nil, append(probs, typeProblem(err)), ignored
	}
	known := map[string]bool{}
	if exchanges == nil {
		exchanges = []string{DefaultExchange}
	}
	for _, id := range exchanges {
		known[id] = true
	}
	c, faults := fc.validate(known)
	for _, f := range faults {
		field, problem, _ := strings.Cut(f, ": ")
		probs = append(probs, FieldProblem{Field: field, Problem: problem})
	}
	if len(probs) > 0 {
		return nil, nil, probs, ignored
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&fc); err != nil { // valid literals only: cannot fail
		return nil, nil, []FieldProblem{{Problem: "cannot be encoded: " + err.Error()}}, ignored
	}
	return c, bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil, ignored
}

// CampaignsFile joins campaign documents into the text of a campaigns
// file, in the order given.
func CampaignsFile(docs [][]byte) []byte {
	n := 32
	for _, d := range docs {
		n += len(d) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, `{"campaigns":[`...)
	for i, d := range docs {
		if i > 0 {
			b = append(b, ",\n"...)
		} else {
			b = append(b, '\n')
		}
		b = append(b, d...)
	}
	return append(b, "\n]}\n"...)
}

// SplitCampaignsFile returns the ids and canonical documents of a
// campaigns file's campaigns, each checked by CheckCampaignDoc, and every
// problem of the file at once: a field's path starts with its campaign
// ("campaigns[3].daily_budget"), and two campaigns with one id are a
// problem. Not strict, unknown fields are not problems but returned in
// ignored, and left out of the documents.
func SplitCampaignsFile(data []byte, exchanges []string, strict bool) (ids []string, docs [][]byte, probs, ignored []FieldProblem) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, []FieldProblem{{Problem: "not a campaigns file: " + err.Error()}}, nil
	}
	for k := range top {
		if k != "campaigns" {
			ignored = append(ignored, FieldProblem{Field: k, Problem: "unknown field"})
		}
	}
	if strict {
		probs, ignored = ignored, nil
	}
	var list []json.RawMessage
	if raw, ok := top["campaigns"]; !ok || json.Unmarshal(raw, &list) != nil {
		return nil, nil, append(probs, FieldProblem{Field: "campaigns", Problem: "required: a list of campaigns"}), ignored
	}
	seen := make(map[string]int, len(list))
	for i, raw := range list {
		p := "campaigns[" + strconv.Itoa(i) + "]"
		c, doc, ps, ig := checkDoc(raw, exchanges, strict)
		for _, fp := range ps {
			fp.Field = joinField(p, fp.Field)
			probs = append(probs, fp)
		}
		for _, fp := range ig {
			fp.Field = joinField(p, fp.Field)
			ignored = append(ignored, fp)
		}
		if c == nil {
			continue
		}
		if j, dup := seen[c.ID]; dup {
			probs = append(probs, FieldProblem{Field: p + ".id", Problem: "duplicate of campaigns[" + strconv.Itoa(j) + "]"})
			continue
		}
		seen[c.ID] = i
		ids, docs = append(ids, c.ID), append(docs, doc)
	}
	if len(probs) > 0 {
		return nil, nil, probs, ignored
	}
	return ids, docs, nil, ignored
}

func joinField(prefix, field string) string {
	switch {
	case field == "":
		return prefix
	case prefix == "":
		return field
	case field[0] == '[':
		return prefix + field
	}
	return prefix + "." + field
}

// unknownFields names every member of the JSON object doc that the struct
// type t does not declare, and descends into the members that are objects
// or lists of objects of a struct type.
func unknownFields(doc []byte, t reflect.Type, path string, out *[]FieldProblem) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var obj map[string]json.RawMessage
	if t.Kind() != reflect.Struct || json.Unmarshal(doc, &obj) != nil {
		return // not an object: the typed decode names it
	}
	fields := make(map[string]reflect.Type, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ft, ok := fields[k]
		p := joinField(path, k)
		if !ok {
			*out = append(*out, FieldProblem{Field: p, Problem: "unknown field"})
			continue
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			unknownFields(obj[k], ft, p, out)
		case reflect.Slice:
			if el := ft.Elem(); el.Kind() == reflect.Struct {
				var items []json.RawMessage
				if json.Unmarshal(obj[k], &items) == nil {
					for i, it := range items {
						unknownFields(it, el, p+"["+strconv.Itoa(i)+"]", out)
					}
				}
			}
		}
	}
}

// typeProblem names the field of a value of the wrong JSON type.
func typeProblem(err error) FieldProblem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return FieldProblem{Field: te.Field, Problem: "must be a JSON " + jsonKind(te.Type) + ", not " + te.Value}
	}
	return FieldProblem{Problem: err.Error()}
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "list"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "object"
	}
	return t.String()
}
