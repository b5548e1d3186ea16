package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"testing"
	"time"

	"github.com/prebid/go-gdpr/consentconstants"
	tcf2 "github.com/prebid/go-gdpr/vendorconsent/tcf2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecExamples reads the example strings of the specifications:
//
//   - specTC: the example under "TC String Format" in IAB Tech Lab,
//     "Consent string and vendor list formats v2" (TCFv2/IAB Tech Lab -
//     Consent string and vendor list formats v2.md in
//     InteractiveAdvertisingBureau/GDPR-Transparency-and-Consent-Framework):
//     a core string, a Disclosed Vendors segment and a Publisher TC segment.
//     The same core and Disclosed Vendors segment, without the Publisher TC,
//     is the example of its "How does a URL-based service process the TC
//     string" section.
//   - specGPP1, specGPP2, specGPPCan: "GPP String Examples" 1–3 of IAB Tech
//     Lab, "Global Privacy Platform String" (Core/Consent String
//     Specification.md in InteractiveAdvertisingBureau/Global-Privacy-Platform),
//     whose header examples give their bits and sections; their TC string is
//     the same.
//   - The TCF v1.1 example of "Consent string and vendor list formats v1.1
//     Final.md", in decideCases.
//
// What the specifications say the strings hold is asserted as such; the
// other fields are read with the tests' decoder and checked against
// go-gdpr, which reads them independently.
func TestSpecExamples(t *testing.T) {
	examples := []struct {
		s        string
		tcf22    bool  // written under TCF 2.2 or later (the GPP example predates it)
		segments []int // the types of the segments after the core
	}{
		{specTC, true, []int{1, 3}},
		{"CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA", true, []int{1}},
		{"CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA", false, nil},
	}
	for _, ex := range examples {
		s := ex.s
		t.Run(s, func(t *testing.T) {
			tc, segs, err := decodeTC(s)
			require.NoError(t, err)
			// "the value is 2 for this format"
			assert.Equal(t, 2, tc.Version)
			// "This field must always have the value of 1"
			assert.True(t, tc.IsServiceSpecific)
			// Since TCF 2.2, Created and LastUpdated have "the same value
			// corresponding to the day-level timestamp".
			assert.Equal(t, tc.Created, tc.LastUpdated)
			if ex.tcf22 {
				assert.Zero(t, tc.Created%(24*3600*10), "a whole day in deciseconds")
			}
			// Segments after the core: DisclosedVendors is SegmentType 1,
			// PublisherTC is 3.
			assert.Equal(t, ex.segments, segs)
			// The tests' encoder writes the core back bit for bit.
			core := splitDots(s)[0]
			assert.Equal(t, core, consenttest.TC{
				Version: tc.Version, Created: tc.Created, LastUpdated: tc.LastUpdated, CmpID: tc.CmpID, CmpVersion: tc.CmpVersion,
				ConsentScreen: tc.ConsentScreen, ConsentLanguage: tc.ConsentLanguage, VendorListVersion: tc.VendorListVersion,
				TcfPolicyVersion: tc.TcfPolicyVersion, IsServiceSpecific: tc.IsServiceSpecific, UseNonStandardTexts: tc.UseNonStandardTexts,
				SpecialFeatureOptIns: tc.SpecialFeatureOptIns, PurposesConsent: tc.PurposesConsent, PurposesLITransparency: tc.PurposesLITransparency,
				PurposeOneTreatment: tc.PurposeOneTreatment, PublisherCC: tc.PublisherCC, VendorConsents: tc.VendorConsents,
				VendorLegitimateInterests: tc.VendorLegitimateInterests, PubRestrictions: tc.PubRestrictions,
			}.String())
			assertLibraryAgrees(t, s, tc)
			compareReader(t, s, specVendor3)
		})
	}

	// Read with the tests' decoder: what the examples hold.
	tc, _, err := decodeTC(specTC)
	require.NoError(t, err)
	assert.Equal(t, 880, tc.CmpID)
	assert.Equal(t, "EN", tc.ConsentLanguage)
	assert.Equal(t, "DE", tc.PublisherCC)
	assert.Equal(t, time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), time.Unix(tc.Created/10, 0).UTC())
	assert.Equal(t, consenttest.Vendors{Max: 4, IDs: []int{1, 2, 3, 4}}, tc.VendorConsents)
	assert.Empty(t, tc.PurposesConsent)
	assert.Empty(t, tc.PubRestrictions)
	r, err := newBitReaderT(splitDots(specTC)[1])
	require.NoError(t, err)
	assert.Equal(t, 1, r.int(3))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 100, 404}, r.vendors().IDs, "the disclosed vendors")

	gppTC, _, err := decodeTC("CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA")
	require.NoError(t, err)
	assert.Equal(t, 31, gppTC.CmpID)
	assert.Zero(t, gppTC.VendorConsents.Max, "no vendor at all")

	// The GPP header examples: their bits are in the spec, and so are
	// their sections.
	for header, ids := range map[string][]int{"DBABM": {2}, "DBACNY": {2, 6}, "DBABjw": {5, 6}} {
		assert.Equal(t, header, consenttest.GPPHeader(ids...), "the tests' encoder writes the spec's header")
	}
	for s, ids := range map[string][]uint16{specGPP1: {2}, specGPP2: {2, 6}, specGPPCan: {5, 6},
		"DBACNYA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN": {2, 6}} {
		var g gppString
		g.parse(s)
		require.True(t, g.ok, s)
		assert.Equal(t, ids, g.ids[:g.n], s)
		assertGPPLibraryAgrees(t, s, &g)
	}
	var g gppString
	g.parse(specGPP2)
	text, ok := g.section(sectionTCFEU)
	assert.True(t, ok)
	assert.Equal(t, "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA", text)
	text, ok = g.section(sectionUSPV1)
	assert.True(t, ok)
	assert.Equal(t, "1YNN", text)
}

// TestEncoderRoundTrip checks the tests' encoder against their decoder on
// the strings the other tests build.
func TestEncoderRoundTrip(t *testing.T) {
	for _, tc := range []consenttest.TC{fullConsent(), ranged(fullConsent()), with(liOnly),
		with(both(restrict(2, 0, span(1, 40), span(755, 755)), restrict(1, 2, span(700, 800))))} {
		got, segs, err := decodeTC(tc.String())
		require.NoError(t, err)
		assert.Equal(t, []int{1}, segs)
		assert.Equal(t, tc.Version, got.Version)
		assert.Equal(t, tc.PurposesConsent, got.PurposesConsent)
		assert.Equal(t, tc.PurposesLITransparency, got.PurposesLITransparency)
		assert.Equal(t, tc.VendorConsents.IDs, got.VendorConsents.IDs)
		assert.Equal(t, tc.VendorLegitimateInterests.IDs, got.VendorLegitimateInterests.IDs)
		assert.Equal(t, tc.PubRestrictions, got.PubRestrictions)
		assertLibraryAgrees(t, tc.String(), got)
		compareReader(t, tc.String())
	}
}

// assertLibraryAgrees checks what go-gdpr reads in s against what the
// tests' decoder read (want).
func assertLibraryAgrees(t *testing.T, s string, want consenttest.TC) {
	t.Helper()
	parsed, err := tcf2.ParseString(s)
	require.NoError(t, err)
	md := parsed.(tcf2.ConsentMetadata)
	assert.Equal(t, want.Version, int(md.Version()))
	assert.Equal(t, want.CmpID, int(md.CmpID()))
	assert.Equal(t, want.CmpVersion, int(md.CmpVersion()))
	assert.Equal(t, want.ConsentLanguage, md.ConsentLanguage())
	assert.Equal(t, want.VendorListVersion, int(md.VendorListVersion()))
	assert.Equal(t, want.TcfPolicyVersion, int(md.TCFPolicyVersion()))
	assert.Equal(t, want.PurposeOneTreatment, md.PurposeOneTreatment())
	assert.Equal(t, want.Created/10, md.Created().Unix())
	for p := 1; p <= 24; p++ {
		assert.Equal(t, contains(want.PurposesConsent, p), md.PurposeAllowed(consentconstants.Purpose(p)), "purpose %d consent", p)
		assert.Equal(t, contains(want.PurposesLITransparency, p), md.PurposeLITransparency(consentconstants.Purpose(p)), "purpose %d LI", p)
	}
	assert.Equal(t, want.VendorConsents.Max, int(md.MaxVendorID()))
	assert.Equal(t, want.VendorLegitimateInterests.Max, int(md.VendorLegitInterestMaxID()))
	for _, id := range []int{0, 1, 2, 3, 4, 5, otherVendor, 700, 754, dspVendor, 756, 1195, 1196, highVendor, 65535} {
		assert.Equal(t, vendorHas(want.VendorConsents, id), md.VendorConsent(uint16(id)), "vendor %d consent", id)
		assert.Equal(t, vendorHas(want.VendorLegitimateInterests, id), md.VendorLegitInterest(uint16(id)), "vendor %d LI", id)
		for _, p := range []int{1, 2} {
			for kind := range 4 {
				assert.Equal(t, restrictedT(want, p, kind, id), md.CheckPubRestriction(uint8(p), uint8(kind), uint16(id)),
					"vendor %d purpose %d restriction %d", id, p, kind)
			}
		}
	}
}

func contains(ids []int, id int) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}
