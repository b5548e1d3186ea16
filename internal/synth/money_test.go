package synth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatMicros(t *testing.T) {
	tests := []struct {
		micros int64
		want   string
	}{
		{0, "0"},
		{1, "0.000001"},
		{100, "0.0001"},
		{850_000, "0.85"},
		{2_500_000, "2.5"},
		{3_000_000, "3"},
		{12_000_000, "12"},
		{1_234_567, "1.234567"},
		{5_000_000_000, "5000"},
		{-2_500_000, "-2.5"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, FormatMicros(tt.micros))
			if tt.micros >= 0 {
				got, ok := parseMicros(tt.want)
				assert.True(t, ok)
				assert.Equal(t, tt.micros, got)
			}
		})
	}
}

func TestFormatMicrosFixed(t *testing.T) {
	assert.Equal(t, "1.50", formatMicrosFixed(1_500_000, 2))
	assert.Equal(t, "0.05", formatMicrosFixed(50_000, 2))
	assert.Equal(t, "3", formatMicrosFixed(3_000_000, 0))
}

func TestParseMicrosRejects(t *testing.T) {
	for _, s := range []string{"", ".5", "1.", "1e3", "-1", "1.1234567", "abc", "1,5", "+1"} {
		_, ok := parseMicros(s)
		assert.False(t, ok, s)
	}
}
