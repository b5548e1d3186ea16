package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendHTMLEscaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"https://a.example/x?y=1&z=2", "https://a.example/x?y=1&amp;z=2"},
		{`<"'&>`, "&lt;&quot;&#39;&amp;&gt;"},
		{"&amp;", "&amp;amp;"},
		{"Café", "Café"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(appendHTMLEscaped(nil, tt.in)), "%q", tt.in)
	}
}
