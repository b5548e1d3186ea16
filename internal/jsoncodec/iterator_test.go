package jsoncodec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walk reads a flat object of strings and numbers, as callers do, and
// returns its keys and values (numbers as their literal text, other values
// as their raw JSON text).
func walk(t *testing.T, doc string) (pairs []string, ok bool) {
	t.Helper()
	it := BorrowIterator([]byte(doc))
	defer ReturnIterator(it)
	if it.WhatIsNext() != ObjectValue {
		return nil, false
	}
	var buf []byte
	for key, more := it.ReadObject(); more; key, more = it.ReadObject() {
		start := len(buf)
		switch it.WhatIsNext() {
		case StringValue:
			buf = it.AppendString(buf)
		case NumberValue:
			buf = it.AppendNumber(buf)
		default:
			buf = it.AppendRaw(buf)
		}
		pairs = append(pairs, key, string(buf[start:]))
		if it.Err() != nil {
			return pairs, false
		}
	}
	return pairs, it.Err() == nil && it.End()
}

func TestIteratorWalk(t *testing.T) {
	tests := []struct {
		doc   string
		pairs []string
		ok    bool
	}{
		{`{}`, nil, true},
		{` { } `, nil, true},
		{`{"a":"x","b":12.50,"c":-1e3}`, []string{"a", "x", "b", "12.50", "c", "-1e3"}, true},
		{"{\n\t\"a\" :\r\n \"x\" }\n", []string{"a", "x"}, true},
		{`{"":"empty key","z":1}`, []string{"", "empty key", "z", "1"}, true},
		{`{"a":{"b":[1,{"c":null}]},"d":true}`, []string{"a", `{"b":[1,{"c":null}]}`, "d", "true"}, true},
		{`{"a": [ 1 , "x" ] ,"n":null}`, []string{"a", `[ 1 , "x" ]`, "n", "null"}, true},
		{`{"e":"\u00e9\ud83d\ude00 \"q\" \\ \/ \n"}`, []string{"e", "é😀 \"q\" \\ / \n"}, true},
		{`{"a":"x"}}`, []string{"a", "x"}, false},
		{`{"a":"x"} {}`, []string{"a", "x"}, false},
		{`{"a":"x"`, []string{"a", "x"}, false},
		{`{"a":`, []string{"a", ""}, false},
		{`{"":`, nil, false},
		{`{"a":1,"":`, []string{"a", "1"}, false},
		{`{"a":1,null:2}`, []string{"a", "1"}, false},
		{`{"a":{} "b"}}`, []string{"a", "{}"}, false},
		{`{ "" : "e" , "" : 2 }`, []string{"", "e", "", "2"}, true},
		{`{"a":1,}`, []string{"a", "1"}, false},
		{`{"a" 1}`, nil, false},
		{`{"a":"\x"}`, []string{"a", ""}, false},
		{"{\"a\":\"\x01\"}", []string{"a", ""}, false},
		{`{"a":tru}`, []string{"a", ""}, false},
		{`{"a":1.}`, []string{"a", ""}, false},
		{`[]`, nil, false},
		{``, nil, false},
	}
	for _, tt := range tests {
		pairs, ok := walk(t, tt.doc)
		assert.Equal(t, tt.ok, ok, "%q", tt.doc)
		if tt.ok || tt.pairs != nil {
			assert.Equal(t, tt.pairs, pairs, "%q", tt.doc)
		}
	}
}

func TestIteratorArrays(t *testing.T) {
	it := BorrowIterator([]byte(`[ "a" , "b\u0021" ,"" ] `))
	defer ReturnIterator(it)
	var got []string
	buf := make([]byte, 0, 64)
	for it.ReadArray() {
		start := len(buf)
		buf = it.AppendString(buf)
		got = append(got, string(buf[start:]))
	}
	require.NoError(t, it.Err())
	assert.True(t, it.End())
	assert.Equal(t, []string{"a", "b!", ""}, got)

	it2 := BorrowIterator([]byte(`null`))
	defer ReturnIterator(it2)
	assert.False(t, it2.ReadArray(), "null reads as an empty array")
	assert.True(t, it2.End())
}

func TestIteratorKindErrors(t *testing.T) {
	it := BorrowIterator([]byte(`{"a":5,"b":"x"}`))
	defer ReturnIterator(it)
	_, _ = it.ReadObject()
	assert.Empty(t, it.AppendString(nil), "a number is not a string")
	assert.Error(t, it.Err())

	it2 := BorrowIterator([]byte(`["x"]`))
	defer ReturnIterator(it2)
	require.True(t, it2.ReadArray())
	assert.Empty(t, it2.AppendNumber(make([]byte, 0, 8)), "a string is not a number")
	assert.Error(t, it2.Err())
}

func TestIteratorAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	doc := []byte(`{"k":"value","n":1.25,"e":"a\u0062c","o":{"x":[1,2]}}`)
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		it := BorrowIterator(doc)
		b := buf[:0]
		for _, more := it.ReadObject(); more; _, more = it.ReadObject() {
			switch it.WhatIsNext() {
			case StringValue:
				b = it.AppendString(b)
			case NumberValue:
				b = it.AppendNumber(b)
			default:
				it.Skip()
			}
		}
		if !it.End() {
			t.Fatal("not at the end")
		}
		ReturnIterator(it)
	})
	// One-byte keys cost nothing; the string with an escape costs two
	// strings of json-iterator's (its check, then its decoding).
	assert.LessOrEqual(t, allocs, 2.0)
}

// TestIteratorObjectEnd: a value right after a nested object's '}' is not
// taken for the value of an empty key.
func TestIteratorObjectEnd(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a":{} "b"}}`:        false,
		`{"a":{"x":1} 2}}`:     false,
		`{"a":{"":1} , "b":2}`: true,
		`{"a":{  }  }`:         true,
	} {
		it := BorrowIterator([]byte(doc))
		for _, more := it.ReadObject(); more; _, more = it.ReadObject() {
			if it.WhatIsNext() != ObjectValue {
				it.Skip()
				continue
			}
			for _, in := it.ReadObject(); in; _, in = it.ReadObject() {
				it.Skip()
			}
		}
		assert.Equal(t, want, it.Err() == nil && it.End(), doc)
		ReturnIterator(it)
	}
}
