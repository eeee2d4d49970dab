// Package chart draws lbsim's charts with gonum/plot: a run's timeline
// (the queue with the scaling thresholds, and the live servers, against the
// cycle) and a sweep (a metric against a varied setting, one line per
// value of the other settings, each with its 95% interval as a band). It
// writes SVG or PNG, chosen by the output file's extension. The charts
// only read the numbers given to them.
package chart

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size limits of a chart, in pixels (PNG) or points (SVG).
const (
	MinSize = 100
	MaxSize = 10_000
)

// Format returns the chart format of an output path by its extension:
// "svg" or "png".
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%s: the chart format is chosen by the extension: .svg or .png", path)
	}
}

// ParseSize reads WIDTHxHEIGHT, like 900x500.
func ParseSize(s string) (w, h int, err error) {
	if _, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || fmt.Sprintf("%dx%d", w, h) != s ||
		w < MinSize || h < MinSize || w > MaxSize || h > MaxSize {
		return 0, 0, fmt.Errorf("--size %q: want WIDTHxHEIGHT in pixels, each %d..%d, like 900x500", s, MinSize, MaxSize)
	}
	return w, h, nil
}

// dpi is the resolution charts are drawn at: a PNG of w×h pixels and an SVG
// of w×h CSS pixels show the same picture.
const dpi = 96

// write draws onto a canvas of w×h pixels in format and writes it to out.
func write(out io.Writer, format string, w, h int, drawOn func(draw.Canvas)) error {
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))}
	case "svg":
		c = vgsvg.New(vg.Length(w)*vg.Inch/dpi, vg.Length(h)*vg.Inch/dpi)
	default:
		return fmt.Errorf("unknown chart format %q: svg or png", format)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	pad := vg.Points(6)
	drawOn(draw.Crop(dc, pad, -pad, pad, -pad))
	_, err := c.WriteTo(out)
	return err
}

// newPlot is a plot with lbsim's common look.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(gridLines())
	return p
}

// roomForLegend raises the top of the y axis so that the legend, in the
// top left corner, sits above the data rather than over it.
func roomForLegend(p *plot.Plot, entries int) {
	span := p.Y.Max - p.Y.Min
	if span <= 0 {
		span = 1
	}
	top := p.Y.Max + span*0.09*float64(entries)
	// Round up to a multiple of half a power of ten, so the ticks are round.
	step := math.Pow(10, math.Floor(math.Log10(top-p.Y.Min))) / 2
	p.Y.Max = p.Y.Min + math.Ceil((top-p.Y.Min)/step)*step
}
