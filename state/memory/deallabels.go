package memory

import (
	"sync"
	"sync/atomic"

	"github.com/recbid/dspd/bidder"
)

// dealLabels numbers deals by their counters' label (bidder.DealLabel) in
// the ledger's interner of campaigns and exchanges, without building the
// label string on every bid: a deal is numbered by its own interner, and
// that number maps to its label's.
type dealLabels struct {
	deals  *interner[string]
	labels atomic.Pointer[[]uint32] // label id by deal number; entries never change
	mu     sync.Mutex
	of     *interner[string] // the interner the labels are numbered in
}

func (d *dealLabels) init(of *interner[string]) {
	d.deals, d.of = newInterner[string](), of
	d.labels.Store(&[]uint32{})
}

// id returns the number of deal's label in the ledger's interner.
func (d *dealLabels) id(deal string) uint32 {
	n := d.deals.id(deal)
	if labels := *d.labels.Load(); int(n) < len(labels) {
		return labels[n]
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	labels := *d.labels.Load()
	for len(labels) <= int(n) {
		labels = append(labels, d.of.id(bidder.DealLabel(d.deals.value(uint32(len(labels))))))
	}
	d.labels.Store(&labels)
	return labels[n]
}
