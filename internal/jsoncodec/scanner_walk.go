package jsoncodec

import (
	"encoding/binary"
	"math/bits"
)

// ReadObject reads the next key of an object: call it once to enter the
// object (the next value must be one, see WhatIsNext) and read its first
// key, then once after each value. ok is false at the end of the object.
// The key is a slice of the input, or of the scanner's own buffer when it
// holds escapes (decoded), valid until the next call; an empty key ("")
// comes back with ok true.
//
// Between members it reads what json-iterator's ReadObject read: a ','
// before the next key, or '}'; and also (lenient, json-iterator's reading
// kept) a '{' that opens the next key as ',' would, a null that ends the
// object as '}' would, and a null key after ',' (null:) that ends the object
// when no value follows it. An end of the object followed by the start of a
// value ({"a":{} "b"}) is an error.
func (s *Scanner) ReadObject() (key []byte, ok bool) {
	if s.err != nil {
		return nil, false
	}
	// The common case: ,"key": (or {"key":) without blanks or escapes.
	if d, i := s.data, s.pos; i+1 < len(d) && d[i+1] == '"' && (d[i] == ',' || d[i] == '{') {
		start := i + 2
		var j int
		if start+8 <= len(d) { // most keys end in their first eight bytes
			if m := specialBytes(binary.LittleEndian.Uint64(d[start:])); m != 0 {
				j = start + bits.TrailingZeros64(m)/8
			} else {
				j = start + 8 + plainLen(d[start+8:])
			}
		} else {
			j = start + plainLen(d[start:])
		}
		if j > start && j+1 < len(d) && d[j] == '"' && d[j+1] == ':' {
			s.pos = j + 2
			return d[start:j], true
		}
	}
	switch s.next() {
	case '{':
		switch s.next() {
		case '"':
			key = s.readKey()
		case '}':
			return s.afterEmptyKey()
		default:
			s.fail(ErrSyntax)
			return nil, false
		}
	case ',':
		switch s.next() {
		case '"':
			key = s.readKey()
		case 'n': // json-iterator reads the key null as ""
			s.literal("ull")
		default:
			s.fail(ErrSyntax)
			return nil, false
		}
	case '}':
		return s.afterEmptyKey()
	case 'n':
		s.literal("ull")
		return s.afterEmptyKey()
	default:
		s.fail(ErrSyntax)
		return nil, false
	}
	if s.err != nil {
		return nil, false
	}
	if s.next() != ':' {
		s.fail(ErrSyntax)
		return nil, false
	}
	if len(key) > 0 {
		return key, true
	}
	return s.afterEmptyKey()
}

// afterEmptyKey tells apart what json-iterator's ReadObject returned as ""
// (the key "", a null key, the end of the object) as Iterator does: by what
// follows. A value that follows makes it the key "" when the text read
// ends with `"":` (after '{' or ','), an error otherwise; anything else is
// the end of the object, and so is the end of the input, unless the input's
// last token is a ':' still waiting for its value.
func (s *Scanner) afterEmptyKey() ([]byte, bool) {
	if s.err != nil {
		return nil, false
	}
	i := s.peek()
	switch {
	case i == len(s.data):
		if lastNonBlank(s.data) == ':' {
			s.fail(ErrUnexpectedEnd)
		}
		return nil, false
	case valueTypes[s.data[i]] == InvalidValue:
		return nil, false
	case emptyKeyBefore(s.data, i):
		return s.data[i:i], true
	}
	s.fail(ErrSyntax)
	return nil, false
}

// ReadArray enters an array (the next value must be one, see WhatIsNext) or
// moves to its next element: it returns true when an element follows, false
// at the end of the array. Between elements it reads ',' or ']', and also
// (lenient, json-iterator's reading kept) a '[' that is read as ',' and a
// null that ends the array as ']' would.
func (s *Scanner) ReadArray() bool {
	if s.err != nil {
		return false
	}
	switch s.next() {
	case '[':
		i := s.peek()
		if i == len(s.data) {
			s.fail(ErrUnexpectedEnd)
			return false
		}
		if s.data[i] == ']' {
			s.pos = i + 1
			return false
		}
		return true
	case ',':
		return true
	case ']':
		return false
	case 'n':
		s.literal("ull")
		return false
	}
	s.fail(ErrSyntax)
	return false
}

// Skip skips the next value, whatever it is, checking its syntax as
// json-iterator's Skip did.
func (s *Scanner) Skip() {
	if s.err == nil {
		s.skip(0)
	}
}

// skip skips a value inside depth skipped arrays and objects.
func (s *Scanner) skip(depth int) {
	switch c := s.next(); c {
	case '"':
		s.scanString()
	case 'n':
		s.literal("ull")
	case 't':
		s.literal("rue")
	case 'f':
		s.literal("alse")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s.pos--
		s.number()
	case '[':
		s.skipArray(depth + 1)
	case '{':
		s.skipObject(depth + 1)
	default:
		s.fail(ErrSyntax)
	}
}

// skipArray skips an array's elements and its ']'. Unlike a walked array,
// a skipped one takes only ',' between elements.
func (s *Scanner) skipArray(depth int) {
	if depth > maxDepth {
		s.fail(ErrDepth)
		return
	}
	if i := s.peek(); i < len(s.data) && s.data[i] == ']' {
		s.pos = i + 1
		return
	}
	for s.err == nil {
		s.skip(depth)
		switch s.next() {
		case ',':
		case ']':
			return
		default:
			s.fail(ErrSyntax)
		}
	}
}

// skipObject skips an object's members and its '}'. Unlike a walked
// object, a skipped one takes only ',' between members, and (lenient,
// json-iterator's reading kept) a null key after the first.
func (s *Scanner) skipObject(depth int) {
	if depth > maxDepth {
		s.fail(ErrDepth)
		return
	}
	c := s.next()
	if c == '}' {
		return
	}
	if c != '"' {
		s.fail(ErrSyntax)
		return
	}
	for {
		if c == '"' { // c is the key's first byte
			s.scanString()
		} else {
			s.literal("ull")
		}
		if s.err != nil {
			return
		}
		if s.next() != ':' {
			s.fail(ErrSyntax)
			return
		}
		s.skip(depth)
		if s.err != nil {
			return
		}
		switch s.next() {
		case ',':
		case '}':
			return
		default:
			s.fail(ErrSyntax)
			return
		}
		if c = s.next(); c != '"' && c != 'n' {
			s.fail(ErrSyntax)
			return
		}
	}
}

// AppendRaw skips the next value, checking its syntax, and appends its JSON
// text as it stands in the input (without the blanks before it) to dst.
func (s *Scanner) AppendRaw(dst []byte) []byte {
	if s.err != nil {
		return dst
	}
	start := s.peek()
	s.skip(0)
	if s.err != nil {
		return dst
	}
	return append(dst, s.data[start:s.pos]...)
}
