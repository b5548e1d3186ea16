package jsoncodec

import (
	"bytes"
	"io"
	"strings"

	jsoniter "github.com/json-iterator/go"
)

// Iterator reads JSON text from a byte slice, one token at a time, for
// callers that walk a document by hand instead of decoding it into a map or
// by reflection. It is borrowed from a pool with BorrowIterator and must be
// given back with ReturnIterator.
//
// dspd reads with Scanner, which allocates nothing; Iterator is the
// reference that Scanner's parity tests and fuzz target compare it with.
//
// Errors are kept, as in json-iterator: the first syntax error stays in Err,
// and what reads return after it means nothing, so callers check Err in their
// loops and when they are done. The iterator reads data in place and never
// modifies it.
//
// Allocation: json-iterator copies every object key of two bytes or more into
// a new string (in ReadObject, and in Skip of an object); AppendString and
// AppendNumber allocate nothing unless a string holds escapes; nothing else
// allocates.
type Iterator struct {
	it   *jsoniter.Iterator
	data []byte
}

// iterConfig is config with pools of its own: the walkers' iterators never
// come from Unmarshal's reflection decoders, nor go back to them.
var iterConfig = jsoniter.Config{
	EscapeHTML:             false,
	SortMapKeys:            true,
	ValidateJsonRawMessage: true,
}.Froze()

// BorrowIterator borrows a pooled iterator over data.
func BorrowIterator(data []byte) Iterator { return Iterator{iterConfig.BorrowIterator(data), data} }

// ReturnIterator gives the iterator back to its pool. It must not be used
// after that.
func ReturnIterator(it Iterator) { iterConfig.ReturnIterator(it.it) }

// Err returns the first syntax error met, or nil. Running into the end of
// the input in the middle of a value is an error (io.EOF or another).
func (it Iterator) Err() error { return it.it.Error }

// WhatIsNext returns the kind of the next value without consuming it.
func (it Iterator) WhatIsNext() ValueType {
	t := it.it.WhatIsNext()
	if t == InvalidValue && it.it.Error == io.EOF {
		it.it.Error = nil // a peek at the end is not an error; End tells it apart
	}
	return t
}

// ReadObject reads the next key of an object: call it once to enter the
// object and read its first key, then once after each value. ok is false at
// the end of the object; null reads as an empty object. Unlike
// json-iterator's own ReadObject, an empty key ("") is told apart from the
// end of the object: it comes back with ok true.
func (it Iterator) ReadObject() (key string, ok bool) {
	key = it.it.ReadObject()
	if key != "" {
		return key, true
	}
	if it.it.Error != nil {
		return "", false
	}
	// json-iterator returns "" at the end of the object, for null, and for
	// the key "". In valid JSON only the key is followed by a value.
	switch t := it.it.WhatIsNext(); {
	case t != InvalidValue:
		// Rare: an empty key, or invalid JSON (a value right after '}', or
		// null where a key should be). Only the bytes read tell them apart.
		if head, ok := it.position(); ok && emptyKeyBefore(it.data, head) {
			return "", true
		}
		it.it.ReportError("ReadObject", "expects a key or the end of the object")
	case it.it.Error == io.EOF:
		// The input ends here: after the closing '}' of the document, or
		// (a truncated document) right after `"":`.
		if lastNonBlank(it.data) == ':' {
			it.it.Error = io.ErrUnexpectedEOF
		} else {
			it.it.Error = nil // End tells the end apart
		}
	}
	return "", false
}

// position returns how many bytes of the input have been read, which
// json-iterator tells only in its CurrentBuffer text ("parsing #N byte…");
// it copies the input, so it is for rare paths only.
func (it Iterator) position() (int, bool) {
	s, ok := strings.CutPrefix(it.it.CurrentBuffer(), "parsing #")
	if !ok {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > len(it.data) {
			return 0, false
		}
	}
	return n, true
}

// ReadArray enters an array or moves to its next element: it returns true
// when an element follows, false at the end of the array. null reads as an
// empty array.
func (it Iterator) ReadArray() bool { return it.it.ReadArray() }

// Skip skips the next value, whatever it is, checking its syntax.
func (it Iterator) Skip() { it.it.Skip() }

// AppendRaw skips the next value, whatever it is, checking its syntax, and
// appends its JSON text as it stands in the input (without the blanks
// before it) to dst, for callers that quote what they could not use. It
// allocates nothing beyond dst's growth.
func (it Iterator) AppendRaw(dst []byte) []byte {
	if dst == nil {
		dst = make([]byte, 0, 64) // json-iterator's capture needs a non-nil buffer
	}
	start := len(dst)
	dst = it.it.SkipAndAppendBytes(dst)
	if it.it.Error != nil && it.it.Error != io.EOF {
		return dst[:start]
	}
	i := start
	for i < len(dst) && (dst[i] == ' ' || dst[i] == '\t' || dst[i] == '\n' || dst[i] == '\r') {
		i++
	}
	n := copy(dst[start:], dst[i:])
	return dst[:start+n]
}

// AppendString reads a string value, checking its syntax, and appends its
// decoded bytes (escapes resolved) to dst. It allocates nothing unless the
// string holds escapes. The next value must be a string (see WhatIsNext);
// anything else sets Err. The caller's value is dst[len(dst):] of the
// result.
func (it Iterator) AppendString(dst []byte) []byte {
	if dst == nil {
		dst = make([]byte, 0, 64) // json-iterator's capture needs a non-nil buffer
	}
	start := len(dst)
	dst = it.it.SkipAndAppendBytes(dst) // the raw text: blanks, then "…"
	if it.it.Error != nil {
		return dst[:start]
	}
	raw := dst[start:]
	q := bytes.IndexByte(raw, '"')
	if q < 0 || len(raw)-q < 2 || raw[len(raw)-1] != '"' {
		it.it.ReportError("AppendString", "expects a string")
		return dst[:start]
	}
	body := raw[q+1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		n := copy(dst[start:], body) // move it down over the blanks and the quote
		return dst[:start+n]
	}
	// Rare: let json-iterator resolve the escapes, on a copy of the raw text.
	sub := iterConfig.BorrowIterator(raw[q:])
	s := sub.ReadString()
	err := sub.Error
	iterConfig.ReturnIterator(sub)
	if err != nil && err != io.EOF {
		it.it.ReportError("AppendString", err.Error())
		return dst[:start]
	}
	return append(dst[:start], s...)
}

// AppendNumber reads a number value, checking its syntax, and appends its
// literal text (such as "2.50" or "-1e3") to dst, without converting it, so
// that callers can read decimals exactly. It allocates nothing. The next
// value must be a number (see WhatIsNext); anything else sets Err.
func (it Iterator) AppendNumber(dst []byte) []byte {
	if dst == nil {
		dst = make([]byte, 0, 32)
	}
	start := len(dst)
	dst = it.it.SkipAndAppendBytes(dst)
	if it.it.Error != nil && it.it.Error != io.EOF {
		return dst[:start]
	}
	raw := dst[start:]
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	if i == len(raw) || (raw[i] != '-' && (raw[i] < '0' || raw[i] > '9')) {
		it.it.ReportError("AppendNumber", "expects a number")
		return dst[:start]
	}
	n := copy(dst[start:], raw[i:])
	return dst[:start+n]
}

// End reports whether the whole input was read without error: only blanks
// may follow the last value.
func (it Iterator) End() bool {
	if it.it.Error != nil && it.it.Error != io.EOF {
		return false
	}
	if it.it.WhatIsNext() != InvalidValue {
		return false
	}
	return it.it.Error == io.EOF
}
