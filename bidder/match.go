package bidder

// scratch is the per-decision working memory of the index, pooled per
// catalog. Entries of seen/mask are valid only where seen equals epoch, so
// nothing is cleared between decisions.
type scratch struct {
	epoch   uint32
	seen    []uint32
	mask    []uint32
	lists   []cursor // the posting lists of the request's values
	touched []uint32
	cands   []uint32
	usage   []UsageQuery
	order   []int
	buf     [maxKeyLen]byte
}

// cursor walks one posting list block by block.
type cursor struct {
	ids []uint32
	bit uint32 // bitExcluded for an exclusion list
	pos int
}

func newScratch(n int) *scratch {
	return &scratch{
		seen: make([]uint32, n),
		mask: make([]uint32, n),
	}
}

// Campaigns are matched in blocks, in priority order: the decision stops at
// the first block that yields a bid, so with a large catalog most requests
// never look at the low bidders. The first block is small, because the top
// bidders usually win, and each next block doubles, so a request that walks
// the whole catalog takes few blocks (and few counter round trips). With
// 100,000 campaigns a first block of 128 decides in about a third of the
// time a fixed block of 4,096 takes (BenchmarkDecide).
const (
	firstBlock = 128
	maxBlock   = 16384
)

// prepare starts a decision: it collects the posting lists of the request's
// values. It returns false when no campaign has a creative of the size.
func (c *Catalog) prepare(req *Request, s *scratch) bool {
	s.epoch++
	if s.epoch == 0 { // wrapped: forget every mark
		clear(s.seen)
		s.epoch = 1
	}
	s.lists = s.lists[:0]
	key := sizeKey{kind: req.Kind, secure: req.Secure}
	if req.Kind == Banner {
		if req.W < 1 || req.W > 0xffff || req.H < 1 || req.H > 0xffff {
			return false
		}
		key.w, key.h = uint16(req.W), uint16(req.H)
	}
	si := c.idx.sizes[key]
	if si == nil {
		return false
	}
	var deal []uint32
	if req.Deal != "" {
		if deal = c.idx.deals[req.Deal]; len(deal) == 0 {
			return false // no campaign trades in this deal
		}
	}
	buf := &s.buf
	s.add(si.z, 0)
	s.add(lookup(si.countries, req.Country, buf), bitCountry)
	s.add(lookup(si.regions, req.Region, buf), bitRegion)
	s.add(lookup(si.cities, req.City, buf), bitCity)
	s.add(lookup(si.oses, req.OS, buf), bitOS)
	if req.DevType > 0 && req.DevType < len(si.devtypes) {
		s.add(si.devtypes[req.DevType], bitDevType)
	}
	s.add(lookup(si.sites, req.Site, buf), bitInventory)
	s.add(lookup(si.bundles, req.Bundle, buf), bitInventory)
	for rest := req.Cat; rest != ""; {
		var cat string
		cat, rest = nextItem(rest)
		for i := 1; i < len(cat); i++ {
			if cat[i] == '-' {
				s.add(lookup(si.cats, cat[:i], buf), bitCats)
			}
		}
		s.add(lookup(si.cats, cat, buf), bitCats)
	}
	if req.TimeMs >= 0 {
		s.add(si.hours[floorDiv(req.TimeMs, 3_600_000)%24], bitHours)
	}
	s.add(lookup(si.exchanges, req.Exchange, buf), bitExchange)
	// The deal's list and the exclusions come last: they only mark
	// campaigns already touched (the deal's list is of every size).
	s.add(deal, bitDeal)
	ix := &c.idx
	s.add(lookup(ix.exclSites, req.Site, buf), bitExcluded)
	s.add(lookup(ix.exclBundles, req.Bundle, buf), bitExcluded)
	for rest := req.BCat; rest != ""; {
		var item string
		item, rest = nextItem(rest)
		s.add(lookup(ix.blockCats, item, buf), bitExcluded)
	}
	for rest := req.BAdv; rest != ""; {
		var item string
		item, rest = nextItem(rest)
		s.add(lookup(ix.blockAdv, item, buf), bitExcluded)
	}
	return true
}

func (s *scratch) add(ids []uint32, bit uint32) {
	if len(ids) > 0 {
		s.lists = append(s.lists, cursor{ids: ids, bit: bit})
	}
}

// matchBlock fills s.cands with the campaigns numbered below hi (and not
// seen in earlier blocks) that are active, in flight, accept the request and
// have a creative of its size, in no particular order.
func (c *Catalog) matchBlock(req *Request, s *scratch, hi uint32) {
	s.touched = s.touched[:0]
	s.cands = s.cands[:0]
	epoch := s.epoch
	for i := range s.lists {
		l := &s.lists[i]
		pos := l.pos
		if l.bit == bitExcluded || l.bit == bitDeal {
			for ; pos < len(l.ids) && l.ids[pos] < hi; pos++ {
				if n := l.ids[pos]; s.seen[n] == epoch {
					s.mask[n] |= l.bit
				}
			}
		} else {
			for ; pos < len(l.ids) && l.ids[pos] < hi; pos++ {
				n := l.ids[pos]
				if s.seen[n] != epoch {
					s.seen[n] = epoch
					s.mask[n] = 0
					s.touched = append(s.touched, n)
				}
				s.mask[n] |= l.bit
			}
		}
		l.pos = pos
	}
	ix := &c.idx
	for _, n := range s.touched {
		f := ix.flights[n]
		mask := s.mask[n]
		if req.Deal != "" { // in a deal: only the campaigns that list it
			if mask&bitDeal == 0 {
				continue
			}
			mask &^= bitDeal
		} else if ix.dealsOnly[n] { // the open auction: not the campaigns that bid only in deals
			continue
		}
		if mask != ix.required[n] || req.TimeMs < f.start || req.TimeMs >= f.end {
			continue
		}
		if req.Deal != "" && req.DealADomains != "" && !c.campaigns[n].advertisesOneOf(req.DealADomains) {
			continue // the deal is for other advertisers (wadomain)
		}
		if req.Chooser != nil && req.Chooser.Choose(c.campaigns[n], c.creativeBase[n]) < 0 {
			continue // no creative of the campaign fits the video or native impression
		}
		s.cands = append(s.cands, n)
	}
}

// advertisesOneOf reports whether one of the campaign's adomain is in the
// comma list.
func (c *Campaign) advertisesOneOf(list string) bool {
	for rest := list; rest != ""; {
		var d string
		d, rest = nextItem(rest)
		for _, a := range c.ADomain {
			if equalFoldASCII(a, d) {
				return true
			}
		}
	}
	return false
}

// creativeFor returns the index of the campaign's creative that serves
// the request: the one the request's Chooser picks (a video or native
// impression), else its first banner, in file order, of the request's size
// (and secure when the request demands it).
func creativeFor(c *Campaign, req *Request, base int) int {
	if req.Chooser != nil {
		return req.Chooser.Choose(c, base)
	}
	for i := range c.Creatives {
		cr := &c.Creatives[i]
		if cr.Kind == Banner && cr.W == req.W && cr.H == req.H && (cr.Secure || !req.Secure) {
			return i
		}
	}
	return -1
}
