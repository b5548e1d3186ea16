package bidder

import "sync"

// names interns strings as small integers, so that structures holding
// millions of references to a few thousand campaign and creative ids can
// be free of pointers, which the garbage collector then never scans. It
// only grows: with the ids of every campaign set ever loaded.
type names struct {
	mu  sync.RWMutex
	ids map[string]uint32
	all []string
}

func newNames() *names { return &names{ids: make(map[string]uint32)} }

// id returns the number of s, assigning one on first sight.
func (n *names) id(s string) uint32 {
	n.mu.RLock()
	id, ok := n.ids[s]
	n.mu.RUnlock()
	if ok {
		return id
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if id, ok = n.ids[s]; !ok {
		id = uint32(len(n.all))
		n.ids[s] = id
		n.all = append(n.all, s)
	}
	return id
}

// name returns the string numbered id.
func (n *names) name(id uint32) string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.all[id]
}
