package scene

import (
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
