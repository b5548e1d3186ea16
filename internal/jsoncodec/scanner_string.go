package jsoncodec

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings are read as json-iterator read them: a control character (below
// 0x20) is an error before the string's first escape and taken as it is
// after it; every escape must be valid; bytes that are not UTF-8 are kept
// as they are; a \u escape of half a surrogate pair is read with the escape
// after it as json-iterator paired them (see appendUnescaped).

// plainByte marks the bytes a string holds as they are before its first
// escape: not '"', not '\', not a control character.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainLen returns how many bytes at the start of b are plain (see
// plainByte): eight at a time, then one at a time for the last few.
func plainLen(b []byte) int {
	n := 0
	for ; n+8 <= len(b); n += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(b[n:])); m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
	}
	for n < len(b) && plainByte[b[n]] {
		n++
	}
	return n
}

// specialBytes flags the bytes of x (eight bytes, the first lowest) that
// are not plain, by the high bit of each: only the lowest flag counts, as
// the bytes above it may be flagged wrongly (a borrow).
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// A byte below 0x80 wraps below zero in x-0x20 when it is below 0x20,
	// and in (x^c)-1 when it is c; bytes from 0x80 are never special, and
	// x^'"' and x^'\\' keep their high bit, so &^x clears them for all three.
	return ((x - ones*0x20) | (x ^ ones*'"' - ones) | (x ^ ones*'\\' - ones)) &^ x & highs
}

// unescaped maps the byte after '\' to what it stands for; 0: not an escape
// of one byte.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// scanString reads a string whose opening quote was consumed, up to and
// including its closing quote, checking it. body is the text between the
// quotes, escapes not resolved (a slice of the input).
func (s *Scanner) scanString() (body []byte, escaped bool) {
	d := s.data
	start := s.pos
	i := start + plainLen(d[start:])
	switch {
	case i == len(d):
		s.fail(ErrUnexpectedEnd)
		return nil, false
	case d[i] == '"':
		s.pos = i + 1
		return d[start:i], false
	case d[i] != '\\':
		s.fail(ErrSyntax) // a control character
		return nil, false
	}
	for i < len(d) {
		switch d[i] {
		case '"':
			s.pos = i + 1
			return d[start:i], true
		case '\\':
			n := escapeLen(d, i)
			if n == 0 {
				s.pos = i
				s.fail(ErrSyntax)
				return nil, false
			}
			i += n
		default:
			i++
		}
	}
	s.pos = len(d)
	s.fail(ErrUnexpectedEnd)
	return nil, false
}

// escapeLen returns the length of the escape at d[i] ('\'), 0 when it is
// not valid. After a \u escape of half a surrogate pair, json-iterator read
// the escape that follows at once, if one does, as the other half (a \u
// escape) or as an escape of one byte; that one counts in the length.
func escapeLen(d []byte, i int) int {
	if i+1 >= len(d) {
		return 0
	}
	if e := d[i+1]; e != 'u' {
		if unescaped[e] == 0 {
			return 0
		}
		return 2
	}
	r, ok := hex4(d, i+2)
	switch {
	case !ok:
		return 0
	case !utf16.IsSurrogate(r):
		return 6
	}
	j := i + 6
	if j+1 >= len(d) || d[j] != '\\' {
		return 6
	}
	if d[j+1] != 'u' {
		if unescaped[d[j+1]] == 0 {
			return 0
		}
		return 8
	}
	if _, ok := hex4(d, j+2); !ok {
		return 0
	}
	return 12
}

// hex4 reads the four hex digits at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendUnescaped appends body, the checked text of a string between its
// quotes, with its escapes resolved as json-iterator resolved them. Half a
// surrogate pair is U+FFFD; when a \u escape follows it, the two make one
// character if they are a pair, else U+FFFD and that escape's character.
func appendUnescaped(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' {
				j++
			}
			dst = append(dst, body[i:j]...)
			i = j
			continue
		}
		if e := body[i+1]; e != 'u' {
			dst = append(dst, unescaped[e])
			i += 2
			continue
		}
		r, _ := hex4(body, i+2)
		i += 6
		if !utf16.IsSurrogate(r) {
			dst = utf8.AppendRune(dst, r)
			continue
		}
		if i+1 >= len(body) || body[i] != '\\' {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			continue
		}
		if e := body[i+1]; e != 'u' {
			dst = append(utf8.AppendRune(dst, utf8.RuneError), unescaped[e])
			i += 2
			continue
		}
		r2, _ := hex4(body, i+2)
		i += 6
		if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
			dst = utf8.AppendRune(dst, pair)
			continue
		}
		dst = utf8.AppendRune(utf8.AppendRune(dst, utf8.RuneError), r2)
	}
	return dst
}

// readKey reads a key whose opening quote was consumed: a slice of the
// input, or, when it holds escapes, of s.key (decoded).
func (s *Scanner) readKey() []byte {
	body, escaped := s.scanString()
	if !escaped || s.err != nil {
		return body
	}
	if len(body) <= keyRoom { // decoding never lengthens a string
		return appendUnescaped(s.key[:0], body)
	}
	return appendUnescaped(nil, body)
}

// AppendString reads a string value, checking its syntax, and appends its
// decoded bytes (escapes resolved) to dst. It allocates nothing beyond
// dst's growth. The next value must be a string (see WhatIsNext); anything
// else is an error.
func (s *Scanner) AppendString(dst []byte) []byte {
	if s.err != nil {
		return dst
	}
	i := s.peek()
	if d := s.data; i < len(d) && d[i] == '"' { // the common case: no escape
		start := i + 1
		if j := start + plainLen(d[start:]); j < len(d) && d[j] == '"' {
			s.pos = j + 1
			return append(dst, d[start:j]...)
		}
	}
	if i == len(s.data) || s.data[i] != '"' {
		s.fail(ErrSyntax)
		return dst
	}
	s.pos = i + 1
	body, escaped := s.scanString()
	switch {
	case s.err != nil:
		return dst
	case escaped:
		return appendUnescaped(dst, body)
	}
	return append(dst, body...)
}
