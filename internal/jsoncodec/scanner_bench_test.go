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

// BenchmarkWalk compares the two readers on post.json: every value read.
func BenchmarkWalk(b *testing.B) {
	post := postJSON(b)
	buf := make([]byte, 0, 256) // kept as it grows
	b.Run("Scanner/post.json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(post)))
		for b.Loop() {
			s := NewScanner(post)
			var keys int
			if buf, keys = scanAll(&s, buf); keys == 0 || !s.End() {
				b.Fatal("not read")
			}
		}
	})
	b.Run("Iterator/post.json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(post)))
		for b.Loop() {
			it := BorrowIterator(post)
			var keys int
			if buf, keys = iterAll(it, buf); keys == 0 || !it.End() {
				b.Fatal("not read")
			}
			ReturnIterator(it)
		}
	})
	b.Run("Scanner/exchange.jsonl", func(b *testing.B) {
		lines := corpusLines(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s := NewScanner(lines[i%len(lines)])
			var keys int
			if buf, keys = scanAll(&s, buf); keys == 0 || !s.End() {
				b.Fatal("not read")
			}
		}
	})
	b.Run("Iterator/exchange.jsonl", func(b *testing.B) {
		lines := corpusLines(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			it := BorrowIterator(lines[i%len(lines)])
			var keys int
			if buf, keys = iterAll(it, buf); keys == 0 || !it.End() {
				b.Fatal("not read")
			}
			ReturnIterator(it)
		}
	})
}
