package consent

// Decide returns what the request's signals allow, under the rules and the
// precedence of the package comment. It keeps nothing of s, does not
// allocate, and never panics.
func (c *Checker) Decide(s Signals) Decision {
	var vendor uint16
	if c != nil {
		vendor = c.vendor
	}
	d := Decision{DNT: s.DNT}
	var g gppString
	gppRead := false
	readGPP := func() *gppString {
		if !gppRead {
			g.parse(s.GPP)
			gppRead = true
		}
		return &g
	}

	gdpr := s.gdprApplies()
	var tcf tcfResult
	if gdpr {
		tc := s.TCString
		if tc == "" && s.listed(sectionTCFEU) {
			tc, _ = readGPP().section(sectionTCFEU)
		}
		if tc == "" {
			d.Outcome = Malformed
			return d
		}
		if tcf = evalTCF(tc, vendor); !tcf.bid {
			d.Outcome = tcf.bidWhy
			return d
		}
	}
	d.Bid = true
	switch {
	case s.COPPA:
		d.Outcome = COPPA
	case s.LMT:
		d.Outcome = LMT
	case gdpr && !tcf.user:
		d.Outcome = tcf.userWhy
	case uspOptOut(s.USPrivacy):
		d.Outcome = USPOptOut
	case len(s.GPPSID) > 0 && gppOptOut(readGPP(), s.GPPSID):
		d.Outcome = GPPOptOut
	default:
		d.UserLevel = true
		d.Outcome = NoGDPR
		if gdpr {
			d.Outcome = Consented
		}
	}
	return d
}
