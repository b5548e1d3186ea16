package api

import "github.com/prometheus/client_golang/prometheus"

// openrtbMetrics are the impression series of POST /openrtb2/bid. Its
// requests are counted by exchange and outcome in
// dspd_openrtb_requests_total, its no bids by reason in dspd_nobid_total,
// its errors in dspd_http_errors_total{endpoint="openrtb"}, its decision
// time in dspd_decision_seconds, beside recbid's.
type openrtbMetrics struct {
	impBid, impNobid prometheus.Counter
	invalid          [numUsedFields]prometheus.Counter // by used field (openrtb_policy.go)
}

func newOpenRTBMetrics(reg *prometheus.Registry) openrtbMetrics {
	imps := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_openrtb_impressions_total",
		Help: "Impressions of valid OpenRTB bid requests, by outcome: bid or nobid.",
	}, []string{"outcome"})
	reg.MustRegister(imps)
	return openrtbMetrics{
		impBid:   imps.WithLabelValues("bid"),
		impNobid: imps.WithLabelValues("nobid"),
		invalid:  newInvalidFieldCounters(reg),
	}
}
