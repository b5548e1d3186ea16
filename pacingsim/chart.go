package pacingsim

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

var (
	spendColor  = color.RGBA{R: 0x00, G: 0x7d, B: 0x9c, A: 0xff}
	targetColor = color.RGBA{R: 0xe7, G: 0x6f, B: 0x00, A: 0xff}
	rateColor   = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

// chartEvery is the chart's resolution: a point every ten minutes.
const chartEvery = 10

// WriteChart draws the week as an SVG at path: one panel per campaign,
// its booked spend of the day and its target (the controller's, or for an
// asap campaign the traffic's share), in % of the daily budget, and its
// participation rate, day by day; the legend sits above the panels. The result must come from a run with
// KeepMinutes.
func (r *Result) WriteChart(path string) error {
	n := len(r.Campaigns)
	if n == 0 || len(r.Campaigns[0].Minutes) == 0 {
		return fmt.Errorf("pacingsim: no minutes kept to chart (Config.KeepMinutes)")
	}
	const panelH = 2.4 * vg.Inch
	width, legendH := 9*vg.Inch, 0.75*vg.Inch
	height := legendH + vg.Length(n)*panelH
	canvas := vgsvg.New(width, height)
	dc := draw.New(canvas)

	var spendLine, targetLine, rateLine *plotter.Line
	for i, c := range r.Campaigns {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: pacing %s, bid $%s CPM, budget $%s a day, unthrottled spend %.1f× the budget",
			c.ID, c.Pacing, c.BidCPM, c.Budget, c.Oversupply)
		p.Y.Label.Text = "% of budget"
		if i == n-1 {
			p.X.Label.Text = "days from " + r.Start + " (UTC)"
		}
		var spent, target, rate plotter.XYs
		for k, m := range c.Minutes {
			if k%chartEvery != 0 {
				continue
			}
			x := float64(m.Day*24) + float64(m.Minute)/60
			spent = append(spent, plotter.XY{X: x, Y: m.SpentPct})
			target = append(target, plotter.XY{X: x, Y: m.TargetPct})
			rate = append(rate, plotter.XY{X: x, Y: 100 * m.Rate})
		}
		var err error
		if targetLine, err = line(target, targetColor, 1.5, []vg.Length{vg.Points(4), vg.Points(3)}); err != nil {
			return err
		}
		if spendLine, err = line(spent, spendColor, 1.5, nil); err != nil {
			return err
		}
		if rateLine, err = line(rate, rateColor, 0.8, nil); err != nil {
			return err
		}
		p.Add(plotter.NewGrid(), rateLine, spendLine, targetLine)
		p.X.Min, p.X.Max = 0, float64(r.Days*24)
		p.Y.Min, p.Y.Max = 0, 105
		p.X.Tick.Marker = dayTicks{}
		top := height - legendH - vg.Length(i)*panelH
		p.Draw(draw.Crop(dc, 0, 0, top-panelH, top-height))
	}
	legend := plot.NewLegend()
	legend.Add("booked spend of the day", spendLine)
	legend.Add("target (traffic-shaped)", targetLine)
	legend.Add("participation rate, in %", rateLine)
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, vg.Points(60), 0, height-legendH+vg.Points(4), -vg.Points(4)))

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func line(pts plotter.XYs, c color.Color, width float64, dashes []vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(width), dashes
	return l, nil
}

// dayTicks mark every midnight, and name each day at its noon.
type dayTicks struct{}

func (dayTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for h := 0.0; h <= max; h += 24 {
		if h >= min {
			ticks = append(ticks, plot.Tick{Value: h})
		}
		if h+12 <= max {
			ticks = append(ticks, plot.Tick{Value: h + 12, Label: fmt.Sprintf("day %.0f", h/24+1)})
		}
	}
	return ticks
}
