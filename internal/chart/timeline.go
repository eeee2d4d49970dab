package chart

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxPoints is the most points a timeline keeps per line; longer runs are
// summarized in buckets of cycles (see [Timeline.Every]).
const MaxPoints = 2000

// Cycle is one cycle of a run as the timeline chart shows it.
type Cycle struct {
	Cycle    int64
	Queue    int     // requests in the queue at the end of the cycle
	Live     int     // live servers (retiring ones included)
	Up, Down float64 // the scaling thresholds: U × active servers and D × active servers
	Scale    int     // 1 a scale-up, -1 a scale-down, 0 neither
}

// Timeline collects a run's cycles for the chart, in constant memory: with
// more cycles than MaxPoints it keeps, per bucket of Every cycles, the
// largest queue and the last cycle's servers and thresholds, and marks the
// first scale-up and the first scale-down of the bucket.
type Timeline struct {
	Title                 string
	every                 int64
	queue, live, up, down plotter.XYs
	ups, downs            plotter.XYs
}

// NewTimeline prepares a timeline of cycles 0 … last.
func NewTimeline(title string, last int64) *Timeline {
	return &Timeline{Title: title, every: max(1, (last+MaxPoints)/MaxPoints)}
}

// Every returns the bucket size in cycles (1 = every cycle is drawn).
func (t *Timeline) Every() int64 { return t.every }

// Add records the next cycle; cycles must come in order.
func (t *Timeline) Add(c Cycle) {
	x := float64(c.Cycle)
	bucket := c.Cycle / t.every
	switch c.Scale {
	case 1:
		t.ups = addEvent(t.ups, x, float64(c.Live), t.every)
	case -1:
		t.downs = addEvent(t.downs, x, float64(c.Live), t.every)
	}
	if n := len(t.queue); n > 0 && int64(t.queue[n-1].X)/t.every == bucket {
		t.queue[n-1].X = x
		t.queue[n-1].Y = math.Max(t.queue[n-1].Y, float64(c.Queue))
		t.live[n-1] = plotter.XY{X: x, Y: float64(c.Live)}
		t.up[n-1] = plotter.XY{X: x, Y: c.Up}
		t.down[n-1] = plotter.XY{X: x, Y: c.Down}
		return
	}
	t.queue = append(t.queue, plotter.XY{X: x, Y: float64(c.Queue)})
	t.live = append(t.live, plotter.XY{X: x, Y: float64(c.Live)})
	t.up = append(t.up, plotter.XY{X: x, Y: c.Up})
	t.down = append(t.down, plotter.XY{X: x, Y: c.Down})
}

// addEvent marks an event at (x, y) unless the last mark is in the same
// bucket of every cycles.
func addEvent(marks plotter.XYs, x, y float64, every int64) plotter.XYs {
	if n := len(marks); n > 0 && int64(marks[n-1].X)/every == int64(x)/every {
		return marks
	}
	return append(marks, plotter.XY{X: x, Y: y})
}

// Series names of the timeline chart, as its legends show them.
const (
	SeriesQueue     = "queue"
	SeriesUp        = "U·S (scale up above)"
	SeriesDown      = "D·S (scale down below)"
	SeriesLive      = "live servers"
	SeriesScaleUp   = "scale-up"
	SeriesScaleDown = "scale-down"
)

// Write draws the timeline, w×h, in format ("svg" or "png"): above, the
// queue with the thresholds U·S and D·S; below, the live servers with the
// scale events marked.
func (t *Timeline) Write(out io.Writer, format string, w, h int) error {
	queueLabel := "requests in the queue"
	if t.every > 1 {
		queueLabel = "queue (largest in each " + itoa(t.every) + " cycles)"
	}
	top := newPlot(t.Title, "", queueLabel)
	addLine(top, t.queue, SeriesQueue, palette[0], nil)
	addLine(top, t.up, SeriesUp, palette[3], []vg.Length{vg.Points(6), vg.Points(3)})
	addLine(top, t.down, SeriesDown, palette[2], []vg.Length{vg.Points(2), vg.Points(3)})
	bottom := newPlot("", "cycle", "live servers")
	addLine(bottom, t.live, SeriesLive, palette[1], nil)
	addEvents(bottom, t.ups, SeriesScaleUp, draw.TriangleGlyph{}, palette[3])
	addEvents(bottom, t.downs, SeriesScaleDown, draw.BoxGlyph{}, palette[2])
	// The two panels share the cycle axis.
	bottom.X.Min, bottom.X.Max = math.Min(top.X.Min, bottom.X.Min), math.Max(top.X.Max, bottom.X.Max)
	top.X.Min, top.X.Max = bottom.X.Min, bottom.X.Max
	bottom.Y.Min = 0
	top.Y.Min = 0
	roomForLegend(top, 3)
	roomForLegend(bottom, 3)
	return write(out, format, w, h, func(dc draw.Canvas) {
		rows := plot.Align([][]*plot.Plot{{top}, {bottom}}, draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Points(4), PadY: vg.Points(4),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}, dc)
		top.Draw(rows[0][0])
		bottom.Draw(rows[1][0])
	})
}

func addLine(p *plot.Plot, xys plotter.XYs, name string, c color.Color, dashes []vg.Length) {
	if len(xys) == 0 {
		return
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return
	}
	l.Color = c
	l.Width = vg.Points(1.2)
	l.Dashes = dashes
	p.Add(l)
	p.Legend.Add(name, l)
}

func addEvents(p *plot.Plot, xys plotter.XYs, name string, shape draw.GlyphDrawer, c color.Color) {
	if len(xys) == 0 {
		return
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: shape}
	p.Add(s)
	p.Legend.Add(name, s)
}
