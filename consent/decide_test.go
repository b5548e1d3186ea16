package consent

import (
	"encoding/base64"
	"github.com/recbid/dspd/consent/consenttest"
	"testing"

	"github.com/prebid/go-gpp/sections"
	"github.com/prebid/go-gpp/sections/uspca"
	"github.com/prebid/go-gpp/sections/uspco"
	"github.com/prebid/go-gpp/sections/uspct"
	"github.com/prebid/go-gpp/sections/usput"
	"github.com/prebid/go-gpp/sections/uspva"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// with returns fullConsent changed by f.
func with(f func(*consenttest.TC)) consenttest.TC {
	tc := fullConsent()
	f(&tc)
	return tc
}

// without returns ids without id.
func without(ids []int, id int) []int {
	var out []int
	for _, v := range ids {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

// noVendorConsent drops dspVendor from the vendor consents.
func noVendorConsent(tc *consenttest.TC) {
	tc.VendorConsents.IDs = without(tc.VendorConsents.IDs, dspVendor)
}

// noVendorLegitInt drops dspVendor from the vendor legitimate interests.
func noVendorLegitInt(tc *consenttest.TC) {
	tc.VendorLegitimateInterests.IDs = without(tc.VendorLegitimateInterests.IDs, dspVendor)
}

// liOnly leaves Purpose 2 only its legitimate-interest basis: no purpose
// consent at all, legitimate interest for Purpose 2, the vendor's
// legitimate interest but not its consent.
func liOnly(tc *consenttest.TC) {
	tc.PurposesConsent = nil
	tc.PurposesLITransparency = []int{2}
	noVendorConsent(tc)
}

func restrict(purpose, kind int, vendors ...consenttest.Range) func(*consenttest.TC) {
	return func(tc *consenttest.TC) {
		tc.PubRestrictions = append(tc.PubRestrictions, consenttest.PubRestriction{Purpose: purpose, Type: kind, Vendors: vendors})
	}
}

func both(fs ...func(*consenttest.TC)) func(*consenttest.TC) {
	return func(tc *consenttest.TC) {
		for _, f := range fs {
			f(tc)
		}
	}
}

// The results, as the rules give them.
var (
	allowed    = Decision{Outcome: NoGDPR, Bid: true, UserLevel: true}
	consented  = Decision{Outcome: Consented, Bid: true, UserLevel: true}
	contextual = func(o Outcome) Decision { return Decision{Outcome: o, Bid: true} }
	refused    = func(o Outcome) Decision { return Decision{Outcome: o} }
)

// the spec examples (see TestSpecExamples for where they come from).
const (
	specTC      = "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA"
	specGPP1    = "DBABM~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA"
	specGPP2    = "DBACNY~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN"
	specGPPCan  = "DBABjw~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN"
	specVendor3 = 3 // a vendor specTC's core consents to (vendors 1–4)
)

// panicTC is a 31-byte TC string on which go-gdpr v1.12.0 panics: a
// vendor-consent bit field that ends on a byte boundary two bytes before
// the end, so that the library reads the IsRangeEncoding bit of the
// legitimate-interest section past the slice.
func panicTC() string {
	b := make([]byte, 31)
	set := func(bit int) { b[bit/8] |= 0x80 >> (bit % 8) }
	set(4)   // Version 2 (bits 0–5)
	set(131) // VendorListVersion 1 (bits 120–131)
	set(138) // IsServiceSpecific
	set(227) // MaxVendorId 2 (bits 213–228)
	return base64.RawURLEncoding.EncodeToString(b)
}

// gpp joins a header and sections.
func gpp(header string, sections ...string) string {
	s := header
	for _, sec := range sections {
		s += "~" + sec
	}
	return s
}

func optOut(f func(*consenttest.USNat)) string {
	u := noOptOut()
	f(&u)
	return u.String()
}

var yes = true

// stateSection encodes a US state section with go-gpp's own encoders.
func stateSection(id int, saleOptOut, targetedOptOut byte, gpc bool) string {
	core := sections.CommonUSCoreSegment{Version: 1, SharingNotice: 1, SaleOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
		SaleOptOut: saleOptOut, TargetedAdvertisingOptOut: targetedOptOut, MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2}
	g := sections.CommonUSGPCSegment{SubsectionType: 1, Gpc: gpc}
	switch id {
	case sectionUSCA:
		c := uspca.USPCACoreSegment{Version: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, SaleOptOut: saleOptOut,
			SharingOptOut: targetedOptOut, SensitiveDataProcessing: make([]byte, 9), KnownChildSensitiveDataConsents: make([]byte, 2),
			MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2}
		return string(uspca.USPCA{CoreSegment: c, GPCSegment: g}.Encode(true))
	case sectionUSVA:
		core.SensitiveDataProcessing, core.KnownChildSensitiveDataConsents = make([]byte, 8), make([]byte, 1)
		return string(uspva.USPVA{CoreSegment: core}.Encode(true))
	case sectionUSCO:
		core.SensitiveDataProcessing, core.KnownChildSensitiveDataConsents = make([]byte, 7), make([]byte, 1)
		return string(uspco.USPCO{CoreSegment: core, GPCSegment: g}.Encode(true))
	case sectionUSUT:
		c := usput.USPUTCoreSegment{Version: 1, SaleOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1, SaleOptOut: saleOptOut,
			TargetedAdvertisingOptOut: targetedOptOut, SensitiveDataProcessing: make([]byte, 8), MspaCoveredTransaction: 1}
		return string(usput.USPUT{CoreSegment: c}.Encode(true))
	case sectionUSCT:
		core.SensitiveDataProcessing, core.KnownChildSensitiveDataConsents = make([]byte, 8), make([]byte, 3)
		return string(uspct.USPCT{CoreSegment: core, GPCSegment: g}.Encode(true))
	}
	panic("no encoder for section")
}

type decideCase struct {
	name   string
	vendor int
	sig    Signals
	want   Decision
}

func gdpr1(tc consenttest.TC) Signals { return Signals{GDPR: 1, TCString: tc.String()} }

func decideCases() []decideCase {
	full := fullConsent()
	liOnlyTC := with(liOnly)
	dsp := span(dspVendor, dspVendor)
	around := span(700, 800)
	return []decideCase{
		// No GDPR.
		{name: "no signals", sig: Signals{GDPR: -1}, want: allowed},
		{name: "gdpr=0", sig: Signals{GDPR: 0}, want: allowed},
		{name: "gdpr=0 ignores the TC string", sig: Signals{GDPR: 0, TCString: "garbage"}, want: allowed},
		{name: "gdpr out of range is absent", sig: Signals{GDPR: 7}, want: allowed},
		{name: "gdpr absent, a TC string: GDPR applies", sig: Signals{GDPR: -1, TCString: full.String()}, want: consented},
		{name: "gdpr absent, a malformed TC string", sig: Signals{GDPR: -1, TCString: "garbage"}, want: refused(Malformed)},

		// GDPR, full consent.
		{name: "full consent, bit fields", sig: gdpr1(full), want: consented},
		{name: "full consent, range entries", sig: gdpr1(ranged(full)), want: consented},
		{name: "full consent without segments", sig: gdpr1(with(func(tc *consenttest.TC) { tc.Segments = nil })), want: consented},
		{name: "full consent with a publisher TC segment", sig: gdpr1(with(func(tc *consenttest.TC) {
			tc.Segments = append(tc.Segments, consenttest.PublisherTC([]int{1}, nil))
		})), want: consented},
		{name: "no vendor id configured", vendor: -1, sig: gdpr1(full), want: refused(NoVendor)},

		// Purpose 2 by legitimate interest.
		{name: "P2 by legitimate interest only", sig: gdpr1(liOnlyTC), want: contextual(NoPurpose1)},
		{name: "P2 by legitimate interest, range entries", sig: gdpr1(ranged(liOnlyTC)), want: contextual(NoPurpose1)},
		{name: "P2 by legitimate interest, P1 consented but not the vendor", sig: gdpr1(with(both(noVendorConsent, func(tc *consenttest.TC) {
			tc.PurposesConsent = []int{1}
		}))), want: contextual(NoVendor)},
		{name: "P2 by legitimate interest and the vendor's consent, no P1", sig: gdpr1(with(func(tc *consenttest.TC) {
			tc.PurposesConsent = []int{2}
		})), want: contextual(NoPurpose1)},

		// No vendor.
		{name: "no vendor consent nor legitimate interest", sig: gdpr1(with(both(noVendorConsent, noVendorLegitInt))), want: refused(NoVendor)},
		{name: "no vendor consent nor legitimate interest, ranges", sig: gdpr1(ranged(with(both(noVendorConsent, noVendorLegitInt)))), want: refused(NoVendor)},
		{name: "vendor above MaxVendorId, bit fields", vendor: highVendor, sig: gdpr1(full), want: refused(NoVendor)},
		{name: "vendor above MaxVendorId, ranges", vendor: highVendor, sig: gdpr1(ranged(full)), want: refused(NoVendor)},
		{name: "vendor at MaxVendorId", vendor: 1195, sig: gdpr1(full), want: consented},
		{name: "vendor just above MaxVendorId with a wider LI section", vendor: 1196, sig: gdpr1(with(func(tc *consenttest.TC) {
			tc.VendorLegitimateInterests = consenttest.Vendors{Max: 1196, IDs: []int{1196}}
		})), want: contextual(NoVendor)},

		// No Purpose 2.
		{name: "vendor consent, no P2 consent nor transparency", sig: gdpr1(with(func(tc *consenttest.TC) {
			tc.PurposesConsent = []int{1}
			tc.PurposesLITransparency = nil
		})), want: refused(NoPurpose2)},
		{name: "P2 consent without vendor consent, vendor LI without P2 transparency", sig: gdpr1(with(both(noVendorConsent, func(tc *consenttest.TC) {
			tc.PurposesLITransparency = []int{7}
		}))), want: refused(NoPurpose2)},
		{name: "no purposes at all", sig: gdpr1(with(func(tc *consenttest.TC) {
			tc.PurposesConsent, tc.PurposesLITransparency = nil, nil
		})), want: refused(NoPurpose2)},

		// Publisher restrictions on Purpose 2.
		{name: "P2 not allowed for the vendor", sig: gdpr1(with(restrict(2, 0, dsp))), want: refused(Restricted)},
		{name: "P2 not allowed for a range holding the vendor", sig: gdpr1(ranged(with(restrict(2, 0, around)))), want: refused(Restricted)},
		{name: "P2 not allowed for other vendors", sig: gdpr1(with(restrict(2, 0, span(1, 700), span(756, 900)))), want: consented},
		{name: "P2 requires consent, only LI", sig: gdpr1(with(both(liOnly, restrict(2, 1, dsp)))), want: refused(Restricted)},
		{name: "P2 requires consent, consent given", sig: gdpr1(with(restrict(2, 1, dsp))), want: consented},
		{name: "P2 requires LI, only consent", sig: gdpr1(with(both(noVendorLegitInt, restrict(2, 2, dsp)))), want: refused(Restricted)},
		{name: "P2 requires LI, LI established", sig: gdpr1(with(restrict(2, 2, dsp))), want: consented},
		{name: "P2 requires consent and LI", sig: gdpr1(with(both(restrict(2, 1, dsp), restrict(2, 2, dsp)))), want: refused(Restricted)},
		{name: "undefined restriction type 3", sig: gdpr1(with(restrict(2, 3, dsp))), want: consented},
		{name: "P2 not allowed by the first of two entries of the same type", sig: gdpr1(with(both(restrict(2, 0, dsp), restrict(2, 0, span(1, 2))))), want: refused(Restricted)},
		{name: "P2 requires LI by the first of two entries, only consent", sig: gdpr1(with(both(noVendorLegitInt, restrict(2, 2, dsp), restrict(2, 2, span(1, 2))))), want: refused(Restricted)},

		// Publisher restrictions on Purpose 1.
		{name: "P1 not allowed", sig: gdpr1(with(restrict(1, 0, dsp))), want: contextual(Restricted)},
		{name: "P1 requires LI, which P1 cannot have", sig: gdpr1(with(restrict(1, 2, around))), want: contextual(Restricted)},
		{name: "P1 requires consent", sig: gdpr1(with(restrict(1, 1, dsp))), want: consented},
		{name: "P1 restricted for other vendors", sig: gdpr1(with(restrict(1, 0, span(1, 754)))), want: consented},

		// Malformed TC strings.
		{name: "gdpr=1 without a TC string", sig: Signals{GDPR: 1}, want: refused(Malformed)},
		{name: "not service-specific", sig: gdpr1(with(func(tc *consenttest.TC) { tc.IsServiceSpecific = false })), want: refused(Malformed)},
		{name: "version 1", sig: gdpr1(with(func(tc *consenttest.TC) { tc.Version = 1 })), want: refused(Malformed)},
		{name: "version 3", sig: gdpr1(with(func(tc *consenttest.TC) { tc.Version = 3 })), want: refused(Malformed)},
		{name: "a TCF v1.1 string", sig: Signals{GDPR: 1, TCString: "BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA"}, want: refused(Malformed)},
		{name: "vendor list version 0", sig: gdpr1(with(func(tc *consenttest.TC) { tc.VendorListVersion = 0 })), want: refused(Malformed)},
		{name: "truncated: no NumPubRestrictions", sig: gdpr1(with(func(tc *consenttest.TC) { tc.Segments, tc.TrimBits = nil, 12 })), want: refused(Malformed)},
		{name: "truncated in the vendor bits", sig: gdpr1(with(func(tc *consenttest.TC) { tc.Segments, tc.TrimChars = nil, 60 })), want: refused(Malformed)},
		{name: "truncated in a range entry", sig: gdpr1(ranged(with(func(tc *consenttest.TC) { tc.Segments, tc.TrimChars = nil, 30 }))), want: refused(Malformed)},
		{name: "truncated in the metadata", sig: Signals{GDPR: 1, TCString: full.String()[:30]}, want: refused(Malformed)},
		{name: "range entry past MaxVendorId", sig: gdpr1(ranged(with(func(tc *consenttest.TC) {
			tc.VendorConsents.Entries = []consenttest.Range{span(1, tc.VendorConsents.Max+1)}
		}))), want: refused(Malformed)},
		{name: "range entry of vendor 0", sig: gdpr1(ranged(with(func(tc *consenttest.TC) {
			tc.VendorConsents.Entries = []consenttest.Range{span(0, 0), span(dspVendor, dspVendor)}
		}))), want: refused(Malformed)},
		{name: "the string go-gdpr panics on", sig: Signals{GDPR: 1, TCString: panicTC()}, want: refused(Malformed)},
		{name: "garbage", sig: Signals{GDPR: 1, TCString: "not a consent string"}, want: refused(Malformed)},
		{name: "one character", sig: Signals{GDPR: 1, TCString: "C"}, want: refused(Malformed)},
		{name: "not base64url", sig: Signals{GDPR: 1, TCString: "C" + string(make([]byte, 60))}, want: refused(Malformed)},
		{name: "standard base64 alphabet", sig: Signals{GDPR: 1, TCString: "CQtDjkAQtDjkAAHADBENCWFoAP/AAEPAAAYgJVoIIIIIIIIIIIIIIIIIIIIIIII"}, want: refused(Malformed)},

		// us_privacy.
		{name: "us_privacy opt-out", sig: Signals{GDPR: -1, USPrivacy: "1YYN"}, want: contextual(USPOptOut)},
		{name: "us_privacy opt-out without notice", sig: Signals{GDPR: 0, USPrivacy: "1NYY"}, want: contextual(USPOptOut)},
		{name: "us_privacy no opt-out", sig: Signals{GDPR: -1, USPrivacy: "1YNN"}, want: allowed},
		{name: "us_privacy not applicable", sig: Signals{GDPR: -1, USPrivacy: "1---"}, want: allowed},
		{name: "us_privacy version 2", sig: Signals{GDPR: -1, USPrivacy: "2YNN"}, want: contextual(USPOptOut)},
		{name: "us_privacy too short", sig: Signals{GDPR: -1, USPrivacy: "1Y"}, want: contextual(USPOptOut)},
		{name: "us_privacy too long", sig: Signals{GDPR: -1, USPrivacy: "1YNNN"}, want: contextual(USPOptOut)},
		{name: "us_privacy letters", sig: Signals{GDPR: -1, USPrivacy: "abcd"}, want: contextual(USPOptOut)},
		{name: "us_privacy lower case", sig: Signals{GDPR: -1, USPrivacy: "1ynn"}, want: contextual(USPOptOut)},
		{name: "us_privacy opt-out under GDPR consent", sig: Signals{GDPR: 1, TCString: full.String(), USPrivacy: "1YYN"}, want: contextual(USPOptOut)},

		// GPP US sections.
		{name: "US National, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), noOptOut().String()), GPPSID: []int{7}, GDPR: -1}, want: allowed},
		{name: "US National v2, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.V2 = true })), GPPSID: []int{7}, GDPR: -1}, want: allowed},
		{name: "US National, sale opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.SaleOptOut = 1 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National v2, sale opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.V2, u.SaleOptOut = true, 1 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National, sharing opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.SharingOptOut = 1 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National, targeted advertising opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.TargetedAdvertisingOptOut = 1 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National, undefined opt-out value 3", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.SaleOptOut = 3 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National, opt-out not applicable", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.SaleOptOut, u.SharingOptOut, u.TargetedAdvertisingOptOut = 0, 0, 0 })), GPPSID: []int{7}, GDPR: -1}, want: allowed},
		{name: "US National, GPC set", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.GPC = &yes })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National, GPC not set", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.GPC = new(bool) })), GPPSID: []int{7}, GDPR: -1}, want: allowed},
		{name: "US National opt-out not listed in gpp_sid", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.SaleOptOut = 1 })), GDPR: -1}, want: allowed},
		{name: "US National opt-out, another section listed", sig: Signals{GPP: gpp(consenttest.GPPHeader(6, 7), "1YNN", optOut(func(u *consenttest.USNat) { u.SaleOptOut = 1 })), GPPSID: []int{6}, GDPR: -1}, want: allowed},
		{name: "US National opt-out after a uspv1 section", sig: Signals{GPP: gpp(consenttest.GPPHeader(6, 7), "1YNN", optOut(func(u *consenttest.USNat) { u.SaleOptOut = 1 })), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National undecodable", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), "!!!"), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National truncated", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), noOptOut().String()[:2]), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "US National empty", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), ""), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "listed US section missing from the string", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), noOptOut().String()), GPPSID: []int{8}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "listed US section, no GPP string", sig: Signals{GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "listed US section, header undecodable", sig: Signals{GPP: "XBABM~" + noOptOut().String(), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "listed US section, more sections than the header", sig: Signals{GPP: gpp(consenttest.GPPHeader(7), noOptOut().String(), "1YNN"), GPPSID: []int{7}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "a US state dspd does not decode (Oregon)", sig: Signals{GPP: gpp(consenttest.GPPHeader(15), "BAAAAAAA"), GPPSID: []int{15}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "a section that is not a US one (Canada)", sig: Signals{GPP: specGPPCan, GPPSID: []int{5}, GDPR: -1}, want: allowed},
		{name: "uspv1 section, no opt-out", sig: Signals{GPP: specGPP2, GPPSID: []int{6}, GDPR: -1}, want: allowed},
		{name: "uspv1 section, opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(6), "1YYN"), GPPSID: []int{6}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "uspv1 section, empty", sig: Signals{GPP: gpp(consenttest.GPPHeader(6), ""), GPPSID: []int{6}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "California, sale opt-out (go-gpp encoder)", sig: Signals{GPP: gpp(consenttest.GPPHeader(8), stateSection(8, 1, 2, false)), GPPSID: []int{8}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "California, sharing opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(8), stateSection(8, 2, 1, false)), GPPSID: []int{8}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "California, GPC", sig: Signals{GPP: gpp(consenttest.GPPHeader(8), stateSection(8, 2, 2, true)), GPPSID: []int{8}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "California, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(8), stateSection(8, 2, 2, false)), GPPSID: []int{8}, GDPR: -1}, want: allowed},
		{name: "Virginia, targeted advertising opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(9), stateSection(9, 2, 1, false)), GPPSID: []int{9}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "Virginia, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(9), stateSection(9, 2, 2, false)), GPPSID: []int{9}, GDPR: -1}, want: allowed},
		{name: "Colorado, GPC", sig: Signals{GPP: gpp(consenttest.GPPHeader(10), stateSection(10, 2, 2, true)), GPPSID: []int{10}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "Colorado, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(10), stateSection(10, 2, 2, false)), GPPSID: []int{10}, GDPR: -1}, want: allowed},
		{name: "Utah, sale opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(11), stateSection(11, 1, 2, false)), GPPSID: []int{11}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "Utah, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(11), stateSection(11, 0, 0, false)), GPPSID: []int{11}, GDPR: -1}, want: allowed},
		{name: "Connecticut, value 3", sig: Signals{GPP: gpp(consenttest.GPPHeader(12), stateSection(12, 3, 2, false)), GPPSID: []int{12}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "Connecticut, no opt-out", sig: Signals{GPP: gpp(consenttest.GPPHeader(12), stateSection(12, 2, 2, false)), GPPSID: []int{12}, GDPR: -1}, want: allowed},
		{name: "two listed sections, one opts out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7, 8), noOptOut().String(), stateSection(8, 1, 2, false)), GPPSID: []int{7, 8}, GDPR: -1}, want: contextual(GPPOptOut)},
		{name: "two listed sections, none opts out", sig: Signals{GPP: gpp(consenttest.GPPHeader(7, 8), noOptOut().String(), stateSection(8, 2, 2, false)), GPPSID: []int{7, 8}, GDPR: -1}, want: allowed},

		// GPP's EU TCF section.
		{name: "TCF section, gdpr=1, no user.consent", sig: Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(2), full.String()), GPPSID: []int{2}}, want: consented},
		{name: "TCF section, gdpr absent", sig: Signals{GDPR: -1, GPP: gpp(consenttest.GPPHeader(2), full.String()), GPPSID: []int{2}}, want: consented},
		{name: "TCF section, gdpr=0 contradicts gpp_sid", sig: Signals{GDPR: 0, GPP: gpp(consenttest.GPPHeader(2), with(liOnly).String()), GPPSID: []int{2}}, want: contextual(NoPurpose1)},
		{name: "TCF section not listed", sig: Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(2), full.String())}, want: refused(Malformed)},
		{name: "TCF section listed, missing", sig: Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(7), noOptOut().String()), GPPSID: []int{2, 7}}, want: refused(Malformed)},
		{name: "TCF section listed, no GPP string", sig: Signals{GDPR: -1, GPPSID: []int{2}}, want: refused(Malformed)},
		{name: "TCF section malformed", sig: Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(2), "CPX"), GPPSID: []int{2}}, want: refused(Malformed)},
		{name: "user.consent wins over the TCF section", sig: Signals{GDPR: 1, TCString: full.String(), GPP: gpp(consenttest.GPPHeader(2), with(liOnly).String()), GPPSID: []int{2}}, want: consented},
		{name: "user.consent wins, the other way", sig: Signals{GDPR: 1, TCString: with(liOnly).String(), GPP: gpp(consenttest.GPPHeader(2), full.String()), GPPSID: []int{2}}, want: contextual(NoPurpose1)},
		{name: "TCF section and a US opt-out", sig: Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(2, 7), full.String(), optOut(func(u *consenttest.USNat) { u.SaleOptOut = 1 })), GPPSID: []int{2, 7}}, want: contextual(GPPOptOut)},

		// COPPA, LMT, DNT.
		{name: "coppa", sig: Signals{GDPR: -1, COPPA: true}, want: contextual(COPPA)},
		{name: "coppa under full consent", sig: Signals{GDPR: 1, TCString: full.String(), COPPA: true}, want: contextual(COPPA)},
		{name: "coppa and a malformed TC string", sig: Signals{GDPR: 1, TCString: "x", COPPA: true}, want: refused(Malformed)},
		{name: "lmt", sig: Signals{GDPR: -1, LMT: true}, want: contextual(LMT)},
		{name: "coppa before lmt", sig: Signals{GDPR: -1, COPPA: true, LMT: true}, want: contextual(COPPA)},
		{name: "lmt before a us_privacy opt-out", sig: Signals{GDPR: -1, LMT: true, USPrivacy: "1YYN"}, want: contextual(LMT)},
		{name: "dnt alone", sig: Signals{GDPR: -1, DNT: true}, want: Decision{Outcome: NoGDPR, Bid: true, UserLevel: true, DNT: true}},
		{name: "dnt with no bid", sig: Signals{GDPR: 1, DNT: true}, want: Decision{Outcome: Malformed, DNT: true}},

		// The specifications' examples.
		{name: "TCF spec example, a consented vendor without purposes", vendor: specVendor3, sig: Signals{GDPR: 1, TCString: specTC}, want: refused(NoPurpose2)},
		{name: "TCF spec example, vendor above its MaxVendorId", sig: Signals{GDPR: 1, TCString: specTC}, want: refused(NoVendor)},
		{name: "GPP spec example 1, TCF section", sig: Signals{GDPR: -1, GPP: specGPP1, GPPSID: []int{2}}, want: refused(NoVendor)},
		{name: "GPP spec example 2, both sections", sig: Signals{GDPR: -1, GPP: specGPP2, GPPSID: []int{2, 6}}, want: refused(NoVendor)},
	}
}

func TestDecide(t *testing.T) {
	for _, tt := range decideCases() {
		t.Run(tt.name, func(t *testing.T) {
			vendor := tt.vendor
			switch vendor {
			case 0:
				vendor = dspVendor
			case -1:
				vendor = 0
			}
			c, err := New(Config{VendorID: vendor})
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.Decide(tt.sig))
		})
	}
}

func TestNilCheckerHasNoVendor(t *testing.T) {
	var c *Checker
	assert.Equal(t, refused(NoVendor), c.Decide(gdpr1(fullConsent())))
	assert.Equal(t, allowed, c.Decide(Signals{GDPR: -1}))
	assert.Zero(t, c.VendorID())
}

func TestDecideKeepsNothing(t *testing.T) {
	// The signals alias a buffer the caller reuses: a decision made before
	// the buffer is overwritten must not change, and Decide must not write.
	buf := []byte(fullConsent().String())
	sids := [4]int{7}
	c, err := New(Config{VendorID: dspVendor})
	require.NoError(t, err)
	sig := Signals{GDPR: 1, TCString: string(buf), GPP: gpp(consenttest.GPPHeader(7), noOptOut().String()), GPPSID: sids[:1]}
	before := string(buf)
	d := c.Decide(sig)
	assert.Equal(t, consented, d)
	assert.Equal(t, before, string(buf))
	assert.Equal(t, [4]int{7}, sids)
}

func TestNew(t *testing.T) {
	tests := []struct {
		vendor int
		ok     bool
	}{{0, true}, {1, true}, {dspVendor, true}, {MaxVendorID, true}, {-1, false}, {MaxVendorID + 1, false}}
	for _, tt := range tests {
		c, err := New(Config{VendorID: tt.vendor})
		if !tt.ok {
			assert.ErrorIs(t, err, ErrInvalidConfig, "vendor %d", tt.vendor)
			assert.Nil(t, c)
			continue
		}
		require.NoError(t, err, "vendor %d", tt.vendor)
		assert.Equal(t, tt.vendor, c.VendorID())
	}
}

func TestOutcomes(t *testing.T) {
	labels := map[string]bool{}
	for _, o := range Outcomes() {
		assert.NotEqual(t, "unknown", o.String())
		labels[o.String()] = true
	}
	for _, want := range []string{"no_gdpr", "consented", "no_vendor", "no_purpose1", "no_purpose2",
		"restricted", "malformed", "usp_optout", "gpp_optout", "coppa", "lmt"} {
		assert.True(t, labels[want], want)
	}
	assert.Len(t, labels, len(Outcomes()), "labels are distinct")
	assert.Equal(t, "unknown", Outcome(200).String())
	assert.Equal(t, "malformed", Malformed.String())
}

// TestDuplicateRestrictionEntries: of two PubRestrictionEntries with the
// same purpose and type, both count. The spec does not forbid the
// repetition (the IAB's reference encoder never writes it). go-gdpr
// v1.12.0, which read TC strings before the package's own reader, keeps
// only the last of them, so a vendor named only in the first was not
// restricted: the package failed open on such strings. The library's
// reading is asserted too, as the reason the tests' comparisons with it
// leave repeated restrictions out (compareGoGDPR); if it fails, the library
// has changed.
func TestDuplicateRestrictionEntries(t *testing.T) {
	c, err := New(Config{VendorID: dspVendor})
	require.NoError(t, err)
	dsp := span(dspVendor, dspVendor)
	others := span(1, 2)
	assert.Equal(t, refused(Restricted), c.Decide(gdpr1(with(both(restrict(2, 0, others), restrict(2, 0, dsp))))))
	assert.Equal(t, refused(Restricted), c.Decide(gdpr1(with(both(restrict(2, 0, dsp), restrict(2, 0, others))))),
		"the vendor named in the first entry only")
	assert.Equal(t, refused(Restricted), c.Decide(gdpr1(with(both(liOnly, restrict(2, 1, dsp), restrict(2, 1, others))))),
		"consent required by the first entry, only legitimate interest")
	assert.Equal(t, contextual(Restricted), c.Decide(gdpr1(with(both(restrict(1, 0, dsp), restrict(1, 0, others), restrict(1, 0, others))))),
		"Purpose 1 not allowed by the first of three entries")
	assert.Equal(t, consented, c.Decide(gdpr1(with(both(restrict(2, 0, others), restrict(2, 0, others))))),
		"neither entry names the vendor")

	md, ok, _ := goGDPR(duplicateRestrictions(true))
	require.True(t, ok)
	assert.False(t, md.CheckPubRestriction(2, 0, dspVendor), "go-gdpr drops the first entry")
}
