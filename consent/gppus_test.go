package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prebid/go-gpp/sections"
	"github.com/prebid/go-gpp/sections/uspca"
	"github.com/prebid/go-gpp/sections/uspco"
	"github.com/prebid/go-gpp/sections/uspct"
	"github.com/prebid/go-gpp/sections/uspnat"
	"github.com/prebid/go-gpp/sections/usput"
	"github.com/prebid/go-gpp/sections/uspva"
	"github.com/stretchr/testify/assert"
)

// goGPPOptOut is how the package read US sections with go-gpp v0.2.0
// before it had its own reader: the oracle of usSectionOptOut. panicked
// reports the library's panics.
func goGPPOptOut(id int, text string) (out, panicked bool) {
	defer func() {
		if recover() != nil {
			out, panicked = true, true
		}
	}()
	common := func(c *sections.CommonUSCoreSegment) bool {
		return optedOut(c.SaleOptOut) || optedOut(c.TargetedAdvertisingOptOut)
	}
	switch id {
	case sectionUSPV1:
		return text == "" || uspOptOut(text), false
	case sectionUSNat:
		s, err := uspnat.NewUSPNAT(text)
		c := &s.CoreSegment
		return err != nil || optedOut(c.SaleOptOut) || optedOut(c.SharingOptOut) ||
			optedOut(c.TargetedAdvertisingOptOut) || s.GPCSegment.Gpc, false
	case sectionUSCA:
		s, err := uspca.NewUSPCA(text)
		c := &s.CoreSegment
		return err != nil || optedOut(c.SaleOptOut) || optedOut(c.SharingOptOut) || s.GPCSegment.Gpc, false
	case sectionUSVA:
		s, err := uspva.NewUSPVA(text)
		return err != nil || common(&s.CoreSegment), false
	case sectionUSCO:
		s, err := uspco.NewUSPCO(text)
		return err != nil || common(&s.CoreSegment) || s.GPCSegment.Gpc, false
	case sectionUSUT:
		s, err := usput.NewUSPUT(text)
		c := &s.CoreSegment
		return err != nil || optedOut(c.SaleOptOut) || optedOut(c.TargetedAdvertisingOptOut), false
	case sectionUSCT:
		s, err := uspct.NewUSPCT(text)
		return err != nil || common(&s.CoreSegment) || s.GPCSegment.Gpc, false
	}
	return true, false
}

// usCoreBits is the length of each section's core segment as go-gpp reads
// it (its fields up to MspaServiceProviderMode), counted from its decoders.
var usCoreBits = map[int]int{sectionUSNat: 60, sectionUSCA: 46, sectionUSVA: 40, sectionUSCO: 38, sectionUSUT: 42, sectionUSCT: 44}

// compareGoGPP checks usSectionOptOut against go-gpp on the text of
// section id where go-gpp is known to be right. It is not, and there the
// reader must read an opt-out (the text cannot be read), when:
//
//   - the text it decodes (the core segment, and the GPC subsection of the
//     sections that have one; the whole text for Virginia and Utah) holds a
//     carriage return or a line feed, which Go's base64 decoder skips;
//   - the core segment holds fewer bits than its fields: go-gpp pads a
//     segment with zero bits to decode it, and reads up to six bits of
//     that padding as the last fields of a truncated segment.
func compareGoGPP(t testing.TB, id int, text string) {
	t.Helper()
	ours := usSectionOptOut(id, text)
	lib, panicked := goGPPOptOut(id, text)
	if panicked {
		return
	}
	bits, decoded := usCoreBits[id]
	if decoded {
		core, read := text, text
		if id != sectionUSVA && id != sectionUSUT {
			var rest string
			core, rest, _ = strings.Cut(text, ".")
			sub, _, _ := strings.Cut(rest, ".")
			read = core + "." + sub
		}
		if strings.ContainsAny(read, "\r\n") || 6*len(core) < bits {
			if !ours {
				t.Fatalf("section %d %q: read, go-gpp reads it only by its quirks", id, text)
			}
			return
		}
	}
	if ours != lib {
		t.Fatalf("section %d %q: opt-out %v, go-gpp %v", id, text, ours, lib)
	}
}

// usSections are US section texts: of the tests' encoder and go-gpp's,
// every combination of the opt-out fields, with and without GPC.
func usSections() []string {
	var out []string
	gpcs := []*bool{nil, new(bool), &yes}
	for _, v2 := range []bool{false, true} {
		for sale := range 4 {
			for sharing := range 4 {
				for targeted := range 4 {
					for _, g := range gpcs {
						out = append(out, optOut(func(u *consenttest.USNat) {
							u.V2, u.SaleOptOut, u.SharingOptOut, u.TargetedAdvertisingOptOut, u.GPC = v2, sale, sharing, targeted, g
						}))
					}
				}
			}
		}
	}
	for _, id := range []int{sectionUSCA, sectionUSVA, sectionUSCO, sectionUSUT, sectionUSCT} {
		for sale := range byte(4) {
			for other := range byte(4) {
				out = append(out, stateSection(id, sale, other, false), stateSection(id, sale, other, true))
			}
		}
	}
	return out
}

// TestUSSections compares the package's reading of US sections with
// go-gpp's, for every section id, on encoded sections, on each of their
// truncations and changed characters, and with GPC subsections of every
// kind.
func TestUSSections(t *testing.T) {
	texts := usSections()
	texts = append(texts, "", ".", "..", "!!!", "BAAAAAAA", "1YNN", "1YYN", specTC, noOptOut().String()+".", noOptOut().String()+".Y.!!")
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range usSections() {
		if rng.IntN(4) != 0 {
			continue
		}
		for n := range len(s) {
			texts = append(texts, s[:n])
		}
		for range 8 {
			b := []byte(s)
			b[rng.IntN(len(b))] = "AQgw_-.\n~"[rng.IntN(9)]
			texts = append(texts, string(b))
		}
		core, _, _ := strings.Cut(s, ".")
		for _, sub := range []string{"", "A", "Q", "Y", "g", "w", "YA", "gA", "!", "Y.", "Q.", "Q.!!", "Y\n", "\nY"} {
			texts = append(texts, core+"."+sub)
		}
	}
	for _, text := range texts {
		for id := sectionUSPV1; id <= lastUSSection; id++ {
			compareGoGPP(t, id, text)
		}
	}
}

// TestUSSectionLayouts checks the layouts' lengths against go-gpp's
// encoder: its sections' core segments hold the layout's bits, padded to
// whole bytes, and one character fewer than that is a truncated section.
func TestUSSectionLayouts(t *testing.T) {
	for id, bits := range usCoreBits {
		assert.Equal(t, bits, usLayouts[id].bits, "section %d", id)
	}
	for _, id := range []int{sectionUSCA, sectionUSVA, sectionUSCO, sectionUSUT, sectionUSCT} {
		core, _, _ := strings.Cut(stateSection(id, 2, 2, false), ".")
		assert.Equal(t, (usCoreBits[id]+7)/8, 6*len(core)/8, "section %d: %q", id, core)
		assert.False(t, usSectionOptOut(id, core), "section %d", id)
	}
	assert.True(t, usSectionOptOut(sectionUSNat, noOptOut().String()[:9]), "59 bits of 60")
	assert.False(t, usSectionOptOut(sectionUSNat, noOptOut().String()[:10]))
	assert.True(t, usSectionOptOut(sectionUSVA, stateSection(sectionUSVA, 2, 2, false)+".Y"), "Virginia has no GPC subsection")
}
