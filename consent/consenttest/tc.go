package consenttest

// Range is one RangeEntry of a TC string: a single vendor id (End == Start)
// or the ids Start to End.
type Range struct{ Start, End int }

// Vendors is a vendor section of a TC string: Vendor Consent, Vendor
// Legitimate Interest, or the Disclosed Vendors segment's.
type Vendors struct {
	Max   int   // MaxVendorId
	Range bool  // IsRangeEncoding: range entries instead of a bit field of Max bits
	IDs   []int // the vendor ids whose bit is set, ascending
	// Entries are the range entries written when Range is set, as given
	// (ids out of bounds, backwards or overlapping included); when nil,
	// IDs are written, runs of consecutive ids grouped into one entry.
	Entries []Range
}

func (v Vendors) entries() []Range {
	if v.Entries != nil {
		return v.Entries
	}
	return group(v.IDs)
}

// group turns sorted ids into range entries of consecutive ids.
func group(ids []int) []Range {
	var out []Range
	for _, id := range ids {
		if n := len(out); n > 0 && out[n-1].End == id-1 {
			out[n-1].End = id
			continue
		}
		out = append(out, Range{id, id})
	}
	return out
}

func (w *bitWriter) rangeEntries(es []Range) {
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

func (w *bitWriter) vendors(v Vendors) {
	w.int(uint64(v.Max), 16) // MaxVendorId
	w.bool(v.Range)          // IsRangeEncoding
	if v.Range {
		w.rangeEntries(v.entries())
	} else {
		w.idBits(v.IDs, v.Max)
	}
}

// PubRestriction is one PubRestrictionEntry: the publisher restricts
// Purpose for the Vendors' ids, by restriction Type (0 purpose not allowed,
// 1 require consent, 2 require legitimate interest, 3 undefined).
type PubRestriction struct {
	Purpose, Type int
	Vendors       []Range
}

// TC is a TC string's core segment, field by field in the specification's
// order, and how to write it: the segments that follow it, and cuts that
// make a truncated string.
type TC struct {
	Version                   int    // 2 for TCF v2
	Created, LastUpdated      int64  // deciseconds since 1970 (TCF 2.2: both the same day, at 00:00 UTC)
	CmpID, CmpVersion         int    // the CMP's id and version
	ConsentScreen             int    // the CMP's screen where consent was given
	ConsentLanguage           string // two letters, ISO 639-1 ("EN")
	VendorListVersion         int    // the GVL version the string was written against
	TcfPolicyVersion          int    // 4 for TCF 2.1, 5 for 2.2 and 2.3
	IsServiceSpecific         bool   // always set since TCF 2.0's global scope was withdrawn
	UseNonStandardTexts       bool   // UseNonStandardTexts (UseNonStandardStacks before TCF 2.2)
	SpecialFeatureOptIns      []int  // special features 1–12 opted in
	PurposesConsent           []int  // purposes 1–24 consented to
	PurposesLITransparency    []int  // purposes 1–24 with legitimate interest established
	PurposeOneTreatment       bool   // Purpose 1 not disclosed (a country that does not require it)
	PublisherCC               string // the publisher's country, two letters, ISO 3166-1 alpha-2
	VendorConsents            Vendors
	VendorLegitimateInterests Vendors
	PubRestrictions           []PubRestriction

	// AllRanges writes every range entry as a range, a single id as a range
	// from the id to itself (which readers refuse: a range must end above
	// its start).
	AllRanges bool
	// Segments are the further segments, encoded (DisclosedVendors,
	// PublisherTC, or any text), each written after a '.'.
	Segments []string
	// TrimBits drops this many bits from the end of the core segment's
	// fields, before it is padded (a truncated string).
	TrimBits int
	// TrimChars drops this many characters from the end of the encoded core
	// segment.
	TrimChars int
}

// coreBits writes the core segment.
func (t TC) coreBits() *bitWriter {
	w := &bitWriter{allRanges: t.AllRanges}
	w.int(uint64(t.Version), 6)
	w.int(uint64(t.Created), 36)
	w.int(uint64(t.LastUpdated), 36)
	w.int(uint64(t.CmpID), 12)
	w.int(uint64(t.CmpVersion), 12)
	w.int(uint64(t.ConsentScreen), 6)
	w.letters(t.ConsentLanguage)
	w.int(uint64(t.VendorListVersion), 12)
	w.int(uint64(t.TcfPolicyVersion), 6)
	w.bool(t.IsServiceSpecific)
	w.bool(t.UseNonStandardTexts)
	w.idBits(t.SpecialFeatureOptIns, 12)
	w.idBits(t.PurposesConsent, 24)
	w.idBits(t.PurposesLITransparency, 24)
	w.bool(t.PurposeOneTreatment)
	w.letters(t.PublisherCC)
	w.vendors(t.VendorConsents)
	w.vendors(t.VendorLegitimateInterests)
	w.int(uint64(len(t.PubRestrictions)), 12) // NumPubRestrictions
	for _, r := range t.PubRestrictions {
		w.int(uint64(r.Purpose), 6)
		w.int(uint64(r.Type), 2)
		w.rangeEntries(r.Vendors)
	}
	return w
}

// String encodes the TC string: the core segment (SegmentType is implicit),
// padded with zero bits to whole bytes, in base64url without padding; then
// each of Segments after a '.'.
func (t TC) String() string {
	w := t.coreBits()
	w.bits = w.bits[:len(w.bits)-t.TrimBits]
	s := w.base64url(8)
	s = s[:len(s)-t.TrimChars]
	for _, seg := range t.Segments {
		s += "." + seg
	}
	return s
}

// DisclosedVendors encodes a Disclosed Vendors segment (SegmentType 1)
// listing v, padded to whole bytes.
func DisclosedVendors(v Vendors) string {
	w := &bitWriter{}
	w.int(1, 3)
	w.vendors(v)
	return w.base64url(8)
}

// PublisherTC encodes a Publisher TC segment (SegmentType 3): the purposes
// consented to and those with legitimate interest established for the
// publisher, without custom purposes; padded to whole bytes.
func PublisherTC(consent, legitInt []int) string {
	w := &bitWriter{}
	w.int(3, 3)
	w.idBits(consent, 24)
	w.idBits(legitInt, 24)
	w.int(0, 6) // NumCustomPurposes
	return w.base64url(8)
}
