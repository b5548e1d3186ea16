package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recbid/dspd/bidder"
)

// pacingCollector exports the paced campaigns' rate, target and spend as
// of the last pacing tick, read when Prometheus scrapes: one series per
// paced campaign, none per request.
type pacingCollector struct {
	engine              *bidder.Engine
	rate, target, spent *prometheus.Desc
	budget, ticked      *prometheus.Desc
}

func newPacingCollector(engine *bidder.Engine) *pacingCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, []string{"campaign"}, nil)
	}
	return &pacingCollector{
		engine: engine,
		rate:   d("dspd_pacing_rate", "Participation rate of a campaign with pacing even: the share of the requests it matches that it takes part in."),
		target: d("dspd_pacing_target_spend_micros", "The traffic-shaped target spend of a paced campaign by the last tick (CPM micros; divide by 1000 for money)."),
		spent:  d("dspd_pacing_spend_micros", "Booked spend of a paced campaign's day at the last tick (CPM micros)."),
		budget: d("dspd_pacing_budget_micros", "A paced campaign's daily budget (CPM micros)."),
		ticked: d("dspd_pacing_tick_timestamp_seconds", "When a paced campaign's controller last ticked (pacing clock, Unix seconds)."),
	}
}

func (c *pacingCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.rate, c.target, c.spent, c.budget, c.ticked} {
		ch <- d
	}
}

func (c *pacingCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.engine.PacingStatus() {
		for _, v := range []struct {
			d *prometheus.Desc
			x float64
		}{{c.rate, st.Rate}, {c.target, float64(st.Target)}, {c.spent, float64(st.Spent)}, {c.budget, float64(st.Budget)},
			{c.ticked, float64(st.At.Unix())}} {
			ch <- prometheus.MustNewConstMetric(v.d, prometheus.GaugeValue, v.x, st.CampaignID)
		}
	}
}
