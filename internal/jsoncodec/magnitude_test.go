package jsoncodec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScannerAnyMagnitude: NewScannerAnyMagnitude takes the numbers out of
// float64's (or, where json-iterator read a float32, float32's) range that
// NewScanner refuses as json-iterator did, and refuses everything else that
// NewScanner refuses.
func TestScannerAnyMagnitude(t *testing.T) {
	walk := func(s Scanner) bool {
		for _, ok := s.ReadObject(); ok; _, ok = s.ReadObject() {
			s.Skip()
		}
		return s.Err() == nil && s.End()
	}
	for _, tt := range []struct {
		doc          string
		strict, wide bool
	}{
		{`{"a":1e400}`, false, true},
		{`{"a":-1e400}`, false, true},
		{`{"a":0.5e39}`, false, true},
		{`{"a":[1e400,{"b":-9e999}]}`, false, true},
		{`{"a":1e308}`, true, true},
		{`{"a":1e-400}`, true, true},
		{`{"a":01}`, false, false},
		{`{"a":1e}`, false, false},
		{`{"a":1.e5}`, false, false},
		{`{"a":1e400x}`, false, false},
		{`{"a":--1e400}`, false, false},
	} {
		assert.Equal(t, tt.strict, walk(NewScanner([]byte(tt.doc))), "NewScanner %s", tt.doc)
		assert.Equal(t, tt.wide, walk(NewScannerAnyMagnitude([]byte(tt.doc))), "NewScannerAnyMagnitude %s", tt.doc)
	}
	s := NewScannerAnyMagnitude([]byte(`{"a":1e400}`))
	_, ok := s.ReadObject()
	assert.True(t, ok)
	assert.Equal(t, "1e400", string(s.AppendNumber(nil)), "read as its literal text")
	assert.NoError(t, s.Err())
}
