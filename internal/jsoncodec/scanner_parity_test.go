package jsoncodec

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scanner must read every input as Iterator, json-iterator's walk, reads
// it: these tests drive both with the same walk and compare what they give.

// tokens is what a hand-written walk calls, on an Iterator or a Scanner.
type tokens interface {
	WhatIsNext() ValueType
	ReadObject() (string, bool)
	ReadArray() bool
	Skip()
	AppendRaw(dst []byte) []byte
	AppendString(dst []byte) []byte
	AppendNumber(dst []byte) []byte
	End() bool
	Err() error
}

type scanTokens struct{ *Scanner }

func (s scanTokens) ReadObject() (string, bool) {
	key, ok := s.Scanner.ReadObject()
	return string(key), ok
}

// Walk actions, chosen for each value by a byte of the plan.
const (
	actRead  = iota // walk an object or array, read a string or number
	actSkip         // look at the kind, then Skip
	actRaw          // look at the kind, then AppendRaw
	actBlind        // Skip without looking
	numActions
)

// walker walks a document as dspd's decoders do: the top-level value must
// be an object; it reads objects with ReadObject, checking Err after each
// value, arrays with ReadArray (the loop stops on Err), and looks at each
// value's kind before reading it as that kind, skipping it, or copying its
// text, unless the plan says to skip it without looking.
type walker struct {
	tk    tokens
	plan  []byte
	k     int
	trace []string
}

func (w *walker) note(format string, v ...any) {
	for _, x := range v {
		format += "|" + toString(x)
	}
	w.trace = append(w.trace, format)
}

func toString(x any) string {
	switch v := x.(type) {
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case ValueType:
		return strconv.Itoa(int(v))
	}
	panic("unexpected")
}

func (w *walker) action() int {
	if len(w.plan) == 0 {
		return actRead
	}
	a := int(w.plan[w.k%len(w.plan)]) % numActions
	w.k++
	return a
}

// walkTokens returns the trace of the walk and whether the document was read to
// its end without error.
func walkTokens(tk tokens, plan []byte) ([]string, bool) {
	w := walker{tk: tk, plan: plan}
	if tk.WhatIsNext() != ObjectValue {
		return w.trace, false
	}
	w.object(0)
	return w.trace, tk.Err() == nil && tk.End()
}

func (w *walker) object(depth int) {
	for key, ok := w.tk.ReadObject(); ok; key, ok = w.tk.ReadObject() {
		w.note("key", key)
		w.value(depth)
		if w.tk.Err() != nil {
			return
		}
	}
	w.note("}")
}

func (w *walker) array(depth int) {
	for w.tk.ReadArray() && w.tk.Err() == nil {
		w.value(depth)
	}
	w.note("]")
}

func (w *walker) value(depth int) {
	act := w.action()
	if act == actBlind {
		w.tk.Skip()
		w.note("skip")
		return
	}
	t := w.tk.WhatIsNext()
	w.note("next", t)
	buf := make([]byte, 0, 64)
	switch {
	case act == actSkip:
		w.tk.Skip()
	case act == actRaw || t == NilValue || t == BoolValue || t == InvalidValue:
		w.note("raw", string(w.tk.AppendRaw(buf)))
	case t == StringValue:
		w.note("string", string(w.tk.AppendString(buf)))
	case t == NumberValue:
		w.note("number", string(w.tk.AppendNumber(buf)))
	case depth > 64:
		w.tk.Skip()
	case t == ObjectValue:
		w.object(depth + 1)
	case t == ArrayValue:
		w.array(depth + 1)
	}
}

// parity walks doc with both readers and returns whether the document is
// read to its end, failing t when they disagree.
func parity(t *testing.T, doc, plan []byte) bool {
	t.Helper()
	it := BorrowIterator(doc)
	wantTrace, want := walkTokens(it, plan)
	ReturnIterator(it)
	sc := NewScanner(doc)
	gotTrace, got := walkTokens(scanTokens{&sc}, plan)
	require.Equal(t, want, got, "read to the end: %q plan %v (Iterator's walk %q, Scanner's %q)", doc, plan, wantTrace, gotTrace)
	if want {
		require.Equal(t, wantTrace, gotTrace, "%q plan %v", doc, plan)
	}
	return got
}

// readerCases are documents at the edges of the syntax json-iterator's
// walk read, with whether it reads them to their end (with the default
// plan: every value read as its kind).
var readerCases = []struct {
	doc string
	ok  bool
}{
	{`{}`, true},
	{` {"a":"x","b":12.50,"c":-1e3} `, true},
	{"{\n\t\"a\" :\r\n \"x\" }\n", true},
	{`{"a":"x"}}`, false},
	{`{"a":"x"} {}`, false},
	{`{"a":"x"`, false},
	{`{"a":`, false},
	{`{"":`, false},
	{`{"": `, false},
	{`{"":"empty key","z":1}`, true},
	{`{ "" : "e" , "" : 2 }`, true},
	{`{"a":{"":1} , "b":2}`, true},
	{`{"a":{} "b"}}`, false},
	{`{"a":{"x":1} 2}}`, false},
	{`{"a":1 null`, true},   // null ends a walked object
	{`{"a":1 null}`, false}, // … so the '}' is one too many
	{`{"a":{"b":1 null,"c":2}`, true},
	{`{"a":{"b":1} null`, false}, // a value after an object's end
	{`{"a":1{"b":2}`, true},      // '{' before a key reads as ','
	{`{"a":1{"b":2}}`, false},
	{`{"a":1,null:2}`, false}, // a null key, then a value
	{`{"a":{"b":1,null:},"c":2}`, false},
	{`{"a":{"b":1,null:}`, true}, // a null key without a value ends the object
	{`{"a":{"":}`, true},         // so does an empty key without a value
	{`{"a":{"":,"b":1}`, true},
	{`{"a":{"":}}`, false},
	{`{"a":[1 [2]}`, true}, // '[' reads as ',' in a walked array
	{`{"a":[1 2]}`, false},
	{`{"a":[1 {"b":2}]}`, false},
	{`{"a":["x" null,"b":1}`, true}, // null ends a walked array
	{`{"a":[{"x":1} null,"b":1}`, false},
	{`{"a":[1,]}`, false},
	{`{"a":[,1]}`, false},
	{`{"a":[]}`, true},
	{`{"a":[`, false},
	{`{"a":[ `, false},
	{`{"a":null}`, true},
	{`{"a":{"b":[1,{"c":null}]},"d":true}`, true},
	{`{"a":"\u00e9\ud83d\ude00 \"q\" \\ \/ \n"}`, true},
	{`{"a":"\ud800x","b":"\udc00\ud800","c":"\ud83d\n","d":"\ud83d\u0041","e":"\ud83d\ud83d\ude00","f":"\ud83d"}`, true},
	{`{"a":"\ud83d\x"}`, false},
	{`{"a":"\ud83d\`, false},
	{`{"a":"\ud83d`, false},
	{`{"a":"\u12"}`, false},
	{`{"a":"\U0041"}`, false},
	{`{"a":"\x"}`, false},
	{"{\"a\":\"\x01\"}", false},       // a control character…
	{"{\"a\":\"\\n\x01\x1f\"}", true}, // … is taken after an escape
	{"{\"a\":\"\xff\xfe\"}", true},    // bytes that are not UTF-8 are kept
	{`{"\u0061":1,"a\"b":2}`, true},
	{`{"` + strings.Repeat(`\u0061`, 20) + `":1}`, true}, // a key with escapes longer than the scanner's room
	{"{\"\x01\":1}", false},
	{"{\"\\n\x01\":1}", true},
	{`{"i\d":1}`, false},
	{`{"a":{"b":1,null:2}}`, false}, // a walked object takes no null key before a value
	{`{"a":{"b" 1}}`, false},
	{`{"a":{"b":1 "c":2}}`, false},
	{`{"a":{"b":1,}}`, false},
	{`{"a":{,}}`, false},
	{`{"a":}`, false},
	{`{"a" 1}`, false},
	{`{,:1}`, false},
	{`{1:1}`, false},
	{`{"a":tru}`, false},
	{`{"a":nul}`, false},
	{`{"a":falsey}`, false},
	{`{"a":true,"b":false,"c":null}`, true},
	{`{"a":-.5,"b":-01,"c":-0,"d":-01e1,"e":-.5e3}`, true},
	{`{"a":01}`, false},
	{`{"a":0}`, true},
	{`{"a":0.5,"b":0e400,"c":0.5e38}`, true},
	{`{"a":0.5e39}`, false}, // a float32 out of range
	{`{"a":0.}`, false},
	{`{"a":0.1.2}`, false},
	{`{"a":-}`, false},
	{`{"a":--1}`, false},
	{`{"a":1.}`, false},
	{`{"a":1.e5}`, false},
	{`{"a":1e5,"b":1E+5,"c":1e-400,"d":5e-400}`, true},
	{`{"a":1e}`, false},
	{`{"a":1e400}`, false}, // a float64 out of range
	{`{"a":-1e400}`, false},
	{`{"a":1.2.3}`, false},
	{`{"a":1..2}`, false},
	{`{"a":1-2}`, false},
	{`{"a":1+2}`, false},
	{"{\"a\":5\r}", true},
	{`{"a":5:}`, false},
	{`{"a":-.5x}`, false},
	{`{"a":12345678901234567890123456789}`, true},
	{`{"a":1234567890123456789012345678.9e3}`, true},
	{`{"a":[-01.5,0.000000000000000000001,9` + strings.Repeat("9", 400) + `]}`, true},
	{`{"a":9` + strings.Repeat("9", 400) + `e0}`, false},
	{`{"a":1`, false},
	{`{"a":-`, false},
	{`{"a":0`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
	{`  `, false},
	{`"x"`, false},
}

func TestScannerReadsAsIterator(t *testing.T) {
	for _, tt := range readerCases {
		assert.Equal(t, tt.ok, parity(t, []byte(tt.doc), nil), "%q", tt.doc)
		for _, plan := range [][]byte{{actSkip}, {actRaw}, {actBlind}, {actRead, actSkip, actRaw, actBlind}} {
			parity(t, []byte(tt.doc), plan)
		}
	}
}

// TestScannerSkippedObjects: a skipped object is read more strictly than a
// walked one between its members, except for null keys.
func TestScannerSkippedObjects(t *testing.T) {
	for _, tt := range []struct {
		doc string
		ok  bool
	}{
		{`{"a":{"b":1,null:2}}`, true}, // null keys after the first
		{`{"a":{"b":1,null:2,null:3,"c":4}}`, true},
		{`{"a":{null:2}}`, false},
		{`{"a":{"b":1 null}}`, false},
		{`{"a":{"b":1{"c":2}}}`, false},
		{`{"a":[1 [2]]}`, false},
		{`{"a":[1 null]}`, false},
		{`{"a":{"":1,"":{"":[]}}}`, true},
	} {
		for _, plan := range [][]byte{{actSkip}, {actRaw}, {actBlind}} {
			assert.Equal(t, tt.ok, parity(t, []byte(tt.doc), plan), "%q %v", tt.doc, plan)
		}
	}
}

// TestScannerCorpus: the exchange corpus, every request read every way.
func TestScannerCorpus(t *testing.T) {
	for i, line := range corpusLines(t) {
		require.True(t, parity(t, line, nil), "line %d", i+1)
		parity(t, line, []byte{byte(i), byte(i >> 2), byte(i >> 4)})
	}
}

func corpusLines(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("../../testdata/openrtb/exchange.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return lines
}

// TestScannerDepth: skipped values nest up to json-iterator's 10,000
// levels; walked ones do not count.
func TestScannerDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat(`[{"b":`, n/2) + `1` + strings.Repeat(`}]`, n/2) + `}`)
	}
	for _, tt := range []struct {
		n    int
		plan []byte
		ok   bool
	}{
		{maxDepth, []byte{actSkip}, true},
		{maxDepth + 2, []byte{actSkip}, false},
		{maxDepth + 2, []byte{actRaw}, false},
		{maxDepth + 2, nil, true}, // walked to depth 64, skipped below
	} {
		assert.Equal(t, tt.ok, parity(t, nest(tt.n), tt.plan), "%d %v", tt.n, tt.plan)
	}
	sc := NewScanner(nest(maxDepth + 2))
	_, _ = sc.ReadObject()
	sc.Skip()
	assert.ErrorIs(t, sc.Err(), ErrDepth)
	assert.ErrorIs(t, sc.Err(), ErrSyntax)
}

// FuzzScannerParity: on any document and any walk, Scanner reads what
// Iterator reads.
func FuzzScannerParity(f *testing.F) {
	for _, tt := range readerCases {
		f.Add([]byte(tt.doc), []byte{})
	}
	for i, line := range corpusLines(f) {
		if i%100 == 0 {
			f.Add(line, []byte{byte(i), byte(i >> 3)})
		}
	}
	f.Fuzz(func(t *testing.T, doc, plan []byte) {
		parity(t, doc, plan)
		// The same text as a member's value and as an array's elements,
		// where numbers, strings and the lenient readings meet.
		parity(t, append(append([]byte(`{"a":`), doc...), '}'), plan)
		parity(t, append(append([]byte(`{"a":[`), doc...), ']', '}'), plan)
	})
}
