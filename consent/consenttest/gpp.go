package consenttest

import (
	"strconv"
	"strings"
)

// GPP section ids (the GPP "Section Information" list) this package writes
// sections for, and uspv1's, whose text is a us_privacy string.
const (
	SectionTCFEU = 2  // EU TCF v2: the text is a TC string (TC.String)
	SectionUSPV1 = 6  // uspv1: the text is a us_privacy string ("1YNN")
	SectionUSNat = 7  // US National (USNat)
	SectionUSCA  = 8  // California (USState)
	SectionUSVA  = 9  // Virginia (USState)
	SectionUSCO  = 10 // Colorado (USState)
	SectionUSUT  = 11 // Utah (USState)
	SectionUSCT  = 12 // Connecticut (USState)
)

// GPPHeader encodes a GPP header naming ids, in the order given (the
// specification wants them ascending, each ≥ 1): Type 3, Version 1, then the
// ids as Range(Fibonacci) entries, a run of consecutive ids as one group,
// each entry's start as its offset from the previous entry's end; padded
// with zero bits to a whole character.
func GPPHeader(ids ...int) string {
	w := &bitWriter{}
	w.int(3, 6) // Type
	w.int(1, 6) // Version
	es := group(ids)
	w.int(uint64(len(es)), 12) // NumRanges
	last := 0
	for _, e := range es {
		w.bool(e.End != e.Start) // IsARange
		w.fib(e.Start - last)
		if e.End != e.Start {
			w.fib(e.End - e.Start)
		}
		last = e.End
	}
	return w.base64url(6)
}

// Section is one section of a GPP string: its id, and its encoded text
// (TC.String, USNat.String, USState.String, a us_privacy string, or any
// text).
type Section struct {
	ID   int
	Text string
}

// GPP is a GPP string: its sections, which the specification wants in
// ascending order of id.
type GPP struct {
	Sections []Section
}

// String encodes the GPP string: the header naming the sections' ids in the
// order given, then each section's text after a '~'.
func (g GPP) String() string {
	ids := make([]int, len(g.Sections))
	for i, s := range g.Sections {
		ids[i] = s.ID
	}
	var sb strings.Builder
	sb.WriteString(GPPHeader(ids...))
	for _, s := range g.Sections {
		sb.WriteByte('~')
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// USNat is a US National section (GPP section 7): its core segment, and
// its GPC subsection when GPC is not nil. V2 writes version 2, whose
// SensitiveDataProcessing has 16 fields and KnownChildSensitiveDataConsents
// 3; otherwise version 1's 12 and 2. Those fields are written 0 (not
// applicable). Every 2-bit field is written as given: 1 opts out of (or, for
// a notice, gives) what it names, 2 does not, 0 is not applicable, 3 has no
// meaning.
type USNat struct {
	V2                                                                    bool
	SharingNotice, SaleOptOutNotice, SharingOptOutNotice                  int
	TargetedAdvertisingOptOutNotice                                       int
	SensitiveDataProcessingOptOutNotice, SensitiveDataLimitUseNotice      int
	SaleOptOut, SharingOptOut, TargetedAdvertisingOptOut                  int
	PersonalDataConsents                                                  int
	MspaCoveredTransaction, MspaOptOutOptionMode, MspaServiceProviderMode int
	GPC                                                                   *bool // the GPC subsection, when not nil
}

// String encodes the section: the core segment, padded with zero bits to a
// whole character, then, with GPC, a '.' and the GPC subsection.
func (u USNat) String() string {
	w := &bitWriter{}
	version, sensitive, child := 1, 12, 2
	if u.V2 {
		version, sensitive, child = 2, 16, 3
	}
	w.int(uint64(version), 6)
	for _, f := range []int{u.SharingNotice, u.SaleOptOutNotice, u.SharingOptOutNotice,
		u.TargetedAdvertisingOptOutNotice, u.SensitiveDataProcessingOptOutNotice,
		u.SensitiveDataLimitUseNotice, u.SaleOptOut, u.SharingOptOut, u.TargetedAdvertisingOptOut} {
		w.int(uint64(f), 2)
	}
	for range sensitive + child {
		w.int(0, 2) // not applicable
	}
	for _, f := range []int{u.PersonalDataConsents, u.MspaCoveredTransaction, u.MspaOptOutOptionMode, u.MspaServiceProviderMode} {
		w.int(uint64(f), 2)
	}
	return w.base64url(6) + gpcSubsection(u.GPC)
}

// gpcSubsection is "." and a GPC subsection (SubsectionType 1) when gpc is
// not nil, else "".
func gpcSubsection(gpc *bool) string {
	if gpc == nil {
		return ""
	}
	w := &bitWriter{}
	w.int(1, 2) // SubsectionType 1: GPC
	w.bool(*gpc)
	return "." + w.base64url(6)
}

// USState is a US state section, version 1: California (8), Virginia (9),
// Colorado (10), Utah (11) or Connecticut (12), by ID. Each state's core
// segment has its own fields; String writes those of ID's, in its order,
// and ignores the others:
//
//   - California: SaleOptOutNotice, SharingOptOutNotice,
//     SensitiveDataLimitUseNotice, SaleOptOut, SharingOptOut, 9
//     sensitive-data and 2 known-child fields, PersonalDataConsents;
//   - Virginia, Colorado, Connecticut: SharingNotice, SaleOptOutNotice,
//     TargetedAdvertisingOptOutNotice, SaleOptOut,
//     TargetedAdvertisingOptOut, then 8, 7 and 8 sensitive-data fields and
//     1, 1 and 3 known-child fields;
//   - Utah: SharingNotice, SaleOptOutNotice,
//     TargetedAdvertisingOptOutNotice,
//     SensitiveDataProcessingOptOutNotice, SaleOptOut,
//     TargetedAdvertisingOptOut, 8 sensitive-data fields, 1 known-child
//     field;
//
// then the three MSPA fields. The sensitive-data and known-child fields
// are written 0 (not applicable). California, Colorado and Connecticut have
// a GPC subsection, written when GPC is not nil; Virginia and Utah have
// none, and GPC is ignored.
type USState struct {
	ID                                                                    int
	SharingNotice, SaleOptOutNotice, SharingOptOutNotice                  int
	TargetedAdvertisingOptOutNotice                                       int
	SensitiveDataProcessingOptOutNotice, SensitiveDataLimitUseNotice      int
	SaleOptOut, SharingOptOut, TargetedAdvertisingOptOut                  int
	PersonalDataConsents                                                  int
	MspaCoveredTransaction, MspaOptOutOptionMode, MspaServiceProviderMode int
	GPC                                                                   *bool
}

// String encodes the section as USNat.String does. It panics if ID is not
// one of the five states'.
func (s USState) String() string {
	var fields []int
	var sensitive, child int
	gpc := s.GPC
	common := []int{s.SharingNotice, s.SaleOptOutNotice, s.TargetedAdvertisingOptOutNotice, s.SaleOptOut, s.TargetedAdvertisingOptOut}
	switch s.ID {
	case SectionUSCA:
		fields = []int{s.SaleOptOutNotice, s.SharingOptOutNotice, s.SensitiveDataLimitUseNotice, s.SaleOptOut, s.SharingOptOut}
		sensitive, child = 9, 2
	case SectionUSVA:
		fields, sensitive, child, gpc = common, 8, 1, nil
	case SectionUSCO:
		fields, sensitive, child = common, 7, 1
	case SectionUSUT:
		fields = []int{s.SharingNotice, s.SaleOptOutNotice, s.TargetedAdvertisingOptOutNotice,
			s.SensitiveDataProcessingOptOutNotice, s.SaleOptOut, s.TargetedAdvertisingOptOut}
		sensitive, child, gpc = 8, 1, nil
	case SectionUSCT:
		fields, sensitive, child = common, 8, 3
	default:
		panic("consenttest: USState has no layout for section " + strconv.Itoa(s.ID))
	}
	w := &bitWriter{}
	w.int(1, 6) // Version
	for _, f := range fields {
		w.int(uint64(f), 2)
	}
	for range sensitive + child {
		w.int(0, 2) // not applicable
	}
	if s.ID == SectionUSCA {
		w.int(uint64(s.PersonalDataConsents), 2)
	}
	for _, f := range []int{s.MspaCoveredTransaction, s.MspaOptOutOptionMode, s.MspaServiceProviderMode} {
		w.int(uint64(f), 2)
	}
	return w.base64url(6) + gpcSubsection(gpc)
}
