package nativead

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var requestPool = sync.Pool{New: func() any { return new(Request) }}

// The bid's path, parse, fit and answer, allocates nothing on a pooled
// Request with a buffer that has room, in every form of the request.
func TestNoAllocation(t *testing.T) {
	cr := testCreative()
	pc := Prepare(&cr)
	click, imp := esc("https://dsp.example/click?b=1"), esc("https://dsp.example/imp?b=1")
	dst := make([]byte, 0, 4096)
	for _, data := range [][]byte{
		asString(sample61), []byte(sample61), asString(`{"native":` + sample62 + `}`), asString(sample62),
	} {
		r := requestPool.Get().(*Request)
		n := testing.AllocsPerRun(100, func() {
			if ParseRequest(data, r) != nil {
				panic("refused")
			}
			p, ok := pc.Fit(r)
			if !ok {
				panic("no fit")
			}
			dst = pc.AppendResponse(dst[:0], &p, click, imp)
		})
		assert.Zero(t, n, "prepared: %s", data)
		n = testing.AllocsPerRun(100, func() {
			if ParseRequest(data, r) != nil {
				panic("refused")
			}
			p, ok := Fit(r, &cr)
			if !ok {
				panic("no fit")
			}
			dst = AppendResponse(dst[:0], &p, &cr, click, imp)
		})
		assert.Zero(t, n, "creative: %s", data)
		requestPool.Put(r)
	}
	// A refusal allocates nothing either.
	var r Request
	for _, data := range []string{`"{\"assets\":[]}"`, `{"assets":[1]}`, `[`, `"x"`} {
		b := []byte(data)
		n := testing.AllocsPerRun(100, func() { _ = ParseRequest(b, &r) })
		assert.Zero(t, n, data)
	}
	require.NotEmpty(t, dst)
}
