package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recbid/dspd/consent"
)

// decideConsent reads an OpenRTB request's privacy signals once and
// returns what they allow (docs/privacy.md), counted by outcome. A gpp_sid
// that could not be read refuses user-level processing: which sections
// apply is unknown.
func (s *Server) decideConsent(req *openrtbRequest) consent.Decision {
	sig, sidBad := req.signals.consentSignals()
	d := s.cfg.Consent.Decide(sig)
	if sidBad && d.UserLevel {
		d.UserLevel, d.Outcome = false, consent.GPPOptOut
	}
	s.metrics.consent[d.Outcome].Inc()
	if d.DNT {
		s.metrics.dnt.Inc()
	}
	return d
}

// consentMetrics are dspd_consent_total{outcome} and
// dspd_consent_dnt_total, every outcome present from the start.
func newConsentMetrics(reg *prometheus.Registry) (byOutcome []prometheus.Counter, dnt prometheus.Counter) {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_consent_total",
		Help: "OpenRTB requests by what their privacy signals allow (docs/privacy.md): no_gdpr and consented bid with user-level processing; no_purpose1, usp_optout, gpp_optout, coppa and lmt bid contextually; no_vendor, no_purpose2, restricted and malformed do not bid (reason consent), or (no_purpose1, no_vendor, restricted) bid contextually when Purpose 2 has a legal basis.",
	}, []string{"outcome"})
	for _, o := range consent.Outcomes() {
		for int(o) >= len(byOutcome) {
			byOutcome = append(byOutcome, nil)
		}
		byOutcome[o] = v.WithLabelValues(o.String())
	}
	dnt = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "dspd_consent_dnt_total",
		Help: "OpenRTB requests with device.dnt=1: counted only (Do Not Track is not a legal signal), it changes nothing.",
	})
	reg.MustRegister(v, dnt)
	return byOutcome, dnt
}
