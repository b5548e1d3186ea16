package jsoncodec

import (
	"errors"
	"github.com/recbid/dspd/internal/bytesview"
	"math/big"
	"strconv"
	"strings"
)

// Numbers are read as json-iterator's Skip read them, which is not quite
// JSON's grammar. A number is the longest run of the bytes + - . e E and
// digits (numberRun) and is valid when:
//
//   - it starts with 0: the next byte is not a digit, and the run is a
//     float32 that strconv.ParseFloat reads (so 0.5e39, out of range, is an
//     error), with a digit after its dot;
//   - it starts with '-' or 1-9 and holds only digits and one dot, each dot
//     followed by a digit, up to one of , ] } and the blanks (a fast path of
//     json-iterator's that takes -.5 and -01);
//   - otherwise, without its '-': when it starts with '.' or with 0 and a
//     digit, math/big reads it; else strconv.ParseFloat reads it as a
//     float64 (so 1e400 is an error), with a digit after its dot and no
//     second '-' first.
//
// Only the first two cases are common; the others call the parsers.

// runByte marks the bytes of a number's run.
var runByte = func() (t [256]bool) {
	for _, c := range []byte("+-.eE0123456789") {
		t[c] = true
	}
	return t
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberRun returns the end of the run of number bytes from d[i].
func numberRun(d []byte, i int) int {
	for i < len(d) && runByte[d[i]] {
		i++
	}
	return i
}

// number consumes the number at s.pos ('-' or a digit).
func (s *Scanner) number() {
	d, p := s.data, s.pos
	if d[p] == '0' {
		switch {
		case p+1 < len(d) && isDigit(d[p+1]):
			s.fail(ErrSyntax) // a leading zero
		case p+1 < len(d) && !runByte[d[p+1]]:
			s.pos = p + 1 // 0 alone
		default:
			s.slowNumber(p, 32)
		}
		return
	}
	dot := false
	for i := p + 1; i < len(d); i++ {
		switch c := d[i]; c {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		case '.':
			if !dot && i+1 == len(d) {
				s.signedNumber(p)
				return
			}
			if dot || !isDigit(d[i+1]) {
				s.pos = i
				s.fail(ErrSyntax)
				return
			}
			dot = true
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			if i == p+1 && d[p] == '-' {
				s.fail(ErrSyntax)
				return
			}
			s.pos = i // (one digit alone passes json-iterator's other paths)
			return
		default:
			s.signedNumber(p)
			return
		}
	}
	s.signedNumber(p)
}

// signedNumber reads the number at d[p] ('-' or 1-9) as json-iterator's
// ReadFloat64, and when that fails before reading, as its ReadBigFloat.
func (s *Scanner) signedNumber(p int) {
	d := s.data
	r := p
	if d[p] == '-' {
		r++
	}
	if r < len(d) && (d[r] == '.' || d[r] == '0' && r+1 < len(d) && isDigit(d[r+1])) {
		end := numberRun(d, r)
		if end == r || end == len(d) || !bigFloat(d[r:end]) {
			s.pos = end
			s.fail(ErrSyntax)
			return
		}
		s.pos = end
		return
	}
	s.slowNumber(r, 64)
}

// slowNumber reads the run at d[r] as json-iterator's readFloat64SlowPath
// (readFloat32SlowPath for bits 32).
func (s *Scanner) slowNumber(r, bits int) {
	d := s.data
	end := numberRun(d, r)
	s.pos = end
	switch {
	case end == len(d):
		s.fail(ErrUnexpectedEnd)
	case !plainDecimal(d[r:end]) && !parsesAsFloat(d[r:end], bits, s.anyMagnitude):
		s.fail(ErrSyntax)
	}
}

// plainDecimal reports digits with at most one dot inside, at most 18
// bytes: what parsesAsFloat accepts without a doubt, and cheaply.
func plainDecimal(b []byte) bool {
	if len(b) == 0 || len(b) > 18 || !isDigit(b[0]) || !isDigit(b[len(b)-1]) {
		return false
	}
	dot := false
	for _, c := range b {
		switch {
		case isDigit(c):
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}

// parsesAsFloat is json-iterator's validateFloat then strconv.ParseFloat;
// with anyMagnitude, a number ParseFloat reads but finds out of range
// passes.
func parsesAsFloat(b []byte, bits int, anyMagnitude bool) bool {
	if len(b) == 0 || b[0] == '-' {
		return false
	}
	if dot := strings.IndexByte(text(b), '.'); dot >= 0 && (dot == len(b)-1 || !isDigit(b[dot+1])) {
		return false
	}
	_, err := strconv.ParseFloat(text(b), bits)
	var ne *strconv.NumError
	return err == nil || anyMagnitude && errors.As(err, &ne) && ne.Err == strconv.ErrRange
}

// bigFloat is json-iterator's ReadBigFloat: math/big's reading, at a
// precision of at least the text's length.
func bigFloat(b []byte) bool {
	_, _, err := big.ParseFloat(text(b), 10, uint(max(64, len(b))), big.ToZero)
	return err == nil
}

// text views b as a string, for the parsers, which do not keep it.
func text(b []byte) string { return bytesview.String(b) }

// AppendNumber reads a number value, checking its syntax, and appends its
// literal text (such as "2.50" or "-1e3") to dst, without converting it, so
// that callers can read decimals exactly. It allocates nothing beyond dst's
// growth. The next value must be a number (see WhatIsNext); anything else
// is an error.
func (s *Scanner) AppendNumber(dst []byte) []byte {
	if s.err != nil {
		return dst
	}
	i := s.peek()
	if i == len(s.data) || valueTypes[s.data[i]] != NumberValue {
		s.fail(ErrSyntax)
		return dst
	}
	s.number()
	if s.err != nil {
		return dst
	}
	return append(dst, s.data[i:s.pos]...)
}
