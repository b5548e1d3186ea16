package api

import "github.com/prometheus/client_golang/prometheus"

// openrtbMetrics are the series of POST /openrtb2/bid. Its no bids are also
// counted by reason in dspd_nobid_total, its errors in
// dspd_http_errors_total{endpoint="openrtb"}, its decision time in
// dspd_decision_seconds, beside recbid's.
type openrtbMetrics struct {
	bid, nobid, rejected prometheus.Counter
	impBid, impNobid     prometheus.Counter
}

func newOpenRTBMetrics(reg *prometheus.Registry) openrtbMetrics {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_openrtb_requests_total",
		Help: "OpenRTB bid requests answered, by outcome: bid (at least one impression bid), nobid, or rejected (4xx).",
	}, []string{"outcome"})
	imps := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_openrtb_impressions_total",
		Help: "Impressions of valid OpenRTB bid requests, by outcome: bid or nobid.",
	}, []string{"outcome"})
	reg.MustRegister(requests, imps)
	return openrtbMetrics{
		bid:      requests.WithLabelValues("bid"),
		nobid:    requests.WithLabelValues("nobid"),
		rejected: requests.WithLabelValues("rejected"),
		impBid:   imps.WithLabelValues("bid"),
		impNobid: imps.WithLabelValues("nobid"),
	}
}
