package currency

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/problems"
)

const prebidFile = `{"dataAsOf":"2026-11-01","generatedAt":"2026-11-01T12:00:03.118Z","conversions":{
 "USD":{"USD":1,"EUR":0.9263914,"GBP":0.78219473,"JPY":151.873,"IDR":1.587325E4,"SEK":10.65},
 "EUR":{"EUR":1,"USD":1.0794573829,"GBP":0.8443},
 "GBP":{"USD":1.2784543},
 "xau":{"usd":2650.123456789012345678901234567890}}}`

func TestToUSD(t *testing.T) {
	r, err := Parse([]byte(prebidFile))
	require.NoError(t, err)
	tests := []struct {
		name string
		cur  string
		in   bidder.Micros
		want bidder.Micros
		ok   bool
	}{
		{"USD is USD", "USD", 1_500_000, 1_500_000, true},
		{"any case", "usd", 7, 7, true},
		// EUR has its own USD rate: 1 EUR = 1.0794573829 USD.
		{"EUR direct", "EUR", 1_000_000, 1_079_458, true},  // 1079457.3829 rounded up
		{"EUR cents", "eur", 10_000, 10_795, true},         // 10794.573829
		{"EUR one micro", "EUR", 1, 2, true},               // 1.0794573829
		{"GBP direct", "GBP", 2_000_000, 2_556_909, true},  // 2556908.6
		{"JPY inverse", "JPY", 150_000_000, 987_668, true}, // 150e6 / 151.873 = 987667.33…
		{"JPY exact inverse", "JPY", 151_873_000, 1_000_000, true},
		{"IDR, exponent", "IDR", 15_873_250_000, 1_000_000, true}, // 1.587325E4
		{"IDR rounds up", "IDR", 15_873_250_001, 1_000_001, true},
		{"SEK inverse", "SEK", 10_650_000, 1_000_000, true},
		{"more than 64 bits of rate", "XAU", 1_000_000, 2_650_123_457, true},
		{"zero", "EUR", 0, 0, true},
		{"saturates", "XAU", bidder.MaxDecimalMicros, bidder.AboveAnyPrice, true},
		{"above any price stays", "EUR", bidder.AboveAnyPrice, bidder.AboveAnyPrice, true},
		{"no rate", "CHF", 1_000_000, 0, false},
		{"not a code", "EURO", 1_000_000, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.ToUSD(tt.cur, tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	var none *Rates
	got, ok := none.ToUSD("EUR", 1)
	assert.False(t, ok, "without rates only USD converts")
	assert.Zero(t, got)
	got, ok = none.ToUSD("USD", 5)
	assert.True(t, ok)
	assert.Equal(t, bidder.Micros(5), got)
	assert.Equal(t, 7, r.Len(), "USD, EUR, GBP, JPY, IDR, SEK and XAU")
	asOf, at := r.AsOf()
	assert.Equal(t, "2026-11-01", asOf)
	assert.Equal(t, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), at)
}

// TestToUSDNeverBelowTheFloor checks the rounding against exact rational
// arithmetic: the result is the smallest whole micros at or above the
// floor's value in USD.
func TestToUSDNeverBelowTheFloor(t *testing.T) {
	r, err := Parse([]byte(prebidFile))
	require.NoError(t, err)
	rates := map[string]*big.Rat{}
	for cur, lit := range map[string]string{"EUR": "1.0794573829", "GBP": "1.2784543", "JPY": "1/151.873",
		"IDR": "1/15873.25", "SEK": "1/10.65", "XAU": "2650.123456789012345678901234567890"} {
		num, den, isInv := strings.Cut(lit, "/")
		if !isInv {
			num, den = lit, "1"
		}
		n, _ := new(big.Rat).SetString(num)
		d, _ := new(big.Rat).SetString(den)
		rates[cur] = n.Quo(n, d)
	}
	for cur, rate := range rates {
		for m := bidder.Micros(1); m < 40_000_000; m = m*3 + 7 {
			got, ok := r.ToUSD(cur, m)
			require.True(t, ok)
			exact := new(big.Rat).Mul(new(big.Rat).SetInt64(int64(m)), rate)
			g := new(big.Rat).SetInt64(int64(got))
			require.True(t, g.Cmp(exact) >= 0, "%s %d: %d is below %s", cur, m, got, exact.FloatString(6))
			below := new(big.Rat).SetInt64(int64(got - 1))
			require.True(t, below.Cmp(exact) < 0, "%s %d: %d is not the least", cur, m, got)
		}
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name, file string
		problems   []string
	}{
		{"not JSON", `{`, []string{"not a currency rates file: unexpected EOF"}},
		{"trailing data", `{"conversions":{}} {}`, []string{"not a currency rates file: data after the top-level object"}},
		{"no conversions", `{"dataAsOf":"2026-11-01"}`, []string{"conversions: required, an object of objects of rates"}},
		{"every problem named", `{"dataAsOf":7,"conversions":{"US":{"EUR":1},"USD":{"EURO":1,"EUR":0,"GBP":-1,"JPY":"151","CAD":1e101,"AUD":1.` +
			strings.Repeat("1", 70) + `,"CHF":1e-05}}}`, []string{
			"dataAsOf: must be a string",
			"conversions.US: must be a 3-letter currency code",
			"conversions.USD.AUD: must be written in at most 64 characters",
			"conversions.USD.CAD: exponent must be within ±100",
			"conversions.USD.EUR: must be above 0",
			"conversions.USD.EURO: must be a 3-letter currency code",
			"conversions.USD.GBP: must be above 0",
			"conversions.USD.JPY: must be a number",
		}},
		{"a pair twice", `{"conversions":{"USD":{"EUR":0.9,"eur":0.91}}}`, []string{
			"conversions.USD.eur: given twice (codes are read in any case)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			var fe *problems.Error
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.True(t, errors.Is(err, ErrInvalidRates))
			assert.Equal(t, tt.problems, fe.Problems)
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		asOf       time.Time
	}{
		{"empty conversions", `{"conversions":{}}`, time.Time{}},
		{"time of day", `{"dataAsOf":"2026-11-01T08:30:00.000Z","conversions":{"USD":{"EUR":1e-05}}}`,
			time.Date(2026, 11, 1, 8, 30, 0, 0, time.UTC)},
		{"unknown keys", `{"generatedAt":"x","dataAsOf":"yesterday","conversions":{"USD":{"EUR":0.9}},"extra":[1]}`, time.Time{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse([]byte(tt.file))
			require.NoError(t, err)
			_, at := r.AsOf()
			assert.Equal(t, tt.asOf, at)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rates.json")
	require.NoError(t, os.WriteFile(path, []byte(prebidFile), 0o644))
	r, err := Load(path)
	require.NoError(t, err)
	got, ok := r.ToUSD("EUR", 1_000_000)
	assert.True(t, ok)
	assert.Equal(t, bidder.Micros(1_079_458), got)

	_, err = Load(filepath.Join(dir, "missing.json"))
	assert.True(t, errors.Is(err, os.ErrNotExist))

	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, []byte(`{"conversions":{}}`+strings.Repeat(" ", MaxFileBytes)), 0o644))
	_, err = Load(big)
	assert.True(t, errors.Is(err, ErrInvalidRates))
}

// TestToUSDAllocations: the fast path allocates nothing.
func TestToUSDAllocations(t *testing.T) {
	r, err := Parse([]byte(prebidFile))
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, ok := r.ToUSD("eur", 1_234_567); !ok {
			t.Fatal("no rate")
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkToUSD(b *testing.B) {
	r, err := Parse([]byte(prebidFile))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		r.ToUSD("EUR", 1_234_567)
	}
}
