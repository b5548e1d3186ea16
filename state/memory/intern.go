package memory

import (
	"maps"
	"sync"
	"sync/atomic"
)

// interner numbers values as small integers, so that structures holding
// millions of references to a few thousand campaign ids (or bid terms) can
// be free of pointers, which the garbage collector then never scans. It
// only grows: with the values of every campaign set ever loaded.
//
// Every bid looks values up several times, from every core, so lookups
// take no lock and write nothing shared (a read lock's counter would move
// its cache line between cores on each one): they read an immutable
// snapshot of the numbers. A value not yet in it is found or numbered
// under the mutex, and the snapshot is rebuilt once the misses since the
// last one add up to its size, so that rebuilding costs O(1) per miss
// (sync.Map's scheme, without boxing the key in an interface).
type interner[K comparable] struct {
	read atomic.Pointer[map[K]uint32] // a snapshot of ids; never written once stored
	all  atomic.Pointer[[]K]          // value by number; entries below its length never change

	mu     sync.Mutex
	ids    map[K]uint32 // every number given; a superset of read
	misses int          // lookups that missed read since it was last rebuilt
}

func newInterner[K comparable]() *interner[K] {
	n := &interner[K]{ids: make(map[K]uint32)}
	n.read.Store(&map[K]uint32{})
	n.all.Store(&[]K{})
	return n
}

// id returns the number of v, assigning one on first sight.
func (n *interner[K]) id(v K) uint32 {
	if id, ok := (*n.read.Load())[v]; ok {
		return id
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	id, ok := n.ids[v]
	if !ok {
		all := append(*n.all.Load(), v) // readers of the old slice never look past its length
		id = uint32(len(all) - 1)
		n.ids[v] = id
		n.all.Store(&all)
	}
	if n.misses++; n.misses >= len(n.ids) {
		snapshot := maps.Clone(n.ids)
		n.read.Store(&snapshot)
		n.misses = 0
	}
	return id
}

// value returns the value numbered id.
func (n *interner[K]) value(id uint32) K { return (*n.all.Load())[id] }
