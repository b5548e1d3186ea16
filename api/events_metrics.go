package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/tracker"
)

// addEvents registers the event log's series (when there is a log) and
// the trackers'.
func (m *metrics) addEvents(l *events.Log) {
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.eventsRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "dspd_events_refused_total",
		Help: "Records the event log could not take (a full disk, too many waiting): their bids were not answered, their notices refused (503).",
	})
	f(m.eventsRefused)
	trackers := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_tracker_events_total",
		Help: "Tracker hits (impression, click, video events), by event and outcome: recorded (the first of its bid), duplicate, invalid (a forged or malformed URL), expired, unavailable (503).",
	}, []string{"event", "outcome"})
	for _, e := range tracker.Events() {
		for o := range numTrackOutcomes {
			m.trackers[e][o] = trackers.WithLabelValues(e.String(), trackOutcomeNames[o])
		}
	}
	f(trackers)
	billing := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_billing_notices_total",
		Help: "Billing notices (OpenRTB burl, the win path with billing=1), by outcome: recorded (the first of its bid) or duplicate.",
	}, []string{"outcome"})
	m.billingRecorded, m.billingDuplicate = billing.WithLabelValues("recorded"), billing.WithLabelValues("duplicate")
	f(billing)
	if l == nil {
		return
	}
	records := prometheus.NewDesc("dspd_events_records_total", "Records written to the event log (synced), by type.", []string{"type"}, nil)
	f(collectorFunc{descs: []*prometheus.Desc{records}, collect: func(ch chan<- prometheus.Metric) {
		for name, n := range l.Stats().Records {
			ch <- prometheus.MustNewConstMetric(records, prometheus.CounterValue, float64(n), name)
		}
	}})
	for _, c := range []struct {
		name, help string
		gauge      bool
		v          func(events.Stats) int64
	}{
		{"dspd_events_bytes_total", "Bytes written to the event log.", false, func(s events.Stats) int64 { return s.Bytes }},
		{"dspd_events_syncs_total", "Fsyncs of the event log (each a group of records).", false, func(s events.Stats) int64 { return s.Syncs }},
		{"dspd_events_segments_finished_total", "Event log segments finished (by size or age).", false, func(s events.Stats) int64 { return s.Finished }},
		{"dspd_events_segments_deleted_total", "Event log segments deleted by the retention.", false, func(s events.Stats) int64 { return s.Deleted }},
		{"dspd_events_disk_full_total", "Event log writes that found the disk full.", false, func(s events.Stats) int64 { return s.DiskFull }},
		{"dspd_events_dir_bytes", "Bytes of the event log's segments on disk.", true, func(s events.Stats) int64 { return s.DirBytes }},
		{"dspd_events_spool_bytes", "Bytes of the event log's segments not yet wholly shipped (with -events kafka://…: the spool).", true, func(s events.Stats) int64 { return s.SpoolBytes }},
		{"dspd_events_unavailable", "1 while the event log cannot write (a full disk): no bids, notices answered 503.", true, func(s events.Stats) int64 {
			if s.Unavailable {
				return 1
			}
			return 0
		}},
	} {
		v := c.v
		if c.gauge {
			f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: c.name, Help: c.help}, func() float64 { return float64(v(l.Stats())) }))
		} else {
			f(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.name, Help: c.help}, func() float64 { return float64(v(l.Stats())) }))
		}
	}
}

// collectorFunc is a collector of series computed when scraped.
type collectorFunc struct {
	descs   []*prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// The outcomes of a tracker hit.
type trackOutcome uint8

const (
	trackRecorded trackOutcome = iota
	trackDuplicate
	trackInvalid
	trackExpired
	trackUnavailable
	numTrackOutcomes
)

var trackOutcomeNames = [numTrackOutcomes]string{"recorded", "duplicate", "invalid", "expired", "unavailable"}

// Register adds a collector to the server's /metrics (the event shipper's,
// say).
func (s *Server) Register(c prometheus.Collector) error { return s.metrics.reg.Register(c) }
