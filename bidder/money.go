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

// AboveAnyPrice is a floor no bid can clear: CeilMicros saturates to it.
const AboveAnyPrice = MaxDecimalMicros + 1

// CeilMicros reads a JSON number's literal text ("1.5", "0.8500000000000001",
// "2e-3") as micros rounded up, exactly, without binary floating point: a
// floor read this way is never below the one written, whatever its number
// of digits. A value above MaxDecimalMicros saturates to AboveAnyPrice. ok
// is false for a negative value (zero written "-0" is zero) or text that is
// not a JSON number.
func CeilMicros[S ~string | ~[]byte](s S) (m Micros, ok bool) {
	i := 0
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	// The value is digits × 10^(exp − fraction digits); micros are
	// digits × 10^(exp − fraction digits + 6).
	var digits [20]byte // the significant digits kept; more only say "not zero"
	nd, extra := 0, 0   // digits kept; significant digits beyond them, before the point
	nonzeroLost := false
	shift := 6
	start := i
	readDigits := func(frac bool) int {
		n := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			n++
			c := s[i]
			switch {
			case nd == 0 && c == '0':
			case nd < len(digits):
				digits[nd] = c
				nd++
			default:
				nonzeroLost = nonzeroLost || c != '0'
				if !frac {
					extra++
				}
				continue
			}
			if frac {
				shift--
			}
		}
		return n
	}
	if readDigits(false) == 0 || (s[start] == '0' && i-start > 1) {
		return 0, false // no digits, or a leading zero
	}
	if i < len(s) && s[i] == '.' {
		i++
		if readDigits(true) == 0 {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		e, n := 0, 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			n++
			if e < 1_000_000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if n == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		shift += e
	}
	if i != len(s) {
		return 0, false
	}
	if nd == 0 {
		return 0, true // zero, however written ("0.000", "-0", "0e5")
	}
	if neg {
		return 0, false
	}
	shift += extra
	// Integer part: the first nd+shift digits (padded with zeros when
	// shift > 0); anything after them rounds up.
	keep := nd + shift
	if keep > 16 { // ≥ 10^16 micros, far above MaxDecimalMicros
		return AboveAnyPrice, true
	}
	var v int64
	for k := 0; k < keep; k++ {
		v *= 10
		if k < nd {
			v += int64(digits[k] - '0')
		}
	}
	for k := max(keep, 0); k < nd; k++ {
		nonzeroLost = nonzeroLost || digits[k] != '0'
	}
	if nonzeroLost {
		v++
	}
	if Micros(v) > MaxDecimalMicros {
		return AboveAnyPrice, true
	}
	return Micros(v), true
}
