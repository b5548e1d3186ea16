package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"slices"
	"strings"
	"testing"

	gpplib "github.com/prebid/go-gpp"
)

// The flags of FuzzDecide's flags byte.
const (
	fuzzCOPPA = 1 << iota
	fuzzLMT
	fuzzDNT
)

func fuzzFlags(s Signals) byte {
	var f byte
	if s.COPPA {
		f |= fuzzCOPPA
	}
	if s.LMT {
		f |= fuzzLMT
	}
	if s.DNT {
		f |= fuzzDNT
	}
	return f
}

func sidBytes(sids []int) []byte {
	b := make([]byte, len(sids))
	for i, id := range sids {
		b[i] = byte(id)
	}
	return b
}

// FuzzDecide decides random signal sets and checks what must hold of every
// decision, and compares the package's readers with the tests' decoder and
// with the libraries it used before, as oracles: the GPP header reader with
// go-gpp's, the TC string reader with the tests' decoder and go-gdpr, the US
// section reader with go-gpp's, wherever the libraries are known to be
// right (compareGoGDPR, compareGoGPP).
func FuzzDecide(f *testing.F) {
	for _, tt := range decideCases() {
		s := tt.sig
		f.Add(s.GDPR, s.TCString, s.USPrivacy, s.GPP, sidBytes(s.GPPSID), fuzzFlags(s), uint16(dspVendor))
	}
	f.Add(int8(1), specTC, "", "", []byte{}, byte(0), uint16(specVendor3))
	f.Add(int8(-1), "", "", gpp(hostileHeader(60), "x"), []byte{7}, byte(0), uint16(dspVendor))
	f.Add(int8(-1), "", "", gpp(endlessHeader(), "x"), []byte{2, 7}, byte(fuzzDNT), uint16(dspVendor))
	f.Add(int8(1), panicTC(), "1YNN", "", []byte{}, byte(0), uint16(1))
	f.Add(int8(1), ranged(with(restrict(2, 1, span(1, 2000)))).String(), "", "", []byte{}, byte(0), uint16(dspVendor))
	f.Add(int8(1), duplicateRestrictions(true), "", "", []byte{}, byte(0), uint16(dspVendor))
	f.Add(int8(1), ranged(with(func(tc *consenttest.TC) { tc.AllRanges = true })).String(), "", "", []byte{}, byte(0), uint16(dspVendor))
	f.Add(int8(1), with(restrict(1, 2, span(32000, 32767))).String(), "", "", []byte{}, byte(0), uint16(32767))
	f.Add(int8(-1), "", stateSection(sectionUSCA, 2, 2, true), gpp(consenttest.GPPHeader(7, 8, 12), optOut(func(u *consenttest.USNat) { u.V2 = true }),
		stateSection(sectionUSCA, 2, 2, false), stateSection(sectionUSCT, 2, 1, true)), []byte{7, 8, 12}, byte(0), uint16(dspVendor))

	f.Fuzz(func(t *testing.T, gdpr int8, tc, usp, gppStr string, sidb []byte, flags byte, vendor uint16) {
		sids := make([]int, len(sidb))
		for i, b := range sidb {
			sids[i] = int(b)
		}
		sig := Signals{GDPR: gdpr, TCString: tc, USPrivacy: usp, GPP: gppStr, GPPSID: sids,
			COPPA: flags&fuzzCOPPA != 0, LMT: flags&fuzzLMT != 0, DNT: flags&fuzzDNT != 0}
		c, err := New(Config{VendorID: int(vendor)})
		if err != nil {
			t.Fatal(err)
		}
		d := c.Decide(sig)

		if d.Outcome >= numOutcomes {
			t.Fatalf("outcome %d", d.Outcome)
		}
		if d.DNT != sig.DNT {
			t.Fatalf("DNT %v for %v", d.DNT, sig.DNT)
		}
		if d.UserLevel && !d.Bid {
			t.Fatalf("user level without bid: %+v", d)
		}
		if (sig.COPPA || sig.LMT) && d.UserLevel {
			t.Fatalf("user level with coppa or lmt: %+v", d)
		}
		if uspOptOut(usp) && d.UserLevel {
			t.Fatalf("user level with us_privacy %q", usp)
		}
		refusals := []Outcome{Malformed, NoVendor, NoPurpose2, Restricted}
		if !d.Bid && !slices.Contains(refusals, d.Outcome) {
			t.Fatalf("no bid for %v", d.Outcome)
		}
		if d.UserLevel != (d.Outcome == NoGDPR || d.Outcome == Consented) {
			t.Fatalf("user level %v for %v", d.UserLevel, d.Outcome)
		}
		if d.Bid && (d.Outcome == Malformed || d.Outcome == NoPurpose2) {
			t.Fatalf("bid for %v", d.Outcome)
		}
		if !sig.gdprApplies() && (!d.Bid || d.Outcome == Consented) {
			t.Fatalf("%+v without GDPR", d)
		}
		if again := c.Decide(Signals{GDPR: gdpr, TCString: strings.Clone(tc), USPrivacy: strings.Clone(usp),
			GPP: strings.Clone(gppStr), GPPSID: slices.Clone(sids), COPPA: sig.COPPA, LMT: sig.LMT, DNT: sig.DNT}); again != d {
			t.Fatalf("%+v, then %+v", d, again)
		}
		none, _ := New(Config{})
		dn := none.Decide(sig)
		if sig.gdprApplies() {
			if dn.Bid || dn.UserLevel || (dn.Outcome != NoVendor && dn.Outcome != Malformed) {
				t.Fatalf("GDPR without a vendor id: %+v", dn)
			}
		} else if dn != d {
			t.Fatalf("the vendor id changed a decision without GDPR: %+v, %+v", d, dn)
		}

		fuzzGPPHeader(t, gppStr)
		var g gppString
		g.parse(gppStr)
		fuzzTCF(t, tc, &g, vendor)
		fuzzUS(t, usp, tc)
		if g.ok {
			fuzzUS(t, g.sections[:g.n]...)
		}
	})
}

// fuzzGPPHeader compares the package's reading of a GPP header with go-gpp's
// where the package accepts it (go-gpp cannot be given the others: some
// make it loop or recurse without end).
func fuzzGPPHeader(t *testing.T, s string) {
	var g gppString
	g.parse(s)
	if !g.ok {
		return
	}
	for _, id := range g.ids[:g.n] {
		if id == 0xffff {
			return
		}
	}
	lib, errs := gpplib.Parse(s)
	if len(lib.SectionTypes) != g.n {
		t.Fatalf("%q: go-gpp reads %v (%v), the package %v", s, lib.SectionTypes, errs, g.ids[:g.n])
	}
	for i, id := range lib.SectionTypes {
		if int(id) != int(g.ids[i]) {
			t.Fatalf("%q: go-gpp reads %v, the package %v", s, lib.SectionTypes, g.ids[:g.n])
		}
	}
}

// fuzzTCF compares the package's TC string reader with the tests' decoder
// and with go-gdpr (compareReader), on the TC string and on the GPP
// string's EU TCF section, for the fuzzed vendor id among others.
func fuzzTCF(t *testing.T, tc string, g *gppString, vendor uint16) {
	compareReader(t, tc, int(vendor))
	if text, ok := g.section(sectionTCFEU); ok {
		compareReader(t, text, int(vendor))
	}
}

// fuzzUS compares the package's reading of US sections with go-gpp's
// (compareGoGPP), reading each text as each US section.
func fuzzUS(t *testing.T, texts ...string) {
	for _, text := range texts {
		for id := sectionUSPV1; id <= sectionUSCT+1; id++ {
			compareGoGPP(t, id, text)
		}
	}
}
