package synth

import (
	"encoding/json"
	"strconv"
	"strings"
)

// MicrosPerUSD is the number of micros in one US dollar.
const MicrosPerUSD = 1_000_000

// FormatMicros formats an amount of micros as the shortest decimal number of
// dollars, without an exponent and without going through floating point:
// 2500000 → "2.5", 3000000 → "3", 850000 → "0.85", 1 → "0.000001".
func FormatMicros(micros int64) string {
	sign := ""
	u := uint64(micros)
	if micros < 0 {
		sign = "-"
		u = -u
	}
	whole := strconv.FormatUint(u/MicrosPerUSD, 10)
	frac := u % MicrosPerUSD
	if frac == 0 {
		return sign + whole
	}
	f := strconv.FormatUint(frac, 10)
	f = strings.Repeat("0", 6-len(f)) + f
	return sign + whole + "." + strings.TrimRight(f, "0")
}

// formatMicrosFixed formats micros with exactly places fractional digits
// (places ≤ 6); digits beyond places must be zero, they are cut off.
func formatMicrosFixed(micros int64, places int) string {
	whole := strconv.FormatInt(micros/MicrosPerUSD, 10)
	f := strconv.FormatInt(micros%MicrosPerUSD, 10)
	f = strings.Repeat("0", 6-len(f)) + f
	if places == 0 {
		return whole
	}
	return whole + "." + f[:places]
}

// money returns micros as a json.Number in its shortest decimal form.
func money(micros int64) json.Number { return json.Number(FormatMicros(micros)) }

// parseMicros parses a non-negative decimal with at most 6 fractional digits
// and no exponent into micros. It is the inverse of FormatMicros for the
// values this package writes.
func parseMicros(s string) (int64, bool) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || (hasDot && (frac == "" || len(frac) > 6)) {
		return 0, false
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	frac += strings.Repeat("0", 6-len(frac))
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, false
	}
	return w*MicrosPerUSD + f, true
}
