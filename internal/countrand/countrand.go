// Package countrand is a predictable stand-in for a random source, for
// tests: each read fills its buffer with zeros and a counter (1, 2, 3, …)
// in its last eight bytes, so that ids drawn from it can be predicted.
package countrand

import (
	"encoding/binary"
	"sync"
)

// Reader counts its reads; the zero value is ready to use and safe for
// concurrent use.
type Reader struct {
	mu sync.Mutex
	n  uint64
}

// Read fills p with zeros and the number of this read, big-endian, in its
// last eight bytes (or in as many as p has).
func (r *Reader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	clear(p)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], r.n)
	if len(p) >= 8 {
		copy(p[len(p)-8:], b[:])
	} else {
		copy(p, b[8-len(p):])
	}
	return len(p), nil
}
