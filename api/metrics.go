package api

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/recbid/dspd/bidder"
)

// metrics are the server's Prometheus series. Label values are resolved at
// start, so the hot path only increments atomics.
type metrics struct {
	reg *prometheus.Registry

	bids, nobids, rejected prometheus.Counter
	reasons                [16]prometheus.Counter // by bidder.NoBidReason
	errors                 *prometheus.CounterVec // by endpoint and code
	decision               prometheus.Histogram
	winRecorded            prometheus.Counter
	winDuplicate           prometheus.Counter
	winTest                prometheus.Counter
	winRejected            prometheus.Counter
	spend                  prometheus.Counter
	reloadOK, reloadFailed prometheus.Counter
	campaigns              prometheus.Gauge
	stateErrors            prometheus.Counter
	panics                 prometheus.Counter
	openrtb                openrtbMetrics
}

func newMetrics(engine *bidder.Engine) *metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := func(c prometheus.Collector) { reg.MustRegister(c) }

	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_recbid_requests_total",
		Help: "Bid requests answered, by outcome: bid, nobid, or rejected (4xx).",
	}, []string{"outcome"})
	f(requests)
	nobid := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_nobid_total",
		Help: "Bid requests answered with no bid, by reason (the X-Nobid-Reason header).",
	}, []string{"reason"})
	f(nobid)
	m := &metrics{
		reg:      reg,
		bids:     requests.WithLabelValues("bid"),
		nobids:   requests.WithLabelValues("nobid"),
		rejected: requests.WithLabelValues("rejected"),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_http_errors_total",
			Help: "Error answers on the public listener, by endpoint and error code.",
		}, []string{"endpoint", "code"}),
		decision: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "dspd_decision_seconds",
			Help:    "Time from a valid bid request's arrival to its decision.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 16), // 5µs … 160ms
		}),
		spend: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dspd_spend_micros_total",
			Help: "Sum of recorded win prices (clearing CPM) in micros; divide by 1000 for the money spent.",
		}),
		campaigns: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_campaigns",
			Help: "Campaigns in the serving set.",
		}),
		stateErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dspd_state_errors_total",
			Help: "Failures of the budget, frequency or bid-record store.",
		}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dspd_panics_total",
			Help: "Panics recovered in handlers (each answered 500 and logged).",
		}),
	}
	for _, r := range bidder.NoBidReasons() {
		m.reasons[r] = nobid.WithLabelValues(r.String())
	}
	wins := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_win_notices_total",
		Help: "Win notices, by outcome: recorded, duplicate, test (valid, records nothing) or rejected.",
	}, []string{"outcome"})
	m.winRecorded = wins.WithLabelValues("recorded")
	m.winDuplicate = wins.WithLabelValues("duplicate")
	m.winTest = wins.WithLabelValues("test")
	m.winRejected = wins.WithLabelValues("rejected")
	reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_reloads_total",
		Help: "Campaign set loads, by result: ok or failed (the old set kept serving).",
	}, []string{"result"})
	m.reloadOK = reloads.WithLabelValues("ok")
	m.reloadFailed = reloads.WithLabelValues("failed")
	f(m.errors)
	f(m.decision)
	f(wins)
	f(m.spend)
	f(reloads)
	f(m.campaigns)
	f(m.stateErrors)
	f(m.panics)
	f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "dspd_bid_store_records",
		Help: "Bid records held for win notices.",
	}, func() float64 { return float64(engine.Bids().Len()) }))
	var maxPause []func() time.Duration
	for _, store := range []struct {
		name, what string
		s          any
	}{{"bid_store", "Bid records", engine.Bids()}, {"ledger", "Budget and frequency counters", engine.Ledger()}} {
		up, ok := store.s.(interface{ Upkeep() bidder.Upkeep })
		if !ok {
			continue
		}
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_" + store.name + "_expired_total",
			Help: store.what + " dropped at the end of their time to live.",
		}, func() float64 { return float64(up.Upkeep().Expired) }))
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_" + store.name + "_refused_total",
			Help: store.what + " refused because the store was full of live ones (each a no bid, reason capacity).",
		}, func() float64 { return float64(up.Upkeep().Refused) }))
		maxPause = append(maxPause, func() time.Duration { return up.Upkeep().MaxPause })
	}
	if len(maxPause) > 0 {
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "dspd_state_sweep_pause_max_seconds",
			Help: "The longest time a sweep of expired state held one shard's lock since start.",
		}, func() float64 {
			var d time.Duration
			for _, p := range maxPause {
				d = max(d, p())
			}
			return d.Seconds()
		}))
	}
	if st, ok := engine.Ledger().(interface{ Failures() int64 }); ok {
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_state_store_failures_total",
			Help: "Operations of the shared state store (Redis) that failed or timed out.",
		}, func() float64 { return float64(st.Failures()) }))
	}
	if st, ok := engine.Ledger().(interface{ LostBidCounts() int64 }); ok {
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_state_store_lost_bid_counts_total",
			Help: "Batches of bid counts (for /admin/stats) the shared store could not write.",
		}, func() float64 { return float64(st.LostBidCounts()) }))
	}
	if sz, ok := engine.Ledger().(interface{ Sizes() (int, int) }); ok {
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "dspd_ledger_day_counters",
			Help: "Per-campaign daily counters held.",
		}, func() float64 { d, _ := sz.Sizes(); return float64(d) }))
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "dspd_ledger_frequency_counters",
			Help: "Per-user frequency counters held.",
		}, func() float64 { _, q := sz.Sizes(); return float64(q) }))
	}
	m.openrtb = newOpenRTBMetrics(reg)
	return m
}

func (m *metrics) fail(endpoint, code string) { m.errors.WithLabelValues(endpoint, code).Inc() }
