package pacingsim

import (
	"time"

	"github.com/recbid/dspd/bidder"
)

// Config is one simulation. Zero fields take the defaults of Default.
type Config struct {
	Days     int       // simulated days; default 7
	Start    time.Time // midnight UTC of the first day; default 2026-11-02
	Requests int       // mean requests a day to each campaign; default 200,000
	// Swing is b in a·(1 + b·cos(…)): 2/3 makes the peak five times the
	// trough. PeakAt is the time of day of the peak (default 20:00).
	Swing  float64
	PeakAt time.Duration
	// WinRate is the share of bids that win. A clearing price is the bid
	// times exp(N(PriceMu, PriceSigma²)), drawn again until below the bid.
	WinRate             float64
	PriceMu, PriceSigma float64
	MaxDelay            time.Duration // win notices arrive uniformly 0–MaxDelay after their bids (60 s)
	StepDay             int           // 1-based day on which traffic steps up; 0: never
	StepAt              time.Duration // time of day of the step (14:00)
	StepFactor          float64       // the step's factor (2)
	Seed                uint64
	Pacing              bidder.PacingConfig
	Campaigns           []Campaign
	WithoutPacing       bool // no pacing book: every campaign bids as asap (the control run)
	KeepMinutes         bool // keep every minute's figures in the result (for the chart)
}

// Campaign is one simulated campaign, alone on its own stream of requests.
type Campaign struct {
	ID     string
	BidCPM bidder.Micros
	Pacing bidder.Pacing
	// Oversupply is what the campaign would spend unthrottled over its
	// daily budget: the budget is set from it.
	Oversupply float64
}

// Default returns the simulation make pacing-sim runs: a week of four
// campaigns, 200,000 requests a day each, three even ones whose
// unthrottled spend is 2×, 2.5× and 4× their budget and one asap at 2×,
// with a 2× traffic step at 14:00 on day 5.
func Default() Config {
	return Config{
		Days:       7,
		Start:      time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Requests:   200_000,
		Swing:      2.0 / 3,
		PeakAt:     20 * time.Hour,
		WinRate:    0.5,
		PriceMu:    -0.5,
		PriceSigma: 0.3,
		MaxDelay:   time.Minute,
		StepDay:    5,
		StepAt:     14 * time.Hour,
		StepFactor: 2,
		Seed:       20261102,
		Campaigns: []Campaign{
			{ID: "even-a", BidCPM: 4_000_000, Pacing: bidder.PacingEven, Oversupply: 2.5},
			{ID: "even-b", BidCPM: 2_000_000, Pacing: bidder.PacingEven, Oversupply: 4},
			{ID: "even-c", BidCPM: 1_200_000, Pacing: bidder.PacingEven, Oversupply: 2},
			{ID: "asap-d", BidCPM: 3_000_000, Pacing: bidder.PacingASAP, Oversupply: 2},
		},
	}
}

func (c Config) withDefaults() Config {
	d := Default()
	if c.Days <= 0 {
		c.Days = d.Days
	}
	if c.Start.IsZero() {
		c.Start = d.Start
	}
	if c.Requests <= 0 {
		c.Requests = d.Requests
	}
	if c.Swing == 0 {
		c.Swing = d.Swing
	}
	if c.PeakAt == 0 {
		c.PeakAt = d.PeakAt
	}
	if c.WinRate <= 0 {
		c.WinRate = d.WinRate
	}
	if c.PriceSigma <= 0 {
		c.PriceMu, c.PriceSigma = d.PriceMu, d.PriceSigma
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = d.MaxDelay
	}
	if c.StepFactor <= 0 {
		c.StepFactor = d.StepFactor
	}
	if c.StepAt == 0 {
		c.StepAt = d.StepAt
	}
	if len(c.Campaigns) == 0 {
		c.Campaigns = d.Campaigns
	}
	return c
}
