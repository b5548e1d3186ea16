package bytesview

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestViews(t *testing.T) {
	for _, s := range []string{"", "a", "bidid=0f&price=1.5", "\x00\xff"} {
		b := []byte(s)
		assert.Equal(t, s, String(b))
		assert.Equal(t, s, string(Bytes(s)))
		if len(b) > 0 {
			assert.Same(t, &b[0], &Bytes(String(b))[0], "a view, not a copy")
		}
	}
}

func TestViewsAllocateNothing(t *testing.T) {
	b, s := []byte("bidid=0f&price=1.5"), "Bearer token"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = String(b); _ = Bytes(s) }))
}
