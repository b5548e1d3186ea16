// Package consent turns a bid request's privacy signals into one decision:
// may dspd bid at all, and may it process the user as a user (frequency
// counters, the user's keyed hash in bid and event records, any targeting on
// the user).
//
// The signals are those of OpenRTB 2.6 (and their 2.5 ext places), read by
// package api into a Signals value: regs.gdpr and user.consent (a TCF v2 TC
// string), regs.us_privacy, regs.gpp and regs.gpp_sid (a GPP string: its EU
// TCF and US sections), regs.coppa, device.lmt and device.dnt.
//
// The package reads every string itself, in place, straight from its
// base64url text: the GPP header, TC strings (tcfreader.go: the core
// segment's fixed fields, then dspd's vendor id in the vendor sections and
// the publisher restrictions) and the opt-out fields of the GPP US sections
// (gppus.go). It used github.com/prebid/go-gdpr v1.12.0 and
// github.com/prebid/go-gpp v0.2.0 for TC strings and US sections before;
// they are now the tests' oracles only, wherever they are known to be right,
// beside the tests' own encoder and decoder written from the specifications.
// Reading a typical TC string of 200 vendors took go-gdpr 1.1 µs and 6
// allocations as bit fields, 2.1 µs and 8 as 21 ranges, 9.5 µs and 8 as 201
// single-id ranges, against a whole OpenRTB request's 3.1 µs and none; it
// panicked on some truncated strings; and of two publisher restriction
// entries with the same purpose and type it kept only the last, so that a
// vendor named only in the first was not restricted (failing open). go-gpp
// took 0.54 µs and 7 allocations to read the three 2-bit opt-outs of a US
// National section. The package's readers allocate nothing, do work linear
// in the length of the string, and take from a seventh (the US National
// section) to a half (201 single-id ranges) of the libraries' time
// (BenchmarkReaders beside BenchmarkLibraries; a 200-vendor bit field about
// 0.2 µs).
//
// A Checker, built once from the operator's Config (dspd's id on the IAB
// Global Vendor List), decides:
//
//	c, err := consent.New(consent.Config{VendorID: 1234})
//	d := c.Decide(sig) // d.Bid, d.UserLevel, d.Outcome, d.DNT
//
// The rules, in the order Decide applies them (the first that refuses gives
// the Outcome):
//
//  1. Bidding at all. Where GDPR applies, dspd needs a legal basis for
//     Purpose 2 (basic ads): Purpose 2 consent and vendor consent, or
//     Purpose 2 legitimate-interest transparency and vendor legitimate
//     interest, either one not removed by a publisher restriction. Without
//     it: Malformed (no usable TC string), NoVendor, NoPurpose2 or
//     Restricted, and Bid is false.
//  2. User-level processing, given that dspd may bid: refused by COPPA
//     (regs.coppa=1), then LMT (device.lmt=1), then, where GDPR applies, a
//     missing Purpose 1 basis (Restricted, NoPurpose1 or NoVendor), then a
//     us_privacy opt-out of sale (USPOptOut), then an opt-out in a GPP US
//     section listed in gpp_sid (GPPOptOut).
//  3. Otherwise both are allowed: Consented where GDPR applies, NoGDPR
//     elsewhere.
//
// device.dnt never refuses anything; it is reported in Decision.DNT.
//
// Every signal that cannot be read is read as a refusal: a malformed TC
// string is no consent, a malformed us_privacy string is an opt-out, a GPP
// string whose listed US section cannot be decoded is an opt-out. No input
// makes Decide panic: every read is bounds-checked, and a read past the end
// of a string makes the string malformed.
//
// The choices this package makes where the specifications leave room are
// listed in docs/privacy.md. It knows nothing of HTTP: package api fills
// Signals from the request and reads the Decision.
package consent
