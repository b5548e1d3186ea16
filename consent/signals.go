package consent

// Signals are a request's privacy signals as read from OpenRTB 2.6 (and the
// 2.5 ext places). Decide reads them and keeps nothing: its strings may alias
// the caller's buffers, and GPPSID may point into the caller's own array.
type Signals struct {
	GDPR      int8   // regs.gdpr: -1 absent or malformed, 0, 1; any other value is read as -1
	TCString  string // user.consent (TCF v2 TC string), "" absent
	USPrivacy string // regs.us_privacy, "" absent
	GPP       string // regs.gpp, "" absent
	GPPSID    []int  // regs.gpp_sid: the GPP sections that apply
	COPPA     bool   // regs.coppa == 1
	LMT       bool   // device.lmt == 1
	DNT       bool   // device.dnt == 1
}

// gdprApplies reports whether the GDPR rules apply to s: regs.gdpr=1, or
// gpp_sid lists the EU TCF section (even against regs.gdpr=0: the signals
// then contradict each other, and the stricter reading wins), or regs.gdpr
// is absent and a TC string was sent.
func (s *Signals) gdprApplies() bool {
	return s.GDPR == 1 || s.listed(sectionTCFEU) || (s.GDPR != 0 && s.TCString != "")
}

// listed reports whether gpp_sid names the section id.
func (s *Signals) listed(id int) bool {
	for _, sid := range s.GPPSID {
		if sid == id {
			return true
		}
	}
	return false
}
