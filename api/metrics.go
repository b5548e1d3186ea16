package api

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/tracker"
)

// metrics are the server's Prometheus series. Label values are resolved at
// start, and an exchange's when it is first loaded, so the hot path only
// increments atomics.
type metrics struct {
	reg *prometheus.Registry

	errors                  *prometheus.CounterVec // by endpoint and code
	decision                prometheus.Histogram
	wait                    prometheus.Histogram // arrival to handler (arrived.go)
	shedRecbid, shedOpenRTB prometheus.Counter   // dspd_shed_total by endpoint
	reloadOK, reloadFailed  prometheus.Counter
	campaigns               prometheus.Gauge
	campaignsRevision       prometheus.Gauge // of the managed set served
	campaignChanges         prometheus.Counter
	exchanges               prometheus.Gauge
	currencies, ratesAsOf   prometheus.Gauge
	stateErrors             prometheus.Counter
	panics                  prometheus.Counter
	openrtb                 openrtbMetrics

	// the event log and the trackers (events_metrics.go)
	eventsRefused                     prometheus.Counter
	trackers                          [tracker.Error + 1][numTrackOutcomes]prometheus.Counter
	billingRecorded, billingDuplicate prometheus.Counter

	consent []prometheus.Counter // by consent.Outcome
	dnt     prometheus.Counter

	// the series labelled by exchange
	requests, nobid, wins, spend, refused, openrtbRequests *prometheus.CounterVec
	byExchangeMu                                           sync.Mutex
	byExchange                                             map[string]*exchangeMetrics
}

// exchangeMetrics are one exchange's series.
type exchangeMetrics struct {
	recbid, openrtb                                 outcomes
	reasons                                         [bidder.NumReasons]prometheus.Counter // by bidder.NoBidReason
	winRecorded, winDuplicate, winTest, winRejected prometheus.Counter
	spend                                           prometheus.Counter
	refused                                         [3]prometheus.Counter // by exchange.Refusal
}

// outcomes count an endpoint's requests by outcome.
type outcomes struct{ bid, nobid, rejected prometheus.Counter }

// unknownExchange labels what arrives on the path of an exchange the
// server does not know, so that such paths cannot grow the series.
const unknownExchange = "unknown"

// known returns the series of an exchange that was loaded once, or else
// those of unknownExchange (a path naming an exchange never declared).
func (m *metrics) known(id string) *exchangeMetrics {
	m.byExchangeMu.Lock()
	em := m.byExchange[id]
	m.byExchangeMu.Unlock()
	if em == nil {
		return m.exchange(unknownExchange)
	}
	return em
}

// exchange returns the series of an exchange, resolving them on first use.
// Only exchanges of a loaded set (and unknownExchange) are passed, so the
// label values stay few.
func (m *metrics) exchange(id string) *exchangeMetrics {
	m.byExchangeMu.Lock()
	defer m.byExchangeMu.Unlock()
	if em, ok := m.byExchange[id]; ok {
		return em
	}
	out := func(v *prometheus.CounterVec) outcomes {
		return outcomes{v.WithLabelValues(id, "bid"), v.WithLabelValues(id, "nobid"), v.WithLabelValues(id, "rejected")}
	}
	em := &exchangeMetrics{
		recbid:       out(m.requests),
		openrtb:      out(m.openrtbRequests),
		winRecorded:  m.wins.WithLabelValues(id, "recorded"),
		winDuplicate: m.wins.WithLabelValues(id, "duplicate"),
		winTest:      m.wins.WithLabelValues(id, "test"),
		winRejected:  m.wins.WithLabelValues(id, "rejected"),
		spend:        m.spend.WithLabelValues(id),
	}
	for _, r := range bidder.NoBidReasons() {
		em.reasons[r] = m.nobid.WithLabelValues(id, r.String())
	}
	for _, r := range []exchange.Refusal{exchange.RefusedSource, exchange.RefusedToken} {
		em.refused[r] = m.refused.WithLabelValues(id, r.String())
	}
	m.byExchange[id] = em
	return em
}

func newMetrics(engine *bidder.Engine) *metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := func(c prometheus.Collector) { reg.MustRegister(c) }

	m := &metrics{
		reg:        reg,
		byExchange: make(map[string]*exchangeMetrics),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_recbid_requests_total",
			Help: "Bid requests answered, by exchange and outcome: bid, nobid, or rejected (4xx, 403 included).",
		}, []string{"exchange", "outcome"}),
		nobid: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_nobid_total",
			Help: "Bid requests answered with no bid (recbid, and OpenRTB requests none of whose impressions bid), by exchange and reason (the X-Nobid-Reason header).",
		}, []string{"exchange", "reason"}),
		wins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_win_notices_total",
			Help: "Win notices, by exchange and outcome: recorded, duplicate, test (valid, records nothing) or rejected.",
		}, []string{"exchange", "outcome"}),
		spend: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_spend_micros_total",
			Help: "Sum of recorded win prices (clearing CPM) in micros, by exchange; divide by 1000 for the money spent.",
		}, []string{"exchange"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_exchange_refused_total",
			Help: "Bid requests refused 403 by their exchange's rules, by exchange and cause: source (outside allow) or token.",
		}, []string{"exchange", "cause"}),
		openrtbRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_openrtb_requests_total",
			Help: "OpenRTB bid requests answered, by exchange and outcome: bid (at least one impression bid), nobid, or rejected (4xx).",
		}, []string{"exchange", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dspd_http_errors_total",
			Help: "Error answers on the public listener, by endpoint and error code.",
		}, []string{"endpoint", "code"}),
		decision: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "dspd_decision_seconds",
			Help:    "Time from a valid bid request's arrival to its decision.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 16), // 5µs … 160ms
		}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "dspd_request_wait_seconds",
			Help:    "Time a bid request waited between the arrival of its first bytes at the host and its handler: the queues (socket, scheduler, GC) before dspd could look at it.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 16), // 5µs … 160ms
		}),
		campaigns: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_campaigns",
			Help: "Campaigns in the serving set.",
		}),
		campaignsRevision: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_campaigns_revision",
			Help: "The revision of the campaign set managed through the API that this dspd serves (0: the campaigns file); replicas of one state agree within a second.",
		}),
		campaignChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dspd_campaign_set_changes_total",
			Help: "Revisions of the managed campaign set put in service: this dspd's changes through the API, and the other replicas' it followed.",
		}),
		exchanges: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_exchanges",
			Help: "Exchanges in the serving set.",
		}),
		currencies: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_currency_rates",
			Help: "Currencies whose OpenRTB floors can be converted to USD (1: USD only, no -currency-rates).",
		}),
		ratesAsOf: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dspd_currency_rates_as_of_timestamp_seconds",
			Help: "The dataAsOf of the serving currency rates, in Unix seconds (0: no rates, or no date in the file); alert on its age.",
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
	f(m.requests)
	f(m.nobid)
	f(m.wins)
	f(m.spend)
	f(m.refused)
	f(m.openrtbRequests)
	reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_reloads_total",
		Help: "Campaign set loads, by result: ok or failed (the old set kept serving).",
	}, []string{"result"})
	m.reloadOK = reloads.WithLabelValues("ok")
	m.reloadFailed = reloads.WithLabelValues("failed")
	f(m.errors)
	f(m.decision)
	f(m.wait)
	shed := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_shed_total",
		Help: "Bid requests answered no bid (reason timeout) without a decision, by endpoint: their deadline (tmax minus the safety margin, from their arrival) had passed while they waited.",
	}, []string{"endpoint"})
	m.shedRecbid = shed.WithLabelValues(recbidEndpoint.label)
	m.shedOpenRTB = shed.WithLabelValues(openrtbEndpoint.label)
	f(shed)
	f(reloads)
	f(m.campaigns)
	f(m.campaignsRevision)
	f(m.campaignChanges)
	f(m.exchanges)
	f(m.currencies)
	f(m.ratesAsOf)
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
		up, ok := store.s.(bidder.UpkeepReporter)
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
	if st, ok := engine.Ledger().(bidder.FailureCounter); ok {
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_state_store_failures_total",
			Help: "Operations of the state store that failed: Redis operations that failed or timed out; disk writes that found the disk full.",
		}, func() float64 { return float64(st.Failures()) }))
	}
	if st, ok := engine.Ledger().(bidder.AvailabilityReporter); ok {
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "dspd_state_unavailable",
			Help: "1 while the disk state cannot write (a full disk): no bids, win notices answered 503.",
		}, func() float64 {
			if st.Unavailable() {
				return 1
			}
			return 0
		}))
	}
	if st, ok := engine.Ledger().(bidder.LostBidCounter); ok {
		f(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "dspd_state_store_lost_bid_counts_total",
			Help: "Batches of bid counts (for /admin/stats) the shared store could not write.",
		}, func() float64 { return float64(st.LostBidCounts()) }))
	}
	if sz, ok := engine.Ledger().(bidder.SizeReporter); ok {
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
	m.consent, m.dnt = newConsentMetrics(reg)
	f(newPacingCollector(engine))
	return m
}

func (m *metrics) fail(endpoint, code string) { m.errors.WithLabelValues(endpoint, code).Inc() }
