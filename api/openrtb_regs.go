package api

import (
	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The privacy signals of an OpenRTB request (docs/privacy.md), in their
// 2.6 places (regs.gdpr, regs.us_privacy, regs.gpp, regs.gpp_sid,
// regs.coppa, user.consent, device.lmt, device.dnt) and their 2.5 ext
// places (regs.ext.gdpr, regs.ext.us_privacy, regs.ext.gpp,
// regs.ext.gpp_sid, user.ext.consent); the 2.6 place wins. A malformed
// signal is never a 400: it is read the fail-safe way (used fields, noted
// and counted): a regs.gdpr, regs.coppa or device.lmt that is not 0 or 1
// as 1, a us_privacy or gpp that is not a string as unreadable (an
// opt-out), a gpp_sid that is not an array of section ids as refusing
// user-level processing, a consent that is not a string as absent (so, with
// GDPR, no consent), and a regs (or regs.ext) that is not an object as
// regs.gdpr and regs.coppa both 1.

// maxGPPSIDs bounds the section ids kept of regs.gpp_sid.
const maxGPPSIDs = 16

// openrtbSignals are a request's privacy signals as read, each place apart.
type openrtbSignals struct {
	gdpr, extGDPR     int8 // -1 absent, 0, 1
	usp, extUSP       string
	uspBad, extUSPBad bool // not a string: an opt-out
	gpp, extGPP       string
	gppSet, extGPPSet bool // present (gpp_sid then applies to this place)
	sids, extSIDs     [maxGPPSIDs]int
	nsids, nextSIDs   int
	sidBad, extSIDBad bool // malformed gpp_sid: no user-level processing
	tc, extTC         string
	coppa, lmt, dnt   bool
	regsBad           bool // regs or regs.ext not an object: gdpr and coppa read as 1
}

func (s *openrtbSignals) reset() { *s = openrtbSignals{gdpr: -1, extGDPR: -1} }

// consentSignals resolves the two places into package consent's Signals
// (whose GPPSID aliases s); sidBad says a gpp_sid could not be read.
func (s *openrtbSignals) consentSignals() (sig consent.Signals, sidBad bool) {
	sig = consent.Signals{GDPR: s.gdpr, TCString: s.tc, USPrivacy: s.usp, GPP: s.gpp,
		GPPSID: s.sids[:s.nsids], COPPA: s.coppa, LMT: s.lmt, DNT: s.dnt}
	sidBad = s.sidBad
	if sig.GDPR < 0 {
		sig.GDPR = s.extGDPR
	}
	if s.regsBad {
		if sig.GDPR < 0 {
			sig.GDPR = 1
		}
		sig.COPPA = true
	}
	if sig.TCString == "" {
		sig.TCString = s.extTC
	}
	switch {
	case s.uspBad:
		sig.USPrivacy = unreadableUSP
	case sig.USPrivacy == "" && s.extUSPBad:
		sig.USPrivacy = unreadableUSP
	case sig.USPrivacy == "":
		sig.USPrivacy = s.extUSP
	}
	if !s.gppSet && s.extGPPSet { // the 2.5 place holds the GPP string and its sections
		sig.GPP, sig.GPPSID, sidBad = s.extGPP, s.extSIDs[:s.nextSIDs], s.extSIDBad
	} else if s.nsids == 0 && !s.sidBad {
		sig.GPPSID, sidBad = s.extSIDs[:s.nextSIDs], s.extSIDBad
	}
	return sig, sidBad
}

// unreadableUSP stands for a us_privacy that is not a string: package
// consent reads a malformed string as an opt-out.
const unreadableUSP = "?"

// regs reads the regs object.
func (d *bidRequestDecoder) regs() {
	s := &d.r.signals
	if !d.regsObject("regs") {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "gdpr":
			s.gdpr = d.flag(fieldGDPR, "regs.gdpr")
		case "us_privacy":
			s.usp, s.uspBad = d.signalText(fieldUSPrivacy, "regs.us_privacy")
		case "gpp":
			var bad bool
			s.gpp, bad = d.signalText(fieldGPP, "regs.gpp")
			s.gppSet = s.gpp != "" || bad
		case "gpp_sid":
			s.nsids, s.sidBad = d.sectionIDs(&s.sids, "regs.gpp_sid")
		case "coppa":
			s.coppa = d.flag(fieldCOPPA, "regs.coppa") == 1
		case "ext":
			d.regsExt()
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// regsExt reads regs.ext, the 2.5 places.
func (d *bidRequestDecoder) regsExt() {
	s := &d.r.signals
	if !d.regsObject("regs.ext") {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "gdpr":
			s.extGDPR = d.flag(fieldGDPR, "regs.ext.gdpr")
		case "us_privacy":
			s.extUSP, s.extUSPBad = d.signalText(fieldUSPrivacy, "regs.ext.us_privacy")
		case "gpp":
			var bad bool
			s.extGPP, bad = d.signalText(fieldGPP, "regs.ext.gpp")
			s.extGPPSet = s.extGPP != "" || bad
		case "gpp_sid":
			s.nextSIDs, s.extSIDBad = d.sectionIDs(&s.extSIDs, "regs.ext.gpp_sid")
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// regsObject checks that regs (or regs.ext) is an object; another kind is
// noted and read the fail-safe way.
func (d *bidRequestDecoder) regsObject(name string) bool {
	switch d.value(jsoncodec.ObjectValue) {
	case present:
		return true
	case wrongKind:
		d.drop(fieldRegs, topField(name), d.raw)
		d.r.signals.regsBad = true
	}
	return false
}

// flag reads a 0/1 signal: -1 when null, 1 when it is anything but 0 or 1
// (noted), the fail-safe reading.
func (d *bidRequestDecoder) flag(u usedField, name string) int8 {
	n, p := d.usedInt(u, topField(name), 0, 1)
	switch p {
	case absent:
		return -1
	case wrongKind:
		return 1
	}
	return int8(n)
}

// signalText reads a signal string (a TC, GPP or us_privacy string);
// bad is true when it is not a string (noted).
func (d *bidRequestDecoder) signalText(u usedField, name string) (v string, bad bool) {
	switch d.value(jsoncodec.StringValue) {
	case absent:
		return "", false
	case wrongKind:
		d.drop(u, topField(name), d.raw)
		return "", true
	}
	return str(d.str()), false
}

// sectionIDs reads gpp_sid: an array of section ids; bad when it is not
// one, or an item is not an integer 1-65535 (noted), or there are more
// than dst holds.
func (d *bidRequestDecoder) sectionIDs(dst *[maxGPPSIDs]int, name string) (n int, bad bool) {
	f := topField(name)
	switch d.value(jsoncodec.ArrayValue) {
	case absent:
		return 0, false
	case wrongKind:
		d.drop(fieldGPPSID, f, d.raw)
		return 0, true
	}
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		id, p := d.usedInt(fieldGPPSID, itemField(name, k), 1, 65535)
		switch {
		case p == absent:
		case p == wrongKind || n == len(dst):
			bad = true
			if p != wrongKind {
				d.drop(fieldGPPSID, itemField(name, k), nil)
			}
		default:
			dst[n] = int(id)
			n++
		}
	}
	return n, bad
}
