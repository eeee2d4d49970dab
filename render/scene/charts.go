package scene

import (
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// chartSpec is one chart under the scene: its title (with the unit of its
// y-axis), the bars it draws for each sample, the lines it draws over them
// (thresholds that move with the run), whether it marks scale events, and
// whether it marks the samples with errors.
// The charts are the entries of charts; a new chart is one more entry.
type chartSpec struct {
	title string
	unit  string // the y-axis' unit, shown after the title
	bars  chartSeries
	// stack, when set, draws the bars as a stack of these, bottom up
	// (each keyed in the legend while some sample has it); they add up
	// to bars' value, which the compare view's lines draw.
	stack []chartSeries
	lines []chartSeries
	// live: the bars' value is also drawn as a line (LiveCol, keyed
	// "live") over everything else in the plot, so that a pool held at a
	// limit, under the limit's line and the scale marks, still shows.
	live   bool
	marks  bool // green bands with ▲ for scale-ups, amber with ▼ for scale-downs
	errors bool // a red strip along the x-axis under the samples in which attempts ended in error
	// data: the lines are data, not thresholds: they always set the
	// y-axis' top with the bars.
	data bool
	// dataOnly: the lines (limits far above the data, like a max of 100
	// servers) never set the y-axis' top: the data does.
	dataOnly bool
	// show says when the chart is shown (nil: always).
	show func(s *Session) bool
	// flat: in the compare view the chart is left out while it would be
	// a flat line in every lane (poolMoves).
	flat bool
	// cdf: the chart is the waits' distribution (waitcdf.go), over waits
	// rather than cycles: no series of Sample.
	cdf bool
}

// chartSeries is a named value of a Sample drawn in a colour.
type chartSeries struct {
	name  string
	col   color.RGBA
	value func(Sample) float32
	// agg is how the value sums up a bucket's cycles (TestSeriesMergeAsDeclared
	// checks it against merge); a chart whose bars are a bucket's peak or
	// mean says so in its title once a bar covers more than one cycle.
	agg Agg
	// lanes: in the compare view too, each lane's as a dashed line in the
	// lane's colour (a chart's bars are each lane's solid line there).
	lanes bool
	// right: on its own scale, the y-axis at the plot's right (retries,
	// which would flatten goodput on a shared one).
	right bool
	// dash: drawn dashed (and keyed so), to tell it from a solid line
	// without its colour: D·S against U·S, min against max.
	dash bool
	// stripe: a stack's part drawn (and keyed) with light stripes across
	// it, to tell it from a neighbour of a close colour without it.
	stripe bool
	// short is the key's short form, where the whole does not fit ("U·S").
	short string
	// dot: drawn dotted (and keyed so), apart from solid and dashed ones:
	// the waits' p50 against p95 (solid) and p99 (dashed).
	dot bool
	// target: drawn only while a lane runs target tracking (its metric,
	// target and proposal); a value of 0 is none (a lane of the queue
	// rule, or before the first evaluation): the line breaks there.
	target bool
	// side: a limit's line is drawn just beside its value rather than on
	// it, out of the data it bounds: under it (1, a floor: the min) or
	// over it (−1, a ceiling: the max), so that the live line on the value
	// leaves it in view.
	side float32
}

// charts are the charts, left to right.
var charts = []chartSpec{
	{title: "queue", unit: "requests",
		bars: chartSeries{name: "queue", col: PColor, value: func(s Sample) float32 { return float32(s.Queue) }, agg: AggMax},
		lines: []chartSeries{
			{name: "U·S scale-up line", short: "U·S", col: UpLineCol, value: func(s Sample) float32 { return s.UpLine }, agg: AggLast},
			{name: "D·S scale-down line", short: "D·S", col: DownLineCol, value: func(s Sample) float32 { return s.DownLine }, agg: AggLast, dash: true},
		},
		marks: true, errors: true},
	// The live servers stacked by state (busy at the bottom): how many
	// work, idle, are down, warm up or are ejected, adding up to the live
	// pool; its axis scales to the data, the pool's min and max drawn
	// while they are within it.
	{title: "live servers", unit: "servers",
		bars: chartSeries{name: "live", col: BusyColor, value: func(s Sample) float32 { return float32(s.Servers) }, agg: AggMax},
		stack: []chartSeries{
			{name: "busy", col: BusyColor, value: func(s Sample) float32 { return float32(s.States.Busy) }, agg: AggAtPeak},
			{name: "idle", col: IdleBar, value: func(s Sample) float32 { return float32(s.States.Idle) }, agg: AggAtPeak},
			// Down striped: dark red and the idle's dark green merge for
			// deuteranopes (TestColourNeverAlone).
			{name: "down", col: DownColor, value: func(s Sample) float32 { return float32(s.States.Down) }, agg: AggAtPeak, stripe: true},
			{name: "warming", col: WarmColor, value: func(s Sample) float32 { return float32(s.States.Warming) }, agg: AggAtPeak},
			{name: "ejected", col: EjectColor, value: func(s Sample) float32 { return float32(s.States.Ejected) }, agg: AggAtPeak},
		},
		dataOnly: true,
		lines: []chartSeries{
			{name: "max", col: UpLineCol, value: func(s Sample) float32 { return float32(s.MaxServers) }, agg: AggLast, side: -1},
			{name: "min", col: DownLineCol, value: func(s Sample) float32 { return float32(s.MinServers) }, agg: AggLast, dash: true, side: 1},
			// Target tracking: the pool its last evaluation proposed
			// (dotted, beside the live line), and the metric per cycle
			// against its target on the right axis (solid and dashed).
			{name: "proposal", col: ProposalCol, value: func(s Sample) float32 { return float32(s.Proposal) }, agg: AggLast, target: true, dot: true},
			{name: "metric (right axis)", short: "metric", col: MetricCol, value: func(s Sample) float32 { return s.PerCycle(s.Metric6) / sim.DecimalScale }, agg: AggMean, target: true, right: true, lanes: true},
			{name: "target (right axis)", short: "target", col: TargetCol, value: func(s Sample) float32 { return s.Target }, agg: AggLast, target: true, right: true, dash: true},
		},
		live: true, marks: true, flat: true},
	// Goodput against the offered load: requests completed per cycle
	// (bars) beside first attempts admitted per cycle and retries per
	// cycle (lines), each averaged over its sample's cycles. After a spike
	// a retry storm shows as retries staying up and goodput below the
	// admitted line. In the compare view each lane's goodput is a solid
	// line and its retries a dashed one, in the lane's colour.
	{title: "goodput", unit: "per cycle",
		bars: chartSeries{name: "completed", col: DoneColor, value: func(s Sample) float32 { return s.PerCycle(s.Completed) }, agg: AggMean},
		lines: []chartSeries{
			{name: "offered (admitted)", col: PColor, value: func(s Sample) float32 { return s.PerCycle(s.Admitted) }, agg: AggMean},
			{name: "retries (right axis)", col: RetryColor, value: func(s Sample) float32 { return s.PerCycle(s.Retries) }, agg: AggMean, lanes: true, right: true, dot: true},
		},
		data: true, show: func(s *Session) bool { return s.anyClientSide() }},
	// The waits' percentiles so far, the chart of a lesson whose claim is
	// a p95 wait (heavy tails, pooled queues, unequal speeds): p95 as bars
	// (each lane's solid line in the compare view, ending at the figure in
	// its title), p99 dashed and p50 dotted, so that a tail that grows
	// apart from the median shows as it happens.
	{title: "p95 wait so far", unit: "cycles",
		bars: chartSeries{name: "p95", col: PColor, value: func(s Sample) float32 { return float32(s.Waits.P95) }, agg: AggLast},
		lines: []chartSeries{
			{name: "p99", col: TextColor, value: func(s Sample) float32 { return float32(s.Waits.P99) }, agg: AggLast, lanes: true, dash: true},
			{name: "p50", col: TextColor, value: func(s Sample) float32 { return float32(s.Waits.P50) }, agg: AggLast, lanes: true, dot: true},
		},
		data: true, show: (*Session).waitsShown},
	// The waits' distribution so far: the share of requests that waited
	// up to each wait, a line per lane (waitcdf.go).
	{title: "waits so far", unit: "share waiting ≤ x cycles", cdf: true, show: (*Session).waitsShown},
}

// poolMoves reports whether the view shows a flat chart (the live
// servers): in a single run always (its stack shows the busy against the
// idle), in the compare view when a lane's pool can scale or its live servers have not
// all been up and serving throughout (a flat line at the pool's size
// otherwise, the same in every lane).
func (s *Session) poolMoves() bool {
	if !s.Comparing() {
		return true
	}
	for li, l := range s.set.Lanes {
		if cfg := l.Model.Config(); cfg.MinServers < cfg.MaxServers {
			return true
		}
		h := &s.hists[li]
		for i := range h.Len() {
			smp := h.At(i)
			if smp.Servers != h.At(0).Servers || smp.States.Down+smp.States.Warming+smp.States.Ejected > 0 {
				return true
			}
		}
	}
	return false
}

// waitsShown reports whether the view shows the waits chart: while the
// lesson's claim is a p95 wait (lesson.P95Wait).
func (s *Session) waitsShown() bool { return s.opts.Measure == lesson.P95Wait }

// defaultCharts is the number of charts shown always, those of a layout
// before WithCharts.
var defaultCharts = func() int {
	n := 0
	for _, c := range charts {
		if c.show == nil {
			n++
		}
	}
	return n
}()

// shownCharts returns the charts the view shows now, left to right.
func (s *Session) shownCharts() []chartSpec {
	var out []chartSpec
	tracking := s.targetTracking()
	for _, c := range charts {
		if (c.show == nil || c.show(s)) && (!c.flat || s.poolMoves()) {
			c.lines = slices.DeleteFunc(slices.Clone(c.lines), func(ln chartSeries) bool {
				return (ln.target && !tracking) || (ln.right && s.zeroThroughout(ln))
			})
			out = append(out, c)
		}
	}
	return out
}

// zeroThroughout reports whether line ln reads 0 in every sample of every
// lane: a right axis for it alone would be noise (retries where no client
// retries), so it is left out.
func (s *Session) zeroThroughout(ln chartSeries) bool {
	for li := range s.chartLanes() {
		h := &s.hists[li]
		for i := range h.Len() {
			if ln.value(h.At(i)) != 0 {
				return false
			}
		}
	}
	return true
}

// targetTracking reports whether a lane runs target tracking: the live
// servers chart then draws its metric, target and proposal.
func (s *Session) targetTracking() bool {
	for _, l := range s.set.Lanes {
		if l.Model.Config().Autoscaler == sim.TargetTracking {
			return true
		}
	}
	return false
}

// NiceStep returns a step of 1, 2 or 5 times a power of ten such that
// [0, span] holds at most n steps.
func NiceStep(span float64, n int) float64 {
	if span <= 0 || n < 1 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, k := range []float64{1, 2, 5, 10} {
		if k*p >= raw {
			return k * p
		}
	}
	return 10 * p
}

// tickLabel writes a tick value of an axis whose ticks are step apart:
// in millions ("50M", "1.5M") when the step is a round hundred thousand
// and the value reaches a million, in thousands ("20k") when the step is a
// round thousand, else with thousands separators.
func tickLabel(v, step float64) string {
	n := int64(math.Round(v))
	if int64(step)%100_000 == 0 && step >= 100_000 && (n >= 1_000_000 || int64(step)%1_000_000 == 0) {
		if n == 0 {
			return "0"
		}
		if n%1_000_000 == 0 {
			return Commas(n/1_000_000) + "M"
		}
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	}
	if int64(step)%1000 == 0 && step >= 1000 {
		if n == 0 {
			return "0"
		}
		return Commas(n/1000) + "k"
	}
	if step < 1 {
		// As many decimals as the step has: 0.02 → "0.04", 0.5 → "1.5";
		// the origin is "0" (narrow: it stays clear of the axis' name).
		if v == 0 {
			return "0"
		}
		d := int(math.Ceil(-math.Log10(step) - 1e-9))
		return strconv.FormatFloat(v, 'f', d, 64)
	}
	if v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return Commas(n)
}

// chartPlot is the plotting area of chart rectangle r: room at the left
// for the y labels, at the top for the title and legend, at the bottom for
// the x labels.
func chartPlot(r Rect, u float32) Rect {
	return Rect{r.X + 46*u, r.Y + 28*u, r.W - 54*u, r.H - 28*u - 18*u}
}

// chartView is one chart being drawn: its spec, rectangle, plotting area
// and scales.
type chartView struct {
	spec chartSpec
	r    Rect
	plot Rect
	u    float32
	maxV float32 // the y-axis' top
	maxR float32 // the right y-axis' top, or 0 without one
	end  int64   // the x-axis covers cycles 0 … end
	// scaling: the pool could scale at some point of the run, so the
	// legend keys the scale marks.
	scaling bool
	// errs: some attempt ended in error, so the legend keys the errors'
	// strip.
	errs bool
	// width is the lines' width (0: the default, 2 design pixels).
	width float32
	// changes are the changes made to the run so far, marked at their
	// cycles (changeMarks).
	changes []sim.Change
	// lanes is the number of lanes drawn (1: a single run).
	lanes int
	// stride is the cycles a sample covers (History.Stride).
	stride int64
	// band is the height of the errors' strips' band under the plot,
	// between the x-axis and its labels (0 without errors): the strips
	// never cover the data.
	band float32
}

// errorRow is the height of one errors' strip in the band under the plot
// (a row per lane in the compare view: red over the lane's colour).
func (c *chartView) errorRow() float32 {
	if c.lanes > 1 {
		return 5*c.u + max(1.5*c.u, 1) + c.u
	}
	return 5 * c.u
}

// makeBand makes room for the errors' strips under the plot, when there
// are errors: the plot gives up its bottom to the band.
func (c *chartView) makeBand() {
	if !c.errs {
		return
	}
	c.band = float32(max(c.lanes, 1))*c.errorRow() + c.u
	c.plot.H -= c.band
}

// title is the chart's title with its unit and, once a sample covers
// more than one cycle, what a bar of it is (binNote): "queue (requests,
// peak of 800 cycles)".
func (c *chartView) title() string {
	return c.spec.title + " (" + c.spec.unit + c.binNote(", ", "") + ")"
}

// binNote says how a bar sums up its cycles, between pre and post, once
// a sample covers more than one: the peak of them (AggMax) or their mean
// (AggMean); "" for a single cycle or a value at a bucket's end.
func (c *chartView) binNote(pre, post string) string {
	if c.stride <= 1 {
		return ""
	}
	var how string
	switch c.spec.bars.agg {
	case AggMax:
		how = "peak"
	case AggMean:
		how = "mean"
	default:
		return ""
	}
	return pre + how + " of " + Commas(c.stride) + " cycles" + post
}

// lineWidth is the width of the chart's lines.
func (c *chartView) lineWidth() float32 {
	if c.width > 0 {
		return c.width
	}
	return max(2*c.u, 1.5)
}

func (c *chartView) xAt(cycle int64) float32 {
	return c.plot.X + c.plot.W*float32(cycle)/float32(c.end)
}

func (c *chartView) yAt(v float32) float32 { return c.plot.Y + c.plot.H - c.plot.H*v/c.maxV }

// scalingActs reports whether the pool could scale during sample smp:
// only then do the thresholds' lines take part in a chart's scale.
func scalingActs(smp Sample) bool { return smp.MinServers < smp.MaxServers }

// drawCharts draws each chart of charts: title and legend, axes, then the
// data. The y-axis fits the data, and the thresholds' lines while scaling
// can act (a line above the data of a fixed pool is left out). In the
// compare view each lane is a line in its colour, named in the legend.
func (s *Session) drawCharts(f *Frame, l Layout) {
	changes := s.m.Changes() // the first lane's: a set= or fault= goes to every lane
	for ci, spec := range s.shownCharts() {
		if ci >= len(l.Charts) {
			break
		}
		if spec.cdf {
			s.drawWaitCDF(f, spec, l.Charts[ci], l.T)
			continue
		}
		c := chartView{spec: spec, r: l.Charts[ci], u: l.T, maxV: s.chartTop(spec), maxR: s.rightTop(spec), end: s.m.Cycle() + 1, changes: changes, lanes: s.chartLanes(), stride: s.hists[0].Stride()}
		c.plot = chartPlot(c.r, c.u)
		if c.maxR > 0 {
			c.plot.W -= 34 * c.u // room for the right axis' labels
		}
		f.rect(SceneLayer, c.r, Panel)
		if s.Comparing() {
			c.spec.lines = c.onRight(laneLines(spec.lines))
			for li := range s.chartLanes() {
				c.errs = c.errs || (spec.errors && s.hists[li].Errors())
			}
			c.makeBand()
			s.laneLegend(f, &c)
			f.box("plot", c.plot)
			c.changeMarks(f, s.startRate())
			c.axes(f)
			n, w := s.chartLanes(), c.lineWidth()
			for li := range n {
				h := &s.hists[li]
				// Each lane's line thinner than the one before, over it:
				// where two lanes agree both still show.
				c.width = w * (1 + 0.8*float32(n-1-li))
				c.line(f, h, spec.bars.value, LaneColor(li))
				c.markers(f, h, spec.bars.value, li, n)
				for _, ln := range c.spec.lines {
					c.dashed(f, h, ln, LaneColor(li))
				}
				if spec.errors {
					c.laneErrors(f, h, li, n)
				}
			}
			c.changeLines(f)
			continue
		}
		for i := range s.hists[0].Len() {
			c.scaling = c.scaling || scalingActs(s.hists[0].At(i))
		}
		c.spec.lines = nil
		if spec.data || c.scaling {
			// A fixed pool has no thresholds to draw or name.
			c.spec.lines = c.onRight(fitLines(spec.lines, &s.hists[0], c.maxV))
		}
		c.spec.stack = shownStack(spec.stack, &s.hists[0])
		c.errs = spec.errors && s.hists[0].Errors()
		c.makeBand()
		end := c.legend(f)
		c.errorsKey(f, end)
		f.box("plot", c.plot)
		c.changeMarks(f, s.startRate())
		c.axes(f)
		c.data(f, &s.hists[0])
		c.changeLines(f)
	}
}

// chartTop is the top of chart spec's y-axis: the largest value of its
// data in any lane (with the lines drawn for each lane), and of its lines
// while scaling can act (a single run's), at least 1 (a chart of rates:
// 0.01).
func (s *Session) chartTop(spec chartSpec) float32 {
	top := float32(1)
	if spec.data {
		top = 0.01 // rates per cycle: a slow stream reads too
	}
	lines := spec.lines
	if spec.dataOnly {
		lines = nil
	}
	for li := range s.chartLanes() {
		h := &s.hists[li]
		for i := range h.Len() {
			smp := h.At(i)
			top = max(top, spec.bars.value(smp))
			for _, ln := range lines {
				if ln.right {
					continue // its own axis: rightTop
				}
				if (s.Comparing() && ln.lanes) || (!s.Comparing() && (spec.data || scalingActs(smp))) {
					top = max(top, ln.value(smp))
				}
			}
		}
	}
	return top
}

// rightTop is the top of chart spec's right y-axis: the largest value of
// its right lines in any lane (at least 0.01), or 0 when it has none.
func (s *Session) rightTop(spec chartSpec) float32 {
	top := float32(0)
	for _, ln := range spec.lines {
		if !ln.right {
			continue
		}
		top = max(top, 0.01)
		for li := range s.chartLanes() {
			h := &s.hists[li]
			for i := range h.Len() {
				top = max(top, ln.value(h.At(i)))
			}
		}
	}
	return top
}

// onRight returns lines with those on the right axis scaled to the left
// one's, so that they are drawn like the others.
func (c *chartView) onRight(lines []chartSeries) []chartSeries {
	out := slices.Clone(lines)
	for i, ln := range out {
		if ln.right && c.maxR > 0 {
			v, k := ln.value, c.maxV/c.maxR
			out[i].value = func(s Sample) float32 { return v(s) * k }
		}
	}
	return out
}

// laneLines returns the lines of a chart drawn for each lane in the
// compare view.
func laneLines(lines []chartSeries) []chartSeries {
	var out []chartSeries
	for _, ln := range lines {
		if ln.lanes {
			out = append(out, ln)
		}
	}
	return out
}

// fitLines returns the lines of a chart to draw and name in its legend:
// those that reach no higher than top (the y-axis' top) somewhere in
// history h.
func fitLines(lines []chartSeries, h *History, top float32) []chartSeries {
	var out []chartSeries
	for _, ln := range lines {
		for i := range h.Len() {
			if ln.value(h.At(i)) <= top {
				out = append(out, ln)
				break
			}
		}
	}
	return out
}

// shownStack returns the parts of a stack that some sample of history h
// has, to draw and key.
func shownStack(stack []chartSeries, h *History) []chartSeries {
	var out []chartSeries
	for _, st := range stack {
		for i := range h.Len() {
			if st.value(h.At(i)) > 0 {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// chartLanes is the number of lanes the charts draw: every lane of the
// compare view, else the one run.
func (s *Session) chartLanes() int { return len(s.set.Lanes) }

// legend draws the title with its unit, then each line's and the scale
// marks' key, and returns where the keys end.
func (c *chartView) legend(f *Frame) float32 {
	r, u := c.r, c.u
	x := r.X + 8*u
	title := c.title()
	f.text(SceneLayer, title, x, r.Y+4*u, 14*u, true, AlignStart, TextColor)
	x += TextWidth(title, 14*u, true) + 12*u
	end := r.X + r.W - 6*u
	if c.spec.live && x+18*u+TextWidth("live", 12*u, false) <= end {
		f.rect(SceneLayer, Rect{x, r.Y + 11*u, 14 * u, 2 * u}, LiveCol)
		f.text(SceneLayer, "live", x+18*u, r.Y+5*u, 12*u, false, AlignStart, DimText)
		x += 18*u + TextWidth("live", 12*u, false) + 10*u
	}
	for _, st := range c.spec.stack {
		// A stack's part: a box of its colour and its name, whole.
		w := 14*u + TextWidth(st.name, 12*u, false)
		if x+w > end {
			break
		}
		f.rect(SceneLayer, Rect{x, r.Y + 6*u, 10 * u, 10 * u}, st.col)
		if st.stripe {
			stripes(f, Rect{x, r.Y + 6*u, 10 * u, 10 * u}, u)
		}
		f.text(SceneLayer, st.name, x+14*u, r.Y+5*u, 12*u, false, AlignStart, DimText)
		x += w + 8*u
	}
	// The lines' keys after the title's, or, when one would be cut, in a
	// row of keys over the plot's right end (keyRow); a key that does not
	// fit even there is abbreviated, never drawn past the chart.
	keyName := func(ln chartSeries, short bool) string {
		if short && ln.short != "" {
			return ln.short
		}
		return ln.name
	}
	need := func(short bool) float32 {
		w := float32(0)
		for _, ln := range c.spec.lines {
			w += 18*u + TextWidth(keyName(ln, short), 12*u, false) + 10*u
		}
		return w - 10*u
	}
	lx, ly, rowEnd, short := x, r.Y, end, false
	switch {
	case len(c.spec.lines) == 0 || lx+need(false) <= end:
	case lx+need(true) <= end:
		short = true // the short keys on the title's line
	default:
		short = need(false) > c.plot.W
		lx = c.plot.X + c.plot.W - need(short)
		ly = c.keyRow() - 5*u
		c.plot.Y += 4 * u // clear of the y-axis' top label
		c.plot.H -= 4 * u
		rowEnd = c.plot.X + c.plot.W
	}
	for _, ln := range c.spec.lines {
		name := f.abbreviate(keyName(ln, short), 12*u, false, rowEnd-lx-18*u+0.01*u) // a row that fits exactly: the sum's rounding cut its last key
		if name == "" {
			break
		}
		if ln.dot {
			for d := float32(0); d < 14*u; d += 5 * u {
				f.rect(SceneLayer, Rect{lx + d, ly + 11*u, 2 * u, 2 * u}, ln.col)
			}
		} else if ln.dash {
			f.rect(SceneLayer, Rect{lx, ly + 11*u, 5 * u, 2 * u}, ln.col)
			f.rect(SceneLayer, Rect{lx + 9*u, ly + 11*u, 5 * u, 2 * u}, ln.col)
		} else {
			f.rect(SceneLayer, Rect{lx, ly + 11*u, 14 * u, 2 * u}, ln.col)
		}
		f.text(SceneLayer, name, lx+18*u, ly+5*u, 12*u, false, AlignStart, DimText)
		lx += 18*u + TextWidth(name, 12*u, false) + 10*u
	}
	if ly == r.Y {
		x = lx // on the title's line: the next keys follow
	}
	if c.spec.marks && c.scaling && x+4*4*u+4*u+TextWidth("scaling", 12*u, false) <= end {
		m := 4 * u
		f.triangle(SceneLayer, Point{x + m, r.Y + 7*u}, Point{x + 2*m, r.Y + 7*u + m*1.6}, Point{x, r.Y + 7*u + m*1.6}, UpMark)
		f.triangle(SceneLayer, Point{x + 3*m, r.Y + 7*u + m*1.6}, Point{x + 2*m, r.Y + 7*u}, Point{x + 4*m, r.Y + 7*u}, DownMark)
		f.text(SceneLayer, "scaling", x+4*m+4*u, r.Y+5*u, 12*u, false, AlignStart, DimText)
		x += 4*m + 4*u + TextWidth("scaling", 12*u, false) + 10*u
	}
	return x
}

// errorsKey keys the errors' strip, when the run has errors, and the
// changes' marks, when there are any: after the legend's other keys
// (which end at x), or, when they leave no room (large text), in a row of
// keys over the plot's right end (keyRow). It is called before the axes
// and the data.
func (c *chartView) errorsKey(f *Frame, x float32) {
	r, u := c.r, c.u
	w := c.extraKeysWidth()
	if w == 0 {
		return
	}
	y := r.Y + 5*u
	if x+w-10*u > r.X+r.W-6*u {
		x, y = c.plot.X+c.plot.W-w+6*u, c.keyRow()
	}
	c.extraKeys(f, x, y)
}

// extraKeysWidth is the room the errors' and the changes' keys take.
func (c *chartView) extraKeysWidth() float32 {
	w := float32(0)
	if c.errs {
		w += 18*c.u + TextWidth(c.errorsName(), 12*c.u, false) + 10*c.u
	}
	if len(c.changes) > 0 {
		w += 18*c.u + TextWidth("changes", 12*c.u, false) + 10*c.u
	}
	return w
}

// errorsName is the errors' key: in the compare view it says that each
// lane has its row (red over a line in the lane's colour, in lane order).
func (c *chartView) errorsName() string {
	if c.lanes > 1 {
		return "errors, a row per lane"
	}
	return "errors"
}

// extraKeys draws the errors' and the changes' keys from x at y.
func (c *chartView) extraKeys(f *Frame, x, y float32) {
	u := c.u
	if c.errs {
		f.rect(SceneLayer, Rect{x, y + 4*u, 14 * u, 4 * u}, FailColor)
		f.text(SceneLayer, c.errorsName(), x+18*u, y, 12*u, false, AlignStart, DimText)
		x += 18*u + TextWidth(c.errorsName(), 12*u, false) + 10*u
	}
	if len(c.changes) > 0 {
		f.rect(SceneLayer, Rect{x + 2*u, y, 10 * u, 13 * u}, fade(ChangeCol, 0.25))
		for d := float32(0); d < 13*u; d += 5 * u {
			f.rect(SceneLayer, Rect{x + 6*u, y + d, 2 * u, 3 * u}, ChangeCol)
		}
		f.text(SceneLayer, "changes", x+18*u, y, 12*u, false, AlignStart, DimText)
	}
}

// changeMarks marks on the plot each change made to the run (a `--set`,
// a fault, a slider moved) at its cycle: a dashed line across the plot
// (changeLines, over the data); and, under the data, the windows in which
// the arrival rate was raised (a spike) shaded from the change that raised
// it to the one that lowered it.
func (c *chartView) changeMarks(f *Frame, baseRate int64) {
	plot := c.plot
	rate, from := baseRate, int64(-1)
	shade := func(a, b int64) {
		x0, x1 := c.xAt(a), c.xAt(b)
		f.rect(SceneLayer, Rect{x0, plot.Y, x1 - x0, plot.H}, fade(ChangeCol, 0.12))
	}
	for _, ch := range c.changes {
		if ch.Setting != sim.SetRate {
			continue
		}
		switch {
		case ch.Value > rate && from < 0:
			from = ch.Cycle
		case ch.Value < rate && from >= 0:
			shade(from, ch.Cycle)
			from = -1
		}
		rate = ch.Value
	}
	if from >= 0 {
		shade(from, c.end)
	}
}

// changeLines draws the changes' dashed lines (see changeMarks), over
// the data.
func (c *chartView) changeLines(f *Frame) {
	u, plot := c.u, c.plot
	for _, ch := range c.changes {
		x := c.xAt(ch.Cycle)
		for y := plot.Y; y < plot.Y+plot.H; y += 6 * u {
			f.rect(SceneLayer, Rect{x - u/2, y, max(u, 1), min(3*u, plot.Y+plot.H-y)}, ChangeCol)
		}
	}
}

// laneLegend draws the title with its unit, then each lane's key: a short
// line in its colour and its label (abbreviated to share the room), then
// the keys of the dashed lines drawn for each lane and of the errors'
// strips, when the chart has them (in grey: they stand for every lane).
func (s *Session) laneLegend(f *Frame, c *chartView) {
	r, u := c.r, c.u
	keys := float32(0) // the room the other keys take
	for _, ln := range c.spec.lines {
		keys += 18*u + TextWidth(ln.name, 12*u, false) + 10*u
	}
	keys += c.extraKeysWidth()
	n, end := float32(len(s.set.Lanes)), r.X+r.W-6*u
	// The title with its unit, or without it when the lanes' labels would
	// not fit whole beside it (a label may carry a number: budget-0.1).
	var x, room float32
	fit := func(room float32) bool {
		for _, ln := range s.set.Lanes {
			if TextWidth(ln.Label, 12*u, true) > room-28*u {
				return false
			}
		}
		return true
	}
	titles := []string{c.title(), c.spec.title + c.binNote(" (", ")"), c.spec.title}
	beside := titles
	if c.binNote("", "") != "" {
		beside = titles[:2] // what a bar is stays said: the lanes take a row first
	}
	shown := ""
	for _, title := range beside {
		x = r.X + 8*u + TextWidth(title, 14*u, true) + 12*u
		room = (end - x - keys) / n
		if room < 80*u || !fit(room) {
			// The lanes' labels first: the other keys go to the plot's
			// corner.
			room = max(room, (end-x)/n)
		}
		if fit(room) {
			shown = title
			break
		}
	}
	ly := r.Y // the lanes' keys' line
	if shown == "" {
		// Beside any title the labels would be cut: they take a row of
		// their own over the plot, the whole chart wide, and the title
		// keeps its unit and what a bar is where they fit.
		for _, title := range titles {
			if shown = title; TextWidth(title, 14*u, true) <= r.W-16*u {
				break
			}
		}
		x, ly = r.X+8*u, c.keyRow()-5*u
		c.plot.Y += 4 * u // the labels are bold: clear of the y-axis' top label
		c.plot.H -= 4 * u
		room = (end - x) / n
	}
	f.text(SceneLayer, shown, r.X+8*u, r.Y+4*u, 14*u, true, AlignStart, TextColor)
	perRow := len(s.set.Lanes)
	if ly != r.Y && !fit(room) && perRow > 1 {
		// Too many for one row: two rows, half the lanes each.
		perRow = (perRow + 1) / 2
		room = (end - x) / float32(perRow)
		c.keyRow()
	}
	x0 := x
	for i, ln := range s.set.Lanes {
		if i > 0 && i%perRow == 0 {
			x, ly = x0, ly+16*u
		}
		f.rect(SceneLayer, Rect{x, ly + 11*u, 14 * u, 3 * u}, LaneColor(i))
		LaneMarker(f, SceneLayer, Point{x + 7*u, ly + 12.5*u}, 4*u, i, LaneColor(i))
		name := f.abbreviate(ln.Label, 12*u, true, room-28*u)
		f.text(SceneLayer, name, x+18*u, ly+5*u, 12*u, true, AlignStart, LaneColor(i))
		x += room
	}
	if keys == 0 {
		return
	}
	// The other keys after the lanes', or, when they leave no room, in a
	// row of keys over the plot's right end (keyRow).
	y := ly + 5*u
	if x+keys-10*u > end {
		x, y = c.plot.X+c.plot.W-keys+6*u, c.keyRow()
	}
	for _, ln := range c.spec.lines {
		dw := float32(3) // dashes of 3 every 5, dots of 2
		if ln.dot {
			dw = 2
		}
		for d := float32(0); d < 14*u; d += 5 * u {
			f.rect(SceneLayer, Rect{x + d, y + 6*u, dw * u, 2 * u}, DimText)
		}
		f.text(SceneLayer, ln.name, x+18*u, y, 12*u, false, AlignStart, DimText)
		x += 18*u + TextWidth(ln.name, 12*u, false) + 10*u
	}
	c.extraKeys(f, x, y)
}

// keyRow makes room for a row of keys between the legend's line and the
// plot, which gives up its top to it (keys never lie over the data), and
// returns the row's y.
func (c *chartView) keyRow() float32 {
	y := c.plot.Y
	c.plot.Y += 16 * c.u
	c.plot.H -= 16 * c.u
	return y
}

// axes draws both axes with their ticks: about three on the y-axis, one
// every 90 design pixels or more on the x-axis, labels that do not fit
// left out.
func (c *chartView) axes(f *Frame) {
	r, plot, u := c.r, c.plot, c.u
	f.rect(SceneLayer, Rect{plot.X, plot.Y + plot.H, plot.W, max(u, 1)}, Grid)
	f.rect(SceneLayer, Rect{plot.X - max(u, 1), plot.Y, max(u, 1), plot.H}, Grid)
	// About three ticks, fewer on a plot too short for three labels (the
	// errors' band and rows of keys take its height).
	ticks := max(min(3, int(plot.H/(14*u))), 1)
	ys := NiceStep(float64(c.maxV), ticks)
	for v := 0.0; v <= float64(c.maxV)+1e-9; v += ys {
		y := c.yAt(float32(v))
		f.rect(SceneLayer, Rect{plot.X - 4*u, y, plot.W + 4*u, max(u*0.6, 1)}, fade(Grid, 0.7))
		f.text(SceneLayer, tickLabel(v, ys), plot.X-6*u, y-6*u, 11*u, false, AlignEnd, DimText)
	}
	if c.maxR > 0 {
		// The right axis: its ticks and labels, for the lines on it.
		f.rect(SceneLayer, Rect{plot.X + plot.W, plot.Y, max(u, 1), plot.H}, Grid)
		rs := NiceStep(float64(c.maxR), ticks)
		for v := 0.0; v <= float64(c.maxR)+1e-9; v += rs {
			y := plot.Y + plot.H - plot.H*float32(v)/c.maxR
			f.rect(SceneLayer, Rect{plot.X + plot.W, y, 4 * u, max(u*0.6, 1)}, Grid)
			if v == 0 {
				continue // the left axis' 0, on the x-axis: its label would meet the x-axis' last
			}
			f.text(SceneLayer, tickLabel(v, rs), plot.X+plot.W+6*u, y-6*u, 11*u, false, AlignStart, DimText)
		}
	}
	xs := NiceStep(float64(c.end), max(int(plot.W/(90*u)), 1))
	lastRight, edge := plot.X-6*u, r.X+r.W-2*u // the origin's label starts at the axis
	if c.maxR > 0 {
		edge = plot.X + plot.W + 4*u // clear of the right axis' labels
	}
	for v := 0.0; v <= float64(c.end)+1e-9; v += xs {
		x := plot.X + plot.W*float32(v)/float32(c.end)
		f.rect(SceneLayer, Rect{x, plot.Y + plot.H, max(u, 1), 4*u + c.band}, Grid)
		label := tickLabel(v, xs)
		w := TextWidth(label, 11*u, false)
		left := x - w/2
		if v == 0 {
			left = x
		}
		// The last label ends at the chart's edge (or the right axis')
		// rather than past it (100k at the end of a 100,000-cycle run).
		left = min(left, edge-w)
		if left < lastRight+6*u {
			continue // no room for this label
		}
		f.text(SceneLayer, label, left, plot.Y+plot.H+c.band+5*u, 11*u, false, AlignStart, DimText)
		lastRight = left + w
	}
	f.text(SceneLayer, "cycle", r.X+2*u, plot.Y+plot.H+c.band+5*u, 10*u, false, AlignStart, DimText)
}

// data draws the bars of history h with their scale marks, then each
// line as runs of equal height (one quad a run), leaving out the parts of
// a line above the chart's top.
func (c *chartView) data(f *Frame, h *History) {
	// Scale events in more than a quarter of the samples (a pool pinned
	// at its min or max, scaling back and forth): their bands would tint
	// the whole plot over the data, so only the ▲ and ▼ are drawn.
	marked := 0
	for i := range h.Len() {
		if smp := h.At(i); smp.Ups+smp.Downs > 0 {
			marked++
		}
	}
	dense := marked*4 > h.Len()
	n := h.Len()
	plot, u := c.plot, c.u
	right := float32(math.Floor(float64(plot.X + plot.W)))
	for i := range n {
		smp := h.At(i)
		// Each bar reaches the next, its edges on whole pixels: no gap
		// and no seam between them, at least a pixel wide.
		x0 := min(pixel(c.xAt(smp.First)), right-1)
		bw := min(max(pixel(c.xAt(smp.Last+1)), x0+1), right) - x0 // a narrower sample overlaps the next
		if len(c.spec.stack) == 0 {
			y := c.yAt(c.spec.bars.value(smp))
			f.rect(SceneLayer, Rect{x0, y, bw, plot.Y + plot.H - y}, c.spec.bars.col)
		}
		base := float32(0)
		for _, st := range c.spec.stack {
			v := st.value(smp)
			if v <= 0 {
				continue
			}
			y0, y1 := c.yAt(base), c.yAt(base+v)
			f.rect(SceneLayer, Rect{x0, y1, bw, y0 - y1}, st.col)
			if st.stripe {
				stripes(f, Rect{x0, y1, bw, y0 - y1}, u)
			}
			base += v
		}
		if c.spec.errors && smp.Errors > 0 {
			// In the band under the x-axis (makeBand), off the data.
			f.rect(SceneLayer, Rect{x0, plot.Y + plot.H + 2*u, max(bw, 1.5*u), c.errorRow() - u}, FailColor)
		}
		if !c.spec.marks {
			continue
		}
		m := 4 * u
		if smp.Ups > 0 {
			if !dense {
				f.rect(SceneLayer, Rect{x0, plot.Y, max(bw, 1.5*u), plot.H}, fade(UpMark, 0.14))
			}
			f.triangle(SceneLayer, Point{x0 + bw/2, plot.Y}, Point{x0 + bw/2 + m, plot.Y + m*1.6}, Point{x0 + bw/2 - m, plot.Y + m*1.6}, UpMark)
		}
		if smp.Downs > 0 {
			if !dense {
				f.rect(SceneLayer, Rect{x0, plot.Y, max(bw, 1.5*u), plot.H}, fade(DownMark, 0.14))
			}
			f.triangle(SceneLayer, Point{x0 + bw/2, plot.Y + plot.H}, Point{x0 + bw/2 - m, plot.Y + plot.H - m*1.6}, Point{x0 + bw/2 + m, plot.Y + plot.H - m*1.6}, DownMark)
		}
	}
	for _, ln := range c.spec.lines {
		if c.spec.data { // a data line: a step line with its joints
			if ln.dash || ln.dot {
				c.dashed(f, h, ln, ln.col)
			} else {
				c.line(f, h, ln.value, ln.col)
			}
			continue
		}
		runX, runY := float32(0), float32(-1)
		lw := max(2*u, 1.5)
		flush := func(x float32) {
			if runY < plot.Y-0.01 || x <= runX {
				return
			}
			y := runY - lw/2 + ln.side*lw
			if !ln.dash && !ln.dot {
				f.rect(SceneLayer, Rect{runX, y, x - runX, lw}, ln.col)
				return
			}
			// Dashes of 6 design pixels every 10 (dots of 2 every 5), in
			// one phase along the x-axis.
			dash, period := ln.pattern(u)
			for k := float32(math.Floor(float64((runX - plot.X) / period))); ; k++ {
				a, b := max(plot.X+k*period, runX), min(plot.X+k*period+dash, x)
				if a >= x {
					break
				}
				if b > a {
					f.rect(SceneLayer, Rect{a, y, b - a, lw}, ln.col)
				}
			}
		}
		for i := range n {
			smp := h.At(i)
			y := c.yAt(ln.value(smp))
			if ln.target && ln.value(smp) == 0 {
				y = plot.Y - 100 // none here: off the plot, not drawn
			}
			if y != runY {
				x := c.xAt(smp.First)
				flush(x)
				if !ln.dash && !ln.dot && runY >= plot.Y-0.01 && y >= plot.Y-0.01 {
					// A solid line's joint: a line whose value moves
					// every sample (U·S as the pool scales) stays one
					// line, never a row of dots.
					y0, y1 := min(runY, y)-lw/2+ln.side*lw, max(runY, y)+lw/2+ln.side*lw
					f.rect(SceneLayer, Rect{x - lw/2, y0, lw, y1 - y0}, ln.col)
				}
				runX, runY = x, y
			}
		}
		if n > 0 {
			flush(c.xAt(h.At(n-1).Last + 1))
		}
	}
	if c.spec.live {
		c.line(f, h, c.spec.bars.value, LiveCol)
	}
}

// stripeCol is the stripes' colour over a striped stack part.
var stripeCol = fade(DownWord, 0.8)

// stripes draws light horizontal stripes across r, one design pixel thick
// every four, for a striped stack part (chartSeries.stripe).
func stripes(f *Frame, r Rect, u float32) {
	th := max(u, 1)
	for y := r.Y + th; y < r.Y+r.H-th/2; y += 4 * u {
		f.rect(SceneLayer, Rect{r.X, y, r.W, th}, stripeCol)
	}
}

// pixel rounds x to a whole pixel.
func pixel(x float32) float32 { return float32(math.Round(float64(x))) }

// laneErrors draws lane li's errors' strip (of n lanes): a row along the
// x-axis under the samples of history h in which attempts ended in error,
// red over a thin line in the lane's colour, the lanes' rows stacked in
// their order in the band under the x-axis (makeBand); and along each
// run of such samples the lane's marker (LaneMarker, on a dark halo), at
// its start and every markerEvery/2 design pixels, so that whose errors a
// row shows reads by shape too.
func (c *chartView) laneErrors(f *Frame, h *History, li, n int) {
	u, plot := c.u, c.plot
	red, under := 5*u, max(1.5*u, 1)
	y := plot.Y + plot.H + 2*u + float32(li)*c.errorRow() // in the band under the x-axis (makeBand)
	r, every := 2.4*u, markerEvery*u/2
	var marks []float32 // the markers' x
	runEnd := float32(-1)
	for i := range h.Len() {
		smp := h.At(i)
		if smp.Errors == 0 {
			continue
		}
		x0 := c.xAt(smp.First)
		w := max(c.xAt(smp.Last+1)-x0, 1.5*u)
		f.rect(SceneLayer, Rect{x0, y, w, red}, FailColor)
		f.rect(SceneLayer, Rect{x0, y + red, w, under}, LaneColor(li))
		// A run goes on over gaps narrower than a marker.
		if x0 > runEnd+2*r || len(marks) == 0 {
			marks = append(marks, x0+r)
		}
		for last := marks[len(marks)-1]; x0+w-r > last+every; last = marks[len(marks)-1] {
			marks = append(marks, last+every)
		}
		runEnd = x0 + w
	}
	for _, x := range marks {
		p := Point{min(x, plot.X+plot.W-r), y + red/2}
		LaneMarker(f, SceneLayer, p, r*1.45, li, fade(Background, 0.9))
		LaneMarker(f, SceneLayer, p, r, li, LaneColor(li))
	}
}

// markerEvery is the distance, in design pixels, between a lane's markers
// along its line.
const markerEvery = 90

// markers draws lane li's marker (of n lanes) along its line of value in
// history h: every markerEvery design pixels, each lane's shifted by its
// share of that, and at the line's end.
func (c *chartView) markers(f *Frame, h *History, value func(Sample) float32, li, n int) {
	if h.Len() == 0 {
		return
	}
	r, step := 4*c.u, markerEvery*c.u
	at := func(x float32) {
		// The sample under x (the last one past the data).
		cyc := int64(float32(c.end) * (x - c.plot.X) / c.plot.W)
		i := min(sort.Search(h.Len(), func(i int) bool { return h.At(i).Last >= cyc }), h.Len()-1)
		LaneMarker(f, SceneLayer, Point{x, c.yAt(value(h.At(i)))}, r, li, LaneColor(li))
	}
	end := c.xAt(h.At(h.Len()-1).Last + 1)
	for x := c.plot.X + step*(0.5+float32(li)/float32(n)); x < end-step/2; x += step {
		at(x)
	}
	at(end - 0.01)
}

// pattern returns the length of line ln's dashes and their period: 6 of
// 10 design pixels dashed, 2 of 5 dotted.
func (ln chartSeries) pattern(u float32) (dash, period float32) {
	if ln.dot {
		return 2 * u, 5 * u
	}
	return 6 * u, 10 * u
}

// dashed draws ln's value of history h as a dashed (or dotted) step line
// in colour col: dashes along each sample's run, a thin joint where it
// changes.
func (c *chartView) dashed(f *Frame, h *History, ln chartSeries, col color.RGBA) {
	value := ln.value
	w := c.lineWidth()
	dash, period := ln.pattern(c.u)
	prev := float32(-1)
	for i := range h.Len() {
		smp := h.At(i)
		x0, x1 := c.xAt(smp.First), c.xAt(smp.Last+1)
		if ln.target && value(smp) == 0 {
			prev = -1 // none here (a lane of the queue rule): a gap
			continue
		}
		y := c.yAt(value(smp))
		// The dashes keep one phase along the x-axis.
		for k := float32(math.Floor(float64((x0 - c.plot.X) / period))); ; k++ {
			a, b := max(c.plot.X+k*period, x0), min(c.plot.X+k*period+dash, x1)
			if a >= x1 {
				break
			}
			if b > a {
				f.rect(SceneLayer, Rect{a, y - w/2, b - a, w}, col)
			}
		}
		if prev >= 0 && prev != y {
			f.rect(SceneLayer, Rect{x0 - w/4, min(prev, y), w / 2, max(prev, y) - min(prev, y)}, col)
		}
		prev = y
	}
}

// line draws value of history h as a step line in colour col: a
// horizontal run per sample and a vertical joint where it changes.
func (c *chartView) line(f *Frame, h *History, value func(Sample) float32, col color.RGBA) {
	w := c.lineWidth()
	prev := float32(-1)
	for i := range h.Len() {
		smp := h.At(i)
		x0, x1 := c.xAt(smp.First), c.xAt(smp.Last+1)
		y := c.yAt(value(smp))
		f.rect(SceneLayer, Rect{x0, y - w/2, max(x1-x0, 1), w}, col)
		if prev >= 0 && prev != y {
			f.rect(SceneLayer, Rect{x0 - w/2, min(prev, y) - w/2, w, max(prev, y) - min(prev, y) + w}, col)
		}
		prev = y
	}
}

// advances are the Go fonts' advances of the printable ASCII characters
// (from ' ' to '~'), in thousandths of the font size, rounded up.
var advances = [2][95]uint16{
	{278, 278, 355, 557, 557, 890, 667, 191, 334, 334, 584, 584, 317, 584, 317, 278, 557, 557, 557, 557, 557, 557, 557, 557, 557, 557, 307, 307, 584, 584, 584, 557, 1016, 667, 667, 723, 723, 667, 611, 778, 723, 399, 496, 667, 557, 834, 723, 778, 667, 778, 723, 667, 611, 723, 667, 944, 667, 667, 611, 278, 278, 278, 469, 557, 334, 557, 557, 500, 557, 557, 278, 557, 557, 247, 254, 500, 268, 834, 557, 557, 557, 557, 334, 500, 283, 557, 500, 723, 500, 500, 500, 334, 260, 334, 584},
	{278, 334, 475, 557, 557, 890, 723, 238, 334, 334, 559, 584, 278, 584, 278, 278, 557, 557, 557, 557, 557, 557, 557, 557, 557, 557, 334, 334, 584, 584, 584, 611, 976, 723, 723, 723, 723, 667, 611, 778, 723, 454, 557, 723, 611, 834, 723, 778, 667, 778, 723, 667, 611, 723, 667, 944, 667, 667, 611, 334, 278, 334, 584, 557, 334, 557, 611, 557, 611, 557, 334, 611, 611, 290, 288, 557, 299, 890, 611, 611, 611, 611, 390, 557, 334, 611, 557, 778, 557, 557, 500, 390, 280, 390, 584},
}

// TextWidth returns the width of s drawn at size, from the Go fonts'
// advances (other characters count as one em), so that a layout checked
// with it does not overlap on screen.
func TextWidth(s string, size float32, bold bool) float32 {
	b := 0
	if bold {
		b = 1
	}
	var w int
	for _, r := range s {
		switch {
		case r >= ' ' && r <= '~':
			w += int(advances[b][r-' '])
		case r == '·':
			w += 400
		default:
			w += 1000
		}
	}
	return float32(w) * size / 1000
}

// startRate is the arrival rate the run started with, against which the
// charts find the windows of a raised rate.
func (s *Session) startRate() int64 { return int64(s.cfg.Rate) }
