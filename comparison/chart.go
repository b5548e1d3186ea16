package comparison

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours: Go in blues, Java in oranges; the idiomatic pair in the
// familiar tones, the fastest pair darker, the extra no-PGO row pale.
var serverColors = map[string]color.Color{
	goChi:      color.RGBA{R: 0x00, G: 0x9c, B: 0xc4, A: 0xff},
	tomcat:     color.RGBA{R: 0xf0, G: 0x8c, B: 0x1a, A: 0xff},
	goFasthttp: color.RGBA{R: 0x00, G: 0x4e, B: 0x6e, A: 0xff},
	netty:      color.RGBA{R: 0xa8, G: 0x3a, B: 0x00, A: 0xff},
	goChiNoPGO: color.RGBA{R: 0x9e, G: 0xd9, B: 0xe8, A: 0xff},
}

func colorOf(name string) color.Color {
	if c, ok := serverColors[name]; ok {
		return c
	}
	return color.Gray{Y: 0x80}
}

// chartFile is a chart written next to report.md.
type chartFile struct{ file, alt string }

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func style(size float64) text.Style {
	return text.Style{Font: font.From(sans, font.Length(size)), Handler: plot.DefaultTextHandler}
}

func boldStyle(size float64) text.Style {
	f := sans
	f.Weight = 3 // golang.org/x/image/font.WeightBold, without making x/image a direct dependency
	return text.Style{Font: font.From(f, font.Length(size)), Handler: plot.DefaultTextHandler}
}

// newPlot is a plot in the charts' fonts (gonum's alignments kept).
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = boldStyle(12).Font
	p.Title.Padding = vg.Points(6)
	p.Y.Label.Text = ylabel
	p.Y.Label.TextStyle.Font = style(10).Font
	p.X.Label.TextStyle.Font = style(10).Font
	p.X.Tick.Label.Font = style(9).Font
	p.Y.Tick.Label.Font = style(9).Font
	return p
}

// figure is one SVG: a grid of panels and, to their right and outside
// every panel's plotted area, one legend.
type figure struct {
	file, alt     string
	width, height vg.Length
	rows          [][]*plot.Plot
	legend        legend
}

const margin = vg.Length(10) // points

// layout places the panels and the legend on the canvas: the legend's
// column is cut off the right edge first, so no panel reaches under it.
func (f *figure) layout(dc draw.Canvas) ([][]draw.Canvas, vg.Rectangle) {
	lw, lh := f.legend.size()
	legendCol := lw + 2*margin
	if len(f.legend.entries) == 0 {
		legendCol = 0
	}
	panelsArea := draw.Crop(dc, margin/2, -legendCol, margin/2, -margin/2)
	cols := len(f.rows[0])
	panels := plot.Align(f.rows, draw.Tiles{Rows: len(f.rows), Cols: cols, PadX: vg.Points(18), PadY: vg.Points(14)}, panelsArea)
	top := dc.Max.Y - margin - vg.Points(18) // level with the first panel's plotted area, below its title
	box := vg.Rectangle{Min: vg.Point{X: dc.Max.X - legendCol + margin, Y: top - lh}, Max: vg.Point{X: dc.Max.X - margin, Y: top}}
	return panels, box
}

func (f *figure) save(path string) error {
	c := vgsvg.NewWith(vgsvg.UseWH(f.width, f.height))
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	panels, box := f.layout(dc)
	for i, row := range f.rows {
		for j, p := range row {
			if p != nil {
				p.Draw(panels[i][j])
			}
		}
	}
	f.legend.draw(dc, box)
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// legend is a column of entries: headings, and swatches or line samples
// with their labels.
type legend struct {
	entries []legendEntry
}

type legendEntry struct {
	text    string
	heading bool
	swatch  color.Color     // a bar's colour
	line    *draw.LineStyle // or a line's style
}

var (
	legendText    = style(9.5)
	legendHeading = boldStyle(9.5)
	thumbW        = vg.Points(18)
	entryGap      = vg.Points(4)
)

func (l *legend) heading(t string) {
	l.entries = append(l.entries, legendEntry{text: t, heading: true})
}
func (l *legend) bar(t string, c color.Color) {
	l.entries = append(l.entries, legendEntry{text: t, swatch: c})
}
func (l *legend) line(t string, s draw.LineStyle) {
	l.entries = append(l.entries, legendEntry{text: t, line: &s})
}
func (l *legend) note(t string) { l.entries = append(l.entries, legendEntry{text: t}) }

func (e legendEntry) style() text.Style {
	if e.heading {
		return legendHeading
	}
	return legendText
}

func (e legendEntry) indent() vg.Length {
	if e.swatch != nil || e.line != nil {
		return thumbW + vg.Points(5)
	}
	return 0
}

func (l *legend) lineHeight() vg.Length { return legendText.Height("Ag") + entryGap }

// fallbackSlack widens what text needs: the SVGs name their fonts without
// embedding them (embedding adds a megabyte per chart), and a renderer
// without Liberation Sans substitutes a wider one (librsvg's DejaVu Sans
// is about 15% wider).
const fallbackSlack = 1.2

// size is the legend's width and height.
func (l *legend) size() (vg.Length, vg.Length) {
	var w vg.Length
	for _, e := range l.entries {
		w = max(w, e.indent()+e.style().Width(e.text)*fallbackSlack)
	}
	return w, vg.Length(len(l.entries)) * l.lineHeight()
}

func (l *legend) draw(c draw.Canvas, box vg.Rectangle) {
	h := l.lineHeight()
	y := box.Max.Y
	for i, e := range l.entries {
		if e.heading && i > 0 {
			y -= h / 3
		}
		base := y - h + entryGap
		sty := e.style()
		switch {
		case e.swatch != nil:
			c.FillPolygon(e.swatch, []vg.Point{{X: box.Min.X, Y: base}, {X: box.Min.X + thumbW, Y: base},
				{X: box.Min.X + thumbW, Y: base + h - entryGap}, {X: box.Min.X, Y: base + h - entryGap}})
		case e.line != nil:
			mid := base + (h-entryGap)/2
			c.StrokeLine2(*e.line, box.Min.X, mid, box.Min.X+thumbW, mid)
		}
		c.FillText(sty, vg.Point{X: box.Min.X + e.indent(), Y: base + sty.FontExtents().Descent}, e.text)
		y -= h
	}
}

// writeCharts draws the charts of the report into dir.
func writeCharts(dir string, rep *Report) ([]chartFile, error) {
	var out []chartFile
	for _, f := range charts(rep) {
		if err := f.save(filepath.Join(dir, f.file)); err != nil {
			return nil, fmt.Errorf("%s: %w", f.file, err)
		}
		out = append(out, chartFile{file: f.file, alt: f.alt})
	}
	return out, nil
}

// charts builds every chart of the report: the scenario figures as bars
// grouped by scenario and, within a scenario, by pair; and the open loop's
// latency curves, one panel per pair.
func charts(rep *Report) []*figure {
	if len(rep.Scenarios) == 0 {
		return nil
	}
	rps := func(s Sample) float64 { return s.RequestsPerSecond }
	cpu := func(s Sample) float64 { return s.CPUMicrosPerReq }
	p99 := func(s Sample) float64 { return s.P99 }
	p999 := func(s Sample) float64 { return s.P999 }
	rss := func(s Sample) float64 { return mb(s.RSSBytes) }
	w, h := 8*vg.Inch, vg.Length(4.2)*vg.Inch
	figs := []*figure{
		{file: "throughput.svg", alt: "median requests/s by scenario and server", width: w, height: h,
			rows: [][]*plot.Plot{{barPlot(rep, "Median throughput by scenario", "requests/s", rps, false)}}},
		{file: "cpu.svg", alt: "median server CPU per request by scenario and server", width: w, height: h,
			rows: [][]*plot.Plot{{barPlot(rep, "Median server CPU per request", "µs of CPU per request", cpu, false)}}},
		{file: "tail.svg", alt: "median p99 and p99.9 latency by scenario and server", width: w, height: 2 * h,
			rows: [][]*plot.Plot{{barPlot(rep, "Median p99 latency", "ms (log scale)", p99, true)},
				{barPlot(rep, "Median p99.9 latency", "ms (log scale)", p999, true)}}},
		{file: "rss.svg", alt: "median peak RSS during the round by scenario and server", width: w, height: h,
			rows: [][]*plot.Plot{{barPlot(rep, "Peak RSS during the round (median)", "MB", rss, false)}}},
	}
	for _, f := range figs {
		f.legend = barLegend(rep)
	}
	if d := rep.scenario("d"); d != nil {
		figs = append(figs, latencyFigure(rep, d))
	}
	return figs
}

// slot is one bar position within a scenario's group.
type slot struct {
	server ServerInfo
	offset float64 // from the group's centre, in scenarios
}

// barSlots places each server's bar: a pair's two bars touch, pairs are
// half a bar apart, and the servers in no pair come last.
func barSlots(rep *Report) ([]slot, float64) {
	var pos []float64
	var servers []ServerInfo
	x := 0.0
	for gi, g := range groups(rep) {
		if gi > 0 {
			x += 0.6
		}
		for _, s := range g.servers {
			servers = append(servers, s)
			pos = append(pos, x)
			x++
		}
	}
	if len(servers) == 0 {
		return nil, 0
	}
	const span = 0.86 // of the distance between two scenarios
	unit := span / x
	out := make([]slot, len(servers))
	for i, s := range servers {
		out[i] = slot{server: s, offset: (pos[i]+0.5)*unit - span/2}
	}
	return out, unit * 0.94
}

func barLegend(rep *Report) legend {
	var l legend
	for _, g := range groups(rep) {
		if g.pair == nil {
			l.heading("in no pair")
		} else {
			l.heading(g.pair.Key + " pair")
		}
		for _, s := range g.servers {
			l.bar(s.legend(), colorOf(s.Name))
		}
	}
	l.note("")
	l.note("n.nn×: Go / Java in a pair")
	return l
}

// bars draws rectangles from the bottom of the axis up to each value.
type bars struct {
	slots  []slot
	width  float64
	values [][]float64 // by slot, then scenario; NaN for none
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, s := range b.slots {
		for j, v := range b.values[i] {
			if math.IsNaN(v) || v <= p.Y.Min {
				continue
			}
			x0, x1 := trX(float64(j)+s.offset-b.width/2), trX(float64(j)+s.offset+b.width/2)
			y0, y1 := c.Min.Y, min(trY(v), c.Max.Y)
			c.FillPolygon(colorOf(s.server.Name), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		}
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, vs := range b.values {
		for _, v := range vs {
			if !math.IsNaN(v) {
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
	}
	if math.IsInf(ymin, 0) {
		ymin, ymax = 0, 1
	}
	return -0.5, float64(len(b.values[0])) - 0.5, ymin, ymax
}

// barPlot is one figure of every scenario and server as grouped bars,
// each pair's Go / Java ratio written over its two bars.
func barPlot(rep *Report, title, ylabel string, value func(Sample) float64, logScale bool) *plot.Plot {
	p := newPlot(title, ylabel)
	slots, width := barSlots(rep)
	b := &bars{slots: slots, width: width, values: make([][]float64, len(slots))}
	var names []string
	for _, sc := range rep.Scenarios {
		names = append(names, "("+sc.Key+")\n"+sc.Short)
	}
	for i, s := range slots {
		b.values[i] = make([]float64, len(rep.Scenarios))
		for j, sc := range rep.Scenarios {
			b.values[i][j] = math.NaN()
			if series := sc.Servers[s.server.Name]; series != nil {
				b.values[i][j] = value(series.Median)
			}
		}
	}
	p.Add(plotter.NewGrid())
	p.Add(b)
	_, _, lo, hi := b.DataRange()
	if logScale {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = oneTwoFive{}
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(math.Max(lo, 0.01)/1.2)))
		p.Y.Max = hi * 2.2
	} else {
		p.Y.Tick.Marker = wholeTicks{}
		p.Y.Min, p.Y.Max = 0, hi*1.14
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5

	// The ratio of each pair, centred over its two bars.
	var xys plotter.XYLabels
	for j, sc := range rep.Scenarios {
		for _, pr := range rep.Pairs {
			_, ok := sc.Ratios[pr.Key]
			gi, ji := slotIndex(slots, pr.Go), slotIndex(slots, pr.Java)
			if !ok || gi < 0 || ji < 0 || math.IsNaN(b.values[gi][j]) || math.IsNaN(b.values[ji][j]) {
				continue
			}
			ratio := value(sc.Servers[pr.Go].Median) / value(sc.Servers[pr.Java].Median)
			if math.IsNaN(ratio) || math.IsInf(ratio, 0) {
				continue
			}
			xys.XYs = append(xys.XYs, plotter.XY{X: float64(j) + (slots[gi].offset+slots[ji].offset)/2,
				Y: math.Max(b.values[gi][j], b.values[ji][j])})
			xys.Labels = append(xys.Labels, strconv.FormatFloat(ratio, 'f', 2, 64)+"×")
		}
	}
	if len(xys.XYs) > 0 {
		labels, err := plotter.NewLabels(xys)
		if err == nil {
			for i := range labels.TextStyle {
				labels.TextStyle[i] = style(7.5)
				labels.TextStyle[i].XAlign = draw.XCenter
			}
			labels.Offset = vg.Point{Y: vg.Points(2)}
			p.Add(labels)
		}
	}
	return p
}

func slotIndex(slots []slot, name string) int {
	for i, s := range slots {
		if s.server.Name == name {
			return i
		}
	}
	return -1
}

// wholeTicks label a linear axis from 0 at a round step (1, 2, 2.5 or 5
// times a power of ten) giving four to eight labels, with thousands
// separators, and an unlabelled tick halfway between two labels.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	step := tickStep(max - min)
	if step <= 0 {
		return nil
	}
	var ticks []plot.Tick
	for i := math.Ceil(min / step); i*step <= max+step*1e-9; i++ {
		v := i * step
		label := thousands(v)
		if step < 1 {
			label = strconv.FormatFloat(math.Round(v*1e6)/1e6, 'g', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		if mid := v + step/2; mid <= max {
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}

// tickStep is the round step that cuts span into four to eight parts.
func tickStep(span float64) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 0
	}
	pow := math.Pow(10, math.Floor(math.Log10(span)))
	for _, m := range []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10} {
		if step := m * pow; span/step <= 8 {
			return step
		}
	}
	return 10 * pow
}

// nines maps a percentile to -log10(1 - p/100), so that 90, 99, 99.9 sit
// evenly spaced, as HdrHistogram's plots draw them.
func nines(p float64) float64 { return -math.Log10(math.Max(1-p/100, 1e-5)) }

type ninesTicks struct{}

func (ninesTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, p := range []float64{50, 90, 99, 99.9, 99.99, 99.999} { // 0% would crowd 50%
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

// latencyFigure draws the open loop's latency by percentile, all rounds
// together, one panel per pair (each at its own offered rate) on the same
// latency axis.
func latencyFigure(rep *Report, d *ScenarioResult) *figure {
	f := &figure{file: "latency.svg", alt: "latency by percentile in the open loop (d), one panel per pair",
		width: 10 * vg.Inch, height: vg.Length(4.2) * vg.Inch}
	lo, hi := math.Inf(1), math.Inf(-1)
	var row []*plot.Plot
	for _, g := range groups(rep) {
		if g.pair == nil {
			continue
		}
		title := fmt.Sprintf("(d) %s, %s req/s", g.pair.Key, thousands(d.TargetRates[g.pair.Key]))
		p := newPlot(title, "latency (ms, log scale)")
		p.X.Label.Text = "percentile"
		p.X.Tick.Marker = ninesTicks{}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = oneTwoFive{}
		p.Add(plotter.NewGrid())
		members := g.servers
		for _, s := range rep.Servers { // the servers in no pair run this pair's rate
			if s.Pair == "" && s.RatePair == g.pair.Key {
				members = append(members, s)
			}
		}
		for _, s := range members {
			series := d.Servers[s.Name]
			if series == nil || len(series.Curve) == 0 {
				continue
			}
			pts := make(plotter.XYs, 0, len(series.Curve))
			for _, c := range series.Curve {
				if c.Percentile >= 100 {
					continue // the maximum sits at infinity on this axis
				}
				y := math.Max(c.Ms, 0.001)
				pts = append(pts, plotter.XY{X: nines(c.Percentile), Y: y})
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				continue
			}
			line.LineStyle = serverLine(s)
			p.Add(line)
		}
		row = append(row, p)
	}
	if !math.IsInf(lo, 0) {
		for _, p := range row {
			p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
			p.X.Min, p.X.Max = 0, nines(99.99)
		}
	}
	f.rows = [][]*plot.Plot{row}
	for _, g := range groups(rep) {
		if g.pair == nil {
			l := "in no pair"
			f.legend.heading(l)
		} else {
			f.legend.heading(g.pair.Key + " pair")
		}
		for _, s := range g.servers {
			f.legend.line(s.legend(), serverLine(s))
		}
	}
	f.legend.note("")
	f.legend.note("open loop (d), all rounds")
	f.legend.note("together; each pair at")
	f.legend.note("its own offered rate")
	return f
}

func serverLine(s ServerInfo) draw.LineStyle {
	ls := draw.LineStyle{Color: colorOf(s.Name), Width: vg.Points(2)}
	if s.Pair == "" {
		ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return ls
}
