package scene

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// TestHistoryCoversTheRun feeds 10,000 cycles: the samples cover cycles
// 0 … 9,999 without gaps, number between HistoryLen/2 and HistoryLen, and
// keep the largest queue and every scale event.
func TestHistoryCoversTheRun(t *testing.T) {
	var h History
	cfg := sim.DefaultConfig()
	ups := 0
	for c := range int64(10_000) {
		st := sim.CycleStats{Cycle: c, Queue: int(c % 977), Servers: 20, Retiring: 2}
		if c%50 == 0 {
			st.Scale = 1
			ups++
		}
		h.Add(st, &cfg, States{Busy: 20}, Scaling{})
	}
	if h.Len() < HistoryLen/2 || h.Len() > HistoryLen {
		t.Fatalf("%d samples", h.Len())
	}
	next, got, maxQ := int64(0), 0, 0
	for i := range h.Len() {
		s := h.At(i)
		if s.First != next {
			t.Fatalf("sample %d starts at %d, want %d", i, s.First, next)
		}
		next = s.Last + 1
		got += s.Ups
		maxQ = max(maxQ, s.Queue)
		if s.UpLine != 80*18 || s.DownLine != 50*18 {
			t.Fatalf("sample %d: lines %v %v, want U·S 1440 and D·S 900 (18 active)", i, s.UpLine, s.DownLine)
		}
	}
	if next != 10_000 || got != ups || maxQ != 976 {
		t.Errorf("covered to %d, %d of %d scale-ups, largest queue %d", next, got, ups, maxQ)
	}
}

func TestNiceStepAndTickLabels(t *testing.T) {
	for _, c := range []struct {
		span float64
		n    int
		want float64
	}{{100_000, 6, 20_000}, {23_900, 6, 5_000}, {4, 3, 2}, {1, 3, 0.5}, {2_145, 3, 1_000}, {0, 3, 1}} {
		if got := NiceStep(c.span, c.n); got != c.want {
			t.Errorf("NiceStep(%v, %d) = %v, want %v", c.span, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		v, step float64
		want    string
	}{{20_000, 5_000, "20k"}, {0, 5_000, "0"}, {500, 250, "500"}, {2_500, 500, "2,500"}, {0.5, 0.5, "0.5"}, {1.5, 0.5, "1.5"}, {0.04, 0.02, "0.04"}, {0, 0.02, "0"}, {0.1, 0.05, "0.10"},
		{50_000_000, 10_000_000, "50M"}, {600_000_000, 200_000_000, "600M"}, {1_500_000, 500_000, "1.5M"}, {500_000, 500_000, "500k"},
		{2_000_000, 500_000, "2M"}, {0, 10_000_000, "0"}, {200_000, 100_000, "200k"}} {
		if got := tickLabel(c.v, c.step); got != c.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// TestFirewallCountsPerRange runs the default block list: the per-range
// counts add up to the model's rejections, and the ranges read compactly.
func TestFirewallCountsPerRange(t *testing.T) {
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		s.Apply(StepOne)
	}
	var sum int64
	var names []string
	for i, r := range s.fw.ranges {
		sum += s.fw.counts[i]
		names = append(names, CompactRange(r))
	}
	if rej := s.m.Totals().Rejected; sum != rej || rej == 0 {
		t.Errorf("per-range counts add to %d, the model rejected %d", sum, rej)
	}
	want := []string{"0.0.0.0/8", "10/8", "127/8", "172.16/12", "192.168/16", "240/4"}
	if len(names) != len(want) {
		t.Fatalf("ranges %v", names)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("range %d reads %q, want %q", i, names[i], want[i])
		}
	}
	rs := s.fw.ranges
	for _, c := range []struct {
		addr string
		want int
	}{{"10.1.2.3", 1}, {"11.0.0.0", -1}, {"255.255.255.255", 5}, {"0.0.0.0", 0}, {"172.31.255.255", 3}} {
		a, _ := sim.ParseIPv4(c.addr)
		if got := RangeOf(rs, a); got != c.want {
			t.Errorf("RangeOf(%s) = %d, want %d", c.addr, got, c.want)
		}
	}
}

// TestChartsStayInside draws the charts early in a run and later: every
// quad of the chart area lies inside its chart.
func TestChartsStayInside(t *testing.T) {
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, steps := range []int{0, 1, 3, 700} {
		for range steps {
			s.Apply(StepOne)
		}
		f := s.Draw(BaseW, BaseH)
		l := f.Layout
		band := Rect{0, l.Charts[0].Y, float32(f.W), l.Charts[0].H}
		for _, q := range f.Layers[SceneLayer].Quads {
			r := Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y}
			if !band.Contains(Rect{r.X, r.Y, 0, 0}) {
				continue
			}
			in := false
			for _, c := range l.Charts {
				in = in || c.Contains(r)
			}
			if !in {
				t.Fatalf("cycle %d: quad %v outside the charts %v", s.m.Cycle(), r, l.Charts)
			}
		}
	}
}

// TestSpeedInOneUnit: every speed reads in cycles per second, and the HUD
// adds the achieved rate when the machine does not keep up.
func TestSpeedInOneUnit(t *testing.T) {
	for _, c := range []struct {
		sp   int64
		want string
	}{{1, "1 cycle/s"}, {5, "5 cycles/s"}, {3000, "3,000 cycles/s"}, {MaxFixedSpeed, "6,000,000 cycles/s"}, {MaxSpeed, "max speed"}} {
		if got := SpeedName(c.sp); got != c.want {
			t.Errorf("SpeedName(%d) = %q, want %q", c.sp, got, c.want)
		}
	}
	s, err := New(Options{Config: testConfig(), Speed: 3000, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.rate.rate = 2_950
	if st := s.status(); st != "► 3,000 cycles/s" {
		t.Errorf("keeping up: %q", st)
	}
	s.rate.rate = 1_200
	if st := s.status(); st != "► 3,000 cycles/s · achieved 1,200" {
		t.Errorf("falling behind: %q", st)
	}
}

func TestSig3(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{3065.7, "3,070"}, {4.0934, "4.09"}, {0.79321, "0.793"}, {0.041234, "0.0412"}, {41.26, "41.3"}, {412.6, "413"}, {0, "0"}, {1, "1.00"}} {
		if got := Sig3(c.x); got != c.want {
			t.Errorf("Sig3(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestMeasuredWindowStartsAfterTheInitialQueue: with an initial queue, the
// theory panel's measurements restart at the first cycle that ends with an
// empty queue, and the panel names the window.
func TestMeasuredWindowStartsAfterTheInitialQueue(t *testing.T) {
	cfg := testConfig()
	for _, kv := range [][2]string{{"wave", "false"}, {"service", "geometric"}, {"mean-service", "20"}, {"rate", "0.2"}, {"block", "none"},
		{"initial-per-server", "5"}, {"scale-up", "100000"}, {"scale-down", "0"}, {"min-servers", "10"}, {"max-servers", "10"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Config: cfg, Speed: 600, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	drained := int64(-1)
	for range 2_000 {
		s.Apply(StepOne)
		if drained < 0 && s.m.QueueLen() == 0 {
			drained = s.m.Cycle()
		}
	}
	if drained < 0 || !s.meas.drained || s.meas.from != drained+1 || s.meas.cycles != s.m.Cycle()-drained {
		t.Fatalf("drained at %d; window from %d over %d cycles (drained %v) at cycle %d", drained, s.meas.from, s.meas.cycles, s.meas.drained, s.m.Cycle())
	}
	lines := s.TheoryLines()
	if last := lines[len(lines)-1]; !strings.Contains(last, "cycles "+Commas(drained+1)+"–"+Commas(s.m.Cycle())+", after the initial queue drained") {
		t.Errorf("window line %q", last)
	}
}

// TestChartScalesToTheData: in a fixed pool (min = max servers, as in the
// speeds lesson) the queue chart's y-axis fits the queue, not the unused
// U·S line, which is then left out with the scale marks' key; in a pool
// that can scale the axis holds the lines.
func TestChartScalesToTheData(t *testing.T) {
	fixed := testConfig()
	for _, kv := range [][2]string{{"servers", "3"}, {"min-servers", "3"}, {"max-servers", "3"}, {"queues", "per-server"},
		{"policy", "round-robin"}, {"speeds", "2,1,1"}, {"rate", "0.08"}, {"wave", "false"}, {"scale-up", "80"}, {"initial-per-server", "0"}} {
		if err := fixed.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		cfg      sim.Config
		wantLine bool
	}{{"fixed pool", fixed, false}, {"scaling pool", testConfig(), true}} {
		s, err := New(Options{Config: tc.cfg, Speed: 600, PauseAt: -1})
		if err != nil {
			t.Fatal(err)
		}
		s.step(1_500, false)
		h := &s.hists[0]
		var queue, line float32
		for i := range h.Len() {
			queue, line = max(queue, float32(h.At(i).Queue)), max(line, h.At(i).UpLine)
		}
		top := s.chartTop(charts[0])
		f := s.Draw(BaseW, BaseH)
		drawn := slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
			return q.C == UpLineCol && f.Layout.Charts[0].Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0})
		})
		keyed := slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
			return x.S == "scaling" && f.Layout.Charts[0].Contains(Rect{x.X, x.Y, 0, 0})
		})
		if keyed != tc.wantLine {
			t.Errorf("%s: the legend keys the scale marks: %v, want %v", tc.name, keyed, tc.wantLine)
		}
		if tc.wantLine {
			if top < line || !drawn {
				t.Errorf("%s: the axis' top %.0f, U·S line up to %.0f drawn %v: want the line in the chart", tc.name, top, line, drawn)
			}
			continue
		}
		if queue >= line || top > max(queue, 1) || drawn {
			t.Errorf("%s: queue up to %.0f, U·S %.0f, the axis' top %.0f, the line drawn %v: want the axis at the queue's top, the line left out",
				tc.name, queue, line, top, drawn)
		}
	}
}

// TestChartMarksErrors: the queue chart draws a red strip along its
// x-axis under the samples in which attempts ended in error, from the
// cycle a server starts failing, and keys it in its legend; a run without
// errors has neither.
func TestChartMarksErrors(t *testing.T) {
	for _, tc := range []struct {
		fault string
		from  int64 // the cycle the server starts failing, or 0 for none
	}{{"", 0}, {"301:fail=2", 301}} {
		opts := Options{Config: testConfig(), Speed: 600, PauseAt: -1}
		if tc.fault != "" {
			c, err := sim.ParseChange(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			opts.Changes = []sim.Change{c}
		}
		s, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		firstErr := int64(0) // the cycle of the first error
		for range 900 {
			s.step(1, true)
			if firstErr == 0 && s.m.Totals().Errors > 0 {
				firstErr = s.m.Cycle()
			}
		}
		f := s.Draw(BaseW, BaseH)
		r := f.Layout.Charts[0]
		plot := chartPlot(r, f.Layout.T)
		end := s.m.Cycle() + 1
		first := float32(-1)
		for _, q := range f.Layers[SceneLayer].Quads {
			if q.C == FailColor && plot.Inset(-1).Contains(Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y}) {
				if first < 0 || q.P[0].X < first {
					first = q.P[0].X
				}
			}
		}
		legend := slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "errors" && r.Contains(textBox(x)) })
		errs := s.m.Totals().Errors
		if tc.from == 0 {
			if first >= 0 || legend || errs != 0 {
				t.Errorf("no fault: %d errors, a strip from x %.1f, legend %v", errs, first, legend)
			}
			continue
		}
		// The legend's key fits its chart at every size, overlapping no text.
		for _, size := range [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}} {
			for _, present := range []bool{false, true} {
				s.present = present
				f := s.Draw(size[0], size[1])
				r := f.Layout.Charts[0]
				if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "errors" && r.Contains(textBox(x)) }) {
					t.Errorf("%v present=%v: no errors key inside the queue chart %v", size, present, r)
				}
				for _, o := range overlaps(f) {
					t.Errorf("%v present=%v: %s", size, present, o)
				}
			}
		}
		s.present = false
		switch {
		case errs == 0 || !legend:
			t.Errorf("%s: %d errors, legend %v", tc.fault, errs, legend)
		case firstErr < tc.from:
			t.Errorf("%s: the first error at cycle %d", tc.fault, firstErr)
		default:
			// The strip starts in the sample holding the first error.
			at := plot.X + plot.W*float32(firstErr)/float32(end)
			stride := plot.W * float32(s.hists[0].Stride()) / float32(end)
			if first < at-stride-1 || first > at+1 {
				t.Errorf("%s: the strip starts at x %.1f, the first error (cycle %d) is at x %.1f (a sample is %.1f wide)", tc.fault, first, firstErr, at, stride)
			}
		}
	}
}

// band is the region under plot where a chart's errors' strips lie
// (makeBand), between the x-axis and its labels, off the data.
func band(plot Rect, u float32) Rect { return Rect{plot.X - 1, plot.Y + plot.H, plot.W + 2, 40 * u} }

// TestCompareChartsMarkEachLane: in the compare view the queue chart
// draws each lane's own errors' strip (red over a line in the lane's
// colour) from the sample of the lane's first error, none for a lane
// without errors, and keys it; the goodput chart draws each lane's
// retries on its own axis at the right (its top holds them, and they do
// not set the goodput's axis) and keys them; at every size, in both
// modes, overlapping no text and keeping the lanes' labels.
func TestCompareChartsMarkEachLane(t *testing.T) {
	opts := compareOptions(t, "healthy:timeout=60,retries=2;failing:timeout=60,retries=2")
	ch, err := sim.ParseChange("301:fail=2")
	if err != nil {
		t.Fatal(err)
	}
	opts.Lanes[1].Changes = []sim.Change{ch}
	for i := range opts.Lanes {
		opts.Lanes[i].Config.MinServers, opts.Lanes[i].Config.MaxServers = 3, 3 // server 2 stays
	}
	opts.Config = opts.Lanes[0].Config
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	firstErr := int64(0) // lane 1's first error
	for range 900 {
		s.step(1, true)
		if firstErr == 0 && s.set.Lanes[1].Model.Totals().Errors > 0 {
			firstErr = s.m.Cycle()
		}
	}
	if e := s.set.Lanes[0].Model.Totals().Errors; e != 0 || firstErr < 301 {
		t.Fatalf("lane 0: %d errors; lane 1's first error at cycle %d, want from 301", e, firstErr)
	}
	for _, size := range [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}} {
		for _, present := range []bool{false, true} {
			s.present = present
			name := fmt.Sprintf("%v present=%v", size, present)
			f := s.Draw(size[0], size[1])
			// The fixed pools' live servers would be a flat line at 3 in
			// both lanes (a failing server stays up): that chart is left out.
			if len(f.Layout.Charts) != 2 || slices.ContainsFunc(s.shownCharts(), func(c chartSpec) bool { return c.title == "live servers" }) {
				t.Fatalf("%s: %d charts, want 2: queue and goodput", name, len(f.Layout.Charts))
			}
			for _, o := range overlaps(f) {
				t.Errorf("%s: %s", name, o)
			}
			quads := f.Layers[SceneLayer].Quads
			near := func(a, b float32) bool { return a-b < 0.01 && b-a < 0.01 }
			box := func(q Quad) Rect { return Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y} }
			keyed := func(r Rect, key string) bool {
				return slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == key && r.Contains(textBox(x)) })
			}
			for ci, key := range map[int]string{0: "errors, a row per lane", 1: "retries (right axis)"} {
				r := f.Layout.Charts[ci]
				if !keyed(r, key) {
					t.Errorf("%s: no %q key inside chart %d %v", name, key, ci, r)
				}
				for _, l := range s.set.Lanes {
					if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
						return x.S != "" && strings.HasPrefix(l.Label, strings.TrimSuffix(x.S, "…")) && r.Contains(textBox(x))
					}) {
						t.Errorf("%s: chart %d does not name lane %q", name, ci, l.Label)
					}
				}
			}

			// The errors' strips: each red quad in the queue chart's plot
			// sits on a line of its lane's colour.
			u := f.Layout.T
			plot := plotOf(t, f, 0)
			end := s.m.Cycle() + 1
			first := []float32{-1, -1}
			for _, q := range quads {
				b := box(q)
				if q.C == FailColor && plot.Overlaps(b) {
					t.Errorf("%s: a red quad %v over the queue chart's data %v: the strips lie in the band under it", name, b, plot)
				}
				if q.C != FailColor || !band(plot, u).Contains(b) || slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
					return x.S == "errors, a row per lane" && near(x.X, b.X+18*u) // the key
				}) {
					continue
				}
				lane := slices.IndexFunc(quads, func(o Quad) bool {
					ob := box(o)
					return o.C != FailColor && near(ob.X, b.X) && near(ob.W, b.W) && near(ob.Y, b.Y+b.H)
				})
				li := -1
				if lane >= 0 {
					li = slices.Index([]color.RGBA{LaneColor(0), LaneColor(1)}, quads[lane].C)
				}
				if li < 0 {
					t.Errorf("%s: a red quad %v in the queue chart on no lane's line", name, b)
					continue
				}
				if first[li] < 0 || b.X < first[li] {
					first[li] = b.X
				}
			}
			at := plot.X + plot.W*float32(firstErr)/float32(end)
			stride := plot.W * float32(s.hists[1].Stride()) / float32(end)
			if first[0] >= 0 || first[1] < at-stride-1 || first[1] > at+1 {
				t.Errorf("%s: lane 0's strip from x %.1f (want none), lane 1's from %.1f, want at %.1f (its first error, cycle %d; a sample is %.1f wide)",
					name, first[0], first[1], at, firstErr, stride)
			}

			// Each lane's retries: a quad of its colour (a dash or the
			// joint up to it) at the height of its sample of most retries,
			// where its goodput differs.
			spec := s.shownCharts()[1]
			c := chartView{spec: spec, r: f.Layout.Charts[1], u: u, maxV: s.chartTop(spec), maxR: s.rightTop(spec), end: end}
			c.plot = plotOf(t, f, 1)
			if !keyed(Rect{c.plot.X + c.plot.W, c.r.Y, c.r.X + c.r.W - c.plot.X - c.plot.W, c.r.H}, tickLabel(NiceStep(float64(c.maxR), 3), NiceStep(float64(c.maxR), 3))) {
				t.Errorf("%s: the goodput chart has no right axis labelled for the retries (top %.3f)", name, c.maxR)
			}
			for li := range s.set.Lanes {
				h := &s.hists[li]
				best := -1
				for i := range h.Len() {
					smp := h.At(i)
					if smp.Retries > 0 && smp.Retries != smp.Completed && (best < 0 || smp.Retries > h.At(best).Retries) {
						best = i
					}
				}
				if best < 0 {
					t.Fatalf("lane %d: no retries", li)
				}
				smp := h.At(best)
				v := smp.PerCycle(smp.Retries)
				y := c.plot.Y + c.plot.H - c.plot.H*v/c.maxR // on the right axis
				if v <= c.maxV {
					t.Errorf("%s: lane %d's retries (%.3f a cycle) are within the goodput axis (top %.3f): the test wants them to need their own", name, li, v, c.maxV)
				}
				if v > c.maxR || !slices.ContainsFunc(quads, func(q Quad) bool {
					b := box(q)
					return q.C == LaneColor(li) && b.X >= c.xAt(smp.First)-1 && b.X+b.W <= c.xAt(smp.Last+1)+1 && b.W > 0 && b.Y <= y+0.01 && b.Y+b.H >= y-0.01
				}) {
					t.Errorf("%s: lane %d's retries (%.3f a cycle in cycles %d-%d) are not drawn at y %.1f (the axis' top %.3f)",
						name, li, v, smp.First, smp.Last, y, c.maxV)
				}
			}
		}
	}
}

// TestServersChartStacksStates steps runs with every server state (a
// scaling pool that retires servers; a server down and up; warm-up,
// ejection and a failing server) one cycle at a time: the states counted
// add up to the model's live servers and equal a count server by server,
// every sample's stack adds up to its live pool, and the servers chart
// draws the last sample's stack that high, each part in its colour; its
// y-axis' top is the data's, not the pool's max.
func TestServersChartStacksStates(t *testing.T) {
	seen := States{}
	for _, tc := range []struct {
		name    string
		cfg     sim.Config
		changes []string
	}{
		{"scaling", configWith(t, "servers", "4", "cooldown", "2", "scale-up", "3", "scale-down", "2"), nil},
		{"down and up", configWith(t, "min-servers", "10", "max-servers", "10", "wave", "false", "rate", "0.2"), []string{"100:down=3", "160:up=3"}},
		{"client side", configWith(t, "servers", "3", "min-servers", "3", "max-servers", "8", "cooldown", "5", "scale-up", "3", "scale-down", "1",
			"wave", "false", "rate", "0.3", "initial-per-server", "0", "provision-delay", "150", "timeout", "60", "retries", "2", "eject-after", "2"), []string{"50:fail=1"}},
	} {
		s := running(t, tc.cfg, mustChanges(t, tc.changes...)...)
		for s.m.Cycle() < 600 {
			s.step(1, false)
			got, want := StatesOf(s.m), statesByServer(s.m)
			if got != want || got.Sum() != s.m.Pool().Live {
				t.Fatalf("%s, cycle %d: states %+v, server by server %+v, live %d", tc.name, s.m.Cycle(), got, want, s.m.Pool().Live)
			}
			seen.Busy, seen.Idle, seen.Down = max(seen.Busy, got.Busy), max(seen.Idle, got.Idle), max(seen.Down, got.Down)
			seen.Warming, seen.Ejected = max(seen.Warming, got.Warming), max(seen.Ejected, got.Ejected)
			h := &s.hists[0]
			for i := range h.Len() {
				if smp := h.At(i); smp.States.Sum() != smp.Servers {
					t.Fatalf("%s, cycle %d: sample %d (cycles %d–%d) stacks %+v for %d live servers", tc.name, s.m.Cycle(), i, smp.First, smp.Last, smp.States, smp.Servers)
				}
			}
		}
		// The chart: the last sample's stack, each part in its colour.
		h := &s.hists[0]
		last := h.At(h.Len() - 1)
		top, maxData := s.chartTop(charts[1]), float32(0)
		for i := range h.Len() {
			maxData = max(maxData, float32(h.At(i).Servers))
		}
		if top != maxData {
			t.Errorf("%s: the servers chart's top is %.0f, the data's %.0f", tc.name, top, maxData)
		}
		f := s.Draw(BaseW, BaseH)
		c := chartView{plot: plotOf(t, f, 1), maxV: top, end: s.m.Cycle() + 1}
		x0 := min(pixel(c.xAt(last.First)), float32(math.Floor(float64(c.plot.X+c.plot.W)))-1)
		var height float32
		for _, st := range charts[1].stack {
			v := st.value(last)
			i := slices.IndexFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
				return q.C == st.col && q.P[0].X == x0 && c.plot.Contains(Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y})
			})
			if (i >= 0) != (v > 0) {
				t.Errorf("%s: %s: %v servers, drawn %v", tc.name, st.name, v, i >= 0)
				continue
			}
			if i >= 0 {
				q := f.Layers[SceneLayer].Quads[i]
				height += q.P[2].Y - q.P[0].Y
			}
		}
		if want := c.plot.H * float32(last.Servers) / top; math.Abs(float64(height-want)) > 0.01 {
			t.Errorf("%s: the last stack is %.2f px high, want %.2f for %d live servers", tc.name, height, want, last.Servers)
		}
	}
	if seen.Busy == 0 || seen.Idle == 0 || seen.Down == 0 || seen.Warming == 0 || seen.Ejected == 0 {
		t.Errorf("the runs never had every state: most seen %+v", seen)
	}
}

// TestChartBarsHaveNoGaps: the queue chart's bars touch, each starting
// where the one before ends.
func TestChartBarsHaveNoGaps(t *testing.T) {
	s := running(t, testConfig())
	s.step(3_000, false)
	f := s.Draw(BaseW, BaseH)
	plot := chartPlot(f.Layout.Charts[0], f.Layout.T)
	var xs [][2]float32
	for _, q := range f.Layers[SceneLayer].Quads {
		if q.C == PColor && plot.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
			xs = append(xs, [2]float32{q.P[0].X, q.P[1].X})
		}
	}
	slices.SortFunc(xs, func(a, b [2]float32) int { return cmp.Compare(a[0], b[0]) })
	if len(xs) < HistoryLen/2 {
		t.Fatalf("%d bars", len(xs))
	}
	for i := 1; i < len(xs); i++ {
		if xs[i][0] > xs[i-1][1]+0.001 {
			t.Fatalf("bar %d ends at %.3f, bar %d starts at %.3f: a gap", i-1, xs[i-1][1], i, xs[i][0])
		}
	}
}

// TestFixedPoolHasNoScalingLines: a fixed pool (the Erlang lesson's, D =
// 0) draws no threshold or limit lines and names none, nor the scale
// marks.
func TestFixedPoolHasNoScalingLines(t *testing.T) {
	s := running(t, configWith(t, "min-servers", "10", "max-servers", "10", "wave", "false", "scale-down", "0", "rate", "0.4"))
	s.step(2_000, false)
	for _, sz := range [][2]int{{1280, 720}, {1920, 1080}} {
		f := s.Draw(sz[0], sz[1])
		for ci, r := range f.Layout.Charts {
			for _, x := range f.Layers[SceneLayer].Texts {
				if r.Contains(textBox(x)) && slices.Contains([]string{"U·S scale-up line", "D·S scale-down line", "max", "min", "scaling"}, x.S) {
					t.Errorf("%v chart %d names %q", sz, ci, x.S)
				}
			}
			for _, q := range f.Layers[SceneLayer].Quads {
				if (q.C == UpLineCol || q.C == DownLineCol) && r.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
					t.Errorf("%v chart %d draws a line in %v", sz, ci, q.C)
					break
				}
			}
		}
	}
}

// plotOf returns the plotting area of frame f's chart ci.
func plotOf(t *testing.T, f *Frame, ci int) Rect {
	t.Helper()
	k := 0
	for _, b := range f.Boxes {
		if b.Name != "plot" {
			continue
		}
		if k == ci {
			return b.R
		}
		k++
	}
	t.Fatalf("the frame has no chart %d", ci)
	return Rect{}
}

// TestDenseScaleMarksLeaveTheData: a pool that scales back and forth in
// most samples draws its scale events as ▲ and ▼ only, no bands tinting
// the whole plot over the data; a pool that scales now and then has its
// bands.
func TestDenseScaleMarksLeaveTheData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kvs   []string
		bands bool
	}{
		{"dense", []string{"servers", "4", "cooldown", "1", "scale-up", "2", "scale-down", "1"}, false},
		{"sparse", nil, true},
	} {
		s := running(t, configWith(t, tc.kvs...))
		s.step(3_000, false)
		marked, h := 0, &s.hists[0]
		for i := range h.Len() {
			if smp := h.At(i); smp.Ups+smp.Downs > 0 {
				marked++
			}
		}
		if (marked*4 > h.Len()) == tc.bands || marked == 0 {
			t.Fatalf("%s: scale events in %d of %d samples: not the case the test wants", tc.name, marked, h.Len())
		}
		f := s.Draw(BaseW, BaseH)
		bands := slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
			return q.C == fade(UpMark, 0.14) || q.C == fade(DownMark, 0.14)
		})
		if bands != tc.bands {
			t.Errorf("%s: bands drawn %v, want %v", tc.name, bands, tc.bands)
		}
	}
}

// topQuad returns the index of the last quad of layer ly (the one drawn
// over the others) that covers point p, or -1.
func topQuad(ly Layer, p Point) int {
	for i := len(ly.Quads) - 1; i >= 0; i-- {
		q := ly.Quads[i].P
		in, sign := true, float32(0)
		for k := range q {
			a, b := q[k], q[(k+1)%4]
			if a == b {
				continue // a triangle's repeated corner
			}
			c := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
			if c != 0 && sign != 0 && (c > 0) != (sign > 0) {
				in = false
				break
			}
			if c != 0 {
				sign = c
			}
		}
		if in {
			return i
		}
	}
	return -1
}

// TestPinnedPoolShowsItsLiveCount: an autoscaled pool held near its
// minimum (2 or 3 of 2–20, scaling back and forth in most samples, the
// axis up to the 20 it starts with) shows its live count on top in the
// servers chart: what is drawn last at the top of each such sample's stack
// is the live line or the stack, neither a limit's line nor a scale mark;
// and where the pool is at its min the min line shows too, just under it.
func TestPinnedPoolShowsItsLiveCount(t *testing.T) {
	s := running(t, configWith(t, "servers", "2", "min-servers", "2", "max-servers", "20", "rate", "0.08", "wave", "false",
		"cooldown", "1", "scale-up", "3", "scale-down", "2"))
	s.step(3_000, false)
	h := &s.hists[0]
	near, at, marked := 0, 0, 0
	for i := range h.Len() {
		smp := h.At(i)
		if smp.Servers <= smp.MinServers+1 {
			near++
		}
		if smp.Servers == smp.MinServers {
			at++
		}
		if smp.Ups+smp.Downs > 0 {
			marked++
		}
	}
	if near*4 < h.Len() || at == 0 || marked*4 <= h.Len() || s.chartTop(charts[1]) < 10 {
		t.Fatalf("%d of %d samples near the min, %d at it, %d scaling, top %.0f: not the case the test wants", near, h.Len(), at, marked, s.chartTop(charts[1]))
	}
	for _, present := range []bool{false, true} {
		s.present = present
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			name := fmt.Sprintf("%v present=%v", size, present)
			f := s.Draw(size[0], size[1])
			c := chartView{plot: plotOf(t, f, 1), maxV: s.chartTop(charts[1]), end: s.m.Cycle() + 1, u: f.Layout.T}
			ly := f.Layers[SceneLayer]
			hidden, minShown := 0, 0
			for i := range h.Len() {
				smp := h.At(i)
				if smp.Servers > smp.MinServers+1 {
					continue
				}
				x, y := (c.xAt(smp.First)+c.xAt(smp.Last+1))/2, c.yAt(float32(smp.Servers))
				if k := topQuad(ly, Point{x, y}); k < 0 || !slices.Contains([]color.RGBA{LiveCol, BusyColor, IdleBar, DownColor, WarmColor, EjectColor}, ly.Quads[k].C) {
					hidden++
				}
				if k := topQuad(ly, Point{x, y + 2*c.u}); smp.Servers == smp.MinServers && k >= 0 && ly.Quads[k].C == DownLineCol {
					minShown++
				}
			}
			if hidden > 0 {
				t.Errorf("%s: the live count is under something else in %d of %d samples near the min", name, hidden, near)
			}
			if minShown*4 < at {
				t.Errorf("%s: the min line shows under the live line in %d of %d samples at the min", name, minShown, at)
			}
		}
	}
}

// TestLanesErrorsTellApart: in the compare view, with errors in both
// lanes, each lane's errors' row in the queue chart carries the lane's
// marker (its shape, in its colour) along it, within markerEvery of every
// sample with errors, and no other lane's: whose errors they are reads
// without telling the rows' thin lines of colour apart.
func TestLanesErrorsTellApart(t *testing.T) {
	opts := compareOptions(t, "round-robin:policy=round-robin;least-connections:policy=least-connections")
	for i := range opts.Lanes {
		opts.Lanes[i].Changes = mustChanges(t, "301:fail=2")
	}
	s := mustNew(t, opts)
	s.step(1_500, false)
	for li, l := range s.set.Lanes {
		if l.Model.Totals().Errors == 0 {
			t.Fatalf("lane %d: no errors", li)
		}
	}
	for _, present := range []bool{false, true} {
		s.present = present
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			name := fmt.Sprintf("%v present=%v", size, present)
			f := s.Draw(size[0], size[1])
			u, plot := f.Layout.T, plotOf(t, f, 0)
			quads := f.Layers[SceneLayer].Quads
			box := func(q Quad) Rect {
				x0, y0, x1, y1 := q.P[0].X, q.P[0].Y, q.P[0].X, q.P[0].Y
				for _, p := range q.P[1:] {
					x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
				}
				return Rect{x0, y0, x1 - x0, y1 - y0}
			}
			rows := 0
			for _, q := range quads {
				b := box(q)
				if q.C != FailColor || !band(plot, u).Contains(b) {
					continue
				}
				li := slices.IndexFunc(quads, func(o Quad) bool {
					ob := box(o)
					return (o.C == LaneColor(0) || o.C == LaneColor(1)) && ob.X == b.X && ob.W == b.W && ob.Y == b.Y+b.H
				})
				if li < 0 {
					continue // not a row's (a line's quad)
				}
				li = slices.Index([]color.RGBA{LaneColor(0), LaneColor(1)}, quads[li].C)
				rows++
				for lane := range 2 {
					near := slices.ContainsFunc(quads, func(o Quad) bool {
						ob := box(o)
						cy, cx := ob.Y+ob.H/2, ob.X+ob.W/2
						return isMarker(o, lane) && cy >= b.Y-u && cy <= b.Y+b.H+u && cx >= b.X-markerEvery*u && cx <= b.X+b.W+markerEvery*u
					})
					if near != (lane == li) {
						t.Errorf("%s: lane %d's errors at x %.0f: lane %d's marker near them %v", name, li, b.X, lane, near)
						break
					}
				}
			}
			if rows == 0 {
				t.Fatalf("%s: no errors' rows", name)
			}
		}
	}
}

// TestWaitsChartCarriesTheClaim: while a lesson's claim is a p95 wait
// (lesson.P95Wait) the view shows the waits chart, "p95 wait so far":
// every complete sample holds each lane's waits' p50, p95 and p99 of the
// run up to its last cycle (as `lbsim run` would report them there), the
// one still filling the last complete one's; in the compare view each
// lane's solid line ends at its title's p95, its p99 dashed and its p50
// dotted are keyed. Without that measure the chart is not shown.
func TestWaitsChartCarriesTheClaim(t *testing.T) {
	opts := compareOptions(t, "round-robin:policy=round-robin;least-connections:policy=least-connections")
	if s := mustNew(t, opts); slices.ContainsFunc(s.shownCharts(), func(c chartSpec) bool { return c.title == "p95 wait so far" }) {
		t.Error("the waits chart is shown without a lesson's p95 wait")
	}
	opts.Measure = lesson.P95Wait
	s := mustNew(t, opts)
	at := make([][]Waits, len(s.set.Lanes)) // at[lane][cycle]
	for s.m.Cycle() < 1_700 {
		s.step(1, false)
		for li, l := range s.set.Lanes {
			at[li] = append(at[li], WaitsOf(l.Model))
		}
	}
	for li := range s.set.Lanes {
		h := &s.hists[li]
		if h.Stride() < 4 {
			t.Fatalf("stride %d: the samples never merged", h.Stride())
		}
		for i := range h.Len() {
			smp, want := h.At(i), at[li][h.At(i).Last-1] // at[li][k] is cycle k+1's
			if i == h.n && h.curN > 0 {
				want = h.At(i - 1).Waits // still filling
			}
			if smp.Waits != want {
				t.Errorf("lane %d sample %d (cycles %d–%d): waits %+v, want %+v", li, i, smp.First, smp.Last, smp.Waits, want)
			}
		}
		if last := at[li][len(at[li])-1]; last.P99 <= last.P50 || last.P95 == 0 {
			t.Fatalf("lane %d: waits %+v: not a run with a tail", li, last)
		}
	}
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		f := s.Draw(size[0], size[1])
		ci := slices.IndexFunc(s.shownCharts(), func(c chartSpec) bool { return c.title == "p95 wait so far" })
		if ci < 0 || ci >= len(f.Layout.Charts) {
			t.Fatalf("%v: no waits chart among %d", size, len(f.Layout.Charts))
		}
		r, plot := f.Layout.Charts[ci], plotOf(t, f, ci)
		spec := s.shownCharts()[ci]
		c := chartView{plot: plot, maxV: s.chartTop(spec), end: s.m.Cycle() + 1}
		for _, key := range []string{"p99", "p50"} {
			if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == key && r.Contains(textBox(x)) }) {
				t.Errorf("%v: the waits chart does not key %s", size, key)
			}
		}
		for li := range s.set.Lanes {
			h := &s.hists[li]
			last := h.At(h.Len() - 1)
			y, x := c.yAt(float32(last.Waits.P95)), c.xAt(last.First)
			if !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
				return q.C == LaneColor(li) && math.Abs(float64((q.P[0].Y+q.P[2].Y)/2-y)) < 0.01 && q.P[0].X <= x+0.01 && q.P[1].X >= x-0.01
			}) {
				t.Errorf("%v: lane %d's line does not end at its p95 %d", size, li, last.Waits.P95)
			}
		}
	}
}
