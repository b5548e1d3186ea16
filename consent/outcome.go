package consent

// Outcome says why a Decision is what it is, as the label of the metric
// dspd_consent_total{outcome}. Where several reasons apply, Decide names the
// first in this order: Malformed, NoVendor, NoPurpose2, Restricted (the
// refusals to bid, in the order the TC string is read), then COPPA, LMT,
// the Purpose 1 refusals under GDPR (NoPurpose1, NoVendor, Restricted),
// USPOptOut, GPPOptOut; and when nothing refuses, Consented or NoGDPR.
type Outcome uint8

// The outcomes.
const (
	// NoGDPR: GDPR does not apply and nothing refuses; bid, user level.
	NoGDPR Outcome = iota
	// Consented: GDPR applies, Purposes 1 and 2 have their legal basis for
	// dspd's vendor id, and nothing else refuses; bid, user level.
	Consented
	// NoVendor: GDPR applies and dspd's vendor id has no consent (or no
	// vendor id is configured). With neither vendor consent nor vendor
	// legitimate interest: no bid. With legitimate interest only (Purpose 2
	// on that basis): bid, no user level.
	NoVendor
	// NoPurpose1: GDPR applies and Purpose 1 (store and access information
	// on a device) has no consent; bid (Purpose 2 has a basis), no user level.
	NoPurpose1
	// NoPurpose2: GDPR applies and Purpose 2 (basic ads) has no legal basis
	// for dspd although the vendor has a signal; no bid.
	NoPurpose2
	// Restricted: GDPR applies and a publisher restriction removes the legal
	// basis dspd had: for Purpose 2, no bid; for Purpose 1, no user level.
	Restricted
	// Malformed: GDPR applies and there is no TC string, or it cannot be
	// read, is not version 2, or is not service-specific; no bid.
	Malformed
	// USPOptOut: regs.us_privacy opts out of sale, or is malformed; bid, no
	// user level.
	USPOptOut
	// GPPOptOut: a US section of the GPP string listed in gpp_sid opts out
	// of sale, sharing or targeted advertising (or GPC is set), or cannot be
	// read; bid, no user level.
	GPPOptOut
	// COPPA: regs.coppa=1; bid, no user level.
	COPPA
	// LMT: device.lmt=1; bid, no user level.
	LMT

	numOutcomes = iota
)

var outcomeLabels = [numOutcomes]string{
	NoGDPR:     "no_gdpr",
	Consented:  "consented",
	NoVendor:   "no_vendor",
	NoPurpose1: "no_purpose1",
	NoPurpose2: "no_purpose2",
	Restricted: "restricted",
	Malformed:  "malformed",
	USPOptOut:  "usp_optout",
	GPPOptOut:  "gpp_optout",
	COPPA:      "coppa",
	LMT:        "lmt",
}

// String returns the outcome's metric label ("no_gdpr", "consented", …), or
// "unknown" for a value that is not an outcome.
func (o Outcome) String() string {
	if int(o) < len(outcomeLabels) {
		return outcomeLabels[o]
	}
	return "unknown"
}

// Outcomes returns every outcome in order, for creating the metric's series
// before the first request.
func Outcomes() []Outcome {
	all := make([]Outcome, numOutcomes)
	for i := range all {
		all[i] = Outcome(i)
	}
	return all
}

// Decision is what one request's signals allow. The zero Decision allows
// nothing.
type Decision struct {
	Outcome   Outcome // why, for dspd_consent_total{outcome}
	UserLevel bool    // per-user state (frequency counters), the user's hash in bid and event records, targeting on the user
	Bid       bool    // may take part in the auction at all (false: no bid, reason "consent")
	DNT       bool    // device.dnt=1 was sent (counted, never refuses)
}
