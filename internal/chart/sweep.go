package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a sweep chart: a metric's mean at each value of
// the varied setting, with its 95% interval (Low, High; NaN where there is
// none).
type Series struct {
	Label     string
	X, Mean   []float64
	Low, High []float64
}

// MaxValue bounds the magnitude of a value a sweep chart draws, so that the
// span of an axis, with room for the legend, stays a finite number.
const MaxValue = 1e300

// Sweep is a chart of a metric against a varied setting.
type Sweep struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// Write draws the chart, w×h, in format ("svg" or "png"): a line with
// points per series, over a translucent band of its intervals.
//
// Every value must be finite and within ±MaxValue: beyond, the axes' span
// and ticks cannot be computed, and an error says so.
func (s *Sweep) Write(out io.Writer, format string, w, h int) error {
	for _, sr := range s.Series {
		for _, c := range []struct {
			what string
			vs   []float64
			none bool // NaN stands for no value
		}{{s.XLabel, sr.X, false}, {s.YLabel, sr.Mean, false}, {s.YLabel + "'s interval", sr.Low, true}, {s.YLabel + "'s interval", sr.High, true}} {
			for _, v := range c.vs {
				if !(math.Abs(v) <= MaxValue) && !(c.none && math.IsNaN(v)) {
					return fmt.Errorf("%s reaches %v: a chart draws values from %g to %g", c.what, v, -MaxValue, MaxValue)
				}
			}
		}
	}
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	for i, sr := range s.Series {
		c := palette[i%len(palette)]
		if band := intervalBand(sr); band != nil {
			band.Color = fade(c)
			band.LineStyle.Width = 0
			p.Add(band)
		}
		var xys plotter.XYs
		for j := range sr.X {
			xys = append(xys, plotter.XY{X: sr.X[j], Y: sr.Mean[j]})
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		pts.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(l, pts)
		p.Legend.Add(sr.Label, l, pts)
	}
	roomForLegend(p, len(s.Series))
	return write(out, format, w, h, func(dc draw.Canvas) { p.Draw(dc) })
}

// intervalBand is the polygon from the highs, left to right, back along the
// lows; nil when no point has an interval.
func intervalBand(s Series) *plotter.Polygon {
	var hi, lo plotter.XYs
	for j := range s.X {
		if math.IsNaN(s.Low[j]) || math.IsNaN(s.High[j]) {
			continue
		}
		hi = append(hi, plotter.XY{X: s.X[j], Y: s.High[j]})
		lo = append(lo, plotter.XY{X: s.X[j], Y: s.Low[j]})
	}
	if len(hi) < 2 {
		return nil
	}
	for i := len(lo) - 1; i >= 0; i-- {
		hi = append(hi, lo[i])
	}
	p, err := plotter.NewPolygon(hi)
	if err != nil {
		return nil
	}
	return p
}

// palette is a set of colours that stay apart for colour-blind readers
// (Okabe and Ito).
var palette = [...]color.RGBA{
	{0, 114, 178, 255},   // blue
	{230, 159, 0, 255},   // orange
	{0, 158, 115, 255},   // green
	{213, 94, 0, 255},    // vermilion
	{204, 121, 167, 255}, // purple
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
}

func fade(c color.RGBA) color.Color {
	const a = 56
	return color.NRGBA{c.R, c.G, c.B, a}
}

func gridLines() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{225}
	g.Horizontal.Color = color.Gray{225}
	return g
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
