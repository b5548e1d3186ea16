package consent

// The purposes dspd needs under GDPR.
const (
	purposeStorage  = 1 // store and/or access information on a device
	purposeBasicAds = 2 // use limited data to select advertising
)

// The publisher restriction types of TCF v2.
const (
	restrictNotAllowed      = 0 // the purpose is flatly not allowed
	restrictRequireConsent  = 1 // only consent counts
	restrictRequireLegitInt = 2 // only legitimate interest counts
)

// tcfResult is what a TC string allows dspd's vendor id.
type tcfResult struct {
	bid     bool
	bidWhy  Outcome // when !bid
	user    bool    // Purpose 1 for the vendor; only meaningful when bid
	userWhy Outcome // when !user
}

// evalTCF reads a TC string for vendor (0: none) under the rules of the
// package comment. A string readTCF cannot read is Malformed.
func evalTCF(tc string, vendor uint16) tcfResult {
	v, ok := readTCF(tc, vendor)
	if !ok {
		return tcfResult{bidWhy: Malformed, userWhy: Malformed}
	}
	// vendor consent and vendor legitimate interest: false for vendor 0 and
	// above each section's MaxVendorId.
	vc, vli := v.vendorConsent, v.vendorLI

	// Purpose 2: consent with vendor consent, or legitimate-interest
	// transparency with vendor legitimate interest.
	byConsent := vc && v.purposeConsent(purposeBasicAds)
	byLegitInt := vli && v.purposeLI(purposeBasicAds)
	var r tcfResult
	switch {
	case !byConsent && !byLegitInt && !vc && !vli:
		r.bidWhy = NoVendor
	case !byConsent && !byLegitInt:
		r.bidWhy = NoPurpose2
	case v.restrictedBy(purposeBasicAds, restrictNotAllowed):
		r.bidWhy = Restricted
	case !(byConsent && !v.restrictedBy(purposeBasicAds, restrictRequireLegitInt)) &&
		!(byLegitInt && !v.restrictedBy(purposeBasicAds, restrictRequireConsent)):
		r.bidWhy = Restricted
	default:
		r.bid = true
	}
	if !r.bid {
		r.userWhy = r.bidWhy
		return r
	}

	// Purpose 1: consent only (TCF allows no legitimate interest for it), so
	// a restriction requiring legitimate interest forbids it like type 0.
	switch {
	case !v.purposeConsent(purposeStorage):
		r.userWhy = NoPurpose1
	case !vc:
		r.userWhy = NoVendor
	case v.restrictedBy(purposeStorage, restrictNotAllowed), v.restrictedBy(purposeStorage, restrictRequireLegitInt):
		r.userWhy = Restricted
	default:
		r.user = true
	}
	return r
}
