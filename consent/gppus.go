package consent

import "strings"

// usLayout is where the core segment of a US section (GPP section 7–12)
// holds what dspd reads, as github.com/prebid/go-gpp v0.2.0, which the
// package used before, lays the sections out: the bit offsets of the
// 2-bit opt-out fields, and the length of the core segment up to
// MspaServiceProviderMode, all of which must be present.
type usLayout struct {
	bits    int      // the core segment's length in bits
	optOuts [3]uint8 // bit offsets of the opt-out fields read; 0 ends the list (bit 0 is the Version)
	gpc     bool     // the section may carry a GPC subsection after a '.'
}

// usLayouts are the layouts of the US sections dspd decodes, by section id.
// US National version 2 has four more sensitive-data fields and one more
// known-child field than version 1, after the opt-outs: it is read by the
// version 1 layout, as go-gpp reads it.
var usLayouts = [...]usLayout{
	// Version 6, 6 notices, SaleOptOut, SharingOptOut, TargetedAdvertisingOptOut,
	// 12 sensitive-data and 2 known-child fields, PersonalDataConsents, 3 MSPA fields.
	sectionUSNat: {bits: 6 + 2*(6+3+12+2+1+3), optOuts: [3]uint8{18, 20, 22}, gpc: true},
	// Version, 3 notices, SaleOptOut, SharingOptOut, 9 + 2, PersonalDataConsents, 3 MSPA.
	sectionUSCA: {bits: 6 + 2*(3+2+9+2+1+3), optOuts: [3]uint8{12, 14}, gpc: true},
	// Version, 3 notices, SaleOptOut, TargetedAdvertisingOptOut, 8 + 1, 3 MSPA.
	sectionUSVA: {bits: 6 + 2*(3+2+8+1+3), optOuts: [3]uint8{12, 14}},
	// Version, 3 notices, SaleOptOut, TargetedAdvertisingOptOut, 7 + 1, 3 MSPA.
	sectionUSCO: {bits: 6 + 2*(3+2+7+1+3), optOuts: [3]uint8{12, 14}, gpc: true},
	// Version, 4 notices, SaleOptOut, TargetedAdvertisingOptOut, 8 + 1, 3 MSPA.
	sectionUSUT: {bits: 6 + 2*(4+2+8+1+3), optOuts: [3]uint8{14, 16}},
	// Version, 3 notices, SaleOptOut, TargetedAdvertisingOptOut, 8 + 3, 3 MSPA.
	sectionUSCT: {bits: 6 + 2*(3+2+8+3+3), optOuts: [3]uint8{12, 14}, gpc: true},
}

// gpcSubsectionType is the SubsectionType (its first 2 bits) of a GPC
// subsection, whose next bit is Gpc.
const gpcSubsectionType = 1

// usSectionOptOut reports whether the text of US section id opts out of
// sale, sharing or targeted advertising, or sets GPC, or cannot be read (a
// US state section dspd does not decode cannot be read). It reads the
// fields in place from the base64url text, with bounded work and no
// allocation.
//
// A section cannot be read when its core segment (the text before the first
// '.') is not base64url or holds fewer bits than its layout; or, for the
// sections with a GPC subsection, when the text after the first '.' (up to
// a second '.', after which nothing is read) is not base64url, is empty or
// is not of SubsectionType 1. Virginia and Utah have no subsection: a '.'
// in their text makes it unreadable.
func usSectionOptOut(id int, text string) bool {
	if id == sectionUSPV1 {
		return text == "" || uspOptOut(text)
	}
	if id < 0 || id >= len(usLayouts) || usLayouts[id].bits == 0 {
		return true
	}
	l := &usLayouts[id]
	core, sub, hasSub := text, "", false
	if l.gpc {
		core, sub, hasSub = strings.Cut(text, ".")
		sub, _, _ = strings.Cut(sub, ".")
	}
	if !validBase64(core) || 6*len(core) < l.bits {
		return true
	}
	r := newBitReader(core)
	for _, off := range l.optOuts {
		if off == 0 {
			break
		}
		if v, ok := r.at(int(off), 2); !ok || optedOut(byte(v)) {
			return true
		}
	}
	if !hasSub {
		return false
	}
	if !validBase64(sub) {
		return true
	}
	g := newBitReader(sub) // an empty subsection fails its reads
	typ, _ := g.bits(2)
	gpc, ok := g.bits(1)
	return !ok || typ != gpcSubsectionType || gpc == 1
}

// optedOut reads a 2-bit opt-out field: 0 not applicable, 1 opted out, 2 did
// not opt out; 3 is no defined value and is read as an opt-out.
func optedOut(v byte) bool { return v == 1 || v == 3 }
