package pacingsim

import (
	"fmt"
	"math"

	"github.com/recbid/dspd/bidder"
)

// Result is what a run measured.
type Result struct {
	Days        int              `json:"days"`
	Start       string           `json:"start"`
	Requests    int              `json:"requests_per_campaign_day"`
	WinRate     float64          `json:"win_rate"`
	StepDay     int              `json:"step_day,omitempty"`
	StepAt      string           `json:"step_at,omitempty"`
	StepFactor  float64          `json:"step_factor,omitempty"`
	Paced       bool             `json:"paced"`
	LostNotices int              `json:"lost_notices"`
	Campaigns   []CampaignResult `json:"campaigns"`
}

// CampaignResult is one campaign's week.
type CampaignResult struct {
	ID         string      `json:"id"`
	Pacing     string      `json:"pacing"`
	BidCPM     string      `json:"bid_cpm"`
	Budget     string      `json:"daily_budget"`
	Oversupply float64     `json:"oversupply"`
	Days       []DayResult `json:"days"`
	Step       *StepResult `json:"step,omitempty"`
	Minutes    []Minute    `json:"-"`

	budget float64 // CPM micros
}

// DayResult is one campaign's day. Percentages are of the daily budget;
// deviations are spend minus target, in percentage points of it, at each
// whole hour (and at the end of the day, where the target is 100 %).
type DayResult struct {
	Day          int     `json:"day"`
	Date         string  `json:"date"`
	FinalPct     float64 `json:"final_spend_pct"`
	OvershootPct float64 `json:"overshoot_pct"`
	// WorstPP is the worst deviation from the controller's target (the
	// learned traffic curve), WorstTruePP from the traffic as simulated
	// (not on the step day, whose traffic no curve foretells), each at its
	// hour.
	WorstPP     float64 `json:"worst_hourly_deviation_pp"`
	WorstAt     int     `json:"worst_hour"`
	WorstTruePP float64 `json:"worst_hourly_deviation_true_pp,omitempty"`
	// CurvePP is the learned curve's worst gap to the simulated traffic's
	// cumulative share, at the whole hours.
	CurvePP float64 `json:"curve_error_pp,omitempty"`
	// SpentOutAt is the hour the budget ran out (spend within one bid of
	// it), or 24.
	SpentOutAt float64 `json:"spent_out_hour"`
	MeanRate   float64 `json:"mean_rate,omitempty"`
}

// StepResult is a paced campaign's answer to the traffic step. The rate
// before is its mean over the half hour before the step, the rate after
// its mean over the third hour after it. The rate's settling time is when
// its 10-minute mean first came within 5 % of the rate after; its
// overshoot is how far that mean went past the rate after (below it, for a
// step up), in % of the change. Noise is the 10-minute mean's standard
// deviation over the third hour, in % of the rate after: what the rate
// wanders by once settled. The deviation figures are those of the hourly
// goal: the worst gap to the target in the three hours after the step, and
// when it was back within ±5 points for good (0: it never left them).
type StepResult struct {
	RateBefore    float64 `json:"rate_before"`
	RateAfter     float64 `json:"rate_after"`
	RateSettleMin float64 `json:"rate_settling_min"`
	OvershootPct  float64 `json:"rate_overshoot_pct"`
	NoisePct      float64 `json:"rate_noise_pct"`
	WorstPP       float64 `json:"worst_deviation_pp"`
	BackWithinMin float64 `json:"back_within_5pp_min"`
}

// Minute is one campaign's figures at the start of a minute.
type Minute struct {
	Day, Minute int
	SpentPct    float64 // booked spend of the day
	TargetPct   float64 // the controller's target (for an asap campaign, the simulated traffic's share)
	TruePct     float64 // the simulated traffic's share (without the step)
	Rate        float64 // participation rate (1 for asap)
}

func newResult(cfg Config, camps []*bidder.Campaign) *Result {
	r := &Result{Days: cfg.Days, Start: cfg.Start.Format("2006-01-02"), Requests: cfg.Requests, WinRate: cfg.WinRate,
		Paced: !cfg.WithoutPacing}
	if cfg.StepDay > 0 {
		r.StepDay, r.StepAt, r.StepFactor = cfg.StepDay, fmt.Sprintf("%02d:%02d", int(cfg.StepAt.Hours()), int(cfg.StepAt.Minutes())%60), cfg.StepFactor
	}
	for i, c := range camps {
		r.Campaigns = append(r.Campaigns, CampaignResult{ID: c.ID, Pacing: c.Pacing.String(), BidCPM: c.BidCPM.String(),
			Budget: fmt.Sprintf("%.2f", float64(c.DailyBudget)/bidder.MicrosPerUnit), Oversupply: cfg.Campaigns[i].Oversupply,
			budget: float64(c.DailyBudget) * 1000})
	}
	return r
}

// record keeps every campaign's figures at the start of minute m of day
// (all of them: the step and the chart need every minute).
func (s *sim) record(day, m int) error {
	status := map[string]bidder.PaceStatus{}
	for _, st := range s.engine.PacingStatus() {
		status[st.CampaignID] = st
	}
	d := bidder.DayOfTime(s.now())
	for i, c := range s.camps {
		cr := &s.res.Campaigns[i]
		st, _, err := s.engine.Stats(s.ctx, c.ID, "", d)
		if err != nil {
			return err
		}
		pt := Minute{Day: day, Minute: m, SpentPct: 100 * float64(st.Spend) / cr.budget, TruePct: 100 * s.trueShare(float64(m)), Rate: 1}
		pt.TargetPct = pt.TruePct
		if ps, ok := status[c.ID]; ok && c.Paced() {
			pt.TargetPct, pt.Rate = 100*float64(ps.Target)/cr.budget, ps.Rate
		}
		cr.Minutes = append(cr.Minutes, pt)
	}
	return nil
}

// finish computes the days' and the step's figures from the minutes and
// the final spend of each day.
func (s *sim) finish() error {
	for i, c := range s.camps {
		cr := &s.res.Campaigns[i]
		for day := range s.cfg.Days {
			d := bidder.DayOfTime(s.cfg.Start) + bidder.Day(day)
			st, _, err := s.engine.Stats(s.ctx, c.ID, "", d)
			if err != nil {
				return err
			}
			cr.Days = append(cr.Days, s.dayResult(i, day, d, float64(st.Spend)))
		}
		if s.cfg.StepDay > 0 && s.cfg.StepDay <= s.cfg.Days && c.Paced() && !s.cfg.WithoutPacing {
			cr.Step = s.stepResult(cr)
		}
		if !s.cfg.KeepMinutes {
			cr.Minutes = nil
		}
	}
	return nil
}

func (s *sim) dayResult(idx, day int, d bidder.Day, final float64) DayResult {
	cr := &s.res.Campaigns[idx]
	r := DayResult{Day: day + 1, Date: d.String(), FinalPct: 100 * final / cr.budget, SpentOutAt: 24}
	r.OvershootPct = max(0, r.FinalPct-100)
	mins := cr.Minutes[day*1440 : (day+1)*1440]
	step := day+1 == s.cfg.StepDay
	worst := func(dev float64, h int, into *float64, at *int) {
		if math.Abs(dev) > math.Abs(*into) {
			*into = dev
			if at != nil {
				*at = h
			}
		}
	}
	rates := 0.0
	for h := 1; h <= 24; h++ {
		var spent, target, truth float64
		if h < 24 {
			pt := mins[h*60]
			spent, target, truth = pt.SpentPct, pt.TargetPct, pt.TruePct
		} else {
			spent, target, truth = r.FinalPct, 100, 100
		}
		worst(spent-target, h, &r.WorstPP, &r.WorstAt)
		if !step {
			worst(spent-truth, h, &r.WorstTruePP, nil)
		}
		if h < 24 && cr.Pacing == "even" {
			worst(target-truth, h, &r.CurvePP, nil)
		}
	}
	bid := 100 * float64(s.camps[idx].BidCPM) / cr.budget // one bid, in % of the budget
	for m, pt := range mins {
		rates += pt.Rate
		if r.SpentOutAt == 24 && pt.SpentPct+bid > 100 {
			r.SpentOutAt = float64(m) / 60
		}
	}
	if cr.Pacing == "even" {
		r.MeanRate = rates / 1440
	}
	return r
}

func (s *sim) stepResult(cr *CampaignResult) *StepResult {
	day := s.cfg.StepDay - 1
	at := day*1440 + int(s.cfg.StepAt.Minutes())
	mins := cr.Minutes
	end := min(at+180, len(mins))
	mean := func(from, to int) float64 {
		sum := 0.0
		for _, pt := range mins[from:to] {
			sum += pt.Rate
		}
		return sum / float64(to-from)
	}
	smooth := func(m int) float64 { return mean(max(m-9, at), m+1) } // the 10-minute mean, from the step on
	r := &StepResult{RateBefore: mean(at-30, at), RateAfter: mean(at+120, end), RateSettleMin: -1}
	change := r.RateBefore - r.RateAfter
	peak, sq := 0.0, 0.0
	for m := at; m < end; m++ {
		v := smooth(m)
		if r.RateSettleMin < 0 && math.Abs(v-r.RateAfter) <= 0.05*r.RateAfter {
			r.RateSettleMin = float64(m - at)
		}
		if change != 0 {
			peak = max(peak, (r.RateAfter-v)/change)
		}
		if m >= at+120 {
			sq += (v - r.RateAfter) * (v - r.RateAfter)
		}
		if dev := mins[m].SpentPct - mins[m].TargetPct; math.Abs(dev) > math.Abs(r.WorstPP) {
			r.WorstPP = dev
		}
	}
	r.OvershootPct = 100 * peak
	r.NoisePct = 100 * math.Sqrt(sq/float64(max(end-at-120, 1))) / r.RateAfter
	for m := at; m < (day+1)*1440; m++ {
		if math.Abs(mins[m].SpentPct-mins[m].TargetPct) > 5 {
			r.BackWithinMin = float64(m - at + 1)
		}
	}
	return r
}
