package kafka

import "github.com/prometheus/client_golang/prometheus"

// Collector returns the shipper's Prometheus series, computed from Stats
// when scraped.
func (s *Shipper) Collector() prometheus.Collector {
	descs := map[string]*prometheus.Desc{
		"shipped": prometheus.NewDesc("dspd_events_shipped_total", "Event records acknowledged by Kafka.", nil, nil),
		"bytes":   prometheus.NewDesc("dspd_events_shipped_bytes_total", "Bytes of the event records acknowledged by Kafka.", nil, nil),
		"errors":  prometheus.NewDesc("dspd_events_broker_errors_total", "Failures talking to the Kafka brokers (connections, unanswered requests, refused rounds): the shipper retries, the records wait in the spool.", nil, nil),
		"lag":     prometheus.NewDesc("dspd_events_ship_lag_records", "Event records synced to the spool but not yet acknowledged by Kafka.", nil, nil),
		"lagsec":  prometheus.NewDesc("dspd_events_ship_lag_seconds", "Age of the oldest event record not yet acknowledged by Kafka (0: none waits).", nil, nil),
		"skipped": prometheus.NewDesc("dspd_events_skipped_segments_total", "Segments deleted before they were shipped (never, with the retention dspd sets for Kafka).", nil, nil),
	}
	return collector{s: s, d: descs}
}

type collector struct {
	s *Shipper
	d map[string]*prometheus.Desc
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.d {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	ch <- prometheus.MustNewConstMetric(c.d["shipped"], prometheus.CounterValue, float64(st.Records))
	ch <- prometheus.MustNewConstMetric(c.d["bytes"], prometheus.CounterValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(c.d["errors"], prometheus.CounterValue, float64(st.BrokerErrors))
	ch <- prometheus.MustNewConstMetric(c.d["lag"], prometheus.GaugeValue, float64(st.LagRecords))
	ch <- prometheus.MustNewConstMetric(c.d["lagsec"], prometheus.GaugeValue, st.LagSeconds)
	ch <- prometheus.MustNewConstMetric(c.d["skipped"], prometheus.CounterValue, float64(st.SkippedSegments))
}
