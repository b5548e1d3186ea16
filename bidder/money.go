package bidder

import (
	"errors"
	"fmt"
	"strconv"
)

// Micros is an amount of money in millionths of a US dollar.
type Micros int64

// MicrosPerUnit is the number of micros in one dollar.
const MicrosPerUnit = 1_000_000

// MaxDecimalMicros bounds every decimal the bidder accepts (floors, prices,
// bid CPMs, budgets): one billion dollars, far above any real value and far
// below the point where budget arithmetic (budget × 1000) could overflow.
const MaxDecimalMicros Micros = 1_000_000_000 * MicrosPerUnit

// ErrDecimal is the cause of every decimal parsing failure.
var ErrDecimal = errors.New("not a decimal")

// ParseMicros parses a non-negative decimal with at most six fractional
// digits ("2.5", "0.000001", "3") into micros without binary floating point.
// A sign, an exponent, a leading or trailing point, spaces, more than six
// fractional digits, or a value above MaxDecimalMicros are errors wrapping
// ErrDecimal.
func ParseMicros[S ~string | ~[]byte](s S) (Micros, error) {
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: empty", ErrDecimal)
	}
	var units, frac int64
	i := 0
	for ; i < len(s) && s[i] != '.'; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: unexpected %q", ErrDecimal, c)
		}
		units = units*10 + int64(c-'0')
		if units > int64(MaxDecimalMicros/MicrosPerUnit) {
			return 0, fmt.Errorf("%w: too large", ErrDecimal)
		}
	}
	if i == 0 {
		return 0, fmt.Errorf("%w: no digits before the point", ErrDecimal)
	}
	if i < len(s) { // s[i] == '.'
		digits := len(s) - i - 1
		if digits == 0 {
			return 0, fmt.Errorf("%w: no digits after the point", ErrDecimal)
		}
		if digits > 6 {
			return 0, fmt.Errorf("%w: more than 6 fractional digits", ErrDecimal)
		}
		scale := int64(MicrosPerUnit)
		for j := i + 1; j < len(s); j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("%w: unexpected %q", ErrDecimal, c)
			}
			scale /= 10
			frac += int64(c-'0') * scale
		}
	}
	m := Micros(units*MicrosPerUnit + frac)
	if m > MaxDecimalMicros {
		return 0, fmt.Errorf("%w: too large", ErrDecimal)
	}
	return m, nil
}

// AppendDecimal appends m as the shortest decimal that denotes it exactly:
// 2500000 → "2.5", 850000 → "0.85", 3000000 → "3", -1 → "-0.000001".
func (m Micros) AppendDecimal(dst []byte) []byte {
	v := int64(m)
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	dst = strconv.AppendInt(dst, v/MicrosPerUnit, 10)
	frac := v % MicrosPerUnit
	if frac == 0 {
		return dst
	}
	var digits [7]byte
	digits[0] = '.'
	for i := 6; i >= 1; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 7
	for digits[n-1] == '0' {
		n--
	}
	return append(dst, digits[:n]...)
}

// String returns m as the shortest decimal, as AppendDecimal writes it.
func (m Micros) String() string {
	var b [24]byte
	return string(m.AppendDecimal(b[:0]))
}
