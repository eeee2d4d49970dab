package scene

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// textBox estimates the rectangle a text run covers on screen, with the
// advance TextWidth uses and a line box 1.1 times the size.
func textBox(t Text) Rect {
	w := TextWidth(t.S, t.Size, t.Bold)
	x := t.X
	switch t.Align {
	case AlignCenter:
		x -= w / 2
	case AlignEnd:
		x -= w
	}
	return Rect{x, t.Y, w, t.Size * 1.1}
}

// overlaps lists the pairs of text runs of the scene and overlay layers
// whose boxes overlap; the top layer (help, dialogs) is modal and covers
// the rest on purpose.
func overlaps(f *Frame) []string {
	var ts []Text
	for _, li := range []int{SceneLayer, OverlayLayer} {
		ts = append(ts, f.Layers[li].Texts...)
	}
	var out []string
	screen := Rect{0, 0, float32(f.W), float32(f.H)}
	for _, l := range f.Layers {
		for _, t := range l.Texts {
			if b := textBox(t); !screen.Contains(b) {
				out = append(out, fmt.Sprintf("%q %v leaves the screen", t.S, b))
			}
		}
	}
	for i := range ts {
		a := textBox(ts[i])
		for j := i + 1; j < len(ts); j++ {
			if b := textBox(ts[j]); a.Overlaps(b) {
				out = append(out, fmt.Sprintf("%q %v overlaps %q %v", ts[i].S, a, ts[j].S, b))
			}
		}
	}
	return out
}

// TestNoTextOverlaps draws a run with a replay banner, a lesson's caption
// and the theory panel, and without, at three screen sizes in both modes,
// and fails on any two overlapping text boxes.
func TestNoTextOverlaps(t *testing.T) {
	cfg := testConfig()
	cfg.Cycles = 3_000
	ch, _ := sim.ParseChange("1000:rate=0.9")
	data := recorded(t, cfg, []sim.Change{ch})
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}, {1024, 768}} {
		for _, present := range []bool{false, true} {
			for _, extra := range []string{"plain", "replay, caption, theory", "per-server", "compare", "gray", "gray compare", "clients", "clients compare"} {
				name := fmt.Sprintf("%dx%d present=%v %s", size[0], size[1], present, extra)
				c := cfg
				if extra == "per-server" {
					// Three servers of unequal speed with their own queues:
					// each box shows its id, its speed and its queue.
					for _, kv := range [][2]string{{"servers", "3"}, {"min-servers", "3"}, {"max-servers", "3"}, {"queues", "per-server"},
						{"policy", "round-robin"}, {"speeds", "2,1,1"}, {"rate", "0.2"}, {"wave", "false"}} {
						if err := c.Set(kv[0], kv[1]); err != nil {
							t.Fatal(err)
						}
					}
				}
				if extra == "gray" {
					// Four servers, each in another state: its word in its box.
					for _, kv := range [][2]string{{"servers", "4"}, {"min-servers", "4"}, {"max-servers", "4"}, {"queues", "per-server"},
						{"policy", "least-connections"}, {"rate", "0.2"}, {"wave", "false"}} {
						if err := c.Set(kv[0], kv[1]); err != nil {
							t.Fatal(err)
						}
					}
				}
				if extra == "clients" {
					// The client side on, in a pool that scales: the HUD's
					// client counters and three charts, their keys fitted.
					for _, kv := range [][2]string{{"timeout", "40"}, {"retries", "2"}, {"backoff", "3"}, {"health-interval", "10"},
						{"eject-after", "3"}, {"provision-delay", "20"}, {"rate", "1.2"}} {
						if err := c.Set(kv[0], kv[1]); err != nil {
							t.Fatal(err)
						}
					}
				}
				opts := Options{Config: c, Speed: 600, PauseAt: 1_500, Present: present, Caption: longestCaption(), Changes: grayChanges(t, extra)}
				switch extra {
				case "compare":
					// Four lanes, the most the view shows.
					o := compareOptions(t, "round-robin:policy=round-robin;p2c:policy=p2c,choices=3;least-connections:policy=least-connections;random:policy=random")
					opts.Config, opts.Lanes = o.Config, o.Lanes
				case "clients compare":
					// The retry storm's two lanes: each lane's goodput and
					// retries in the HUD, three charts.
					o := compareOptions(t, "no-budget:timeout=40,retries=3,rate=0.3;budget-0.1:timeout=40,retries=3,retry-budget=0.1,rate=0.3")
					opts.Config, opts.Lanes = o.Config, o.Lanes
				case "gray compare":
					// The fast-failing lesson's two lanes, a lane's errors in the HUD.
					o := compareOptions(t, "round-robin:policy=round-robin;least-connections:policy=least-connections")
					for i := range o.Lanes {
						o.Lanes[i].Changes = opts.Changes
						o.Lanes[i].Config.MinServers, o.Lanes[i].Config.MaxServers = 3, 3 // server 1 stays
					}
					opts.Config, opts.Lanes = o.Lanes[0].Config, o.Lanes
				}
				s, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				if extra != "replay, caption, theory" {
					s.caption = nil
				} else {
					s.theory = true
					if err := s.Load(data); err != nil {
						t.Fatal(err)
					}
					s.SeekCycle(1_500)
				}
				now := clock()
				for s.m.Cycle() < 1_500 {
					s.Update(now)
				}
				s.Set("rate", "0.5") // a pending change, an info message
				f := s.Draw(size[0], size[1])
				for _, o := range overlaps(f) {
					t.Errorf("%s: %s", name, o)
				}
				if extra == "per-server" {
					checkQueueBars(t, name, s, f)
				}
				if extra == "clients compare" {
					for i, ln := range s.set.Lanes {
						sum := ln.Model.Summary()
						want := ln.Label + ": " + lesson.Goodput.Of(sum) + " · retries " + Commas(sum.Retries)
						if sum.Retries == 0 || !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
							return strings.HasPrefix(x.S, want) && f.Layout.HUD.Contains(textBox(x))
						}) {
							t.Errorf("%s: lane %d's HUD text %q is not shown (retries %d)", name, i, want, sum.Retries)
						}
					}
					if len(f.Layout.Charts) != 3 {
						t.Errorf("%s: %d charts, want 3", name, len(f.Layout.Charts))
					}
				}
				if extra == "compare" || extra == "gray compare" || extra == "clients compare" {
					checkCompareLanes(t, name, s, f)
				}
				if strings.HasPrefix(extra, "gray") {
					checkGrayWords(t, name, s, f)
				}
				if extra == "clients" {
					checkClientHUD(t, name, s, f)
				}
				for _, c := range s.State().Controls {
					if !(Rect{0, 0, float32(size[0]), float32(size[1])}).Contains(c.R) {
						t.Errorf("%s: control %s %v leaves the screen", name, c.ID, c.R)
					}
				}
				// Each dialog: its own texts do not overlap.
				for _, in := range []Intent{OpenShare, OpenLessons, OpenFirewall, OpenServerMenu, OpenClients, OpenHealth, OpenMore} {
					s.Apply(in)
					f := s.Draw(size[0], size[1])
					ts := f.Layers[DialogLayer].Texts
					for i := range ts {
						for j := i + 1; j < len(ts); j++ {
							if a, b := textBox(ts[i]), textBox(ts[j]); a.Overlaps(b) {
								t.Errorf("%s, dialog %d: %q %v overlaps %q %v", name, in, ts[i].S, a, ts[j].S, b)
							}
						}
					}
					s.Apply(CloseDialog)
				}
			}
		}
	}
}

// longestCaption is the lessons' caption with the longest line.
func longestCaption() []string {
	var best []string
	n := 0
	for _, l := range lesson.All {
		for _, line := range l.Caption {
			if len([]rune(line)) > n {
				n, best = len([]rune(line)), l.Caption
			}
		}
	}
	return best
}

// TestHelpFitsItsBox draws the help overlay at three sizes in both modes:
// every line lies inside the overlay's box, and the box on screen.
func TestHelpFitsItsBox(t *testing.T) {
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}, {1024, 768}, {1280, 657}} {
		for _, present := range []bool{false, true} {
			s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 0, Present: present})
			if err != nil {
				t.Fatal(err)
			}
			s.Apply(ToggleHelp)
			f := s.Draw(size[0], size[1])
			q := f.Layers[TopLayer].Quads[0].P
			box := Rect{q[0].X, q[0].Y, q[2].X - q[0].X, q[2].Y - q[0].Y}
			if !(Rect{0, 0, float32(size[0]), float32(size[1])}).Contains(box) {
				t.Errorf("%v present=%v: the help box %v leaves the screen", size, present, box)
			}
			for _, tx := range f.Layers[TopLayer].Texts {
				if b := textBox(tx); !box.Contains(b) {
					t.Errorf("%v present=%v: %q %v outside the help box %v", size, present, tx.S, b, box)
				}
			}
		}
	}
}

// checkQueueBars checks the per-server queue bars of frame f: each
// server's bar lies in its lane's pool beside its box, over no other box;
// a server with requests queued has its count written ("N queued", or "N"
// beside its share) and marks or a bar
// of request colour in its room; and no server box counts its queue as
// "+N" inside itself.
func checkQueueBars(t *testing.T, name string, s *Session, f *Frame) {
	t.Helper()
	l := f.Layout
	long := 0
	for k, sb := range s.shown() {
		lane, g := s.laneGeom(l, k, sb)
		if g.CellW <= g.Cell {
			t.Fatalf("%s: per-server cells hold no bars", name)
		}
		i := 0
		for v := range sb.b.Servers() {
			room := g.BarAt(i)
			if !lane.Pool.Contains(room) || room.W < g.Box {
				t.Errorf("%s: server %d's bar %v: want at least as wide as its box (%.0f) inside the pool %v", name, v.ID, room, g.Box, lane.Pool)
			}
			for j := range g.N {
				if b := g.BoxAt(j); b.Overlaps(room) {
					t.Errorf("%s: server %d's bar %v covers box %d %v", name, v.ID, room, j, b)
				}
			}
			if v.Queued > 0 {
				long = max(long, v.Queued)
				count := Plural(v.Queued, "queued", "queued")
				if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
					return (x.S == count || x.S == Commas(int64(v.Queued))) && room.Contains(textBox(x)) // "N" beside the server's share
				}) {
					t.Errorf("%s: server %d has %d queued but no %q in its room %v", name, v.ID, v.Queued, count, room)
				}
				if !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
					return (q.C == PColor || q.C == SColor) && room.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0})
				}) {
					t.Errorf("%s: server %d has %d queued but no request marks in its room %v", name, v.ID, v.Queued, room)
				}
			}
			i++
		}
		for _, x := range f.Layers[SceneLayer].Texts {
			if strings.HasPrefix(x.S, "+") && lane.Pool.Contains(textBox(x)) {
				t.Errorf("%s: %q: a server queue counted as +N", name, x.S)
			}
		}
	}
	if long < 10 {
		t.Errorf("%s: the longest server queue is %d: the test wants a long one", name, long)
	}
}

// checkCompareLanes checks the compare view's frame f: every lane's title
// is in its colour at the HUD's size (abbreviated, never shrunk), and
// every chart names every lane in its colour and draws a line of it in
// its plot.
func checkCompareLanes(t *testing.T, name string, s *Session, f *Frame) {
	t.Helper()
	l := f.Layout
	for i, ln := range s.set.Lanes {
		col := LaneColor(i)
		title := slices.IndexFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
			return x.C == col && x.Y == l.Lanes[i].Title.Y && strings.HasPrefix(ln.Label, strings.TrimSuffix(x.S, "…"))
		})
		if title < 0 {
			t.Errorf("%s: lane %d (%s) has no title in its colour", name, i, ln.Label)
		} else if x := f.Layers[SceneLayer].Texts[title]; x.Size != titleUnits*l.T {
			t.Errorf("%s: lane %d's title %q is %.1f px, want the HUD's %.1f", name, i, x.S, x.Size, titleUnits*l.T)
		}
		for ci, r := range l.Charts {
			plot := chartPlot(r, l.T)
			if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
				return x.C == col && r.Contains(textBox(x)) && x.S != "" && strings.HasPrefix(ln.Label, strings.TrimSuffix(x.S, "…"))
			}) {
				t.Errorf("%s: chart %d's legend does not name lane %d (%s) in its colour", name, ci, i, ln.Label)
			}
			if !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
				return q.C == col && plot.Inset(-3*l.T).Contains(Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y})
			}) {
				t.Errorf("%s: chart %d draws no line of lane %d (%s)", name, ci, i, ln.Label)
			}
		}
	}
}

// grayChanges are the faults of the overlap test's gray runs: server 1
// slow ×4, 2 failing, 3 hanging, 4 down (in the compare run, 1 failing).
func grayChanges(t *testing.T, extra string) []sim.Change {
	t.Helper()
	var sets []string
	switch extra {
	case "gray":
		sets = []string{"100:slow=1x4", "100:fail=2", "100:hang=3", "100:down=4"}
	case "gray compare":
		sets = []string{"100:fail=1"}
	}
	var cs []sim.Change
	for _, v := range sets {
		c, err := sim.ParseChange(v)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// checkGrayWords checks a frame of the gray runs: every server that is
// down, slow, failing or hanging shows its word (StateWord) inside its box
// in its colour, has a frame of its gray colour, and the HUD counts the
// errors.
func checkGrayWords(t *testing.T, name string, s *Session, f *Frame) {
	t.Helper()
	l := f.Layout
	seen := 0
	for k, sb := range s.shown() {
		_, g := s.laneGeom(l, k, sb)
		i := 0
		for v := range sb.b.Servers() {
			box := g.BoxAt(i)
			i++
			word, col := StateWord(v)
			if word == "" {
				continue
			}
			seen++
			if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
				return x.S == word && x.C == col && box.Contains(textBox(x)) && x.Size >= 0.1*box.H
			}) {
				t.Errorf("%s: server %d (%s) does not show %q in its box %v", name, v.ID, v.Gray, word, box)
			}
			if gc, ok := GrayFrame(v.Gray); ok && !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
				return q.C == gc && q.P[0].Y < box.Y && q.P[0].X < box.X+box.W && q.P[2].X > box.X
			}) {
				t.Errorf("%s: server %d (%s) has no frame in its colour", name, v.ID, v.Gray)
			}
		}
	}
	want := 4
	keys := []string{"slow", "failing", "hanging"}
	if s.Comparing() {
		want = 2 // one failing server in each lane
		keys = []string{"failing"}
	}
	for _, k := range keys { // the footer's legend keys each gray state shown
		if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == k && l.Footer.Contains(textBox(x)) }) {
			t.Errorf("%s: the legend has no %q", name, k)
		}
	}
	if seen != want {
		t.Errorf("%s: %d servers in a state with a word, want %d", name, seen, want)
	}
	errs := s.m.Totals().Errors
	hud := "errors " + Commas(errs)
	if s.Comparing() {
		hud = "errors " + Commas(s.set.Lanes[0].Model.Summary().Errors)
	}
	if errs == 0 || !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
		return strings.HasSuffix(x.S, hud) && l.HUD.Contains(textBox(x))
	}) {
		t.Errorf("%s: %d errors, the HUD does not show %q", name, errs, hud)
	}
}

// checkClientHUD checks a frame of a run with the client side on: the
// HUD's second line counts goodput, errors, timeouts, retries and
// amplification from the model's summary, and the goodput chart is the
// third chart, keyed.
func checkClientHUD(t *testing.T, name string, s *Session, f *Frame) {
	t.Helper()
	l := f.Layout
	sum := s.m.Summary()
	amp := "amplification ×1.00"
	if sum.Admitted > 0 {
		amp = fmt.Sprintf("amplification ×%.2f", float64(sum.Attempts)/float64(sum.Admitted))
	}
	for _, want := range []string{lesson.Goodput.Of(sum), "errors " + Commas(sum.Errors),
		"timeouts " + Commas(sum.TimedOutQueued+sum.TimedOutInService), "retries " + Commas(sum.Retries), amp} {
		if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == want && l.HUD.Contains(textBox(x)) }) {
			t.Errorf("%s: the HUD does not show %q", name, want)
		}
	}
	if len(l.Charts) != 3 {
		t.Fatalf("%s: %d charts, want 3 (queue, live servers, goodput)", name, len(l.Charts))
	}
	if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
		return strings.HasPrefix(x.S, "goodput (") && l.Charts[2].Contains(textBox(x))
	}) {
		t.Errorf("%s: the third chart has no goodput title", name)
	}
}
