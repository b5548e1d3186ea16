package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"testing"

	tcf2 "github.com/prebid/go-gdpr/vendorconsent/tcf2"
	"github.com/prebid/go-gpp/sections/uspnat"
)

// benchCases are typical requests: no GDPR; GDPR with a consent to 200
// vendors written as bit fields, as 21 ranges, as 201 single-id ranges;
// us_privacy; a GPP string with a US National section; a GPP string whose
// EU TCF section is the TC string.
func benchCases() []struct {
	name string
	sig  Signals
} {
	full := fullConsent().String()
	return []struct {
		name string
		sig  Signals
	}{
		{"no_gdpr", Signals{GDPR: 0, DNT: true}},
		{"gdpr_bitfield", Signals{GDPR: 1, TCString: full}},
		{"gdpr_range_runs", Signals{GDPR: 1, TCString: inRuns().String()}},
		{"gdpr_range_singles", Signals{GDPR: 1, TCString: ranged(fullConsent()).String()}},
		{"gdpr_malformed", Signals{GDPR: 1, TCString: "BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA"}},
		{"us_privacy", Signals{GDPR: -1, USPrivacy: "1YNN"}},
		{"gpp_usnat", Signals{GDPR: -1, GPP: gpp(consenttest.GPPHeader(7), optOut(func(u *consenttest.USNat) { u.GPC = new(bool) })), GPPSID: []int{7}}},
		{"gpp_tcf", Signals{GDPR: 1, GPP: gpp(consenttest.GPPHeader(2), full), GPPSID: []int{2}}},
	}
}

func BenchmarkDecide(b *testing.B) {
	c, err := New(Config{VendorID: dspVendor})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Decide(bc.sig)
			}
		})
	}
}

// BenchmarkLibraries measures the parses of the libraries the package used
// before its own readers (and that the tests use as oracles), to compare
// with BenchmarkReaders.
func BenchmarkLibraries(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    string
	}{{"tcf2_bitfield", fullConsent().String()}, {"tcf2_range_runs", inRuns().String()}, {"tcf2_range_singles", ranged(fullConsent()).String()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tcf2.ParseString(tc.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	nat := optOut(func(u *consenttest.USNat) { u.GPC = new(bool) })
	b.Run("uspnat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := uspnat.NewUSPNAT(nat); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReaders measures the package's own readers alone, on the strings
// of BenchmarkLibraries.
func BenchmarkReaders(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    string
	}{{"tcf_bitfield", fullConsent().String()}, {"tcf_range_runs", inRuns().String()}, {"tcf_range_singles", ranged(fullConsent()).String()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := readTCF(tc.s, dspVendor); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
	nat := optOut(func(u *consenttest.USNat) { u.GPC = new(bool) })
	b.Run("usnat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if usSectionOptOut(sectionUSNat, nat) {
				b.Fatal("opt-out")
			}
		}
	})
}
