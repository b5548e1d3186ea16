package memory

import "sync"

// interner numbers values as small integers, so that structures holding
// millions of references to a few thousand campaign ids (or bid terms) can
// be free of pointers, which the garbage collector then never scans. It
// only grows: with the values of every campaign set ever loaded.
type interner[K comparable] struct {
	mu  sync.RWMutex
	ids map[K]uint32
	all []K
}

func newInterner[K comparable]() *interner[K] { return &interner[K]{ids: make(map[K]uint32)} }

// id returns the number of v, assigning one on first sight.
func (n *interner[K]) id(v K) uint32 {
	n.mu.RLock()
	id, ok := n.ids[v]
	n.mu.RUnlock()
	if ok {
		return id
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if id, ok = n.ids[v]; !ok {
		id = uint32(len(n.all))
		n.ids[v] = id
		n.all = append(n.all, v)
	}
	return id
}

// value returns the value numbered id.
func (n *interner[K]) value(id uint32) K {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.all[id]
}
