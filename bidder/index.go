package bidder

// The targeting index follows the counting algorithm of Whang et al.,
// "Indexing Boolean Expressions" (VLDB 2009). Each campaign's targeting is a
// conjunction of "attribute ∈ list" predicates (plus ∉ predicates for the
// exclusions and the request's blocks). Posting lists map each
// (attribute, value) to the campaigns that accept it; a request walks only the
// lists of its own values and counts, per campaign, which attributes were
// satisfied. A campaign matches when every attribute it restricts was
// satisfied and no exclusion list named it; campaigns that restrict nothing
// but the size sit in a "Z" list, as in the paper.
//
// Two changes to the paper fit the contract: the creative size is part of
// the key of every list (a campaign can only bid with a creative of the
// request's size, so each size has its own index and no list holds campaigns
// of other sizes), and satisfied attributes are OR-ed into a bit mask rather
// than counted, because "site in sites or bundle in bundles" and a request's
// several categories can satisfy one attribute more than once.

const (
	bitCountry uint32 = 1 << iota
	bitRegion
	bitCity
	bitOS
	bitDevType
	bitInventory // site in sites, or bundle in bundles
	bitCats
	bitHours
	bitExchange
	bitDeal     uint32 = 1 << 30 // the campaign lists the request's deal (not a restriction: a filter)
	bitExcluded uint32 = 1 << 31
)

// sizeKey names one index: a banner size, or all the video or all the
// native creatives (which fit an impression by rules of their own, not by
// a size), secure or not.
type sizeKey struct {
	kind   CreativeKind
	w, h   uint16 // banners only
	secure bool   // only creatives marked secure
}

// sizeIndex holds the posting lists of the campaigns that have a creative of
// one size. Lists hold campaign numbers (priority order) in ascending order.
type sizeIndex struct {
	z         []uint32 // no restriction but the size
	countries map[string][]uint32
	regions   map[string][]uint32
	cities    map[string][]uint32
	oses      map[string][]uint32
	sites     map[string][]uint32
	bundles   map[string][]uint32
	cats      map[string][]uint32
	exchanges map[string][]uint32
	devtypes  [8][]uint32
	hours     [24][]uint32
}

type index struct {
	sizes       map[sizeKey]*sizeIndex
	required    []uint32 // attribute bits each campaign restricts
	dealsOnly   []bool   // campaigns out of the open auction
	deals       map[string][]uint32
	flights     []flight
	exclSites   map[string][]uint32
	exclBundles map[string][]uint32
	blockCats   map[string][]uint32 // every prefix of every campaign cat: a bcat entry covering it
	blockAdv    map[string][]uint32 // campaign adomains
}

type flight struct{ start, end int64 }

func buildIndex(cs []*Campaign) index {
	ix := index{
		sizes:       make(map[sizeKey]*sizeIndex),
		required:    make([]uint32, len(cs)),
		dealsOnly:   make([]bool, len(cs)),
		deals:       make(map[string][]uint32),
		flights:     make([]flight, len(cs)),
		exclSites:   make(map[string][]uint32),
		exclBundles: make(map[string][]uint32),
		blockCats:   make(map[string][]uint32),
		blockAdv:    make(map[string][]uint32),
	}
	var keys []sizeKey
	for i, c := range cs {
		n := uint32(i)
		ix.flights[i] = flight{c.startMs, c.endMs}
		if !c.Active {
			continue
		}
		t := &c.Targeting
		req := uint32(0)
		req |= flagIf(len(t.Countries) > 0, bitCountry)
		req |= flagIf(len(t.Regions) > 0, bitRegion)
		req |= flagIf(len(t.Cities) > 0, bitCity)
		req |= flagIf(len(t.OS) > 0, bitOS)
		req |= flagIf(len(t.DevTypes) > 0, bitDevType)
		req |= flagIf(len(t.Sites) > 0 || len(t.Bundles) > 0, bitInventory)
		req |= flagIf(len(t.Cats) > 0, bitCats)
		req |= flagIf(len(t.Hours) > 0, bitHours)
		req |= flagIf(len(t.Exchanges) > 0, bitExchange)
		ix.required[i] = req
		ix.dealsOnly[i] = c.DealsOnly
		for _, d := range c.Deals {
			ix.deals[d] = appendPosting(ix.deals[d], n) // deal ids are matched exactly, case included
		}

		keys = keys[:0]
		for _, cr := range c.Creatives {
			k := sizeKey{kind: cr.Kind}
			if cr.Kind == Banner {
				k.w, k.h = uint16(cr.W), uint16(cr.H)
			}
			keys = appendUnique(keys, k)
			if cr.Secure {
				k.secure = true
				keys = appendUnique(keys, k)
			}
		}
		for _, k := range keys {
			si := ix.sizes[k]
			if si == nil {
				si = newSizeIndex()
				ix.sizes[k] = si
			}
			si.add(n, c, req)
		}
		addAll(ix.exclSites, t.ExcludeSites, n)
		addAll(ix.exclBundles, t.ExcludeBundles, n)
		addAll(ix.blockAdv, c.ADomain, n)
		for _, cat := range c.Cat {
			forEachCatPrefix(cat, func(p string) { addPosting(ix.blockCats, p, n) })
		}
	}
	return ix
}

func newSizeIndex() *sizeIndex {
	return &sizeIndex{
		countries: make(map[string][]uint32),
		regions:   make(map[string][]uint32),
		cities:    make(map[string][]uint32),
		oses:      make(map[string][]uint32),
		sites:     make(map[string][]uint32),
		bundles:   make(map[string][]uint32),
		cats:      make(map[string][]uint32),
		exchanges: make(map[string][]uint32),
	}
}

func (si *sizeIndex) add(n uint32, c *Campaign, required uint32) {
	if required == 0 {
		si.z = append(si.z, n)
		return
	}
	t := &c.Targeting
	addAll(si.countries, t.Countries, n)
	addAll(si.regions, t.Regions, n)
	addAll(si.cities, t.Cities, n)
	addAll(si.oses, t.OS, n)
	addAll(si.sites, t.Sites, n)
	addAll(si.bundles, t.Bundles, n)
	addAll(si.cats, t.Cats, n)
	addAll(si.exchanges, t.Exchanges, n)
	for _, d := range t.DevTypes {
		si.devtypes[d] = appendPosting(si.devtypes[d], n)
	}
	for _, h := range t.Hours {
		si.hours[h] = appendPosting(si.hours[h], n)
	}
}

func addAll(m map[string][]uint32, values []string, n uint32) {
	for _, v := range values {
		addPosting(m, v, n)
	}
}

func addPosting(m map[string][]uint32, value string, n uint32) {
	k := asciiLower(value)
	m[k] = appendPosting(m[k], n)
}

// appendPosting appends n unless the list already ends with it (a campaign
// that lists a value twice), keeping lists ascending and duplicate-free.
func appendPosting(list []uint32, n uint32) []uint32 {
	if len(list) > 0 && list[len(list)-1] == n {
		return list
	}
	return append(list, n)
}

func appendUnique(keys []sizeKey, k sizeKey) []sizeKey {
	for _, have := range keys {
		if have == k {
			return keys
		}
	}
	return append(keys, k)
}

func flagIf(cond bool, bit uint32) uint32 {
	if cond {
		return bit
	}
	return 0
}
