package consenttest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prebid/go-gdpr/consentconstants"
	tcf2 "github.com/prebid/go-gdpr/vendorconsent/tcf2"
	gpplib "github.com/prebid/go-gpp"
	"github.com/prebid/go-gpp/sections"
	"github.com/prebid/go-gpp/sections/uspca"
	"github.com/prebid/go-gpp/sections/uspco"
	"github.com/prebid/go-gpp/sections/uspct"
	"github.com/prebid/go-gpp/sections/uspnat"
	"github.com/prebid/go-gpp/sections/usput"
	"github.com/prebid/go-gpp/sections/uspva"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deciseconds is t in the TC string's unit.
func deciseconds(t time.Time) int64 { return t.Unix() * 10 }

// TestSpecExamples writes the examples of the specifications:
//
//   - the TC string under "TC String Format" in IAB Tech Lab, "Consent
//     string and vendor list formats v2" (a core segment, a Disclosed
//     Vendors segment and a Publisher TC segment), whose fields are the
//     ones the specification's example describes (CMP 880, English,
//     Germany, vendors 1–4 consented, vendors 1–5, 100 and 404 disclosed);
//   - "GPP String Examples" 1–3 of IAB Tech Lab, "Global Privacy Platform
//     String": the headers of sections 2, 2 and 6, 5 and 6, and the whole
//     of example 2 (its TC string and its uspv1 section).
//
// The IAB's reference encoder pads each TC segment to whole 24-bit groups;
// this package pads to whole bytes: the core segment here happens to end on
// both, and the other two segments are written as a prefix of the
// example's, followed in it by zero bits only.
func TestSpecExamples(t *testing.T) {
	core := TC{
		Version: 2, Created: deciseconds(time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)),
		LastUpdated: deciseconds(time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)),
		CmpID:       880, ConsentLanguage: "EN", VendorListVersion: 48, TcfPolicyVersion: 2,
		IsServiceSpecific: true, PublisherCC: "DE",
		VendorConsents: Vendors{Max: 4, IDs: []int{1, 2, 3, 4}},
	}
	assert.Equal(t, "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA", core.String())
	dv := DisclosedVendors(Vendors{Max: 404, Range: true, IDs: []int{1, 2, 3, 4, 5, 100, 404}})
	assertZeroPadded(t, "IDKQA4AAgAKAGQAygAAA", dv)
	assertZeroPadded(t, "YAAAAAAAAAAA", PublisherTC(nil, nil))
	core.Segments = []string{dv, PublisherTC(nil, nil)}
	assert.Equal(t, "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA."+dv+"."+PublisherTC(nil, nil), core.String())

	assert.Equal(t, "DBABM", GPPHeader(SectionTCFEU))
	assert.Equal(t, "DBACNY", GPPHeader(SectionTCFEU, SectionUSPV1))
	assert.Equal(t, "DBABjw", GPPHeader(5, SectionUSPV1))
	gppTC := TC{
		Version: 2, Created: 16504920000, LastUpdated: 16504920000, CmpID: 31, CmpVersion: 640, ConsentScreen: 1,
		ConsentLanguage: "EN", VendorListVersion: 126, TcfPolicyVersion: 2, IsServiceSpecific: true, PublisherCC: "DE",
	}
	assert.Equal(t, "DBACNY~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN",
		GPP{Sections: []Section{{SectionTCFEU, gppTC.String()}, {SectionUSPV1, "1YNN"}}}.String())
}

// assertZeroPadded checks that got is want cut after its last non-zero
// bit, padded to fewer characters.
func assertZeroPadded(t *testing.T, want, got string) {
	t.Helper()
	require.True(t, strings.HasPrefix(want, got), "%q is not a prefix of %q", got, want)
	assert.Equal(t, strings.Repeat("A", len(want)-len(got)), want[len(got):])
}

// tcs are TC strings of the shapes tests need: bit fields and ranges,
// legitimate interest, restrictions, further segments.
func tcs() []TC {
	var ids []int
	for id := 1; len(ids) < 200; id += 6 {
		ids = append(ids, id)
	}
	base := TC{
		Version: 2, Created: 17935776000, LastUpdated: 17935776000, CmpID: 7, CmpVersion: 3, ConsentScreen: 1,
		ConsentLanguage: "EN", VendorListVersion: 150, TcfPolicyVersion: 5, IsServiceSpecific: true,
		SpecialFeatureOptIns: []int{1}, PurposesConsent: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		PurposesLITransparency: []int{2, 7, 8, 9, 10}, PublisherCC: "DE",
		VendorConsents:            Vendors{Max: ids[len(ids)-1], IDs: ids},
		VendorLegitimateInterests: Vendors{Max: ids[len(ids)-1], IDs: ids[:100]},
	}
	ranged := base
	ranged.VendorConsents.Range, ranged.VendorLegitimateInterests.Range = true, true
	runs := base
	runs.VendorConsents = Vendors{Max: 1000, Range: true, IDs: slices.Concat(seq(1, 40), seq(300, 420), []int{1000})}
	liOnly := base
	liOnly.PurposesConsent, liOnly.PurposesLITransparency = nil, []int{2}
	liOnly.VendorConsents = Vendors{}
	restricted := base
	restricted.PubRestrictions = []PubRestriction{{Purpose: 2, Type: 0, Vendors: []Range{{1, 40}, {755, 755}}},
		{Purpose: 1, Type: 2, Vendors: []Range{{700, 800}}}, {Purpose: 7, Type: 1, Vendors: []Range{{3, 3}}}}
	segments := base
	segments.Segments = []string{DisclosedVendors(base.VendorConsents), PublisherTC([]int{1}, []int{2})}
	return []TC{base, ranged, runs, liOnly, restricted, segments}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestTCRoundTrip reads the strings back with go-gdpr, which reads them
// independently of this package, field by field.
func TestTCRoundTrip(t *testing.T) {
	for i, tc := range tcs() {
		s := tc.String()
		parsed, err := tcf2.ParseString(s)
		require.NoError(t, err, "%d: %s", i, s)
		md := parsed.(tcf2.ConsentMetadata)
		assert.Equal(t, uint8(tc.Version), md.Version())
		assert.Equal(t, tc.Created/10, md.Created().Unix())
		assert.Equal(t, tc.LastUpdated/10, md.LastUpdated().Unix())
		assert.Equal(t, uint16(tc.CmpID), md.CmpID())
		assert.Equal(t, uint16(tc.CmpVersion), md.CmpVersion())
		assert.Equal(t, uint8(tc.ConsentScreen), md.ConsentScreen())
		assert.Equal(t, tc.ConsentLanguage, md.ConsentLanguage())
		assert.Equal(t, uint16(tc.VendorListVersion), md.VendorListVersion())
		assert.Equal(t, uint8(tc.TcfPolicyVersion), md.TCFPolicyVersion())
		assert.Equal(t, tc.PurposeOneTreatment, md.PurposeOneTreatment())
		for p := 1; p <= 24; p++ {
			assert.Equal(t, slices.Contains(tc.PurposesConsent, p), md.PurposeAllowed(consentconstants.Purpose(p)), "%d: purpose %d", i, p)
			assert.Equal(t, slices.Contains(tc.PurposesLITransparency, p), md.PurposeLITransparency(consentconstants.Purpose(p)), "%d: purpose %d LI", i, p)
		}
		for sf := 1; sf <= 12; sf++ {
			assert.Equal(t, slices.Contains(tc.SpecialFeatureOptIns, sf), md.SpecialFeatureOptIn(uint16(sf)), "%d: special feature %d", i, sf)
		}
		assert.Equal(t, uint16(tc.VendorConsents.Max), md.MaxVendorID())
		assert.Equal(t, uint16(tc.VendorLegitimateInterests.Max), md.VendorLegitInterestMaxID())
		for id := 0; id <= 1300; id++ {
			assert.Equal(t, slices.Contains(tc.VendorConsents.IDs, id), md.VendorConsent(uint16(id)), "%d: vendor %d", i, id)
			assert.Equal(t, slices.Contains(tc.VendorLegitimateInterests.IDs, id), md.VendorLegitInterest(uint16(id)), "%d: vendor %d LI", i, id)
			for _, r := range tc.PubRestrictions {
				named := slices.ContainsFunc(r.Vendors, func(e Range) bool { return e.Start <= id && id <= e.End })
				assert.Equal(t, named, md.CheckPubRestriction(uint8(r.Purpose), uint8(r.Type), uint16(id)), "%d: vendor %d restriction %+v", i, id, r)
			}
		}
	}
}

// TestTCCuts: the cuts shorten the string as they say, and go-gdpr refuses
// a string cut in its fields.
func TestTCCuts(t *testing.T) {
	tc := tcs()[0]
	whole := tc.String()
	tc.TrimChars = 60
	assert.Equal(t, whole[:len(whole)-60], tc.String())
	_, err := tcf2.ParseString(tc.String())
	assert.Error(t, err)
	tc.TrimChars, tc.TrimBits = 0, 12 // NumPubRestrictions
	assert.Less(t, len(tc.String()), len(whole))
	tc.TrimBits = 0
	tc.Segments = []string{"x", "y"}
	assert.Equal(t, whole+".x.y", tc.String())
}

// TestUSSections reads the US sections back with go-gpp, field by field,
// and compares them with go-gpp's own encoder's (which pads to whole bytes
// where this package pads to a character).
func TestUSSections(t *testing.T) {
	yes, no := true, false
	for _, v2 := range []bool{false, true} {
		for _, gpc := range []*bool{nil, &no, &yes} {
			u := USNat{V2: v2, SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
				SensitiveDataProcessingOptOutNotice: 2, SensitiveDataLimitUseNotice: 0, SaleOptOut: 1, SharingOptOut: 2,
				TargetedAdvertisingOptOut: 3, PersonalDataConsents: 2, MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2, GPC: gpc}
			s := u.String()
			got, err := uspnat.NewUSPNAT(s)
			require.NoError(t, err, s)
			want := uspnat.USPNATCoreSegment{Version: 1, SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1,
				TargetedAdvertisingOptOutNotice: 1, SensitiveDataProcessingOptOutNotice: 2, SaleOptOut: 1, SharingOptOut: 2,
				TargetedAdvertisingOptOut: 3, SensitiveDataProcessing: make([]byte, 12), KnownChildSensitiveDataConsents: make([]byte, 2),
				PersonalDataConsents: 2, MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2}
			if v2 {
				// go-gpp v0.2.0 reads version 2 by version 1's layout, whose
				// fields up to the opt-outs are version 2's: check those, and
				// the length of version 2's core (70 bits).
				assert.Equal(t, byte(2), got.CoreSegment.Version)
				assert.Equal(t, want.SaleOptOut, got.CoreSegment.SaleOptOut)
				assert.Equal(t, want.SharingOptOut, got.CoreSegment.SharingOptOut)
				assert.Equal(t, want.TargetedAdvertisingOptOut, got.CoreSegment.TargetedAdvertisingOptOut)
				assert.Len(t, strings.Split(s, ".")[0], (70+5)/6)
			} else {
				assert.Equal(t, want, got.CoreSegment)
				lib := string(uspnat.USPNAT{CoreSegment: want, GPCSegment: sections.CommonUSGPCSegment{SubsectionType: 1, Gpc: gpc != nil && *gpc}}.Encode(gpc != nil))
				assertSameBits(t, lib, s)
			}
			assert.Equal(t, gpc != nil && *gpc, got.GPCSegment.Gpc)
		}
	}

	for _, id := range []int{SectionUSCA, SectionUSVA, SectionUSCO, SectionUSUT, SectionUSCT} {
		for _, gpc := range []*bool{nil, &no, &yes} {
			st := USState{ID: id, SharingNotice: 1, SaleOptOutNotice: 2, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 2,
				SensitiveDataProcessingOptOutNotice: 1, SensitiveDataLimitUseNotice: 2, SaleOptOut: 1, SharingOptOut: 3,
				TargetedAdvertisingOptOut: 2, PersonalDataConsents: 1, MspaCoveredTransaction: 2, MspaOptOutOptionMode: 1, MspaServiceProviderMode: 2, GPC: gpc}
			s := st.String()
			gpcSet := gpc != nil && *gpc
			hasGPC := id == SectionUSCA || id == SectionUSCO || id == SectionUSCT
			assert.Equal(t, hasGPC && gpc != nil, strings.Contains(s, "."), "section %d %q", id, s)
			g := sections.CommonUSGPCSegment{SubsectionType: 1, Gpc: gpcSet}
			common := sections.CommonUSCoreSegment{Version: 1, SharingNotice: 1, SaleOptOutNotice: 2, TargetedAdvertisingOptOutNotice: 2,
				SaleOptOut: 1, TargetedAdvertisingOptOut: 2, MspaCoveredTransaction: 2, MspaOptOutOptionMode: 1, MspaServiceProviderMode: 2}
			var lib string
			switch id {
			case SectionUSCA:
				want := uspca.USPCACoreSegment{Version: 1, SaleOptOutNotice: 2, SharingOptOutNotice: 1, SensitiveDataLimitUseNotice: 2,
					SaleOptOut: 1, SharingOptOut: 3, SensitiveDataProcessing: make([]byte, 9), KnownChildSensitiveDataConsents: make([]byte, 2),
					PersonalDataConsents: 1, MspaCoveredTransaction: 2, MspaOptOutOptionMode: 1, MspaServiceProviderMode: 2}
				got, err := uspca.NewUSPCA(s)
				require.NoError(t, err)
				assert.Equal(t, want, got.CoreSegment)
				assert.Equal(t, gpcSet, got.GPCSegment.Gpc)
				lib = string(uspca.USPCA{CoreSegment: want, GPCSegment: g}.Encode(gpc != nil))
			case SectionUSVA:
				common.SensitiveDataProcessing, common.KnownChildSensitiveDataConsents = make([]byte, 8), make([]byte, 1)
				got, err := uspva.NewUSPVA(s)
				require.NoError(t, err)
				assert.Equal(t, common, got.CoreSegment)
				lib = string(uspva.USPVA{CoreSegment: common}.Encode(false))
			case SectionUSCO:
				common.SensitiveDataProcessing, common.KnownChildSensitiveDataConsents = make([]byte, 7), make([]byte, 1)
				got, err := uspco.NewUSPCO(s)
				require.NoError(t, err)
				assert.Equal(t, common, got.CoreSegment)
				assert.Equal(t, gpcSet, got.GPCSegment.Gpc)
				lib = string(uspco.USPCO{CoreSegment: common, GPCSegment: g}.Encode(gpc != nil))
			case SectionUSUT:
				want := usput.USPUTCoreSegment{Version: 1, SharingNotice: 1, SaleOptOutNotice: 2, TargetedAdvertisingOptOutNotice: 2,
					SensitiveDataProcessingOptOutNotice: 1, SaleOptOut: 1, TargetedAdvertisingOptOut: 2, SensitiveDataProcessing: make([]byte, 8),
					MspaCoveredTransaction: 2, MspaOptOutOptionMode: 1, MspaServiceProviderMode: 2}
				got, err := usput.NewUSPUT(s)
				require.NoError(t, err)
				assert.Equal(t, want, got.CoreSegment)
				lib = string(usput.USPUT{CoreSegment: want}.Encode(false))
			case SectionUSCT:
				common.SensitiveDataProcessing, common.KnownChildSensitiveDataConsents = make([]byte, 8), make([]byte, 3)
				got, err := uspct.NewUSPCT(s)
				require.NoError(t, err)
				assert.Equal(t, common, got.CoreSegment)
				assert.Equal(t, gpcSet, got.GPCSegment.Gpc)
				lib = string(uspct.USPCT{CoreSegment: common, GPCSegment: g}.Encode(gpc != nil))
			}
			assertSameBits(t, lib, s)
		}
	}
	assert.Panics(t, func() { _ = USState{ID: SectionUSNat}.String() })
}

// assertSameBits checks that two encodings of a section hold the same
// bits, segment by segment, but for the zero bits that pad them.
func assertSameBits(t *testing.T, want, got string) {
	t.Helper()
	ws, gs := strings.Split(want, "."), strings.Split(got, ".")
	require.Len(t, gs, len(ws), "%q, %q", want, got)
	for i := range ws {
		a, b := strings.TrimRight(ws[i], "A"), strings.TrimRight(gs[i], "A")
		assert.Equal(t, a, b, "segment %d of %q and %q", i, want, got)
	}
}

// TestGPP reads headers and whole strings back with go-gpp.
func TestGPP(t *testing.T) {
	nat := USNat{SharingNotice: 1, SaleOptOut: 2, TargetedAdvertisingOptOut: 1}.String()
	ca := USState{ID: SectionUSCA, SaleOptOut: 2, SharingOptOut: 2}.String()
	tc := tcs()[0].String()
	for _, g := range []GPP{
		{},
		{Sections: []Section{{SectionUSNat, nat}}},
		{Sections: []Section{{SectionTCFEU, tc}, {SectionUSPV1, "1YNN"}, {SectionUSNat, nat}, {SectionUSCA, ca}}},
		{Sections: []Section{{SectionTCFEU, tc}, {SectionUSNat, nat}, {SectionUSCT, "x"}, {100, "y"}, {1000, "z"}}},
	} {
		s := g.String()
		parsed, _ := gpplib.Parse(s) // errors for the sections it cannot decode ("x"); their ids are read
		assert.Len(t, parsed.SectionTypes, len(g.Sections), s)
		for i, sec := range g.Sections {
			if i < len(parsed.SectionTypes) {
				assert.Equal(t, sec.ID, int(parsed.SectionTypes[i]), s)
			}
		}
		assert.Equal(t, len(g.Sections), strings.Count(s, "~"))
	}
	assert.Equal(t, GPPHeader(seq(1, 5)...)+"~~~~~", GPP{Sections: []Section{{1, ""}, {2, ""}, {3, ""}, {4, ""}, {5, ""}}}.String())
}

// TestBits writes a header bit by bit: Type 3, Version 1, one entry, a
// single id 2 (Fibonacci "011").
func TestBits(t *testing.T) {
	assert.Equal(t, "DBABM", Bits("000011 000001 000000000001 0 011"))
	assert.Equal(t, GPPHeader(2), Bits("000011000001000000000001_0_011"))
	assert.Equal(t, "", Bits(""))
}
