package scene

import (
	"math"

	"github.com/lbsim/lbsim/sim"
)

// The waits chart of a tail lesson (lesson.P95Wait) is a distribution:
// for each wait w (a log axis, 0 at the left), the share of the requests
// dispatched so far that waited w cycles or less — each lane's a line in
// its colour, the 95% level dashed, so that where a lane's line crosses it
// is its p95 and how the tails part shows whole. The view counts the
// waits itself, from each cycle's dispatches (sim.Dispatch's Wait).

// exactWaits is the bound below which a wait has its own bucket; above
// it waitsPerDouble buckets share each doubling.
const (
	exactWaits     = 32
	waitsPerDouble = 8
)

// waitDist counts waits (or other latencies) in buckets: one per value
// below its exact bound (exactWaits unless set), then log-spaced, so its
// memory stays bounded however long the run.
type waitDist struct {
	counts []int64
	n      int64
	exact  int64 // the bound below which a value has its own bucket; 0: exactWaits
}

// bound returns d's exact bound.
func (d *waitDist) bound() int64 {
	if d.exact > 0 {
		return d.exact
	}
	return exactWaits
}

// bucketOf returns the bucket of wait w.
func (d *waitDist) bucketOf(w int64) int {
	e := d.bound()
	if w < e {
		return int(max(w, 0))
	}
	return int(e) + int(math.Floor(waitsPerDouble*math.Log2(float64(w)/float64(e))))
}

// bucketTop returns the largest wait of bucket b.
func (d *waitDist) bucketTop(b int) int64 {
	e := d.bound()
	if int64(b) < e {
		return int64(b)
	}
	next := float64(e) * math.Exp2(float64(b+1-int(e))/waitsPerDouble)
	return int64(math.Ceil(next)) - 1
}

// add counts one wait.
func (d *waitDist) add(w int64) {
	b := d.bucketOf(w)
	for len(d.counts) <= b {
		d.counts = append(d.counts, 0)
	}
	d.counts[b]++
	d.n++
}

// observeWaits counts lane li's dispatches of its last cycle.
func (s *Session) observeWaits(li int, m *sim.Model) {
	if !s.waitsShown() {
		return
	}
	for _, e := range m.Events() {
		if e.Kind == sim.Dispatch {
			s.dists[li].add(e.Wait)
		}
	}
}

// cdfX maps wait w to [0, 1] on the chart's log axis up to top.
func cdfX(w, top int64) float32 {
	return float32(math.Log10(1+float64(w)) / math.Log10(1+float64(top)))
}

// drawWaitCDF draws the waits' distribution chart in r (see above).
func (s *Session) drawWaitCDF(f *Frame, spec chartSpec, r Rect, u float32) {
	c := chartView{spec: spec, r: r, u: u, maxV: 1, end: 1, lanes: s.chartLanes()}
	c.plot = chartPlot(r, u)
	f.rect(SceneLayer, r, Panel)
	if s.Comparing() {
		s.laneLegend(f, &c)
	} else {
		c.legend(f)
	}
	plot := c.plot
	f.box("plot", plot)
	top := int64(10)
	for li := range s.chartLanes() {
		if d := &s.dists[li]; len(d.counts) > 0 {
			top = max(top, d.bucketTop(len(d.counts)-1))
		}
	}
	top = int64(math.Pow(10, math.Ceil(math.Log10(float64(top))))) // a power of ten
	// Axes: the shares on the left, the waits (log) under the plot.
	f.rect(SceneLayer, Rect{plot.X, plot.Y + plot.H, plot.W, max(u, 1)}, Grid)
	f.rect(SceneLayer, Rect{plot.X - max(u, 1), plot.Y, max(u, 1), plot.H}, Grid)
	for _, v := range []float32{0, 0.5, 1} {
		y := plot.Y + plot.H - plot.H*v
		f.rect(SceneLayer, Rect{plot.X - 4*u, y, plot.W + 4*u, max(u*0.6, 1)}, fade(Grid, 0.7))
		f.text(SceneLayer, tickLabel(float64(v*100), 50)+"%", plot.X-6*u, y-6*u, 11*u, false, AlignEnd, DimText)
	}
	lastRight := plot.X - 6*u
	for w := int64(0); w <= top; w = max(w*10, 1) {
		x := plot.X + plot.W*cdfX(w, top)
		f.rect(SceneLayer, Rect{x, plot.Y + plot.H, max(u, 1), 4 * u}, Grid)
		label := tickLabel(float64(w), float64(max(w, 1)))
		tw := TextWidth(label, 11*u, false)
		left := min(x-tw/2, r.X+r.W-2*u-tw)
		if w == 0 {
			left = x
		}
		if left >= lastRight+6*u {
			f.text(SceneLayer, label, left, plot.Y+plot.H+5*u, 11*u, false, AlignStart, DimText)
			lastRight = left + tw
		}
	}
	f.text(SceneLayer, "wait", r.X+2*u, plot.Y+plot.H+5*u, 10*u, false, AlignStart, DimText)
	// The 95% level, dashed.
	y95 := plot.Y + plot.H*0.05
	for x := plot.X; x < plot.X+plot.W; x += 10 * u {
		f.rect(SceneLayer, Rect{x, y95, min(6*u, plot.X+plot.W-x), max(u, 1)}, DimText)
	}
	for li := range s.chartLanes() {
		d := &s.dists[li]
		if d.n == 0 {
			continue
		}
		col := LaneColor(li)
		if !s.Comparing() {
			col = PColor
		}
		w := max(2*u, 1.5)
		cum, prevX, prevY := int64(0), plot.X, plot.Y+plot.H
		var marks []Point // where the line reaches 50% and 95%: the lane's marker
		for b, n := range d.counts {
			if n == 0 {
				continue
			}
			before := float32(cum) / float32(d.n)
			cum += n
			x := plot.X + plot.W*cdfX(d.bucketTop(b), top)
			y := plot.Y + plot.H - plot.H*float32(cum)/float32(d.n)
			f.rect(SceneLayer, Rect{prevX, prevY - w/2, max(x-prevX, w), w}, col) // flat to this bucket
			f.rect(SceneLayer, Rect{x - w/2, y - w/2, w, prevY - y + w}, col)     // up by its share
			for _, q := range []float32{0.5, 0.95} {
				if after := float32(cum) / float32(d.n); before < q && after >= q {
					marks = append(marks, Point{x, plot.Y + plot.H - plot.H*q})
				}
			}
			prevX, prevY = x, y
		}
		f.rect(SceneLayer, Rect{prevX, prevY - w/2, plot.X + plot.W - prevX, w}, col)
		if s.Comparing() {
			for _, p := range marks {
				LaneMarker(f, SceneLayer, p, 4*u, li, col)
			}
		}
	}
}

// quantile returns the top of the bucket that holds the q-th quantile of
// the waits counted (0 before any).
func (d *waitDist) quantile(q float64) int64 {
	want := int64(math.Ceil(q * float64(d.n)))
	cum := int64(0)
	for b, n := range d.counts {
		cum += n
		if n > 0 && cum >= want {
			return d.bucketTop(b)
		}
	}
	return 0
}

// percentile returns the nearest-rank p-th percentile (p in 1…100) of the
// values counted, as the run's summary reads its own: the smallest value
// v with at least ⌈p·n/100⌉ of the n values ≤ v, exact below the exact
// bound and the top of its bucket above (0 before any).
func (d *waitDist) percentile(p int64) int64 {
	want, cum := max((d.n*p+99)/100, 1), int64(0)
	for b, n := range d.counts {
		cum += n
		if n > 0 && cum >= want {
			return d.bucketTop(b)
		}
	}
	return 0
}
