package jsoncodec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x1b", `"\u001b"`},
		{"<>&'/", `"<>&'/"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"Café 华夏 \x7f", "\"Café 华夏 \x7f\""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendString(nil, tt.in)), "%q", tt.in)
	}
}

func TestJSONWriterASCIIStringMatchesContract(t *testing.T) {
	// asciiString is only used for validated ids (printable ASCII), where
	// json-iterator's escaping must equal the contract's.
	for c := byte(0x21); c <= 0x7e; c++ {
		s := "a" + string(c) + "b"
		jw := NewWriter()
		jw.ASCIIString(s)
		assert.Equal(t, string(AppendString(nil, s)), string(jw.Bytes()), "%q", s)
		jw.Free()
	}
}
