package bidder

import (
	"cmp"
	"slices"
	"sync"
)

// Catalog is an immutable, indexed set of campaigns. It is safe for
// concurrent use; a reload builds a new Catalog and swaps it in whole.
type Catalog struct {
	campaigns    []*Campaign // priority order: bid_cpm descending, then id ascending
	byID         map[string]int
	creativeBase []int // slot of each campaign's first creative
	numCreatives int
	bids         []Micros // bids[i] == campaigns[i].BidCPM, for the floor search
	idx          index
	scratch      sync.Pool // *scratch sized for this catalog
}

// NewCatalog indexes campaigns, which must be valid (as ParseCatalog checks)
// and have unique ids. The catalog takes ownership of the campaigns.
func NewCatalog(campaigns []*Campaign) *Catalog {
	cs := slices.Clone(campaigns)
	slices.SortFunc(cs, func(a, b *Campaign) int {
		if c := cmp.Compare(b.BidCPM, a.BidCPM); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	cat := &Catalog{
		campaigns:    cs,
		byID:         make(map[string]int, len(cs)),
		creativeBase: make([]int, len(cs)),
		bids:         make([]Micros, len(cs)),
	}
	for i, c := range cs {
		c.startMs, c.endMs = minInt64, maxInt64
		if !c.Start.IsZero() {
			c.startMs = ceilMs(c.Start)
		}
		if !c.End.IsZero() {
			c.endMs = ceilMs(c.End)
		}
		cat.byID[c.ID] = i
		cat.creativeBase[i] = cat.numCreatives
		cat.numCreatives += len(c.Creatives)
		cat.bids[i] = c.BidCPM
	}
	cat.idx = buildIndex(cs)
	n := len(cs)
	cat.scratch.New = func() any { return newScratch(n) }
	return cat
}

// Len returns the number of campaigns.
func (c *Catalog) Len() int { return len(c.campaigns) }

// Campaigns returns the campaigns in priority order (highest bid first, ties
// by id). The slice must not be modified.
func (c *Catalog) Campaigns() []*Campaign { return c.campaigns }

// Campaign returns the campaign with the given id.
func (c *Catalog) Campaign(id string) (*Campaign, bool) {
	i, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	return c.campaigns[i], true
}

// NumCreatives returns the number of creatives over all campaigns: slots run
// from 0 to NumCreatives()-1.
func (c *Catalog) NumCreatives() int { return c.numCreatives }

// EachCreative calls fn for every creative with its slot, a dense number
// that transports can use to keep per-creative data (such as pre-encoded
// response fragments) in a slice.
func (c *Catalog) EachCreative(fn func(slot int, camp *Campaign, cr *Creative)) {
	for i, camp := range c.campaigns {
		for j := range camp.Creatives {
			fn(c.creativeBase[i]+j, camp, &camp.Creatives[j])
		}
	}
}

// aboveFloor returns how many campaigns, in priority order, bid at least
// floor: campaign i clears the floor exactly when i < aboveFloor(floor).
func (c *Catalog) aboveFloor(floor Micros) int {
	i, _ := slices.BinarySearchFunc(c.bids, floor, func(bid, floor Micros) int {
		if bid >= floor {
			return -1
		}
		return 1
	})
	return i
}
