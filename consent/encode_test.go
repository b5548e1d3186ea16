package consent

// The tests' own encoders and decoder of TC and GPP strings, written from
// the specifications (IAB Tech Lab, "Consent string and vendor list formats
// v2", TCF v2.2/2.3; IAB Tech Lab, "Global Privacy Platform String" and the
// GPP sections' technical specifications), so that the tests do not trust the
// libraries the package used (go-gdpr, go-gpp: now the tests' oracles), nor
// the package's own readers.

import (
	"errors"
	"fmt"
	"slices"
)

// bitWriter builds a bit string field by field: big-endian, left to right.
type bitWriter struct {
	bits []byte // one 0 or 1 per bit

	allRanges bool // write a single-id range entry as a range from the id to itself
}

func (w *bitWriter) int(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		w.bits = append(w.bits, byte(v>>i)&1)
	}
}

func (w *bitWriter) bool(b bool) {
	if b {
		w.int(1, 1)
	} else {
		w.int(0, 1)
	}
}

// letters writes each letter in 6 bits, A (or a) = 0.
func (w *bitWriter) letters(s string) {
	for i := 0; i < len(s); i++ {
		w.int(uint64((s[i]|0x20)-'a'), 6)
	}
}

// idBits writes an n-bit field whose bit i-1 is set for each id i (purposes,
// special features, vendor bit fields).
func (w *bitWriter) idBits(ids []int, n int) {
	for i := 1; i <= n; i++ {
		w.bool(slices.Contains(ids, i))
	}
}

// fib writes v ≥ 1 as a Fibonacci code word (Zeckendorf, then a final 1).
func (w *bitWriter) fib(v int) {
	f := []int{1, 2}
	for f[len(f)-1] <= v {
		f = append(f, f[len(f)-1]+f[len(f)-2])
	}
	code := make([]byte, len(f))
	top := 0
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] <= v {
			code[i] = 1
			v -= f[i]
			top = max(top, i)
		}
	}
	w.bits = append(w.bits, code[:top+1]...)
	w.bits = append(w.bits, 1)
}

const testAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// base64url pads the bits with zeros to a multiple of padTo (8 for TC
// strings, which are bytes; 6 for GPP, which the spec pads to a character)
// and writes 6 bits per character, without '=' padding.
func (w *bitWriter) base64url(padTo int) string {
	bits := slices.Clone(w.bits)
	for len(bits)%padTo != 0 || len(bits)%6 != 0 {
		bits = append(bits, 0)
	}
	out := make([]byte, 0, len(bits)/6)
	for i := 0; i < len(bits); i += 6 {
		v := 0
		for _, b := range bits[i : i+6] {
			v = v<<1 | int(b)
		}
		out = append(out, testAlphabet[v])
	}
	return string(out)
}

// rangeEntry is one RangeEntry: a single id (End == Start) or Start–End.
type rangeEntry struct{ Start, End int }

// vendorSet is a Vendor Consent, Vendor Legitimate Interest or Disclosed
// Vendors section.
type vendorSet struct {
	Max     int
	Range   bool
	IDs     []int        // the vendors with the bit set
	Entries []rangeEntry // with Range: written as given instead of grouping IDs
}

func (v vendorSet) entries() []rangeEntry {
	if v.Entries != nil {
		return v.Entries
	}
	return group(v.IDs)
}

// group turns sorted ids into range entries of consecutive ids.
func group(ids []int) []rangeEntry {
	var out []rangeEntry
	for _, id := range ids {
		if n := len(out); n > 0 && out[n-1].End == id-1 {
			out[n-1].End = id
			continue
		}
		out = append(out, rangeEntry{id, id})
	}
	return out
}

func (w *bitWriter) rangeEntries(es []rangeEntry) {
	w.int(uint64(len(es)), 12) // NumEntries
	for _, e := range es {
		isRange := e.End != e.Start || w.allRanges
		w.bool(isRange) // IsARange
		w.int(uint64(e.Start), 16)
		if isRange {
			w.int(uint64(e.End), 16)
		}
	}
}

func (w *bitWriter) vendors(v vendorSet) {
	w.int(uint64(v.Max), 16) // MaxVendorId
	w.bool(v.Range)          // IsRangeEncoding
	if v.Range {
		w.rangeEntries(v.entries())
	} else {
		w.idBits(v.IDs, v.Max)
	}
}

// pubRestriction is one PubRestrictionEntry.
type pubRestriction struct {
	Purpose, Type int
	Vendors       []rangeEntry
}

// tcString is a TC string's fields, in the order of the core segment.
type tcString struct {
	Version                   int
	Created, LastUpdated      int64 // deciseconds since 1970
	CmpID, CmpVersion         int
	ConsentScreen             int
	ConsentLanguage           string
	VendorListVersion         int
	TcfPolicyVersion          int
	IsServiceSpecific         bool
	UseNonStandardTexts       bool
	SpecialFeatureOptIns      []int
	PurposesConsent           []int
	PurposesLITransparency    []int
	PurposeOneTreatment       bool
	PublisherCC               string
	VendorConsents            vendorSet
	VendorLegitimateInterests vendorSet
	PubRestrictions           []pubRestriction

	AllRanges bool     // write single ids in range entries as ranges ending where they start (which readers refuse)
	Segments  []string // further segments, encoded (disclosedVendors, publisherTC)
	TrimBits  int      // drop this many bits from the end of the core (a truncated string)
	TrimChars int      // drop this many characters from the end of the encoded core
}

// coreBits writes the core segment.
func (tc tcString) coreBits() *bitWriter {
	w := &bitWriter{allRanges: tc.AllRanges}
	w.int(uint64(tc.Version), 6)
	w.int(uint64(tc.Created), 36)
	w.int(uint64(tc.LastUpdated), 36)
	w.int(uint64(tc.CmpID), 12)
	w.int(uint64(tc.CmpVersion), 12)
	w.int(uint64(tc.ConsentScreen), 6)
	w.letters(tc.ConsentLanguage)
	w.int(uint64(tc.VendorListVersion), 12)
	w.int(uint64(tc.TcfPolicyVersion), 6)
	w.bool(tc.IsServiceSpecific)
	w.bool(tc.UseNonStandardTexts)
	w.idBits(tc.SpecialFeatureOptIns, 12)
	w.idBits(tc.PurposesConsent, 24)
	w.idBits(tc.PurposesLITransparency, 24)
	w.bool(tc.PurposeOneTreatment)
	w.letters(tc.PublisherCC)
	w.vendors(tc.VendorConsents)
	w.vendors(tc.VendorLegitimateInterests)
	w.int(uint64(len(tc.PubRestrictions)), 12) // NumPubRestrictions
	for _, r := range tc.PubRestrictions {
		w.int(uint64(r.Purpose), 6)
		w.int(uint64(r.Type), 2)
		w.rangeEntries(r.Vendors)
	}
	return w
}

// String encodes the TC string: the core, then each further segment after a
// dot.
func (tc tcString) String() string {
	w := tc.coreBits()
	w.bits = w.bits[:len(w.bits)-tc.TrimBits]
	s := w.base64url(8)
	s = s[:len(s)-tc.TrimChars]
	for _, seg := range tc.Segments {
		s += "." + seg
	}
	return s
}

// disclosedVendors encodes a Disclosed Vendors segment (SegmentType 1).
func disclosedVendors(v vendorSet) string {
	w := &bitWriter{}
	w.int(1, 3)
	w.vendors(v)
	return w.base64url(8)
}

// publisherTC encodes a Publisher TC segment (SegmentType 3) without custom
// purposes.
func publisherTC(consent, legitInt []int) string {
	w := &bitWriter{}
	w.int(3, 3)
	w.idBits(consent, 24)
	w.idBits(legitInt, 24)
	w.int(0, 6) // NumCustomPurposes
	return w.base64url(8)
}

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
func fullConsent() tcString {
	vendors := realisticVendors(true)
	return tcString{
		Version: 2, Created: day, LastUpdated: day,
		CmpID: 7, CmpVersion: 3, ConsentScreen: 1, ConsentLanguage: "EN",
		VendorListVersion: 150, TcfPolicyVersion: 5,
		IsServiceSpecific:         true,
		SpecialFeatureOptIns:      []int{1},
		PurposesConsent:           []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		PurposesLITransparency:    []int{2, 7, 8, 9, 10},
		PublisherCC:               "DE",
		VendorConsents:            vendorSet{Max: vendors[len(vendors)-1], IDs: vendors},
		VendorLegitimateInterests: vendorSet{Max: vendors[len(vendors)-1], IDs: vendors},
		Segments:                  []string{disclosedVendors(vendorSet{Max: vendors[len(vendors)-1], IDs: vendors})},
	}
}

// ranged returns tc with both vendor sections range-encoded.
func ranged(tc tcString) tcString {
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

func (r *bitReaderT) rangeEntries() []rangeEntry {
	n := r.int(12)
	var es []rangeEntry
	for i := 0; i < n && r.err == nil; i++ {
		isRange := r.bool()
		e := rangeEntry{Start: r.int(16)}
		e.End = e.Start
		if isRange {
			e.End = r.int(16)
			r.backwards = r.backwards || e.End <= e.Start
		}
		es = append(es, e)
	}
	return es
}

func (r *bitReaderT) vendors() vendorSet {
	v := vendorSet{Max: r.int(16), Range: r.bool()}
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
func decodeTC(s string) (tc tcString, segmentTypes []int, err error) {
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
func decodeCore(core string) (tc tcString, r *bitReaderT, err error) {
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
		p := pubRestriction{Purpose: r.int(6), Type: r.int(2)}
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

// has reports whether a vendor section sets id: by its range entries when
// it has them (as decoded ones do), else by its IDs.
func (v vendorSet) has(id int) bool {
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
func (tc tcString) restrictedT(purpose, kind, vendor int) bool {
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

// gppHeader encodes a GPP header naming ids (sorted, ≥ 1): type 3, version
// 1, Range(Fibonacci) grouping consecutive ids.
func gppHeader(ids ...int) string {
	w := &bitWriter{}
	w.int(3, 6)
	w.int(1, 6)
	es := group(ids)
	w.int(uint64(len(es)), 12)
	last := 0
	for _, e := range es {
		w.bool(e.End != e.Start)
		w.fib(e.Start - last)
		if e.End != e.Start {
			w.fib(e.End - e.Start)
		}
		last = e.End
	}
	return w.base64url(6)
}

// usNat is a US National section's core segment (GPP section 7). V2 writes
// version 2's 16 sensitive-data and 3 known-child fields; otherwise version
// 1's 12 and 2.
type usNat struct {
	V2                                                                    bool
	SharingNotice, SaleOptOutNotice, SharingOptOutNotice                  int
	TargetedAdvertisingOptOutNotice                                       int
	SensitiveDataProcessingOptOutNotice, SensitiveDataLimitUseNotice      int
	SaleOptOut, SharingOptOut, TargetedAdvertisingOptOut                  int
	PersonalDataConsents                                                  int
	MspaCoveredTransaction, MspaOptOutOptionMode, MspaServiceProviderMode int
	GPC                                                                   *bool // the GPC subsection, when not nil
}

func (u usNat) String() string {
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
	s := w.base64url(6)
	if u.GPC != nil {
		g := &bitWriter{}
		g.int(1, 2) // SubsectionType 1: GPC
		g.bool(*u.GPC)
		s += "." + g.base64url(6)
	}
	return s
}

// noOptOut is a US National section in which the user was given notice and
// did not opt out of anything.
func noOptOut() usNat {
	return usNat{SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
		SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2, MspaCoveredTransaction: 1, MspaOptOutOptionMode: 2, MspaServiceProviderMode: 2}
}

// inRuns is fullConsent with both vendor sections range-encoded over 200
// vendors in 20 runs of 10 (and dspVendor alone): the shape range encoding
// is chosen for.
func inRuns() tcString {
	var ids []int
	for start := 1; len(ids) < 200; start += 60 {
		for id := start; id < start+10; id++ {
			ids = append(ids, id)
		}
	}
	ids = append(ids, dspVendor)
	slices.Sort(ids)
	tc := fullConsent()
	vs := vendorSet{Max: ids[len(ids)-1], Range: true, IDs: ids}
	tc.VendorConsents, tc.VendorLegitimateInterests = vs, vs
	return tc
}
