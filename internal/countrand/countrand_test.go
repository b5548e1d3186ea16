package countrand

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReader(t *testing.T) {
	var r Reader
	b := make([]byte, 12)
	for want := byte(1); want <= 3; want++ {
		n, err := r.Read(b)
		assert.NoError(t, err)
		assert.Equal(t, 12, n)
		assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, want}, b)
	}
	short := make([]byte, 2)
	_, _ = r.Read(short)
	assert.Equal(t, []byte{0, 4}, short)
}
