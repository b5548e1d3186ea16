package consent

import "strings"

// GPP section ids (the GPP "Section Information" list).
const (
	sectionTCFEU   = 2  // EU TCF v2: a TC string
	sectionUSPV1   = 6  // the us_privacy string, unencoded
	sectionUSNat   = 7  // MSPA US National
	sectionUSCA    = 8  // California
	sectionUSVA    = 9  // Virginia
	sectionUSCO    = 10 // Colorado
	sectionUSUT    = 11 // Utah
	sectionUSCT    = 12 // Connecticut
	lastUSSection  = 27 // Rhode Island: 13–27 are the later US states, which dspd does not decode
	gppHeaderType  = 3
	gppVersion     = 1
	maxGPPSections = 32 // more sections than any GPP string needs (27 ids exist): refused
)

// isUSSection reports whether id is a US section: uspv1, US National or a
// US state.
func isUSSection(id int) bool { return id >= sectionUSPV1 && id <= lastUSSection }

// gppString is a GPP string read as far as dspd needs: its header's section
// ids and each section's text, which aliases the string.
type gppString struct {
	ok       bool // the header was read and names as many sections as the string has
	n        int
	ids      [maxGPPSections]uint16
	sections [maxGPPSections]string
}

// parse reads the header and splits the sections. It is written here rather
// than taken from go-gpp's Parse, which expands a header's id ranges with a
// 16-bit counter (a range ending at 65535 never ends, and fills memory) and
// computes Fibonacci weights by plain recursion (exponential time in the
// length of a code word): parse does bounded work on any input.
func (g *gppString) parse(s string) {
	*g = gppString{}
	head, body, hasBody := strings.Cut(s, "~")
	if !validBase64(head) {
		return
	}
	r := newBitReader(head)
	if t, ok := r.bits(6); !ok || t != gppHeaderType {
		return
	}
	if v, ok := r.bits(6); !ok || v != gppVersion {
		return
	}
	entries, ok := r.bits(12)
	if !ok {
		return
	}
	// Range(Fibonacci): each entry is an offset from the last id seen, and
	// for a group, the length of the group.
	last := uint32(0)
	for range entries {
		group, ok := r.bits(1)
		if !ok {
			return
		}
		offset, ok := r.fib()
		if !ok {
			return
		}
		first := last + offset
		end := first
		if group == 1 {
			length, ok := r.fib()
			if !ok {
				return
			}
			end = first + length
		}
		if end > 0xffff || int(end-first) >= maxGPPSections-g.n {
			return
		}
		for id := first; id <= end; id++ {
			g.ids[g.n] = uint16(id)
			g.n++
		}
		last = end
	}
	if !hasBody {
		g.ok = g.n == 0
		return
	}
	for i := range g.n {
		text, rest, more := strings.Cut(body, "~")
		if more != (i < g.n-1) {
			return // more or fewer sections than the header names
		}
		g.sections[i] = text
		body = rest
	}
	g.ok = g.n > 0
}

// section returns the text of the first section with id, and whether there
// is one.
func (g *gppString) section(id int) (string, bool) {
	if !g.ok {
		return "", false
	}
	for i := range g.n {
		if int(g.ids[i]) == id {
			return g.sections[i], true
		}
	}
	return "", false
}

// gppOptOut reports whether a US section listed in sids refuses user-level
// processing: it opts out, or it is missing from the GPP string, or it (or
// the whole string) cannot be read. Sections that are not US sections are
// not read here.
func gppOptOut(g *gppString, sids []int) bool {
	for _, sid := range sids {
		if !isUSSection(sid) {
			continue
		}
		text, ok := g.section(sid)
		if !ok || usSectionOptOut(sid, text) {
			return true
		}
	}
	return false
}
