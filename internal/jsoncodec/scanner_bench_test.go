package jsoncodec

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The walk of every value of a document, as a decoder does it: keys
// compared, strings and numbers read into a buffer, objects and arrays
// walked. One copy per reader, so that neither pays for an interface.

func scanAll(s *Scanner, buf []byte) ([]byte, int) {
	keys := 0
	var value func()
	value = func() {
		switch s.WhatIsNext() {
		case StringValue:
			buf = s.AppendString(buf[:0])
		case NumberValue:
			buf = s.AppendNumber(buf[:0])
		case ObjectValue:
			for key, ok := s.ReadObject(); ok; key, ok = s.ReadObject() {
				if string(key) == "id" {
					keys++
				}
				value()
			}
		case ArrayValue:
			for s.ReadArray() {
				value()
			}
		default:
			s.Skip()
		}
	}
	value()
	return buf, keys
}

func iterAll(it Iterator, buf []byte) ([]byte, int) {
	keys := 0
	var value func()
	value = func() {
		switch it.WhatIsNext() {
		case StringValue:
			buf = it.AppendString(buf[:0])
		case NumberValue:
			buf = it.AppendNumber(buf[:0])
		case ObjectValue:
			for key, ok := it.ReadObject(); ok; key, ok = it.ReadObject() {
				if key == "id" {
					keys++
				}
				value()
			}
		case ArrayValue:
			for it.ReadArray() {
				value()
			}
		default:
			it.Skip()
		}
	}
	value()
	return buf, keys
}

func postJSON(b *testing.B) []byte {
	post, err := os.ReadFile("../../testdata/openrtb/post.json")
	require.NoError(b, err)
	return post
}

// benchWalk runs walk, which returns the "id" keys it counted, on
// post.json and on the exchange corpus.
func benchWalk(b *testing.B, walk func(b *testing.B, doc []byte) int) {
	run := func(b *testing.B, docs [][]byte) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if walk(b, docs[i%len(docs)]) == 0 {
				b.Fatal("not read")
			}
		}
	}
	b.Run("post.json", func(b *testing.B) {
		post := postJSON(b)
		b.SetBytes(int64(len(post)))
		run(b, [][]byte{post})
	})
	b.Run("exchange.jsonl", func(b *testing.B) { run(b, corpusLines(b)) })
}

// BenchmarkWalk compares the two readers on post.json and the exchange
// corpus: every value read.
func BenchmarkWalk(b *testing.B) {
	buf := make([]byte, 0, 256) // kept as it grows
	b.Run("Scanner", func(b *testing.B) {
		benchWalk(b, func(b *testing.B, doc []byte) int {
			s := NewScanner(doc)
			var keys int
			if buf, keys = scanAll(&s, buf); !s.End() {
				b.Fatal("not read to the end")
			}
			return keys
		})
	})
	b.Run("Iterator", func(b *testing.B) {
		benchWalk(b, func(b *testing.B, doc []byte) int {
			it := BorrowIterator(doc)
			var keys int
			if buf, keys = iterAll(it, buf); !it.End() {
				b.Fatal("not read to the end")
			}
			ReturnIterator(it)
			return keys
		})
	})
}
