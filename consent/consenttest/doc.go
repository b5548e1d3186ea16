// Package consenttest builds TCF v2 TC strings and GPP strings field by
// field, from the specifications, for tests and test data; it shares no code
// with package consent's readers.
//
// The specifications: IAB Tech Lab, "Consent string and vendor list formats
// v2" (TCF v2.2 and v2.3) for TC strings; IAB Tech Lab, "Global Privacy
// Platform String" for the GPP header, and the GPP sections' technical
// specifications (US National, and the US states California, Virginia,
// Colorado, Utah and Connecticut) for the US sections, in the layouts
// github.com/prebid/go-gpp v0.2.0 reads (version 1 of each state section;
// versions 1 and 2 of US National). A us_privacy string needs no encoder: it
// is its four characters ("1YNN").
//
// Every value is written exactly as given, valid or not: a TC with Version 3,
// a range entry past MaxVendorId or a GPP header of id 65535 are written as
// such, so that tests can build the strings a reader must refuse. Nothing
// here checks a string; package consent's tests decode them with a decoder
// of their own.
//
//	tc := consenttest.TC{Version: 2, VendorListVersion: 150, IsServiceSpecific: true,
//		PurposesConsent: []int{1, 2}, VendorConsents: consenttest.Vendors{Max: 1000, IDs: []int{1000}}}
//	user.consent = tc.String()
//	regs.gpp = consenttest.GPP{Sections: []consenttest.Section{{ID: consenttest.SectionTCFEU, Text: tc.String()}}}.String()
package consenttest
