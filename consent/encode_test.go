package consent

// The tests' fixtures (TC strings and US National sections of the shapes
// the tests need, built with package consenttest's encoders) and their own
// decoder of TC strings, written from the specification (IAB Tech Lab,
// "Consent string and vendor list formats v2", TCF v2.2/2.3), so that the
// tests trust neither the libraries the package used (go-gdpr, go-gpp: now
// the tests' oracles) nor the package's own readers. consenttest shares no
// code with the package's readers, nor with this decoder.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/recbid/dspd/consent/consenttest"
)

// testAlphabet is base64url's.
const testAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// span is the range entry of the vendor ids start to end.
func span(start, end int) consenttest.Range { return consenttest.Range{Start: start, End: end} }

// Test vendor ids.
const (
	dspVendor   = 755  // dspd's id in most tests
	otherVendor = 32   // another vendor
	highVendor  = 1300 // above the MaxVendorId of the realistic strings
)

// day is 2026-11-02 00:00 UTC in deciseconds: TCF 2.2 writes Created and
// LastUpdated at day precision.
const day = 1793577600 * 10

// realisticVendors returns 200 vendor ids spread over 1–1200, dspVendor
// among them when with is true: the shape of a real consent for a large CMP
// list.
func realisticVendors(with bool) []int {
	var ids []int
	for id := 1; len(ids) < 200; id += 6 {
		if id != dspVendor || with {
			ids = append(ids, id)
		}
	}
	if with && !slices.Contains(ids, dspVendor) {
		ids = append(ids, dspVendor)
		slices.Sort(ids)
	}
	return ids
}

// fullConsent is a TC string in which the user consented to Purposes 1–10
// and to dspVendor (and 199 others), with legitimate interest established
// for Purposes 2, 7–10 and the same vendors; bit fields.
func fullConsent() consenttest.TC {
	vendors := realisticVendors(true)
	return consenttest.TC{
		Version: 2, Created: day, LastUpdated: day,
		CmpID: 7, CmpVersion: 3, ConsentScreen: 1, ConsentLanguage: "EN",
		VendorListVersion: 150, TcfPolicyVersion: 5,
		IsServiceSpecific:         true,
		SpecialFeatureOptIns:      []int{1},
		PurposesConsent:           []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		PurposesLITransparency:    []int{2, 7, 8, 9, 10},
		PublisherCC:               "DE",
		VendorConsents:            consenttest.Vendors{Max: vendors[len(vendors)-1], IDs: vendors},
		VendorLegitimateInterests: consenttest.Vendors{Max: vendors[len(vendors)-1], IDs: vendors},
		Segments:                  []string{consenttest.DisclosedVendors(consenttest.Vendors{Max: vendors[len(vendors)-1], IDs: vendors})},
	}
}

// ranged returns tc with both vendor sections range-encoded.
func ranged(tc consenttest.TC) consenttest.TC {
	tc.VendorConsents.Range = true
	tc.VendorLegitimateInterests.Range = true
	return tc
}

// bitReaderT reads the bits of base64url text for the tests' decoder.
type bitReaderT struct {
	bits []byte
	pos  int
	err  error

	backwards bool // a range entry with IsARange set did not end above its start
}

var errShort = errors.New("truncated")

func newBitReaderT(s string) (*bitReaderT, error) {
	r := &bitReaderT{}
	for i := 0; i < len(s); i++ {
		v := -1
		for j := 0; j < len(testAlphabet); j++ {
			if testAlphabet[j] == s[i] {
				v = j
			}
		}
		if v < 0 {
			return nil, fmt.Errorf("character %q at %d is not base64url", s[i], i)
		}
		for b := 5; b >= 0; b-- {
			r.bits = append(r.bits, byte(v>>b)&1)
		}
	}
	return r, nil
}

func (r *bitReaderT) int(n int) int {
	v := 0
	for range n {
		if r.pos >= len(r.bits) {
			r.err = errShort
			return 0
		}
		v = v<<1 | int(r.bits[r.pos])
		r.pos++
	}
	return v
}

func (r *bitReaderT) bool() bool { return r.int(1) == 1 }

func (r *bitReaderT) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + r.int(6))
	}
	return string(b)
}

func (r *bitReaderT) idBits(n int) []int {
	var ids []int
	for i := 1; i <= n; i++ {
		if r.bool() {
			ids = append(ids, i)
		}
	}
	return ids
}

func (r *bitReaderT) rangeEntries() []consenttest.Range {
	n := r.int(12)
	var es []consenttest.Range
	for i := 0; i < n && r.err == nil; i++ {
		isRange := r.bool()
		e := consenttest.Range{Start: r.int(16)}
		e.End = e.Start
		if isRange {
			e.End = r.int(16)
			r.backwards = r.backwards || e.End <= e.Start
		}
		es = append(es, e)
	}
	return es
}

func (r *bitReaderT) vendors() consenttest.Vendors {
	v := consenttest.Vendors{Max: r.int(16), Range: r.bool()}
	if v.Range {
		v.Entries = r.rangeEntries()
		// IDs, for the round-trip tests; has reads the entries. A fuzzed
		// string can have 4095 entries of 65535 ids: the expansion stops.
		for _, e := range v.Entries {
			for id := e.Start; id <= e.End && id <= v.Max && len(v.IDs) < 1<<16; id++ {
				v.IDs = append(v.IDs, id)
			}
		}
		return v
	}
	v.IDs = r.idBits(v.Max)
	return v
}

// decodeTC reads a TC string's core segment field by field (and the types
// of its further segments), failing on a string too short for its fields.
func decodeTC(s string) (tc consenttest.TC, segmentTypes []int, err error) {
	segs := splitDots(s)
	tc, _, err = decodeCore(segs[0])
	if err != nil {
		return tc, nil, err
	}
	for _, seg := range segs[1:] {
		sr, err := newBitReaderT(seg)
		if err != nil {
			return tc, nil, err
		}
		segmentTypes = append(segmentTypes, sr.int(3))
	}
	return tc, segmentTypes, nil
}

// decodeCore reads a core segment, and returns the reader it used (its
// position is the number of bits the core's fields took).
func decodeCore(core string) (tc consenttest.TC, r *bitReaderT, err error) {
	r, err = newBitReaderT(core)
	if err != nil {
		return tc, nil, err
	}
	tc.Version = r.int(6)
	tc.Created = int64(r.int(36))
	tc.LastUpdated = int64(r.int(36))
	tc.CmpID = r.int(12)
	tc.CmpVersion = r.int(12)
	tc.ConsentScreen = r.int(6)
	tc.ConsentLanguage = r.letters(2)
	tc.VendorListVersion = r.int(12)
	tc.TcfPolicyVersion = r.int(6)
	tc.IsServiceSpecific = r.bool()
	tc.UseNonStandardTexts = r.bool()
	tc.SpecialFeatureOptIns = r.idBits(12)
	tc.PurposesConsent = r.idBits(24)
	tc.PurposesLITransparency = r.idBits(24)
	tc.PurposeOneTreatment = r.bool()
	tc.PublisherCC = r.letters(2)
	tc.VendorConsents = r.vendors()
	tc.VendorLegitimateInterests = r.vendors()
	n := r.int(12)
	for i := 0; i < n && r.err == nil; i++ {
		p := consenttest.PubRestriction{Purpose: r.int(6), Type: r.int(2)}
		p.Vendors = r.rangeEntries()
		tc.PubRestrictions = append(tc.PubRestrictions, p)
	}
	if r.err != nil {
		return tc, nil, r.err
	}
	return tc, r, nil
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// vendorHas reports whether a vendor section sets id: by its range entries
// when it has them (as decoded ones do), else by its IDs.
func vendorHas(v consenttest.Vendors, id int) bool {
	if id < 1 || id > v.Max {
		return false
	}
	if v.Range && v.Entries != nil {
		for _, e := range v.Entries {
			if e.Start <= id && id <= e.End {
				return true
			}
		}
		return false
	}
	return slices.Contains(v.IDs, id)
}

// restrictedT reports whether the decoded restrictions name vendor for
// purpose and type.
func restrictedT(tc consenttest.TC, purpose, kind, vendor int) bool {
	for _, r := range tc.PubRestrictions {
		if r.Purpose != purpose || r.Type != kind {
			continue
		}
		for _, e := range r.Vendors {
			if e.Start <= vendor && vendor <= e.End {
				return true
			}
		}
	}
	return false
}

// noOptOut is a US National section in which the user was given notice and
// did not opt out of anything.
func noOptOut() consenttest.USNat {
	return consenttest.USNat{SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
		SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2, MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2}
}

// inRuns is fullConsent with both vendor sections range-encoded over 200
// vendors in 20 runs of 10 (and dspVendor alone): the shape range encoding
// is chosen for.
func inRuns() consenttest.TC {
	var ids []int
	for start := 1; len(ids) < 200; start += 60 {
		for id := start; id < start+10; id++ {
			ids = append(ids, id)
		}
	}
	ids = append(ids, dspVendor)
	slices.Sort(ids)
	tc := fullConsent()
	vs := consenttest.Vendors{Max: ids[len(ids)-1], Range: true, IDs: ids}
	tc.VendorConsents, tc.VendorLegitimateInterests = vs, vs
	return tc
}
