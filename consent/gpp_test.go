package consent

import (
	"github.com/recbid/dspd/consent/consenttest"
	"strings"
	"testing"
	"time"

	gpplib "github.com/prebid/go-gpp"
	"github.com/prebid/go-gpp/constants"
	"github.com/prebid/go-gpp/sections/uspnat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileHeader is a GPP header of one single-id entry whose Fibonacci code
// word has zeros leading zero bits: go-gpp v0.2.0 computes its weight by
// plain recursion, which took 110 ms at 52 zeros here and grows about 1.6
// times with every further bit.
func hostileHeader(zeros int) string {
	// Type 3, Version 1, one entry, not a range, then the code word.
	return consenttest.Bits("000011 000001 000000000001 0" + strings.Repeat("0", zeros) + "11")
}

// endlessHeader is a GPP header of one group from 1 to 65535: go-gpp
// v0.2.0 expands it with a 16-bit counter that never passes 65535, so
// gpp.Parse appends section ids until memory runs out.
func endlessHeader() string {
	return consenttest.GPPHeader(seq(1, 65535)...)
}

func TestGPPHeader(t *testing.T) {
	us := noOptOut().String()
	tests := []struct {
		name string
		s    string
		ids  []uint16 // nil: not read
	}{
		{"one section", gpp(consenttest.GPPHeader(7), us), []uint16{7}},
		{"three sections, a group", gpp(consenttest.GPPHeader(6, 7, 8), "1YNN", us, "x"), []uint16{6, 7, 8}},
		{"singles and groups", gpp(consenttest.GPPHeader(2, 6, 7, 8, 12), "a", "b", "c", "d", "e"), []uint16{2, 6, 7, 8, 12}},
		{"no section", consenttest.GPPHeader(), []uint16{}},
		{"empty section texts", gpp(consenttest.GPPHeader(6, 7), "", ""), []uint16{6, 7}},
		{"large id", gpp(consenttest.GPPHeader(65535), "x"), []uint16{65535}},
		{"32 sections", gpp(consenttest.GPPHeader(seq(1, 32)...), strings.Split(strings.Repeat("x~", 32), "~")[:32]...), u16(seq(1, 32))},
		{"33 sections", gpp(consenttest.GPPHeader(seq(1, 33)...), strings.Split(strings.Repeat("x~", 33), "~")[:33]...), nil},
		{"empty", "", nil},
		{"fewer sections than ids", gpp(consenttest.GPPHeader(6, 7), "1YNN"), nil},
		{"more sections than ids", gpp(consenttest.GPPHeader(7), us, us), nil},
		{"sections without ids", gpp(consenttest.GPPHeader(), us), nil},
		{"ids without sections", consenttest.GPPHeader(7), nil},
		{"not a header type", gpp("CBABM", us), nil},
		{"header version 2", gpp("DCABM", us), nil},
		{"header too short", gpp("DBA", us), nil},
		{"header cut in a code word", gpp("DBABA", us), nil},
		{"header not base64url", gpp("DBAB+", us), nil},
		{"a TC string", fullConsent().String(), nil},
		{"a code word longer than 16 bits need", gpp(hostileHeader(23), "x"), nil},
		{"hostile code word", gpp(hostileHeader(200), "x"), nil},
		{"group up to 65535", gpp(endlessHeader(), "x"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g gppString
			start := time.Now()
			g.parse(tt.s)
			assert.Less(t, time.Since(start), 100*time.Millisecond)
			if tt.ids == nil {
				assert.False(t, g.ok)
				_, found := g.section(7)
				assert.False(t, found)
				return
			}
			require.True(t, g.ok)
			assert.Equal(t, tt.ids, g.ids[:g.n])
			assertGPPLibraryAgrees(t, tt.s, &g)
		})
	}
}

// TestGPPHeaderBounded shows why the header is not read with gpp.Parse: on
// a 12-character header it already takes milliseconds, 1.6 times more for
// every further bit (the endless header is not given to it: it would
// exhaust memory).
func TestGPPHeaderBounded(t *testing.T) {
	s := gpp(hostileHeader(44), "x")
	start := time.Now()
	_, _ = gpplib.Parse(s)
	library := time.Since(start)
	start = time.Now()
	var g gppString
	g.parse(s)
	ours := time.Since(start)
	assert.False(t, g.ok)
	t.Logf("a 44-bit Fibonacci code word: go-gpp %v, consent %v", library, ours)
}

// TestGPPLibraryEncoder reads strings written by go-gpp's own encoder.
func TestGPPLibraryEncoder(t *testing.T) {
	nat, err := uspnat.NewUSPNAT(optOut(func(u *consenttest.USNat) { u.SharingOptOut = 1 }))
	require.NoError(t, err)
	s, err := gpplib.Encode([]gpplib.Section{nat, uspvOne("1YNN")})
	require.NoError(t, err)
	var g gppString
	g.parse(s)
	require.True(t, g.ok, s)
	assert.Equal(t, []uint16{6, 7}, g.ids[:g.n])
	c, err := New(Config{VendorID: dspVendor})
	require.NoError(t, err)
	assert.Equal(t, contextual(GPPOptOut), c.Decide(Signals{GDPR: -1, GPP: s, GPPSID: []int{7}}))
	assert.Equal(t, allowed, c.Decide(Signals{GDPR: -1, GPP: s, GPPSID: []int{6}}))
}

// uspvOne is a uspv1 section for go-gpp's encoder.
type uspvOne string

func (u uspvOne) GetID() constants.SectionID { return constants.SectionUSPV1 }
func (u uspvOne) GetValue() string           { return string(u) }
func (u uspvOne) Encode(bool) []byte         { return []byte(u) }

// assertGPPLibraryAgrees checks the header read by parse against go-gpp's
// Parse, which is safe to call on a header parse accepted below id 65535.
func assertGPPLibraryAgrees(t *testing.T, s string, g *gppString) {
	t.Helper()
	for _, id := range g.ids[:g.n] {
		if id == 0xffff {
			return
		}
	}
	lib, _ := gpplib.Parse(s)
	ids := make([]uint16, 0, len(lib.SectionTypes))
	for _, id := range lib.SectionTypes {
		ids = append(ids, uint16(id))
	}
	assert.Equal(t, g.ids[:g.n], ids, "go-gpp's header")
	for i, sec := range lib.Sections {
		if gs, ok := sec.(gpplib.GenericSection); ok {
			assert.Equal(t, g.sections[i], gs.GetValue())
		}
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func u16(ids []int) []uint16 {
	out := make([]uint16, len(ids))
	for i, id := range ids {
		out[i] = uint16(id)
	}
	return out
}
