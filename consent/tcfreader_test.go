package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/prebid/go-gdpr/consentconstants"
	tcf2 "github.com/prebid/go-gdpr/vendorconsent/tcf2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package's TC string reader is checked against two references:
//
//   - the tests' own decoder (encode_test.go), written from the
//     specification: the source of truth, for every string;
//   - go-gdpr v1.12.0, the library the package used before, as an oracle
//     wherever it is known to be right (compareGoGDPR lists where it is not).

// tcTruth reads a TC string with the tests' decoder, and says whether the
// reader must accept it: a whole core segment within its whole bytes,
// version 2, service-specific, VendorListVersion ≥ 1, and range entries
// that name vendors 1 to their section's MaxVendorId (1–32767 in
// publisher restrictions, as go-gdpr requires) and whose ranges end above
// their start.
func tcTruth(s string) (tc consenttest.TC, valid bool) {
	core, _, _ := strings.Cut(s, ".")
	tc, r, err := decodeCore(core)
	if err != nil {
		return tc, false
	}
	valid = len(core)%4 != 1 && r.pos <= 6*len(core)/8*8 && !r.backwards &&
		tc.Version == 2 && tc.IsServiceSpecific && tc.VendorListVersion != 0 &&
		entriesWithin(tc.VendorConsents.Range, tc.VendorConsents.Entries, tc.VendorConsents.Max) &&
		entriesWithin(tc.VendorLegitimateInterests.Range, tc.VendorLegitimateInterests.Entries, tc.VendorLegitimateInterests.Max)
	for _, p := range tc.PubRestrictions {
		valid = valid && entriesWithin(true, p.Vendors, 32767)
	}
	return tc, valid
}

func entriesWithin(isRange bool, es []consenttest.Range, max int) bool {
	if !isRange {
		return true
	}
	for _, e := range es {
		if e.Start < 1 || e.End > max {
			return false
		}
	}
	return true
}

// probeVendors are the vendor ids worth asking a TC string about: fixed
// ones, the sections' edges, and the edges of the first range entries.
func probeVendors(tc consenttest.TC, extra ...int) []uint16 {
	ids := []int{0, 1, 2, 3, 4, 5, otherVendor, 700, 754, dspVendor, 756, 1195, 1196, highVendor, 32767, 32768, 65535}
	ids = append(ids, extra...)
	for _, v := range []consenttest.Vendors{tc.VendorConsents, tc.VendorLegitimateInterests} {
		ids = append(ids, v.Max-1, v.Max, v.Max+1)
		for i, e := range v.Entries {
			if i == 4 {
				break
			}
			ids = append(ids, e.Start-1, e.Start, e.End, e.End+1)
		}
	}
	for i, p := range tc.PubRestrictions {
		if i == 4 {
			break
		}
		for j, e := range p.Vendors {
			if j == 4 {
				break
			}
			ids = append(ids, e.Start-1, e.Start, e.End, e.End+1)
		}
	}
	var out []uint16
	for _, id := range ids {
		if id >= 0 && id <= 65535 && !slices.Contains(out, uint16(id)) {
			out = append(out, uint16(id))
		}
	}
	return out
}

// compareTruth checks the reader on s against the tests' decoder for each
// vendor id, and returns what the decoder read and whether s is valid.
func compareTruth(t testing.TB, s string, tc consenttest.TC, valid bool, vendors []uint16) {
	t.Helper()
	for _, vendor := range vendors {
		v, ok := readTCF(s, vendor)
		if ok != valid {
			t.Fatalf("%q vendor %d: the reader reads it: %v, the tests' decoder: %v", s, vendor, ok, valid)
		}
		if !ok {
			if v != (tcfView{}) {
				t.Fatalf("%q: a refused string leaves %+v", s, v)
			}
			continue
		}
		for p := 1; p <= 24; p++ {
			if v.purposeConsent(p) != slices.Contains(tc.PurposesConsent, p) || v.purposeLI(p) != slices.Contains(tc.PurposesLITransparency, p) {
				t.Fatalf("%q: purpose %d: %+v, the decoder %v %v", s, p, v, tc.PurposesConsent, tc.PurposesLITransparency)
			}
		}
		if int(v.maxVendor) != tc.VendorConsents.Max || int(v.maxVendorLI) != tc.VendorLegitimateInterests.Max {
			t.Fatalf("%q: MaxVendorIds %d %d, the decoder %d %d", s, v.maxVendor, v.maxVendorLI, tc.VendorConsents.Max, tc.VendorLegitimateInterests.Max)
		}
		if v.vendorConsent != vendorHas(tc.VendorConsents, int(vendor)) || v.vendorLI != vendorHas(tc.VendorLegitimateInterests, int(vendor)) {
			t.Fatalf("%q vendor %d: consent %v, LI %v", s, vendor, v.vendorConsent, v.vendorLI)
		}
		for p := 1; p <= 2; p++ {
			for kind := range 4 {
				if v.restrictedBy(p, kind) != restrictedT(tc, p, kind, int(vendor)) {
					t.Fatalf("%q vendor %d: restriction of purpose %d type %d: %v", s, vendor, p, kind, v.restrictedBy(p, kind))
				}
			}
		}
	}
}

// goGDPR reads s with go-gdpr v1.12.0, and reports its panics.
func goGDPR(s string) (md tcf2.ConsentMetadata, ok, panicked bool) {
	defer func() {
		if recover() != nil {
			md, ok, panicked = tcf2.ConsentMetadata{}, false, true
		}
	}()
	parsed, err := tcf2.ParseString(s)
	if err != nil {
		return md, false, false
	}
	md, ok = parsed.(tcf2.ConsentMetadata)
	return md, ok, false
}

// compareGoGDPR checks the reader on s against go-gdpr for each vendor id,
// where go-gdpr is known to be right. It is not, and these are left out:
//
//   - strings on which it panics (it indexes past the end of some
//     truncated strings, panicTC): there the reader must refuse;
//   - a core segment with a carriage return or line feed: Go's base64
//     decoder skips them, so go-gdpr reads a different string; the reader
//     refuses it;
//   - the version and IsServiceSpecific, which it does not check (the
//     package checked them before calling it): they are checked first here,
//     as the package did;
//   - publisher restrictions of a purpose and type that two or more
//     entries share: it keeps only the last such entry, so a vendor named
//     only in an earlier one is not restricted (TestDuplicateRestrictionEntries).
func compareGoGDPR(t testing.TB, s string, tc consenttest.TC, vendors []uint16) {
	t.Helper()
	core, _, _ := strings.Cut(s, ".")
	_, ok := readTCF(s, 0)
	if strings.ContainsAny(core, "\r\n") {
		if ok {
			t.Fatalf("%q: the reader reads a core with a line break", s)
		}
		return
	}
	md, libOK, panicked := goGDPR(s)
	if panicked {
		if ok {
			t.Fatalf("%q: go-gdpr panics on a string the reader reads", s)
		}
		return
	}
	if libOK { // the package's checks before it called go-gdpr
		r, err := newBitReaderT(core)
		libOK = err == nil && md.Version() == 2 && len(r.bits) > 138 && r.bits[138] == 1
	}
	if ok != libOK {
		t.Fatalf("%q: the reader reads it: %v, go-gdpr: %v", s, ok, libOK)
	}
	if !ok {
		return
	}
	entries := map[[2]int]int{}
	for _, p := range tc.PubRestrictions {
		entries[[2]int{p.Purpose, p.Type}]++
	}
	for _, vendor := range vendors {
		v, _ := readTCF(s, vendor)
		for p := 1; p <= 24; p++ {
			if v.purposeConsent(p) != md.PurposeAllowed(consentconstants.Purpose(p)) || v.purposeLI(p) != md.PurposeLITransparency(consentconstants.Purpose(p)) {
				t.Fatalf("%q: purpose %d differs from go-gdpr", s, p)
			}
		}
		if v.maxVendor != md.MaxVendorID() || v.maxVendorLI != md.VendorLegitInterestMaxID() {
			t.Fatalf("%q: MaxVendorIds %d %d, go-gdpr %d %d", s, v.maxVendor, v.maxVendorLI, md.MaxVendorID(), md.VendorLegitInterestMaxID())
		}
		if v.vendorConsent != md.VendorConsent(vendor) || v.vendorLI != md.VendorLegitInterest(vendor) {
			t.Fatalf("%q vendor %d: consent %v, LI %v, go-gdpr %v %v", s, vendor, v.vendorConsent, v.vendorLI, md.VendorConsent(vendor), md.VendorLegitInterest(vendor))
		}
		for p := 1; p <= 2; p++ {
			for kind := range 4 {
				if entries[[2]int{p, kind}] > 1 {
					continue // go-gdpr keeps only the last entry
				}
				if v.restrictedBy(p, kind) != md.CheckPubRestriction(uint8(p), uint8(kind), vendor) {
					t.Fatalf("%q vendor %d: restriction of purpose %d type %d: %v, go-gdpr %v", s, vendor, p, kind,
						v.restrictedBy(p, kind), !v.restrictedBy(p, kind))
				}
			}
		}
	}
}

// compareReader checks the reader on s against both references.
func compareReader(t testing.TB, s string, extra ...int) {
	t.Helper()
	tc, valid := tcTruth(s)
	vendors := probeVendors(tc, extra...)
	compareTruth(t, s, tc, valid, vendors) // so tc is what the reader read, when it reads s
	compareGoGDPR(t, s, tc, vendors)
}

// randomTC is a TC string of random content in the encoder's shapes:
// either vendor encoding, ranges or single ids, restrictions (repeated
// ones among them), now and then a field the reader refuses.
func randomTC(rng *rand.Rand) consenttest.TC {
	tc := fullConsent()
	tc.PurposesConsent, tc.PurposesLITransparency = nil, nil
	for p := 1; p <= 24; p++ {
		if rng.IntN(2) == 0 {
			tc.PurposesConsent = append(tc.PurposesConsent, p)
		}
		if rng.IntN(3) == 0 {
			tc.PurposesLITransparency = append(tc.PurposesLITransparency, p)
		}
	}
	vendors := func() consenttest.Vendors {
		max := rng.IntN(1400)
		v := consenttest.Vendors{Max: max, Range: rng.IntN(2) == 0}
		for id := 1; id <= max; id++ {
			if rng.IntN(4) == 0 {
				v.IDs = append(v.IDs, id)
			}
		}
		if v.Range && rng.IntN(4) == 0 { // runs, as a CMP would group them
			v.IDs = nil
			for id := 1 + rng.IntN(20); id <= max; id += 1 + rng.IntN(40) {
				for end := min(id+rng.IntN(30), max); id <= end; id++ {
					v.IDs = append(v.IDs, id)
				}
			}
		}
		return v
	}
	tc.VendorConsents, tc.VendorLegitimateInterests = vendors(), vendors()
	for range rng.IntN(5) {
		var es []consenttest.Range
		for range rng.IntN(4) {
			start := 1 + rng.IntN(1400)
			es = append(es, span(start, start+rng.IntN(3)*rng.IntN(200)))
		}
		tc.PubRestrictions = append(tc.PubRestrictions, consenttest.PubRestriction{Purpose: 1 + rng.IntN(3), Type: rng.IntN(4), Vendors: es})
	}
	switch rng.IntN(12) {
	case 0:
		tc.Version = rng.IntN(4)
	case 1:
		tc.IsServiceSpecific = false
	case 2:
		tc.VendorListVersion = 0
	case 3: // an entry out of bounds, or backwards
		tc.VendorConsents.Range = true
		tc.VendorConsents.Entries = []consenttest.Range{span(rng.IntN(3), tc.VendorConsents.Max+rng.IntN(3)-1), span(dspVendor+5, dspVendor)}[rng.IntN(2):]
	case 4:
		tc.PubRestrictions = append(tc.PubRestrictions, consenttest.PubRestriction{Purpose: 2, Vendors: []consenttest.Range{span(32760, 32760+rng.IntN(16))}})
	case 5:
		tc.TrimBits = rng.IntN(40)
	case 6:
		tc.AllRanges = true
	}
	return tc
}

// TestTCFReader compares the reader with the tests' decoder and go-gdpr on
// the strings of the other tests, on random strings in the encoder's
// shapes, on every truncation of a few strings, and on each of their bits
// flipped.
func TestTCFReader(t *testing.T) {
	var corpus []string
	for _, tt := range decideCases() {
		corpus = append(corpus, tt.sig.TCString)
		var g gppString
		g.parse(tt.sig.GPP)
		if text, ok := g.section(sectionTCFEU); ok {
			corpus = append(corpus, text)
		}
	}
	corpus = append(corpus, specTC, panicTC(), "", ".", "C.", "CAAAAA", duplicateRestrictions(false), duplicateRestrictions(true))
	for _, s := range corpus {
		compareReader(t, s)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	valid := 0
	for range 600 {
		s := randomTC(rng).String()
		compareReader(t, s)
		if _, ok := readTCF(s, 0); ok {
			valid++
		}
	}
	assert.Greater(t, valid, 300, "most random strings are valid")

	for _, tc := range []consenttest.TC{fullConsent(), inRuns(), with(both(liOnly, restrict(2, 1, span(dspVendor, dspVendor)), restrict(1, 0, span(1, 800))))} {
		tc.Segments = nil
		s := tc.String()
		for n := 0; n < len(s); n++ {
			compareReader(t, s[:n])
			compareReader(t, s[:n]+".x")
			bad := s[:n] + string("!\x00\xff="[n%4]) + s[n+1:]
			if _, ok := readTCF(bad, dspVendor); ok {
				t.Fatalf("%q read", bad)
			}
		}
		r, err := newBitReaderT(s)
		require.NoError(t, err)
		for bit := range r.bits {
			b := []byte(s)
			b[bit/6] = testAlphabet[strings.IndexByte(testAlphabet, b[bit/6])^(1<<(5-bit%6))]
			compareReader(t, string(b))
		}
	}
}

// TestTCFReaderRefuses lists strings the reader refuses, each for one
// reason; the same strings, mended, are read.
func TestTCFReaderRefuses(t *testing.T) {
	full := fullConsent()
	full.Segments = nil
	s := full.String()
	_, ok := readTCF(s, dspVendor)
	require.True(t, ok)
	for name, bad := range map[string]string{
		"empty":                          "",
		"only segments":                  "." + s,
		"4k+1 characters":                s + "A",
		"a line feed":                    s[:40] + "\n" + s[40:],
		"a carriage return at the end":   s + "\r",
		"standard base64":                strings.ReplaceAll(s, "_", "/"),
		"padding":                        s + "==",
		"a character above 0x7f":         s[:100] + "\xc3\xa9" + s[102:],
		"a NUL":                          s[:100] + "\x00" + s[101:],
		"cut in half":                    s[:len(s)/2],
		"version 1":                      with(func(tc *consenttest.TC) { tc.Version = 1 }).String(),
		"version 3":                      with(func(tc *consenttest.TC) { tc.Version = 3 }).String(),
		"global scope":                   with(func(tc *consenttest.TC) { tc.IsServiceSpecific = false }).String(),
		"vendor list version 0":          with(func(tc *consenttest.TC) { tc.VendorListVersion = 0 }).String(),
		"range from vendor 0":            ranged(with(func(tc *consenttest.TC) { tc.VendorConsents.Entries = []consenttest.Range{span(0, 3)} })).String(),
		"range past MaxVendorId":         ranged(with(func(tc *consenttest.TC) { tc.VendorLegitimateInterests.Entries = []consenttest.Range{span(3, 1196)} })).String(),
		"single past MaxVendorId":        ranged(with(func(tc *consenttest.TC) { tc.VendorLegitimateInterests.Entries = []consenttest.Range{span(1196, 1196)} })).String(),
		"backwards range":                ranged(with(func(tc *consenttest.TC) { tc.VendorConsents.Entries = []consenttest.Range{span(9, 3)} })).String(),
		"restriction of vendor 0":        with(restrict(2, 0, span(0, 0))).String(),
		"restriction above 32767":        with(restrict(2, 0, span(32000, 32768))).String(),
		"restriction range backwards":    with(restrict(1, 1, span(40, 39))).String(),
		"a range ending where it starts": ranged(with(func(tc *consenttest.TC) { tc.AllRanges = true })).String(),
		"a restriction range ending where it starts": with(func(tc *consenttest.TC) {
			restrict(2, 1, span(dspVendor, dspVendor))(tc)
			tc.AllRanges = true
		}).String(),
		"cut in a restriction": with(func(tc *consenttest.TC) { restrict(2, 0, span(1, 9))(tc); tc.Segments, tc.TrimBits = nil, 20 }).String(),
	} {
		_, ok := readTCF(bad, dspVendor)
		assert.False(t, ok, name)
		compareReader(t, bad)
	}
	// The mended ones: a range of one vendor written as a single id; the
	// largest restricted vendor go-gdpr allows; trailing bits and bytes.
	for name, good := range map[string]string{
		"single id":                   ranged(with(func(tc *consenttest.TC) { tc.VendorConsents.Entries = []consenttest.Range{span(3, 3)} })).String(),
		"restriction of vendor 32767": with(restrict(2, 0, span(32000, 32767))).String(),
		"trailing bytes":              s + "AAAA",
		"4k+2 characters":             s + "AA",
		"segments not read":           s + ".!!.",
	} {
		_, ok := readTCF(good, dspVendor)
		assert.True(t, ok, name)
		compareReader(t, good)
	}
}

// duplicateRestrictions is fullConsent with two entries restricting
// Purpose 2 (type 0): dspVendor in the second one, or with first in the
// first one.
func duplicateRestrictions(first bool) string {
	dsp, others := span(dspVendor, dspVendor), span(1, 2)
	if first {
		return with(both(restrict(2, 0, dsp), restrict(2, 0, others))).String()
	}
	return with(both(restrict(2, 0, others), restrict(2, 0, dsp))).String()
}

// longTC is a TC string of the largest shape the range encoding allows
// the vendor sections (4095 entries each) and many restriction entries:
// the reader walks all of it without allocating.
func longTC() consenttest.TC {
	var es []consenttest.Range
	for i := range 4095 {
		es = append(es, span(1+16*i, 1+16*i+i%3))
	}
	max := es[len(es)-1].End
	tc := fullConsent()
	tc.Segments = nil
	tc.VendorConsents = consenttest.Vendors{Max: max, Range: true, Entries: es}
	tc.VendorLegitimateInterests = consenttest.Vendors{Max: max, Range: true, Entries: es}
	for p := range 200 {
		tc.PubRestrictions = append(tc.PubRestrictions, consenttest.PubRestriction{Purpose: 1 + p%3, Type: p % 4, Vendors: es[:50]})
	}
	return tc
}

func TestTCFReaderLongString(t *testing.T) {
	s := longTC().String()
	for _, vendor := range []uint16{1, 2, 3, 4, 17, 18, 19, 20, 16*4094 + 1, 16*4094 + 2, 16*4094 + 3, 16*4094 + 4} {
		v, ok := readTCF(s, vendor)
		require.True(t, ok)
		i, off := int(vendor-1)/16, int(vendor-1)%16
		named := off <= i%3
		assert.Equal(t, named, v.vendorConsent, "vendor %d", vendor)
		assert.Equal(t, named, v.vendorLI, "vendor %d", vendor)
		restricted := named && i < 50
		assert.Equal(t, restricted, v.restrictedBy(2, 1), "vendor %d", vendor)
		assert.Equal(t, restricted, v.restrictedBy(1, 0), "vendor %d", vendor)
	}
	assert.Zero(t, testing.AllocsPerRun(10, func() { readTCF(s, 755) }))
	md, ok, _ := goGDPR(s)
	require.True(t, ok)
	assert.True(t, md.VendorConsent(16*4094+3))
	_, ok = readTCF(s[:len(s)-8], 1)
	assert.False(t, ok, "cut")
}

// TestValidBase64 checks the eight-at-a-time test against the table for
// every byte at every place of a word, and at the tail.
func TestValidBase64(t *testing.T) {
	base := "CQSbk4AQSbk4ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA"
	for c := range 256 {
		want := b64Value[c] != b64Invalid
		for i := range 17 {
			b := []byte(base[:17])
			b[i] = byte(c)
			if got := validBase64(string(b)); got != want {
				t.Fatalf("byte %#x at %d: %v", c, i, got)
			}
		}
	}
	// Words of random bytes, valid ones among them, many of them above 0x7f
	// (whose carries the word test must not let through).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b [8]byte
		for i := range b {
			switch rng.IntN(3) {
			case 0:
				b[i] = testAlphabet[rng.IntN(64)]
			case 1:
				b[i] = byte(0x80 + rng.IntN(128))
			default:
				b[i] = byte(rng.IntN(256))
			}
		}
		if got, want := validBase64(string(b[:])), validTable(string(b[:])); got != want {
			t.Fatalf("%q: %v", b, got)
		}
	}
	assert.True(t, validBase64(""))
	assert.True(t, validBase64(testAlphabet+testAlphabet))
}

// TestBitReader reads fields of every width at every offset of a string
// against the tests' bit decoder, up to and past the end.
func TestBitReader(t *testing.T) {
	s := fullConsent().String()[:40]
	rt, err := newBitReaderT(s)
	require.NoError(t, err)
	for pos := 0; pos <= len(rt.bits); pos++ {
		for n := 0; n <= 24; n++ {
			r := newBitReader(s)
			v, ok := r.at(pos, n)
			if pos+n > len(rt.bits) {
				assert.False(t, ok)
				assert.True(t, r.failed)
				continue
			}
			rt.pos = pos
			require.True(t, ok)
			require.Equal(t, uint32(rt.int(n)), v, "%d bits at %d", n, pos)
		}
	}
	// In sequence: fields of random widths, random skips and seeks.
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		r := newBitReader(s)
		rt.pos = 0
		for {
			pos := r.offset()
			require.Equal(t, rt.pos, pos)
			switch rng.IntN(8) {
			case 0:
				n := rng.IntN(40)
				ok := r.skip(n)
				require.Equal(t, pos+n <= len(rt.bits), ok)
				rt.pos += n
			case 1:
				to := rng.IntN(len(rt.bits) + 3)
				ok := r.seek(to)
				require.Equal(t, to <= len(rt.bits), ok)
				rt.pos = to
			default:
				n := rng.IntN(33)
				v, ok := r.bits(n)
				if pos+n > len(rt.bits) {
					require.False(t, ok)
					break
				}
				require.True(t, ok)
				require.Equal(t, uint32(rt.int(n)), v, "%d bits at %d", n, pos)
			}
			if r.failed {
				_, ok := r.bits(0)
				require.False(t, ok, "a failed reader stays failed")
				break
			}
		}
	}

	r := newBitReader(s)
	_, ok := r.at(0, 25)
	assert.False(t, ok, "wider than 24 bits")
	r = newBitReader(s)
	_, ok = r.bits(33)
	assert.False(t, ok, "wider than 32 bits")
	r = newBitReader(s)
	assert.False(t, r.skip(6*len(s)+1))
	_, ok = r.bits(1)
	assert.False(t, ok, "a failed reader stays failed")
	r = bitReader{s: s, end: 6*len(s) + 6}
	_, ok = r.at(6*len(s), 1)
	assert.False(t, ok, "an end past the text")
}

// TestDecideDoesNotAllocate: no benchmark case allocates.
func TestDecideDoesNotAllocate(t *testing.T) {
	c, err := New(Config{VendorID: dspVendor})
	require.NoError(t, err)
	for _, bc := range benchCases() {
		assert.Zero(t, testing.AllocsPerRun(20, func() { c.Decide(bc.sig) }), bc.name)
	}
}

// validTable is validBase64 one character at a time.
func validTable(s string) bool {
	for i := 0; i < len(s); i++ {
		if b64Value[s[i]] == b64Invalid {
			return false
		}
	}
	return true
}
