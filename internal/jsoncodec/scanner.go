package jsoncodec

import (
	"errors"
	"fmt"
)

// Scanner reads JSON text from a byte slice one token at a time, for
// callers that walk a document by hand. It has Iterator's methods and gives
// the same result for every call on every input, the walk of the first
// syntax error included (see scanner_parity_test.go), but it is
// written for the walk alone: it reads the input in place and allocates
// nothing, keys included (but for the rare key with escapes longer than
// keyRoom, and numbers only math/big can check, such as -.5). It accepts
// what json-iterator's walk accepted, a few lenient readings included (see
// ReadObject and ReadArray), so that a request dspd served yesterday is
// served the same today.
//
// Errors are kept: the first one stays in Err, and every read after it
// returns nothing (false, InvalidValue, dst unchanged). Running into the end
// of the input in the middle of a value is an error.
type Scanner struct {
	data []byte
	pos  int // the next byte to read
	err  error
	key  [keyRoom]byte // keys with escapes, decoded
	// anyMagnitude: a number is valid whatever its magnitude (NewScannerAnyMagnitude).
	anyMagnitude bool
}

// keyRoom is the room for keys with escapes; a longer one is decoded into
// a new slice.
const keyRoom = 64

// maxDepth is json-iterator's bound on the nesting of skipped arrays and
// objects (the objects and arrays a caller walks do not count).
const maxDepth = 10000

// The errors in Err.
var (
	// ErrSyntax is any error of the JSON text; the others wrap it.
	ErrSyntax = errors.New("jsoncodec: invalid JSON")
	// ErrUnexpectedEnd: the input ends in the middle of a value.
	ErrUnexpectedEnd = fmt.Errorf("%w: unexpected end of input", ErrSyntax)
	// ErrDepth: skipped values nest deeper than json-iterator allowed.
	ErrDepth = fmt.Errorf("%w: nesting deeper than %d", ErrSyntax, maxDepth)
)

// NewScanner returns a Scanner over data, which it never modifies.
func NewScanner(data []byte) Scanner { return Scanner{data: data} }

// NewScannerAnyMagnitude is NewScanner, except that a number out of
// float64's range (1e400), or of float32's where json-iterator read one
// (0.5e39), is valid: JSON's grammar sets no bound on a number's
// magnitude, and json-iterator's refusal of such a number made a valid
// document invalid. Every other reading is json-iterator's.
func NewScannerAnyMagnitude(data []byte) Scanner { return Scanner{data: data, anyMagnitude: true} }

// Err returns the first error met, or nil.
func (s *Scanner) Err() error { return s.err }

func (s *Scanner) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// isBlank reports the four blanks of JSON (one comparison for most bytes).
func isBlank(c byte) bool { return c <= ' ' && (c == ' ' || c == '\n' || c == '\t' || c == '\r') }

// peek moves past blanks and returns the index of the next byte, which it
// does not consume: len(s.data) at the end of the input.
func (s *Scanner) peek() int {
	i := s.pos
	for i < len(s.data) && isBlank(s.data[i]) {
		i++
	}
	s.pos = i
	return i
}

// next consumes the next byte after blanks; at the end of the input it
// records ErrUnexpectedEnd and returns 0.
func (s *Scanner) next() byte {
	d, i := s.data, s.pos
	for i < len(d) && isBlank(d[i]) {
		i++
	}
	if i == len(d) {
		s.pos = i
		s.fail(ErrUnexpectedEnd)
		return 0
	}
	s.pos = i + 1
	return d[i]
}

// literal consumes rest, the bytes of true, false or null after the first.
func (s *Scanner) literal(rest string) {
	i := s.pos
	if len(s.data)-i < len(rest) {
		s.pos = len(s.data)
		s.fail(ErrUnexpectedEnd)
		return
	}
	if string(s.data[i:i+len(rest)]) != rest {
		s.fail(ErrSyntax)
		return
	}
	s.pos = i + len(rest)
}

// valueTypes gives the kind of a value from its first byte.
var valueTypes = func() (t [256]ValueType) {
	t['"'] = StringValue
	t['-'] = NumberValue
	for c := '0'; c <= '9'; c++ {
		t[c] = NumberValue
	}
	t['t'], t['f'] = BoolValue, BoolValue
	t['n'] = NilValue
	t['['] = ArrayValue
	t['{'] = ObjectValue
	return t
}()

// WhatIsNext returns the kind of the next value without consuming it:
// InvalidValue at the end of the input, after an error, and for a byte no
// value starts with.
func (s *Scanner) WhatIsNext() ValueType {
	if i := s.peek(); i < len(s.data) && s.err == nil {
		return valueTypes[s.data[i]]
	}
	return InvalidValue
}

// End reports whether the whole input was read without error: only blanks
// may follow the last value.
func (s *Scanner) End() bool { return s.err == nil && s.peek() == len(s.data) }
