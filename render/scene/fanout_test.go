package scene

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// fanoutConfig is a fan-out of k over 40 per-server queues at low load
// (the "tail at scale" lesson's run), with extra settings kvs.
func fanoutConfig(t *testing.T, k string, kvs ...string) sim.Config {
	t.Helper()
	base := []string{"queues", "per-server", "policy", "round-robin", "servers", "40", "min-servers", "40", "max-servers", "40",
		"initial-per-server", "0", "service", "geometric", "mean-service", "20", "rate", "0.005", "wave", "false", "fanout", k}
	return configWith(t, append(base, kvs...)...)
}

// hudTexts returns the texts drawn inside the HUD of frame f.
func hudTexts(f *Frame) []string {
	var out []string
	for _, x := range f.Layers[SceneLayer].Texts {
		if f.Layout.HUD.Contains(textBox(x)) {
			out = append(out, x.S)
		}
	}
	return out
}

// TestHUDCountsParts: with fan-out on, the HUD counts the parts and the
// attempts cancelled, and reads a part's p99 (theory, at low load)
// against a request's (measured); with it off, none of these.
func TestHUDCountsParts(t *testing.T) {
	cfg := fanoutConfig(t, "20")
	s := running(t, cfg)
	s.step(20000, false)
	sum := s.m.Summary()
	tl, err := mmc.PredictTail(cfg, mmc.TailOf(cfg))
	if err != nil || tl.LowLoad == nil {
		t.Fatalf("the lesson's run has no low-load theory: %v %s", err, tl.LowLoadWhy)
	}
	partP99, n := s.PartP99(0)
	if n != sum.AttemptsCompleted || n < 20*sum.Completed || sum.Completed == 0 {
		t.Errorf("%d parts' responses counted, %d attempts completed, %d requests", n, sum.AttemptsCompleted, sum.Completed)
	}
	hud := hudTexts(s.Draw(BaseW, BaseH))
	for _, want := range []string{
		"parts " + Commas(sum.Parts),
		"cancelled " + Commas(sum.Cancelled),
		"part p99 " + Commas(partP99) + " (theory " + Commas(int64(tl.LowLoad.PartP99)) + ") · request p99 " + Commas(sum.ResponseP99) +
			" (theory " + Commas(int64(tl.LowLoad.RequestP99)) + ")",
	} {
		if !slices.Contains(hud, want) {
			t.Errorf("the HUD does not show %q: %q", want, hud)
		}
	}
	if sum.Parts != 20*sum.Admitted || sum.Parts == 0 || sum.ResponseP99 <= int64(tl.LowLoad.PartP99) {
		t.Errorf("parts %d of %d admitted; request p99 %d, a part's %d", sum.Parts, sum.Admitted, sum.ResponseP99, tl.LowLoad.PartP99)
	}

	// Above low load neither has a closed form: the readout has no theory.
	s = running(t, fanoutConfig(t, "20", "rate", "0.5"))
	s.step(300, false)
	hud = hudTexts(s.Draw(BaseW, BaseH))
	p99, _ := s.PartP99(0)
	want := "part p99 " + Commas(p99) + " · request p99 " + Commas(s.m.Summary().ResponseP99)
	if !slices.Contains(hud, want) {
		t.Errorf("at load 0.5 the HUD does not show %q: %q", want, hud)
	}

	// Without fan-out: no parts, no readout.
	s = running(t, configWith(t, "queues", "per-server", "policy", "round-robin"))
	s.step(300, false)
	for _, x := range hudTexts(s.Draw(BaseW, BaseH)) {
		if strings.HasPrefix(x, "parts ") || strings.HasPrefix(x, "cancelled ") || strings.HasPrefix(x, "part p99 ") {
			t.Errorf("without fan-out the HUD shows %q", x)
		}
	}
}

// TestHUDCountsCancelled: a fan-out whose server fails ends requests in
// error and cancels their siblings; the HUD's count is the run's, with
// the client side's line.
func TestHUDCountsCancelled(t *testing.T) {
	cfg := fanoutConfig(t, "5", "rate", "0.3")
	s := running(t, cfg, mustChanges(t, "50:fail=2")...)
	s.step(400, false)
	sum := s.m.Summary()
	hud := hudTexts(s.Draw(BaseW, BaseH))
	want := "cancelled " + Commas(sum.Cancelled)
	if sum.Cancelled == 0 || !slices.Contains(hud, want) {
		t.Errorf("%d cancelled: the HUD does not show %q: %q", sum.Cancelled, want, hud)
	}
}

// stepUntil steps s a cycle at a time, animated, dropping the flights,
// until it has a flight that ok accepts (at most n cycles); the flights
// are then those of that cycle alone.
func stepUntil(t *testing.T, s *Session, n int, ok func(fl flight) bool) {
	t.Helper()
	for range n {
		s.anim.flights = s.anim.flights[:0]
		s.step(1, true)
		if slices.ContainsFunc(s.anim.flights, ok) {
			return
		}
	}
	t.Fatalf("no such flight in %d cycles (cycle %d)", n, s.m.Cycle())
}

// partsInFlight runs a fan-out of 5 to the first cycle a request's parts
// set off, and draws them a few ticks later: the request's id, its
// flights and the frame.
func partsInFlight(t *testing.T) (int64, []flight, *Frame) {
	t.Helper()
	s := running(t, fanoutConfig(t, "5", "rate", "0.05"))
	stepUntil(t, s, 2000, func(fl flight) bool { return fl.group != 0 })
	i := slices.IndexFunc(s.anim.flights, func(fl flight) bool { return fl.group != 0 })
	id := s.anim.flights[i].group
	var group []flight
	for _, fl := range s.anim.flights {
		if fl.group == id && fl.kind == flyDispatch {
			group = append(group, fl)
		}
	}
	s.tick += max(group[0].dur/2, 1)
	return id, group, s.Draw(BaseW, BaseH)
}

// tethers returns the segments drawn in colour c (Frame.line's quads):
// each one's two ends.
func tethers(f *Frame, c color.RGBA) [][2]Point {
	var out [][2]Point
	for _, q := range f.Layers[SceneLayer].Quads {
		if q.C == c {
			mid := func(a, b Point) Point { return Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2} }
			out = append(out, [2]Point{mid(q.P[0], q.P[3]), mid(q.P[1], q.P[2])})
		}
	}
	return out
}

// groupTethered reports whether a request's five parts fly as one group:
// one tint, each tethered to one shared point at the gate, and a ring in
// the tint around each.
func groupTethered(t *testing.T) bool {
	t.Helper()
	id, group, f := partsInFlight(t)
	tint := GroupTint(id)
	ts := tethers(f, fade(tint, 0.45))
	rings := 0
	for _, q := range f.Layers[SceneLayer].Quads {
		if q.C == tint {
			rings++
		}
	}
	ok := len(group) == 5 && len(ts) == 5 && rings == 4*5
	for _, tt := range ts {
		d := tt[0].X - ts[0][0].X + tt[0].Y - ts[0][0].Y
		ok = ok && d*d < 1e-6 && tt[0].X < f.Layout.Gate.X+f.Layout.Gate.W
	}
	if !ok {
		t.Logf("request %d: %d parts in flight, %d tethers %v, %d ring sides in its tint", id, len(group), len(ts), ts, rings)
	}
	return ok
}

// TestPartsFlyAsOneGroup: a request's parts leave the gate together, in
// their request's tint and tethered to one point; neighbouring requests'
// tints differ.
func TestPartsFlyAsOneGroup(t *testing.T) {
	if !groupTethered(t) {
		t.Error("a request's parts do not fly as one tethered, tinted group")
	}
	for id := int64(1); id < 20; id++ {
		if GroupTint(id) == GroupTint(id+1) {
			t.Errorf("requests %d and %d share a tint", id, id+1)
		}
	}
	// Without fan-out no flight has a group.
	s := running(t, configWith(t, "queues", "per-server", "policy", "round-robin", "rate", "0.5"))
	for range 50 {
		s.step(1, true)
	}
	if slices.ContainsFunc(s.anim.flights, func(fl flight) bool { return fl.group != 0 }) || len(s.anim.flights) == 0 {
		t.Errorf("without fan-out: %d flights, some in a group", len(s.anim.flights))
	}
}

// cancelDrawn runs a fan-out of 5 over 8 servers (ρ 0.75) whose server 2 fails from cycle 50 up
// to the first cancel of an attempt queued (queued) or in service, and
// reports whether the frame a few ticks later draws it crossed (two
// segments in its fading colour meeting where it was).
func cancelDrawn(t *testing.T, queued bool) bool {
	t.Helper()
	s := running(t, fanoutConfig(t, "5", "servers", "8", "min-servers", "8", "max-servers", "8", "rate", "0.06"), mustChanges(t, "50:fail=2")...)
	s.step(50, false)
	isIt := func(fl flight) bool { return fl.kind == flyCancel && fl.queued == queued }
	stepUntil(t, s, 3000, isIt)
	fl := s.anim.flights[slices.IndexFunc(s.anim.flights, isIt)]
	if fl.server == 0 {
		t.Logf("a cancel with no server")
		return false
	}
	s.tick += fl.dur / 3
	p, _ := fl.progress(s.tick)
	f := s.Draw(BaseW, BaseH)
	cross := tethers(f, fade(CancelCol, 1-p))
	if len(cross) < 2 {
		t.Logf("%d segments in the cancel colour at %.2f of its fade", len(cross), p)
		return false
	}
	// The × (the last two: the hollow marker's sides come first) centres
	// on one point.
	a, b := cross[len(cross)-2], cross[len(cross)-1]
	c := Point{(a[0].X + a[1].X) / 2, (a[0].Y + a[1].Y) / 2}
	c2 := Point{(b[0].X + b[1].X) / 2, (b[0].Y + b[1].Y) / 2}
	return (c.X-c2.X)*(c.X-c2.X)+(c.Y-c2.Y)*(c.Y-c2.Y) < 1e-3
}

// TestCancelledAttemptFades: an attempt cancelled in service and one
// cancelled queued each fade, crossed, where they were.
func TestCancelledAttemptFades(t *testing.T) {
	for _, queued := range []bool{false, true} {
		if !cancelDrawn(t, queued) {
			t.Errorf("queued %v: the cancelled attempt is not drawn crossed", queued)
		}
	}
	// The footer's legend keys the look while a lane fans out.
	for _, fan := range []string{"1", "5"} {
		s := running(t, fanoutConfig(t, fan))
		s.step(10, false)
		f := s.Draw(BaseW, BaseH)
		keyed := slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "cancelled" && f.Layout.Footer.Contains(textBox(x)) })
		if keyed != (fan == "5") {
			t.Errorf("fan-out %s: the legend keys a cancelled attempt: %v", fan, keyed)
		}
	}
	box := Rect{100, 100, 20, 20}
	if p := cancelAt(box, false, 8); !box.Contains(Rect{p.X, p.Y, 0, 0}) {
		t.Errorf("in service: %v not on its box %v", p, box)
	}
	if p := cancelAt(box, true, 8); p.X <= box.X+box.W || p.Y != box.Center().Y {
		t.Errorf("queued: %v not right of its box %v", p, box)
	}
}

// TestCompareHUDWithFanout: in the compare view with a lane that fans out,
// each lane's entry in the HUD is its request's median response and its
// parts (a part's p95 wait says little of a request's).
func TestCompareHUDWithFanout(t *testing.T) {
	one, twenty := fanoutConfig(t, "1"), fanoutConfig(t, "20")
	s := mustNew(t, Options{Config: one, Lanes: []snapshot.LaneSpec{{Label: "one part", Config: one}, {Label: "fan-out 20", Config: twenty}}, Speed: 600, PauseAt: -1})
	s.step(20000, false)
	hud := hudTexts(s.Draw(BaseW, BaseH))
	for i, l := range s.laneStates() {
		want := fanoutLaneText(l.Label, l.Summary)
		if !slices.Contains(hud, want) {
			t.Errorf("the HUD does not show %q: %q", want, hud)
		}
		if parts := l.Summary.Parts; parts != int64(1+19*i)*l.Summary.Admitted || l.Summary.ResponseP50 == 0 {
			t.Errorf("lane %s: %d parts of %d requests, p50 response %d", l.Label, parts, l.Summary.Admitted, l.Summary.ResponseP50)
		}
	}
	if got := fanoutLaneText("x", sim.Summary{ResponseP50: 67, Parts: 1000, Cancelled: 3}); got != "x: p50 response 67 · parts 1,000 · cancelled 3" {
		t.Errorf("a lane's text: %q", got)
	}
}
