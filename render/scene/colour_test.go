package scene

import (
	"github.com/lbsim/lbsim/sim"
	"image/color"
	"math"
	"slices"
	"testing"
)

// cvd matrices (Machado, Oliveira and Fernandes 2009, severity 1) act on
// linear RGB: what a protanope and a deuteranope see.
var cvd = map[string][3][3]float64{
	"protanopia":   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
	"deuteranopia": {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
}

func toLinear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// lab returns colour c as seen through matrix m, in CIELAB (D65).
func lab(c color.RGBA, m [3][3]float64) [3]float64 {
	in := [3]float64{toLinear(c.R), toLinear(c.G), toLinear(c.B)}
	var rgb [3]float64
	for i := range 3 {
		for j := range 3 {
			rgb[i] += m[i][j] * in[j]
		}
		rgb[i] = min(max(rgb[i], 0), 1)
	}
	x := (0.4124*rgb[0] + 0.3576*rgb[1] + 0.1805*rgb[2]) / 0.95047
	y := 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	z := (0.0193*rgb[0] + 0.1192*rgb[1] + 0.9505*rgb[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// deltaE is the CIE76 distance of two colours seen through matrix m.
func deltaE(a, b color.RGBA, m [3][3]float64) float64 {
	p, q := lab(a, m), lab(b, m)
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

// TestLaneColoursApart: the lanes' colours stay apart (CIE76 ΔE of 25 or
// more, every pair) for normal vision, protanopes and deuteranopes; the
// palette before it (blue and lavender) did not (8.9 for protanopes).
func TestLaneColoursApart(t *testing.T) {
	for name, m := range cvd {
		for i := range LaneColors {
			for j := i + 1; j < len(LaneColors); j++ {
				if d := deltaE(LaneColors[i], LaneColors[j], m); d < 25 {
					t.Errorf("%s: lanes %d and %d are %.1f apart, want 25", name, i, j, d)
				}
			}
		}
	}
	old := color.RGBA{0x58, 0xa6, 0xff, 0xff}
	lavender := color.RGBA{0xd2, 0xa8, 0xff, 0xff}
	if d := deltaE(old, lavender, cvd["protanopia"]); d >= 25 {
		t.Errorf("the measure does not tell the old blue and lavender lanes apart (%.1f)", d)
	}
}

// TestLanesHaveMarkers: in the compare view every lane's marker
// (LaneMarker, its shape) is drawn in its colour in its title, in each
// chart's legend and along its line.
func TestLanesHaveMarkers(t *testing.T) {
	s := mustNew(t, compareOptions(t, "round-robin:policy=round-robin;p2c:policy=p2c,choices=3;least-connections:policy=least-connections;random:policy=random"))
	s.step(2_000, false)
	f := s.Draw(BaseW, BaseH)
	l := f.Layout
	for i := range s.set.Lanes {
		same := func(q Quad) bool { return isMarker(q, i) }
		in := func(r Rect) int {
			n := 0
			for _, q := range f.Layers[SceneLayer].Quads {
				if same(q) && r.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
					n++
				}
			}
			return n
		}
		if in(l.Lanes[i].Title) == 0 {
			t.Errorf("lane %d: no marker in its title", i)
		}
		for ci, r := range l.Charts {
			if n := in(r); n < 3 {
				t.Errorf("lane %d: %d markers in chart %d, want the legend's and some along its line", i, n, ci)
			}
		}
	}
}

// isMarker reports whether quad q is lane i's marker (LaneMarker) in its
// colour, at any place and size.
func isMarker(q Quad, i int) bool {
	if q.C != LaneColor(i) {
		return false
	}
	var scratch Frame
	LaneMarker(&scratch, SceneLayer, Point{}, 4, i, LaneColor(i))
	want := scratch.Layers[SceneLayer].Quads[0]
	k := (q.P[2].X - q.P[0].X) / (want.P[2].X - want.P[0].X)
	if want.P[2].X == want.P[0].X {
		k = (q.P[2].Y - q.P[0].Y) / (want.P[2].Y - want.P[0].Y)
	}
	for j := range q.P {
		dx := (q.P[j].X - q.P[0].X) - k*(want.P[j].X-want.P[0].X)
		dy := (q.P[j].Y - q.P[0].Y) - k*(want.P[j].Y-want.P[0].Y)
		if math.Abs(float64(dx)) > 0.01 || math.Abs(float64(dy)) > 0.01 {
			return false
		}
	}
	return k > 0
}

// TestDashedLines: the lines that the captions once named by colour alone
// differ in pattern: U·S solid and D·S dashed, max solid and min dashed.
func TestDashedLines(t *testing.T) {
	s := running(t, testConfig())
	s.step(3_000, false)
	f := s.Draw(BaseW, BaseH)
	count := func(ci int, c color.RGBA) int {
		plot := plotOf(t, f, ci)
		n := 0
		for _, q := range f.Layers[SceneLayer].Quads {
			if q.C == c && plot.Inset(-3).Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
				n++
			}
		}
		return n
	}
	// A solid line is a run per change of its value; a dashed one has a
	// dash every 10 design pixels of the plot's width at least.
	for _, ci := range []int{0, 1} {
		solid, dashed := count(ci, UpLineCol), count(ci, DownLineCol)
		if dashes := int(plotOf(t, f, ci).W / 10 / 2); dashed < dashes || solid >= dashed {
			t.Errorf("chart %d: the solid line in %d quads, the dashed one in %d (want %d dashes at least, more than the solid)", ci, solid, dashed, dashes)
		}
	}
	if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "D·S scale-down line" }) {
		t.Error("the D·S line is not keyed")
	}
}

// apart is the CIE76 distance under which two colours merge for a viewer
// (through a colour-vision filter): below it a pair needs another cue.
const apart = 20

// colourPairs are the colours that meet on one picture, with the cue
// besides colour that tells them apart (shape, dash or word) and a check
// that the view draws it. TestColourNeverAlone measures each pair through
// the protanopia and deuteranopia filters.
var colourPairs = []struct {
	name string
	a, b color.RGBA
	cue  string
	has  func(t *testing.T) bool
}{
	{"idle and down servers", IdleColor, DownColor, "hollow box against a crossed one, and the word down", func(t *testing.T) bool {
		_, idle := ServerLook(sim.Idle)
		_, down := ServerLook(sim.Failed)
		w, _ := StateWord(sim.ServerView{State: sim.Failed})
		return idle == Hollow && down == Crossed && w == "down"
	}},
	{"idle and down in the live servers chart", IdleBar, DownColor, "the down part striped, in the chart and its key", func(t *testing.T) bool {
		return stripedDown(t)
	}},
	{"idle and failing frames", IdleColor, FailColor, "the word failing on the failing box", func(t *testing.T) bool {
		w, _ := StateWord(sim.ServerView{Gray: sim.Failing})
		return w == "failing"
	}},
	{"errors strip and the least-connections lane (lane 2)", FailColor, LaneColor(1), "the lane's marker along its strip", func(t *testing.T) bool {
		return laneStripMarked(t, 1)
	}},
	{"U·S and D·S", UpLineCol, DownLineCol, "U·S solid, D·S dashed", func(t *testing.T) bool {
		return lineCue(charts[0], "U·S scale-up line", "D·S scale-down line")
	}},
	{"max and min", UpLineCol, DownLineCol, "max solid, min dashed", func(t *testing.T) bool {
		return lineCue(charts[1], "max", "min")
	}},
	// Target tracking's lines on the live servers chart.
	{"the metric and its target", MetricCol, TargetCol, "metric solid, target dashed", func(t *testing.T) bool {
		return lineCue(charts[1], "metric (right axis)", "target (right axis)")
	}},
	{"the metric and min", MetricCol, DownLineCol, "metric solid, min dashed", func(t *testing.T) bool {
		return lineCue(charts[1], "metric (right axis)", "min")
	}},
	{"the target and the live line", TargetCol, LiveCol, "target dashed, live solid", func(t *testing.T) bool {
		i := slices.IndexFunc(charts[1].lines, func(ln chartSeries) bool { return ln.name == "target (right axis)" })
		return i >= 0 && charts[1].lines[i].dash && charts[1].live
	}},
	{"the proposal and max", ProposalCol, UpLineCol, "proposal dotted, max solid", func(t *testing.T) bool {
		p := slices.IndexFunc(charts[1].lines, func(ln chartSeries) bool { return ln.name == "proposal" })
		m := slices.IndexFunc(charts[1].lines, func(ln chartSeries) bool { return ln.name == "max" })
		return p >= 0 && m >= 0 && charts[1].lines[p].dot && !charts[1].lines[m].dash && !charts[1].lines[m].dot
	}},
	{"▲ and ▼", UpMark, DownMark, "a triangle pointing up at the top against one pointing down at the bottom", func(t *testing.T) bool {
		return marksPoint(t)
	}},
	{"P and S requests", PColor, SColor, "a square against a diamond", func(t *testing.T) bool {
		var f Frame
		f.request(SceneLayer, Point{10, 10}, 8, sim.Processing, PColor)
		f.request(SceneLayer, Point{10, 10}, 8, sim.Streaming, SColor)
		p, s := f.Layers[SceneLayer].Quads[0].P, f.Layers[SceneLayer].Quads[1].P
		return p[0].Y == p[1].Y && s[0].X == s[2].X && s[1].Y == s[3].Y // axis-aligned, then on its corner
	}},
	// Fan-out: a request's parts in its tint, tethered to one point; a
	// cancelled attempt crossed.
	{"two requests' parts", GroupTints[0], GroupTints[1], "each request's parts tethered to their own point at the gate", func(t *testing.T) bool {
		return groupTethered(t)
	}},
	{"a cancelled attempt and abandoned work", CancelCol, Abandoned, "an × across the cancelled one", func(t *testing.T) bool {
		return cancelDrawn(t, false)
	}},
	// Hedging: a hedge carries a dark bar across its marker.
	{"a part and its hedge", PColor, HedgeCol, "the hedge's dark bar across it", func(t *testing.T) bool {
		fl, f := hedgeInFlight(t)
		return hedgeBarred(f, fl)
	}},
	{"an S request and a hedge", SColor, HedgeCol, "the hedge's dark bar across it", func(t *testing.T) bool {
		var f Frame
		f.hedge(SceneLayer, Point{50, 50}, 10, sim.Streaming)
		q := f.Layers[SceneLayer].Quads
		return len(q) == 2 && q[0].C == HedgeCol && q[1].C == Background && q[1].P[0].Y > 45 && q[1].P[2].Y < 55
	}},
	{"goodput and retries", DoneColor, RetryColor, "goodput solid (bars), retries dotted", func(t *testing.T) bool {
		ln := charts[2].lines[1]
		return ln.name == "retries (right axis)" && ln.dot && charts[2].bars.name == "completed"
	}},
}

// TestColourNeverAlone: every pair of colours that meet on one picture is
// told apart by shape, dash or word too; the test reports each pair's
// distance through the protanopia and deuteranopia filters and fails a
// pair that merges there without its cue drawn.
func TestColourNeverAlone(t *testing.T) {
	merged := 0
	for _, p := range colourPairs {
		d := min(deltaE(p.a, p.b, cvd["protanopia"]), deltaE(p.a, p.b, cvd["deuteranopia"]))
		if d < apart {
			merged++
		}
		if !p.has(t) {
			t.Errorf("%s (ΔE %.1f through a filter): their cue, %s, is not drawn", p.name, d, p.cue)
		}
	}
	// The measure finds the merges the cues exist for (idle and failing
	// frames, the errors strip and lane 2, the down and idle stack).
	if merged < 3 {
		t.Errorf("only %d pairs merge through the filters: the measure is off", merged)
	}
}

// lineCue reports whether chart c's lines named solid and dashed are
// drawn so: the one solid, the other dashed.
func lineCue(c chartSpec, solid, dashed string) bool {
	var s, d *chartSeries
	for i := range c.lines {
		switch c.lines[i].name {
		case solid:
			s = &c.lines[i]
		case dashed:
			d = &c.lines[i]
		}
	}
	return s != nil && d != nil && !s.dash && !s.dot && d.dash
}

// cueHistory is a history of 40 cycles with scale events, errors and a
// server down beside idle ones.
func cueHistory() *History {
	var h History
	cfg := sim.DefaultConfig()
	cfg.MinServers, cfg.MaxServers = 1, 10
	for c := range int64(40) {
		st := sim.CycleStats{Cycle: c, Queue: 3, Servers: 6, Errors: 1}
		switch c {
		case 10:
			st.Scale = 1
		case 30:
			st.Scale = -1
		}
		h.Add(st, &cfg, States{Busy: 2, Idle: 2, Down: 2}, Scaling{})
	}
	return &h
}

// drawChart draws chart spec's data of history h in a plot of 400×200.
func drawChart(spec chartSpec, h *History) *Frame {
	var f Frame
	c := chartView{spec: spec, u: 1, maxV: 10, end: 40, plot: Rect{50, 20, 400, 200}, r: Rect{0, 0, 500, 260}}
	c.data(&f, h)
	return &f
}

// stripedDown reports whether the live servers chart draws its down part
// with stripes over it.
func stripedDown(t *testing.T) bool {
	spec := charts[1]
	spec.stack = shownStack(spec.stack, cueHistory())
	f := drawChart(spec, cueHistory())
	down, stripes := 0, 0
	for _, q := range f.Layers[SceneLayer].Quads {
		switch q.C {
		case DownColor:
			down++
		case stripeCol:
			stripes++
		}
	}
	return down > 0 && stripes >= down
}

// laneStripMarked reports whether lane li's errors strip carries the
// lane's marker.
func laneStripMarked(t *testing.T, li int) bool {
	var f Frame
	c := chartView{spec: charts[0], u: 1, maxV: 10, end: 40, plot: Rect{50, 20, 400, 200}, lanes: 2}
	c.laneErrors(&f, cueHistory(), li, 2)
	return slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool { return isMarker(q, li) })
}

// marksPoint reports whether the queue chart's scale-up marks point up
// and its scale-down marks down.
func marksPoint(t *testing.T) bool {
	f := drawChart(charts[0], cueHistory())
	up, down := 0, 0
	for _, q := range f.Layers[SceneLayer].Quads {
		apex, base := q.P[0].Y, q.P[1].Y
		switch {
		case q.C == UpMark && apex < base:
			up++
		case q.C == DownMark && apex > base:
			down++
		}
	}
	return up > 0 && down > 0
}
