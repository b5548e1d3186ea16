package currency

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/bounded"
	"github.com/recbid/dspd/internal/problems"
)

// Limits of a rates file.
const (
	MaxFileBytes  = 1 << 20
	maxRateDigits = 64  // characters of one rate's literal text
	maxExponent   = 100 // |exponent| of a rate written with one
)

// ErrInvalidRates is the cause of every error that rejects a rates file;
// the *problems.Error that wraps it names each problem.
var ErrInvalidRates = errors.New("invalid currency rates file")

// Rates converts floors into US dollars. It is immutable; a reload reads a
// new one. The zero value (and nil) knows no currency but USD.
type Rates struct {
	toUSD  map[string]ratio // by upper-case ISO 4217 code
	asOf   string           // the file's dataAsOf, as written
	asOfAt time.Time        // dataAsOf read as a date or time; zero if it is neither
}

// ratio is USD per unit of a currency, num/den in lowest terms. Conversions
// whose terms fit 64 bits take the fast path; the others keep the big form.
type ratio struct {
	num, den uint64
	big      *big.Rat // nil when num/den hold the ratio
}

// Load reads and validates a rates file. A file with any error is rejected
// whole: the error is a *problems.Error naming every problem, or an I/O error.
func Load(path string) (*Rates, error) {
	data, err := bounded.ReadFile(path, MaxFileBytes)
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, problems.New(ErrInvalidRates, fmt.Sprintf("file is larger than %d bytes", MaxFileBytes))
	case err != nil:
		return nil, fmt.Errorf("currency rates: %w", err)
	}
	return Parse(data)
}

// Parse validates the JSON text of a rates file. Keys other than dataAsOf
// and conversions (Prebid's generatedAt, say) are ignored; every
// currency code is three letters, every rate a number > 0.
func Parse(data []byte) (*Rates, error) {
	var file struct {
		DataAsOf    *json.RawMessage                      `json:"dataAsOf"`
		Conversions map[string]map[string]json.RawMessage `json:"conversions"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&file); err != nil {
		return nil, problems.New(ErrInvalidRates, "not a currency rates file: "+err.Error())
	}
	if dec.More() {
		return nil, problems.New(ErrInvalidRates, "not a currency rates file: data after the top-level object")
	}
	var found []string
	add := func(format string, args ...any) { found = append(found, fmt.Sprintf(format, args...)) }
	r := &Rates{toUSD: map[string]ratio{}}
	if file.DataAsOf != nil {
		if err := json.Unmarshal(*file.DataAsOf, &r.asOf); err != nil {
			add("dataAsOf: must be a string")
		}
		r.asOfAt = parseAsOf(r.asOf)
	}
	if file.Conversions == nil {
		add("conversions: required, an object of objects of rates")
	}
	// Every rate is checked; the conversions to USD are kept.
	rates := map[[2]string]*big.Rat{}
	for _, from := range slices.Sorted(keys(file.Conversions)) {
		if !isCode(from) {
			add("conversions.%s: must be a 3-letter currency code", from)
			continue
		}
		for _, to := range slices.Sorted(keys(file.Conversions[from])) {
			name := "conversions." + from + "." + to
			if !isCode(to) {
				add("%s: must be a 3-letter currency code", name)
				continue
			}
			rate, err := parseRate(file.Conversions[from][to])
			if err != nil {
				add("%s: %v", name, err)
				continue
			}
			pair := [2]string{strings.ToUpper(from), strings.ToUpper(to)}
			if _, dup := rates[pair]; dup {
				add("%s: given twice (codes are read in any case)", name)
				continue
			}
			rates[pair] = rate
		}
	}
	if len(found) > 0 {
		return nil, problems.New(ErrInvalidRates, found...)
	}
	for pair, rate := range rates {
		switch {
		case pair[1] == "USD":
			r.toUSD[pair[0]] = newRatio(rate)
		case pair[0] == "USD":
			if _, direct := rates[[2]string{pair[1], "USD"}]; !direct {
				r.toUSD[pair[1]] = newRatio(new(big.Rat).Inv(rate))
			}
		}
	}
	r.toUSD["USD"] = ratio{num: 1, den: 1}
	return r, nil
}

func keys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func isCode(s string) bool { return len(s) == 3 && bidder.IsLetters(s) }

// parseRate reads a rate's literal text as an exact rational: a JSON number
// above zero, at most maxRateDigits characters, its exponent within
// ±maxExponent.
func parseRate(raw json.RawMessage) (*big.Rat, error) {
	lit := string(bytes.TrimSpace(raw))
	if lit == "" || (lit[0] != '-' && (lit[0] < '0' || lit[0] > '9')) {
		return nil, errors.New("must be a number")
	}
	if len(lit) > maxRateDigits {
		return nil, fmt.Errorf("must be written in at most %d characters", maxRateDigits)
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e, err := strconv.Atoi(lit[i+1:]) // a sign and leading zeros are allowed
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, fmt.Errorf("exponent must be within ±%d", maxExponent)
		}
	}
	rate, ok := new(big.Rat).SetString(lit) // encoding/json has checked the number's syntax
	if !ok {
		return nil, errors.New("must be a number")
	}
	if rate.Sign() <= 0 {
		return nil, errors.New("must be above 0")
	}
	return rate, nil
}

func newRatio(r *big.Rat) ratio {
	if r.Num().IsUint64() && r.Denom().IsUint64() {
		return ratio{num: r.Num().Uint64(), den: r.Denom().Uint64()}
	}
	return ratio{big: r}
}

// parseAsOf reads dataAsOf as Prebid writes it: a date, or a date and time.
func parseAsOf(s string) time.Time {
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", time.DateTime} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// ToUSD converts a floor of m micros of currency cur (three letters, any
// case) into USD micros, rounded up to whole micros so that a bid at or
// above the result is never under the floor. ok is false when the rates
// have no rate for cur. Floors saturate at bidder.AboveAnyPrice. It
// allocates nothing unless the rate's terms are wider than 64 bits.
func (r *Rates) ToUSD(cur string, m bidder.Micros) (bidder.Micros, bool) {
	var code [3]byte
	if len(cur) != 3 {
		return 0, false
	}
	for i := range code {
		code[i] = cur[i] &^ 0x20 // upper case; isCode has checked the letters
	}
	if string(code[:]) == "USD" {
		return m, true
	}
	if r == nil {
		return 0, false
	}
	q, ok := r.toUSD[string(code[:])]
	if !ok {
		return 0, false
	}
	if m <= 0 {
		return 0, true
	}
	if m >= bidder.AboveAnyPrice {
		return bidder.AboveAnyPrice, true
	}
	if q.big == nil {
		hi, lo := bits.Mul64(uint64(m), q.num)
		if hi >= q.den {
			return bidder.AboveAnyPrice, true // the quotient needs more than 64 bits
		}
		v, rem := bits.Div64(hi, lo, q.den)
		if rem != 0 {
			v++
		}
		if v > uint64(bidder.MaxDecimalMicros) {
			return bidder.AboveAnyPrice, true
		}
		return bidder.Micros(v), true
	}
	num := new(big.Int).Mul(big.NewInt(int64(m)), q.big.Num())
	v, rem := new(big.Int).QuoRem(num, q.big.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		v.Add(v, big.NewInt(1))
	}
	if !v.IsInt64() || v.Int64() > int64(bidder.MaxDecimalMicros) {
		return bidder.AboveAnyPrice, true
	}
	return bidder.Micros(v.Int64()), true
}

// Len returns the number of currencies the rates convert, USD included.
func (r *Rates) Len() int {
	if r == nil {
		return 1
	}
	return len(r.toUSD)
}

// AsOf returns the file's dataAsOf as written, and read as a time (zero
// when it is neither a date nor a date and time).
func (r *Rates) AsOf() (string, time.Time) {
	if r == nil {
		return "", time.Time{}
	}
	return r.asOf, r.asOfAt
}
