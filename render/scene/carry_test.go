package scene_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/scene"
)

// TestQueueBarsOneScale: in a compare lesson whose lanes' longest queues
// differ (round-robin's slow servers queue thousands, least-connections'
// a few), every lane's bars are drawn to one scale, written the same in
// each lane's title.
func TestQueueBarsOneScale(t *testing.T) {
	s := openAt(t, "lesson", "speeds", false, 6_000)
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		var scales []string
		for _, x := range s.Draw(size[0], size[1]).Layers[scene.SceneLayer].Texts {
			if strings.HasPrefix(x.S, "bar = ") {
				scales = append(scales, x.S)
			}
		}
		if len(scales) != len(s.State().Lanes) {
			t.Fatalf("%v: scales %q, want one per lane (%d)", size, scales, len(s.State().Lanes))
		}
		for _, sc := range scales[1:] {
			if sc != scales[0] {
				t.Errorf("%v: the lanes' bars at scales %q, want one", size, scales)
			}
		}
	}
}

// TestQueueWordOneForm: in every compare lesson at its key moment, at
// both sizes, present or not, the lanes' titles write their queues in one
// form: "queue 24" never beside "q 0".
func TestQueueWordOneForm(t *testing.T) {
	seen := 0
	for _, l := range lesson.All {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", l.Name, present, keyMoments[l.Name])
			if !s.Comparing() {
				continue
			}
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				forms := map[string]bool{}
				for _, x := range s.Draw(size[0], size[1]).Layers[scene.SceneLayer].Texts {
					if form, _, ok := strings.Cut(strings.TrimPrefix(x.S, " · "), " "); ok && x.S != strings.TrimPrefix(x.S, " · ") && (form == "queue" || form == "q") {
						forms[form] = true
					}
				}
				if len(forms) > 1 {
					t.Errorf("%s %v present=%v: the lanes' queues in the forms %v, want one", l.Name, size, present, forms)
				}
				seen += len(forms)
			}
		}
	}
	if seen == 0 {
		t.Error("no lane title wrote its queue")
	}
}

// TestLongAxisLabelled: a 100,000-cycle run's x-axes carry their origin,
// their end and a label between, at both sizes, present or not.
func TestLongAxisLabelled(t *testing.T) {
	for _, present := range []bool{false, true} {
		s := openAt(t, "lesson", "speeds", present, -1)
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			f := s.Draw(size[0], size[1])
			for ci, r := range f.Layout.Charts {
				var labels []string
				if slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return x.S == "wait" && r.Contains(scene.TextBox(x)) }) {
					continue // the waits' distribution: its x-axis is the wait
				}
				for _, x := range f.Layers[scene.SceneLayer].Texts {
					b := scene.TextBox(x)
					if r.Contains(b) && b.Y > r.Y+r.H*0.7 && (x.S == "0" || strings.HasSuffix(x.S, "k")) {
						labels = append(labels, x.S)
					}
				}
				if !slices.Contains(labels, "0") || !slices.Contains(labels, "100k") || len(labels) < 3 {
					t.Errorf("speeds %v present=%v chart %d: x labels %q, want 0, 100k and one between", size, present, ci, labels)
				}
			}
		}
	}
}

// TestTailLessonsShowTheWaitDistribution: every lesson whose claim is a
// p95 wait shows the waits' distribution so far, and each lane's 95% point
// on it is the lane's p95 wait (the summary's) within a bucket (an eighth
// of a doubling).
func TestTailLessonsShowTheWaitDistribution(t *testing.T) {
	n := 0
	for _, l := range lesson.All {
		if l.Measure != lesson.P95Wait {
			continue
		}
		n++
		s := openAt(t, "lesson", l.Name, true, keyMoments[l.Name])
		f := s.Draw(1920, 1080)
		if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return strings.HasPrefix(x.S, "waits so far") }) {
			t.Errorf("%s: no waits' distribution chart", l.Name)
		}
		for i, ln := range s.State().Lanes {
			got, want := s.WaitQuantile(i, 0.95), ln.Summary.WaitP95
			if float64(got) < float64(want)*0.999 || float64(got) > float64(want)*1.1+1 {
				t.Errorf("%s lane %d: the distribution's 95%% point %d, the summary's p95 %d", l.Name, i, got, want)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d tail lessons", n)
	}
}

// TestButtonTextsOffTheirEdges: every button's and list row's text lies
// inside its box, off its edges (the lessons menu's rows, a label shrunk
// to fit), at both sizes, present or not.
func TestButtonTextsOffTheirEdges(t *testing.T) {
	for _, present := range []bool{false, true} {
		s := openAt(t, "lesson", "erlang", present, 3000)
		s.Apply(scene.ToggleCompare)
		s.Apply(scene.OpenLessons)
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			f := s.Draw(size[0], size[1])
			seen := 0
			for _, c := range s.State().Controls {
				for _, layer := range f.Layers {
					for _, x := range layer.Texts {
						b := scene.TextBox(x)
						mid := scene.Rect{X: b.X + b.W/2, Y: b.Y + b.H/2}
						if x.S == c.Value && c.R.Contains(mid) && !c.R.Inset(1).Contains(b) {
							t.Errorf("%v present=%v: %q %v on the edge of control %s %v", size, present, x.S, b, c.ID, c.R)
						}
						if x.S == c.Value {
							seen++
						}
					}
				}
			}
			if n := len(s.State().Controls); seen < n || n < 8 {
				t.Errorf("%v present=%v: %d controls' texts found of %d", size, present, seen, n)
			}
		}
	}
}

// TestLegendsWhole: no chart's legend cuts a lane's name or a key of a
// single run's lesson (U·S, D·S, min, max: a cut one moves to a row of its
// own), in any lesson at its key moment, at both sizes, present or not.
func TestLegendsWhole(t *testing.T) {
	for _, l := range lesson.All {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", l.Name, present, keyMoments[l.Name])
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				f := s.Draw(size[0], size[1])
				for _, x := range f.Layers[scene.SceneLayer].Texts {
					for _, r := range f.Layout.Charts {
						if r.Contains(scene.TextBox(x)) && strings.HasSuffix(x.S, "…") {
							t.Errorf("%s %v present=%v: %q cut in a chart's legend", l.Name, size, present, x.S)
						}
					}
				}
			}
		}
	}
}

// TestWaitDistributionMarksLanes: on the waits' distribution each lane's
// line carries the lane's marker (its shape), so that lanes never read by
// colour alone there either.
func TestWaitDistributionMarksLanes(t *testing.T) {
	s := openAt(t, "lesson", "heavy-tails", true, keyMoments["heavy-tails"])
	f := s.Draw(1920, 1080)
	r := f.Layout.Charts[len(f.Layout.Charts)-1]
	for li := range s.State().Lanes {
		n := 0
		for _, q := range f.Layers[scene.SceneLayer].Quads {
			if q.C == scene.LaneColor(li) && r.Contains(scene.Rect{X: q.P[0].X, Y: q.P[0].Y}) && (q.P[3] == q.P[2] || (q.P[0].X == q.P[2].X && q.P[1].Y == q.P[3].Y)) {
				n++ // a triangle or a diamond, or …
			}
		}
		if li > 0 && n < 3 { // lane 0's square reads as a rect: its legend's, checked elsewhere
			t.Errorf("lane %d: %d markers on the waits' distribution, want the legend's and two on its line", li, n)
		}
	}
}

// TestQueueChartSaysPeak: past its first 240 cycles every lesson's queue
// chart says its bars (lines) are peaks, at both sizes, present or not,
// in the compare view too (the erlang lesson's bars stood at 5–30 beside
// an Lq of 1.65, unsaid).
func TestQueueChartSaysPeak(t *testing.T) {
	for _, l := range lesson.All {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", l.Name, present, keyMoments[l.Name])
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				f := s.Draw(size[0], size[1])
				if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool {
					return strings.HasPrefix(x.S, "queue (") && strings.Contains(x.S, "peak of ") && f.Layout.Charts[0].Contains(scene.TextBox(x))
				}) {
					t.Errorf("%s %v present=%v: the queue chart does not say its bars are peaks", l.Name, size, present)
				}
			}
		}
	}
}

// TestSharesClearOfTheNextBox: a server's share ("10%") ends short of the
// next server's box, so that it never reads as one with its id ("16
// 10%5"), in the lessons with per-server queues at both sizes.
func TestSharesClearOfTheNextBox(t *testing.T) {
	for _, name := range []string{"fast-failing", "speeds", "heavy-tails", "queues"} {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", name, present, keyMoments[name])
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				f := s.Draw(size[0], size[1])
				boxes := s.State().Servers
				shares := 0
				for _, x := range f.Layers[scene.SceneLayer].Texts {
					if x.C != scene.ShareCol || !strings.HasSuffix(x.S, "%") {
						continue
					}
					shares++
					b := scene.TextBox(x)
					for _, bx := range boxes {
						if gap := bx.R.X - (b.X + b.W); bx.R.Y < b.Y+b.H && bx.R.Y+bx.R.H > b.Y && gap > -1 && gap < 2*f.Layout.T {
							t.Errorf("%s %v present=%v: share %q ends %.1f px before server %s's box", name, size, present, x.S, gap, bx.ID)
						}
					}
				}
				if shares == 0 {
					t.Errorf("%s %v present=%v: no shares", name, size, present)
				}
			}
		}
	}
}

// TestStepModeFits: step mode's label in every lesson, presenting or not,
// at both sizes, overlaps no text and leaves none off screen.
func TestStepModeFits(t *testing.T) {
	for _, l := range lesson.All {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", l.Name, present, keyMoments[l.Name])
			s.Apply(scene.StepArrival)
			if s.State().Step == "" {
				t.Errorf("%s present=%v: no step label", l.Name, present)
			}
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				for _, o := range scene.Overlaps(s.Draw(size[0], size[1])) {
					t.Errorf("%s %v present=%v: %s", l.Name, size, present, o)
				}
			}
		}
	}
}
