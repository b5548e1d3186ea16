package nativead

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/recbid/dspd/internal/jsoncodec"
)

// twice is the definition AppendEscaped keeps to, for valid UTF-8:
// jsoncodec.AppendString's escaping, twice, without the quotes.
func twice(s string) string {
	inner := jsoncodec.AppendString(nil, s)
	outer := jsoncodec.AppendString(nil, string(inner[1:len(inner)-1]))
	return string(outer[1 : len(outer)-1])
}

func TestAppendEscaped(t *testing.T) {
	var every strings.Builder
	for c := range 0x80 {
		every.WriteByte(byte(c))
	}
	tests := []string{
		"", "plain", `"`, `\`, `\"`, "\n", "\x00", "\x1f", "\u007f",
		"https://x.example/?a=1&b=2", `<a href="x">é</a>`, "日本語 ☕🫘 \u2028",
		every.String(), strings.Repeat(`a"b\c`+"\t", 20),
	}
	for _, s := range tests {
		assert.Equal(t, twice(s), string(AppendEscaped(nil, s)), "%q", s)
		assert.Equal(t, "pre"+twice(s), string(AppendEscaped([]byte("pre"), s)), "%q", s)
	}
}

func TestAppendEscapedInvalidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\xff", "\uFFFD"},
		{"a\xc3", "a\uFFFD"},                   // cut short
		{"\xc3\x28", "\uFFFD("},                // a bad continuation
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\xc0\xaf\"", "\uFFFD\uFFFD" + `\\\"`},
	}
	for _, tt := range tests {
		got := string(AppendEscaped(nil, tt.in))
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assert.True(t, utf8.ValidString(got))
		assert.Equal(t, utf8.RuneCountInString(tt.in), utf8.RuneCountInString(strings.ReplaceAll(got, `\\\"`, `"`)))
	}
}
