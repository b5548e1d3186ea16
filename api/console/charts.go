package console

import (
	"strconv"
	"strings"

	"github.com/recbid/dspd/bidder"
)

// chart is a line chart drawn as inline SVG on the server: no script, no
// library. Its geometry is in viewBox units; CSS scales it to the page.
type chart struct {
	Title, Desc string
	W, H        int
	Left, Top   int
	PlotW       int
	PlotH       int
	Lines       []line
	XTicks      []tick
	YTicks      []tick
	Empty       bool
}

type line struct {
	Class, Name string
	Points      string // "x,y x,y …"
}

type tick struct {
	X, Y   string
	Label  string
	Anchor string // text-anchor: start, middle or end
}

const (
	chartW, chartH     = 720, 240
	chartLeft, chartTp = 64, 12
	chartRight         = 12
	chartBottom        = 28
)

// lineChart draws series of one length n (the day's buckets) up to bucket
// upto (the present), each bucket step apart in minutes; yLabel formats a
// y value.
func lineChart(title, desc string, n, upto, step int, series []line, values [][]float64, yLabel func(float64) string) chart {
	c := chart{Title: title, Desc: desc, W: chartW, H: chartH, Left: chartLeft, Top: chartTp,
		PlotW: chartW - chartLeft - chartRight, PlotH: chartH - chartTp - chartBottom}
	top := 0.0
	for _, vs := range values {
		for i := 0; i < upto && i < len(vs); i++ {
			top = max(top, vs[i])
		}
	}
	c.Empty = top == 0
	if top == 0 {
		top = 1
	}
	top = niceCeil(top)
	x := func(i int) float64 { return float64(c.Left) + float64(i)*float64(c.PlotW)/float64(n) }
	y := func(v float64) float64 { return float64(c.Top) + float64(c.PlotH)*(1-v/top) }
	for k, vs := range values {
		var b strings.Builder
		for i := 0; i < upto && i < len(vs); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f1(x(i + 1)))
			b.WriteByte(',')
			b.WriteString(f1(y(vs[i])))
		}
		l := series[k]
		l.Points = b.String()
		c.Lines = append(c.Lines, l)
	}
	for h := 0; h <= 24; h += 6 {
		anchor := map[int]string{0: "start", 24: "end"}[h]
		if anchor == "" {
			anchor = "middle"
		}
		c.XTicks = append(c.XTicks, tick{X: f1(x(h * 60 / step)), Y: strconv.Itoa(c.Top + c.PlotH + 18), Label: strconv.Itoa(h) + ":00", Anchor: anchor})
	}
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		c.YTicks = append(c.YTicks, tick{X: strconv.Itoa(c.Left - 6), Y: f1(y(v) + 4), Label: yLabel(v), Anchor: "end"})
	}
	return c
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for p > v*10 {
		p /= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// spendChart draws the day's cumulative spend on this dspd against the
// pacing target (the budget shaped by the traffic curve), by five minutes.
func spendChart(t bidder.TallyDay, shares []float64, budget int64, upto int) chart {
	spent := make([]float64, bidder.SpendBuckets)
	sum := 0.0
	for i := range spent {
		if t.Spend != nil {
			sum += float64(t.Spend[i]) / 1000 // CPM micros → micros of money
		}
		spent[i] = sum / 1e6
	}
	series := []line{{Class: "s-spend", Name: "spend (this dspd)"}}
	values := [][]float64{spent}
	if budget > 0 {
		target := make([]float64, bidder.SpendBuckets)
		for i := range target {
			target[i] = shares[i] * float64(budget) / 1e6
		}
		series = append(series, line{Class: "s-target", Name: "pacing target"})
		values = append(values, target)
	}
	return lineChart("Spend against the pacing target", "Cumulative spend today by five minutes, in dollars",
		bidder.SpendBuckets, upto, 5, series, values, func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) })
}

// rateChart draws the bids and wins of each minute of the day.
func rateChart(t bidder.TallyDay, upto int) chart {
	bids, wins := make([]float64, bidder.Minutes), make([]float64, bidder.Minutes)
	for i := range bids {
		if t.Bids != nil {
			bids[i], wins[i] = float64(t.Bids[i]), float64(t.Wins[i])
		}
	}
	return lineChart("Bids and wins per minute", "This dspd's bids and wins of each minute today",
		bidder.Minutes, upto, 1, []line{{Class: "s-bids", Name: "bids"}, {Class: "s-wins", Name: "wins"}},
		[][]float64{bids, wins}, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
}

// reasonBar is one no-bid reason's bar.
type reasonBar struct {
	Reason string
	Count  int64
	Width  string // of 100
}

func reasonBars(t bidder.TallyDay) []reasonBar {
	var top int64
	for _, r := range bidder.NoBidReasons() {
		top = max(top, t.Drops[r])
	}
	var out []reasonBar
	for _, r := range bidder.NoBidReasons() {
		if n := t.Drops[r]; n > 0 {
			out = append(out, reasonBar{Reason: r.String(), Count: n, Width: f1(float64(n) * 100 / float64(top))})
		}
	}
	return out
}
