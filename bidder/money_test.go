package bidder

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMicros(t *testing.T) {
	tests := []struct {
		in   string
		want Micros
		ok   bool
	}{
		{"0", 0, true},
		{"2.5", 2_500_000, true},
		{"0.85", 850_000, true},
		{"3", 3_000_000, true},
		{"0.000001", 1, true},
		{"1.123456", 1_123_456, true},
		{"007.50", 7_500_000, true},
		{"1000000000", 1_000_000_000 * MicrosPerUnit, true},
		{"1000000000.000001", 0, false}, // above the maximum
		{"99999999999999999999", 0, false},
		{"1.1234567", 0, false}, // seven fractional digits
		{"1.1000000", 0, false}, // trailing zeros count too
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{".5", 0, false},
		{"5.", 0, false},
		{"", 0, false},
		{" 1", 0, false},
		{"1,5", 0, false},
		{"0x10", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMicros(tt.in)
			if !tt.ok {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrDecimal))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			gotBytes, err := ParseMicros([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, gotBytes)
		})
	}
}

func TestMicrosAppendDecimal(t *testing.T) {
	tests := []struct {
		in   Micros
		want string
	}{
		{2_500_000, "2.5"},
		{850_000, "0.85"},
		{3_000_000, "3"},
		{0, "0"},
		{1, "0.000001"},
		{10, "0.00001"},
		{1_234_567, "1.234567"},
		{120_000_000, "120"},
		{-1_500_000, "-1.5"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, string(tt.in.AppendDecimal(nil)))
			assert.Equal(t, tt.want, tt.in.String())
		})
	}
}

func TestMicrosRoundTrip(t *testing.T) {
	for m := Micros(0); m < 3_000_000; m += 997 {
		back, err := ParseMicros(m.String())
		require.NoError(t, err)
		require.Equal(t, m, back)
	}
}

func TestCeilMicros(t *testing.T) {
	tests := []struct {
		in   string
		want Micros
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"0.000", 0, true},
		{"0e9", 0, true},
		{"2.5", 2_500_000, true},
		{"1.50", 1_500_000, true},
		{"0.000001", 1, true},
		{"0.0000001", 1, true}, // rounded up: never below the floor written
		{"0.8500000000000001", 850_001, true},
		{"0.8499999999999999", 850_000, true},
		{"1.0000000000000000000000000000001", 1_000_001, true},
		{"12345678901234567890e-20", 123_457, true}, // more digits than kept, all of them fraction
		{"1234567890123456789012345e-24", 1_234_568, true},
		{"100000000000000000000000e-23", 1_000_000, true}, // the digits lost are zeros
		{"100000000000000000000001e-23", 1_000_001, true},
		{"2e-3", 2_000, true},
		{"2E+2", 200_000_000, true},
		{"1.5e1", 15_000_000, true},
		{"15e-1", 1_500_000, true},
		{"1e-7", 1, true},
		{"1e-999999999999", 1, true},
		{"1000000000", MaxDecimalMicros, true},
		{"1000000000.0000001", AboveAnyPrice, true},
		{"1e10", AboveAnyPrice, true},
		{"1e999999999999", AboveAnyPrice, true},
		{"99999999999999999999", AboveAnyPrice, true},
		{"-1", 0, false},
		{"-0.000001", 0, false},
		{"-1e-9", 0, false},
		{"+1", 0, false},
		{"01", 0, false},
		{".5", 0, false},
		{"5.", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"0x10", 0, false},
		{"1.2.3", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := CeilMicros(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
			gotBytes, okBytes := CeilMicros([]byte(tt.in))
			assert.Equal(t, ok, okBytes)
			assert.Equal(t, got, gotBytes)
		})
	}
}

// TestCeilMicrosAgreesWithParseMicros: on every decimal ParseMicros reads,
// CeilMicros reads the same micros.
func TestCeilMicrosAgreesWithParseMicros(t *testing.T) {
	for m := Micros(0); m < 5_000_000; m += 4_999 {
		for _, s := range []string{m.String(), m.String() + "000", m.String() + "e0"} {
			if s == m.String()+"000" && !strings.Contains(s, ".") {
				continue
			}
			got, ok := CeilMicros(s)
			require.True(t, ok, s)
			require.Equal(t, m, got, s)
		}
	}
}
