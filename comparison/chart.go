package comparison

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var serverColors = map[string]color.Color{
	"go":       color.RGBA{R: 0x00, G: 0x7d, B: 0x9c, A: 0xff}, // Go blue
	"go-nopgo": color.RGBA{R: 0x7f, G: 0xc4, B: 0xd6, A: 0xff},
	"java":     color.RGBA{R: 0xe7, G: 0x6f, B: 0x00, A: 0xff}, // Java orange
}

// writeCharts draws throughput.svg (median requests/s per scenario and
// server) and latency.svg (latency percentile curves under the open loop's
// equal load) into dir.
func writeCharts(dir string, rep *Report) ([]string, error) {
	var files []string
	if err := throughputChart(filepath.Join(dir, "throughput.svg"), rep); err != nil {
		return nil, err
	}
	files = append(files, "throughput.svg")
	if d := rep.scenario("d"); d != nil {
		if err := latencyChart(filepath.Join(dir, "latency.svg"), rep, d); err != nil {
			return nil, err
		}
		files = append(files, "latency.svg")
	}
	return files, nil
}

func throughputChart(path string, rep *Report) error {
	p := plot.New()
	p.Title.Text = "Median throughput by scenario"
	p.Y.Label.Text = "requests/s"
	var names []string
	for _, sc := range rep.Scenarios {
		names = append(names, "("+sc.Key+") "+sc.Short)
	}
	w := vg.Points(22)
	top := 0.0
	for i, s := range rep.Servers {
		values := make(plotter.Values, len(rep.Scenarios))
		for j, sc := range rep.Scenarios {
			if series := sc.Servers[s.Name]; series != nil {
				values[j] = series.Median.RequestsPerSecond
				top = math.Max(top, values[j])
			}
		}
		bars, err := plotter.NewBarChart(values, w)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = serverColors[s.Name]
		bars.Offset = w * vg.Length(float64(i)-float64(len(rep.Servers)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Label, bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min, p.Y.Max = 0, top*1.25 // room for the legend above the bars
	p.Y.Tick.Marker = wholeTicks{}
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}

// wholeTicks are gonum's default ticks labelled as whole numbers.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', 0, 64)
		}
	}
	return ticks
}

// nines maps a percentile to -log10(1 - p/100), so that 90, 99, 99.9 sit
// evenly spaced, as HdrHistogram's plots draw them.
func nines(p float64) float64 { return -math.Log10(math.Max(1-p/100, 1e-5)) }

type ninesTicks struct{}

func (ninesTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, p := range []float64{0, 50, 90, 99, 99.9, 99.99, 99.999} {
		if x := nines(p); x >= min && x <= max {
			ticks = append(ticks, plot.Tick{Value: x, Label: fmt.Sprintf("%g%%", p)})
		}
	}
	return ticks
}

// oneTwoFive labels a log axis at 1, 2 and 5 times the powers of ten.
type oneTwoFive struct{}

func (oneTwoFive) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ticks
}

func latencyChart(path string, rep *Report, d *ScenarioResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Latency by percentile, open loop at %.0f req/s, all rounds together", d.TargetRate)
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency (ms, log scale)"
	p.X.Tick.Marker = ninesTicks{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = oneTwoFive{}
	for _, s := range rep.Servers {
		series := d.Servers[s.Name]
		if series == nil || len(series.Curve) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(series.Curve))
		for _, c := range series.Curve {
			if c.Percentile >= 100 {
				continue // the maximum sits at infinity on this axis
			}
			pts = append(pts, plotter.XY{X: nines(c.Percentile), Y: math.Max(c.Ms, 0.001)})
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = serverColors[s.Name]
		line.Width = vg.Points(2)
		p.Add(line)
		p.Legend.Add(s.Label, line)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}
