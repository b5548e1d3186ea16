package abrate

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart is a line chart a description draws after its table: each series
// a line through its points, whose coordinates are templates over the
// medians, like the table's lines.
type Chart struct {
	File   string   `json:"file"` // the SVG written, a template ({{.out}}/scaling.svg)
	Title  string   `json:"title"`
	X      string   `json:"x"` // the axes' labels
	Y      string   `json:"y"`
	Series []Series `json:"series"`
}

// Series is one line of a chart.
type Series struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
}

// Point is one point of a series; X and Y are templates that expand to
// numbers.
type Point struct {
	X string `json:"x"`
	Y string `json:"y"`
}

// seriesColors tell a chart's lines apart, in the series' order.
var seriesColors = []color.Color{
	color.RGBA{R: 0x00, G: 0x9c, B: 0xc4, A: 0xff},
	color.RGBA{R: 0xf0, G: 0x8c, B: 0x1a, A: 0xff},
	color.RGBA{R: 0x00, G: 0x4e, B: 0x6e, A: 0xff},
	color.RGBA{R: 0xa8, G: 0x3a, B: 0x00, A: 0xff},
}

func (d *Description) validateCharts(ps *problems) {
	for i, c := range d.Charts {
		bad := ps.at(fmt.Sprintf("charts[%d] %q", i, c.Title))
		if c.File == "" {
			bad("no file")
		} else if !strings.HasSuffix(c.File, ".svg") {
			bad("file: %q is not an .svg", c.File)
		}
		if len(c.Series) == 0 {
			bad("no series")
		}
		if len(c.Series) > len(seriesColors) {
			bad("%d series, more than the %d colours", len(c.Series), len(seriesColors))
		}
		for j, s := range c.Series {
			if len(s.Points) == 0 {
				bad("series[%d] %q: no points", j, s.Name)
			}
		}
	}
}

// charts draws the description's charts over the medians; a check
// expands every coordinate and writes nothing.
func (r *runner) charts() error {
	figures := r.medians(nil, "in any phase")
	for i, c := range r.d.Charts {
		where := fmt.Sprintf("charts[%d]", i)
		file, err := expand(where+", file", c.File, r.vars, figures)
		if err != nil {
			return err
		}
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = c.Title, c.X, c.Y
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		for j, s := range c.Series {
			xys := make(plotter.XYs, len(s.Points))
			for k, pt := range s.Points {
				at := fmt.Sprintf("%s, series %q, point %d", where, s.Name, k+1)
				if xys[k].X, err = r.coordinate(at+" x", pt.X, figures); err != nil {
					return err
				}
				if xys[k].Y, err = r.coordinate(at+" y", pt.Y, figures); err != nil {
					return err
				}
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return fmt.Errorf("%s, series %q: %w", where, s.Name, err)
			}
			line.Color, points.Color = seriesColors[j], seriesColors[j]
			line.Width, points.Radius = vg.Points(1.5), vg.Points(3)
			p.Add(line, points)
			p.Legend.Add(s.Name, line, points)
		}
		pad(p)
		if r.dry {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := p.Save(6*vg.Inch, 4*vg.Inch, file); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		fmt.Fprintln(r.cfg.Stderr, "wrote", file)
	}
	return nil
}

// pad widens the axes a little past the points, so that the first and
// last points and their tick labels are not cut at the edges, and leaves
// room above the highest for the legend.
func pad(p *plot.Plot) {
	span := p.X.Max - p.X.Min
	if span == 0 {
		span = 1
	}
	p.X.Min, p.X.Max = p.X.Min-0.05*span, p.X.Max+0.05*span
	p.Y.Max *= 1.2
}

// coordinate expands a point's template to a number.
func (r *runner) coordinate(where, tmpl string, figures view) (float64, error) {
	s, err := expand(where, tmpl, r.vars, figures)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", where, s)
	}
	return v, nil
}
