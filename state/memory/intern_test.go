package memory

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterner: every value gets one number, the numbers are dense, value
// inverts id, and so it stays when many goroutines number the same values
// at once (run with -race).
func TestInterner(t *testing.T) {
	const values, workers = 2000, 8
	n := newInterner[string]()
	got := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w] = make([]uint32, values)
			for i := range values {
				v := (i*7 + w*13) % values // each worker in its own order
				got[w][v] = n.id(fmt.Sprint("c-", v))
			}
		}()
	}
	wg.Wait()
	seen := make(map[uint32]bool)
	for v := range values {
		id := got[0][v]
		for w := 1; w < workers; w++ {
			require.Equal(t, id, got[w][v], "value %d numbered twice", v)
		}
		assert.Less(t, id, uint32(values), "numbers are dense")
		assert.False(t, seen[id], "number %d given twice", id)
		seen[id] = true
		assert.Equal(t, fmt.Sprint("c-", v), n.value(id))
		assert.Equal(t, id, n.id(fmt.Sprint("c-", v)), "asked again")
	}
	// Once the misses add up, lookups are served by the snapshot.
	for range 2 * values {
		n.id("c-1")
	}
	_, ok := (*n.read.Load())["c-1"]
	assert.True(t, ok, "snapshot rebuilt")
}

// BenchmarkInternerID is a lookup of a known value, alone and from every
// core at once: no lock, no write, no allocation.
func BenchmarkInternerID(b *testing.B) {
	n := newInterner[string]()
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprint("c-", i)
		n.id(keys[i])
	}
	for range 2 * len(keys) {
		n.id(keys[0]) // past the misses: the snapshot holds them all
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			n.id(keys[i%len(keys)])
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				n.id(keys[i%len(keys)])
			}
		})
	})
}
