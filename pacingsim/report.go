package pacingsim

import (
	"fmt"
	"io"
	"strings"
)

// WriteTable writes the result as a plain-text table: one line per
// campaign and day, then each paced campaign's step response.
func (r *Result) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d days from %s, %d requests a day to each campaign, win rate %.2f", r.Days, r.Start, r.Requests, r.WinRate)
	if r.StepDay > 0 {
		fmt.Fprintf(&b, ", traffic ×%g from %s on day %d", r.StepFactor, r.StepAt, r.StepDay)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "%-8s %-5s %4s %11s %9s %11s %11s %9s %9s %9s\n", "campaign", "pace", "day", "final spend", "overshoot",
		"worst hour", "vs traffic", "curve", "spent out", "mean rate")
	for _, c := range r.Campaigns {
		for _, d := range c.Days {
			rate := "-"
			if d.MeanRate > 0 {
				rate = fmt.Sprintf("%.3f", d.MeanRate)
			}
			truth, curve := "-", "-"
			if d.WorstTruePP != 0 {
				truth = fmt.Sprintf("%+.2f pp", d.WorstTruePP)
			}
			if d.CurvePP != 0 {
				curve = fmt.Sprintf("%+.2f", d.CurvePP)
			}
			fmt.Fprintf(&b, "%-8s %-5s %4d %10.2f%% %8.2f%% %+7.2f pp%s %11s %9s %8.1fh %9s\n", c.ID, c.Pacing, d.Day, d.FinalPct,
				d.OvershootPct, d.WorstPP, fmt.Sprintf("@%02d", d.WorstAt), truth, curve, d.SpentOutAt, rate)
		}
	}
	steps := false
	for _, c := range r.Campaigns {
		if c.Step == nil {
			continue
		}
		if !steps {
			fmt.Fprintf(&b, "\nstep on day %d at %s (traffic ×%g):\n", r.StepDay, r.StepAt, r.StepFactor)
			fmt.Fprintf(&b, "%-8s %11s %10s %15s %14s %11s %15s %16s\n", "campaign", "rate before", "rate after", "rate settles in",
				"rate overshoot", "rate noise", "worst deviation", "back within 5pp")
			steps = true
		}
		s := c.Step
		settle := "never"
		if s.RateSettleMin >= 0 {
			settle = fmt.Sprintf("%.0f min", s.RateSettleMin)
		}
		fmt.Fprintf(&b, "%-8s %11.3f %10.3f %15s %13.1f%% %10.1f%% %12.2f pp %12.0f min\n", c.ID, s.RateBefore, s.RateAfter, settle,
			s.OvershootPct, s.NoisePct, s.WorstPP, s.BackWithinMin)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
