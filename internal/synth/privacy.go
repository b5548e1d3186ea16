package synth

import (
	"net/url"

	"github.com/recbid/dspd/consent/consenttest"
)

// GVLVendorID is the vendor id the corpus's TC strings are written for;
// dspd's tests run with -gvl-vendor-id 1000.
const GVLVendorID = 1000

// privacyStream selects the PCG stream of ExchangeTraffic's privacy
// signals, apart from exchangeStream so that drawing them changes no other
// field.
const privacyStream uint64 = 0x7072697661637921 // "privacy!"

// The kinds of TC string of a request where GDPR applies, and their weights
// in percent (ExchangeTraffic's doc comment says what each one is).
const (
	tcFull       = iota // Purposes 1–10 and GVLVendorID consented
	tcLIOnly            // "reject all": Purpose 2 and GVLVendorID by legitimate interest only
	tcNoVendor          // GVLVendorID in neither vendor section
	tcRestricted        // a publisher restriction of type 0 on Purpose 2 for GVLVendorID
	tcNoPurpose1        // Purposes 2–10 and GVLVendorID consented, not Purpose 1
	tcMalformed         // truncated, global-scope or version 1
)

var tcKindWeights = []int{70, 8, 8, 4, 5, 5}

// privacy is one request's privacy signals, drawn from the privacy stream
// before the request is built; where they go depends on the places the
// exchange stream chooses (regs in 2.6 or 2.5, user.consent or
// user.ext.consent).
type privacy struct {
	tc       string // the TC string, where GDPR applies ("" elsewhere)
	usp      string // regs.us_privacy
	gpp      string // regs.gpp, with regs in the 2.6 places ("" none); where GDPR applies, its EU TCF section is tc, and user.consent is left out
	gppSID   []int  // regs.gpp_sid
	coppa    int    // regs.coppa
	lmt, dnt int    // device.lmt and device.dnt, where the request has them
}

// drawPrivacy draws one request's signals; GDPR applies where the body says
// gdpr=1 (a request from GB, DE, FR, ES or IT).
func drawPrivacy(p *rng, q url.Values) privacy {
	var s privacy
	if p.chance(15) {
		s.coppa = 1
	}
	if p.chance(120) {
		s.lmt = 1
	}
	if p.chance(250) {
		s.dnt = 1
	}
	withGPP := p.chance(280)
	if q.Get("gdpr") == "1" {
		s.usp = "1---"
		s.tc = drawTC(p, q.Get("country"))
		if withGPP {
			s.gpp = consenttest.GPP{Sections: []consenttest.Section{{ID: consenttest.SectionTCFEU, Text: s.tc}}}.String()
			s.gppSID = []int{consenttest.SectionTCFEU}
		}
		return s
	}
	s.usp = []string{"1YNN", "1---", "1YYN"}[p.weighted([]int{45, 45, 10})]
	if withGPP {
		nat := consenttest.USNat{V2: p.chance(500), SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1,
			TargetedAdvertisingOptOutNotice: 1, SensitiveDataProcessingOptOutNotice: 1, SensitiveDataLimitUseNotice: 1,
			SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2, MspaCoveredTransaction: 2}
		if p.chance(300) {
			nat.SaleOptOut, nat.TargetedAdvertisingOptOut = 1, 1
		}
		if p.chance(500) {
			nat.GPC = new(bool)
		}
		g := consenttest.GPP{Sections: []consenttest.Section{{ID: consenttest.SectionUSNat, Text: nat.String()}}}
		if p.chance(333) {
			g.Sections = append([]consenttest.Section{{ID: consenttest.SectionUSPV1, Text: s.usp}}, g.Sections...)
		}
		s.gpp = g.String()
		for _, sec := range g.Sections {
			s.gppSID = append(s.gppSID, sec.ID)
		}
	}
	return s
}

// cmpIDs are CMP ids TC strings in traffic carry.
var cmpIDs = []int{7, 10, 28, 31, 68, 134, 300, 309, 371, 880}

// consentLanguages are the languages of the CMPs' screens by publisher
// country.
var consentLanguages = map[string]string{"GB": "EN", "DE": "DE", "FR": "FR", "ES": "ES", "IT": "IT"}

// drawTC draws a TC string of one of the kinds, for a publisher in country.
func drawTC(p *rng, country string) string {
	kind := p.weighted(tcKindWeights)
	day := int64(1767225600+86400*p.intn(305)) * 10 // 2026-01-01 to 2026-11-01, at day precision (TCF 2.2)
	lang, ok := consentLanguages[country]
	if !ok || p.chance(150) {
		lang = "EN"
	}
	if country == "" {
		country = "DE"
	}
	tc := consenttest.TC{
		Version: 2, Created: day, LastUpdated: day,
		CmpID: pick(p, cmpIDs), CmpVersion: p.between(1, 30), ConsentScreen: p.between(1, 3),
		ConsentLanguage: lang, VendorListVersion: p.between(90, 140), TcfPolicyVersion: 5,
		IsServiceSpecific: true, PublisherCC: country,
		SpecialFeatureOptIns:   [][]int{nil, {1}, {1, 2}, {2}}[p.intn(4)],
		PurposesConsent:        []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		PurposesLITransparency: []int{2, 7, 8, 9, 10},
	}
	list := cmpVendorList(p)
	var li []int // the vendors of the list that declare legitimate interest
	for _, id := range list {
		if p.chance(400) {
			li = append(li, id)
		}
	}
	consented := list
	if kind != tcNoVendor {
		consented, li = withVendor(list, GVLVendorID), withVendor(li, GVLVendorID)
	}
	switch kind {
	case tcLIOnly:
		tc.SpecialFeatureOptIns, tc.PurposesConsent, consented = nil, nil, nil
	case tcRestricted:
		lo, hi := GVLVendorID-p.intn(3)*p.intn(40), GVLVendorID+p.intn(3)*p.intn(40)
		tc.PubRestrictions = []consenttest.PubRestriction{{Purpose: 2, Type: 0, Vendors: []consenttest.Range{{Start: lo, End: hi}}}}
		if p.chance(500) {
			start := p.between(1, 900)
			tc.PubRestrictions = append(tc.PubRestrictions, consenttest.PubRestriction{Purpose: 7, Type: 1,
				Vendors: []consenttest.Range{{Start: start, End: start + p.intn(50)}}})
		}
	case tcNoPurpose1:
		tc.PurposesConsent = tc.PurposesConsent[1:]
	}
	tc.VendorConsents, tc.VendorLegitimateInterests = vendorSection(consented), vendorSection(li)
	if kind == tcMalformed {
		switch p.weighted([]int{3, 1, 1}) {
		case 0: // truncated within the core segment
			full := len(tc.String())
			tc.TrimChars = p.between(8, full-10)
			return tc.String()
		case 1: // global scope, invalid since TCF 2.0's global scope was withdrawn
			tc.IsServiceSpecific = false
		default:
			tc.Version = 1
		}
	}
	if p.chance(800) { // TCF 2.3 makes the Disclosed Vendors segment mandatory; not every CMP writes it yet
		tc.Segments = []string{consenttest.DisclosedVendors(vendorSection(union(consented, li)))}
	}
	return tc.String()
}

// cmpVendorList draws the ~200 vendors of a CMP's list, never GVLVendorID:
// about two in three scattered over the GVL's ids 1–1350, the others in runs
// (a list kept in id order, with gaps), so that some sections are shorter
// as bit fields and others as ranges.
func cmpVendorList(p *rng) []int {
	var ids []int
	if p.chance(650) {
		for id := 1; id <= 1350; id++ {
			if id != GVLVendorID && p.chance(150) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	for id := p.between(1, 30); id <= 1350 && len(ids) < 200; id += p.between(5, 80) {
		for end := id + p.between(5, 20); id < end && id <= 1350; id++ {
			if id != GVLVendorID {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// withVendor returns the ascending ids with id among them.
func withVendor(ids []int, id int) []int {
	out := make([]int, 0, len(ids)+1)
	for i, v := range ids {
		if v > id {
			out = append(out, id)
			return append(out, ids[i:]...)
		}
		if v == id {
			return append(out, ids[i:]...)
		}
		out = append(out, v)
	}
	return append(out, id)
}

// union returns the ascending ids of a and b, both ascending.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return out
}

// vendorSection is a vendor section of the ascending ids, in whichever
// encoding is shorter, as the IAB's reference encoder chooses: a bit field
// of MaxVendorId bits, or 12 bits and 17 per single id or 33 per run of
// range entries.
func vendorSection(ids []int) consenttest.Vendors {
	if len(ids) == 0 {
		return consenttest.Vendors{}
	}
	v := consenttest.Vendors{Max: ids[len(ids)-1], IDs: ids}
	rangeBits := 12
	for i := 0; i < len(ids); i++ {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			rangeBits += 33
		} else {
			rangeBits += 17
		}
		i = j
	}
	v.Range = rangeBits < v.Max
	return v
}
