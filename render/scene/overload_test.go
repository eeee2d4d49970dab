package scene

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// overloadCases are runs with the overload controls on, past capacity:
// per-server queues with an adaptive limit, shedding and a server down
// (whose refusals are not the limit's), a pooled queue with a fixed
// limit and shedding, and a pooled queue whose clients throttle
// themselves against a failing server.
var overloadCases = []struct {
	name    string
	kvs     []string
	changes []string
}{
	{"per-server aimd, codel, server 2 down", []string{"servers", "4", "min-servers", "4", "max-servers", "4", "wave", "false", "rate", "0.12",
		"service", "geometric", "mean-service", "40", "initial-per-server", "0", "queues", "per-server", "policy", "round-robin",
		"discipline", "adaptive-lifo", "codel-target", "30", "concurrency-limit", "aimd", "limit-initial", "6", "limit-latency", "60",
		"timeout", "400", "retries", "2", "health-interval", "50", "cycles", "3000"}, []string{"down:2@200", "up:2@1200"}},
	{"pooled fixed limit, codel", []string{"servers", "4", "min-servers", "4", "max-servers", "4", "wave", "false", "rate", "0.15",
		"service", "geometric", "mean-service", "40", "initial-per-server", "0", "codel-target", "20", "concurrency-limit", "fixed:10",
		"timeout", "400", "retries", "2", "cycles", "3000"}, nil},
	{"pooled throttle, server 1 failing", []string{"servers", "4", "min-servers", "4", "max-servers", "4", "wave", "false", "rate", "0.15",
		"service", "geometric", "mean-service", "40", "initial-per-server", "0", "throttle", "2", "timeout", "400", "retries", "2", "cycles", "3000"},
		[]string{"fail:1@1"}},
}

func overloadSession(t *testing.T, kvs, changes []string) *Session {
	t.Helper()
	var chs []sim.Change
	for _, c := range changes {
		ch, err := sim.ParseFault(c)
		if err != nil {
			t.Fatal(err)
		}
		chs = append(chs, ch)
	}
	s, err := New(Options{Config: configWith(t, kvs...), Speed: 5, PauseAt: -1, Changes: chs})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOverloadFlights steps runs with shedding and a concurrency limit
// and checks each cycle's flights against the model's own counts: one
// drop out of the queue (flyShed) per attempt shed, one bounce off the
// server (flyRefuse) per attempt the limit refused — not a down server's
// refusal, which flies back as an error — and no arrival or routing
// flight for a refused attempt.
func TestOverloadFlights(t *testing.T) {
	for _, tc := range overloadCases {
		t.Run(tc.name, func(t *testing.T) {
			s := overloadSession(t, tc.kvs, tc.changes)
			var shed, refused, throttled, downRefused int
			for s.m.Cycle() < 3000 {
				s.anim.reset()
				s.step(1, true)
				last := s.m.Last()
				flew := map[flightKind]int{}
				for _, fl := range s.anim.flights {
					flew[fl.kind]++
				}
				evs := s.m.Events()
				var ended, routed int
				for _, e := range evs {
					switch e.Kind {
					case sim.Error, sim.TimedOut:
						ended++
					case sim.Arrive, sim.Retry:
						routed++
					}
				}
				downRefused += len(routedErrorsAtDown(s.m, evs))
				if flew[flyShed] != last.Shed || flew[flyRefuse] != last.Limited || flew[flyBack] != ended-last.Limited || flew[flyThrottle] != last.Throttled {
					t.Fatalf("cycle %d: %d shed, %d limited, %d throttled, %d ended in error or timed out; %d dropped out, %d bounced, %d stopped, %d flew back",
						s.m.Cycle(), last.Shed, last.Limited, last.Throttled, ended, flew[flyShed], flew[flyRefuse], flew[flyThrottle], flew[flyBack])
				}
				if got := flew[flyArrive] + flew[flyRetry] + flew[flyDispatch]; s.m.Balancers()[0].PerServer() && got != routed-last.Limited {
					t.Fatalf("cycle %d: %d routed, %d refused, %d flew to a queue", s.m.Cycle(), routed, last.Limited, got)
				}
				shed, refused, throttled = shed+last.Shed, refused+last.Limited, throttled+last.Throttled
			}
			if cfg := s.m.Config(); (shed == 0) == (cfg.CodelTarget > 0) || (refused == 0) == (cfg.ConcurrencyLimit != 0) || (throttled == 0) == (cfg.Throttle > 0) {
				t.Fatalf("%d shed, %d refused, %d throttled in the run: the case must exercise each control it has on", shed, refused, throttled)
			}
			if s.m.Balancers()[0].PerServer() && downRefused == 0 {
				t.Fatal("no attempt was refused by the down server: the case must tell the two refusals apart")
			}
			t.Logf("%d shed, %d refused by the limit, %d by the down server, %d throttled", shed, refused, downRefused, throttled)
		})
	}
}

// routedErrorsAtDown are the attempts routed and refused in one cycle by
// a server that is down.
func routedErrorsAtDown(m *sim.Model, evs []sim.Event) []sim.Event {
	routed := map[refusal]bool{}
	var out []sim.Event
	for _, e := range evs {
		switch e.Kind {
		case sim.Arrive, sim.Retry:
			routed[refusalOf(e)] = true
		case sim.Error:
			if v, ok := m.Balancers()[e.Balancer].Server(e.Server); routed[refusalOf(e)] && e.Server != 0 && ok && v.State == sim.Failed {
				out = append(out, e)
			}
		}
	}
	return out
}

// flightDrawn is what fl adds to the frame at progress at: the quads of
// the frame drawn with fl alone in the air, less those of the frame with
// nothing in the air, at the same tick.
func flightDrawn(s *Session, fl flight, at float32) []Quad {
	saved, tick := s.anim.flights, s.tick
	defer func() { s.anim.flights, s.tick = saved, tick }()
	s.tick = fl.start + int64(at*float32(fl.dur))
	s.anim.flights = nil
	base := map[Quad]int{}
	for _, q := range s.Draw(1280, 720).Layers[SceneLayer].Quads {
		base[q]++
	}
	s.anim.flights = []flight{fl}
	var out []Quad
	for _, q := range s.Draw(1280, 720).Layers[SceneLayer].Quads {
		if base[q] > 0 {
			base[q]--
			continue
		}
		out = append(out, q)
	}
	return out
}

// quadCentre is the centre of q's bounds.
func quadCentre(q Quad) Point {
	b := quadBounds(q)
	return Point{b.X + b.W/2, b.Y + b.H/2}
}

// quadBounds is the rectangle q's corners span (a square's or a
// diamond's).
func quadBounds(q Quad) Rect {
	lo, hi := q.P[0], q.P[0]
	for _, p := range q.P[1:] {
		lo = Point{min(lo.X, p.X), min(lo.Y, p.Y)}
		hi = Point{max(hi.X, p.X), max(hi.Y, p.Y)}
	}
	return Rect{lo.X, lo.Y, hi.X - lo.X, hi.Y - lo.Y}
}

// opaque undoes fade's premultiplied alpha: the colour at full strength.
func opaque(c color.RGBA) color.RGBA {
	if c.A == 0 {
		return c
	}
	f := func(v uint8) uint8 { return uint8(min(255, int(v)*255/int(c.A))) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), 255}
}

// TestOverloadFlightsDrawn draws one shed attempt and one refused one at
// points of their flights: the shed attempt drops straight down out of
// its server's queue, turning orange (ShedCol); the refused one runs
// towards its server, turns at its box and comes back towards the gate in
// the refusal's flash (RejectFlash), growing.
func TestOverloadFlightsDrawn(t *testing.T) {
	tc := overloadCases[0]
	s := overloadSession(t, tc.kvs, tc.changes)
	var shedFl, refuseFl *flight
	for shedFl == nil || refuseFl == nil {
		if s.m.Cycle() >= 3000 {
			t.Fatal("no shed and refused attempt by the run's end")
		}
		s.anim.reset()
		s.step(1, true)
		for i := range s.anim.flights {
			switch fl := s.anim.flights[i]; {
			case fl.kind == flyShed && shedFl == nil:
				shedFl = &fl
			case fl.kind == flyRefuse && refuseFl == nil && !fl.retry:
				refuseFl = &fl
			}
		}
	}
	one := func(fl flight, at float32) Quad {
		t.Helper()
		qs := flightDrawn(s, fl, at)
		if len(qs) != 1 {
			t.Fatalf("flight %d at %.2f drew %d quads, want its one attempt", fl.kind, at, len(qs))
		}
		return qs[0]
	}
	// The shed attempt.
	a, b := one(*shedFl, 0.05), one(*shedFl, 0.9)
	pa, pb := quadCentre(a), quadCentre(b)
	if d := quadBounds(a).W; pb.Y-pa.Y < 2*d || abs32(pb.X-pa.X) > d {
		t.Errorf("shed: from %v to %v (size %.1f): want a drop of two sizes at least, nearly straight down", pa, pb, d)
	}
	if !near(opaque(b.C), ShedCol, 0x10) {
		t.Errorf("shed: colour %v near its end, want ShedCol %v", b.C, ShedCol)
	}
	// The refused attempt.
	in, turn, out := one(*refuseFl, 0.25), one(*refuseFl, 0.5), one(*refuseFl, 0.95)
	pi, pt, po := quadCentre(in), quadCentre(turn), quadCentre(out)
	if !(pi.X < pt.X && po.X < pt.X) {
		t.Errorf("refusal: at %v, %v, %v: want it to run right to the server and turn back", pi, pt, po)
	}
	if w, w0 := quadBounds(out).W, quadBounds(in).W; w <= w0 {
		t.Errorf("refusal: %.1f wide on its way back, %.1f on its way in: want it grown", w, w0)
	}
	if c := opaque(out.C); c.R < 0xf0 || c.G < 0xc0 || c.B > 0x90 {
		t.Errorf("refusal: colour %v on its way back, want RejectFlash %v", c, RejectFlash)
	}
	// It turns at its server's box: the box's left edge.
	var ids []int
	for v := range s.m.Balancers()[0].Servers() {
		ids = append(ids, v.ID)
	}
	f := s.Draw(1280, 720)
	_, g := s.laneGeom(f.Layout, 0, s.shown()[0])
	if box := g.BoxAt(boxIndex(ids, refuseFl.server)); abs32(pt.X-box.X) > box.W*0.1 {
		t.Errorf("refusal: turns at x %.1f, server %d's box starts at %.1f", pt.X, refuseFl.server, box.X)
	}
}

func abs32(x float32) float32 { return max(x, -x) }

// near reports whether c and d differ by at most tol in each of R, G, B.
func near(c, d interface{ RGBA() (r, g, b, a uint32) }, tol uint32) bool {
	r1, g1, b1, _ := c.RGBA()
	r2, g2, b2, _ := d.RGBA()
	diff := func(x, y uint32) uint32 { return max(x, y) - min(x, y) }
	return diff(r1>>8, r2>>8) <= tol && diff(g1>>8, g2>>8) <= tol && diff(b1>>8, b2>>8) <= tol
}

// TestLimitsBesideQueues draws a per-server run with an adaptive limit:
// each server's limit, as the model holds it, is written beside its
// queue ("≤N" in LimitCol); a pooled run's, after its queue's count in the
// lane's title; a run without a limit writes none.
func TestLimitsBesideQueues(t *testing.T) {
	tc := overloadCases[0]
	s := overloadSession(t, tc.kvs, tc.changes)
	s.step(1500, false)
	b := s.m.Balancers()[0]
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		f := s.Draw(size[0], size[1])
		var want, got []string
		for v := range b.Servers() {
			l, ok := b.Limit(v.ID)
			if !ok {
				t.Fatalf("server %d has no limit", v.ID)
			}
			want = append(want, fmt.Sprintf("≤%d", l))
		}
		for _, x := range f.Layers[SceneLayer].Texts {
			if x.C == LimitCol {
				got = append(got, x.S[len(" "):])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: limits drawn %q, want %q (the servers' in id order)", size, got, want)
		}
	}
	// A pooled run's limit, the pool's, stands after its queue's count.
	pc := overloadCases[1]
	pooled := overloadSession(t, pc.kvs, pc.changes)
	pooled.step(1500, false)
	l, ok := pooled.m.Balancers()[0].Limit(0)
	if !ok {
		t.Fatal("the pooled run has no limit")
	}
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		var got []string
		for _, x := range pooled.Draw(size[0], size[1]).Layers[SceneLayer].Texts {
			if x.C == LimitCol {
				got = append(got, x.S)
			}
		}
		if want := []string{fmt.Sprintf(" ≤%d", l)}; !slices.Equal(got, want) {
			t.Errorf("pooled %v: limits drawn %q, want %q", size, got, want)
		}
	}
	off := overloadSession(t, []string{"servers", "4", "queues", "per-server", "policy", "least-connections", "cycles", "3000"}, nil)
	off.step(100, false)
	for _, x := range off.Draw(1280, 720).Layers[SceneLayer].Texts {
		if x.C == LimitCol {
			t.Errorf("without a limit the frame writes %q in the limit's colour", x.S)
		}
	}
}

// TestHUDCountsOverload checks the HUD's counts of the overload controls:
// shed and limited as the run's totals, with the controls on, the
// discipline when it is not fifo, and the legend's keys of a shed and a
// throttled attempt; none of them with every control off (and fifo).
func TestHUDCountsOverload(t *testing.T) {
	tc := overloadCases[0]
	s := overloadSession(t, tc.kvs, tc.changes)
	s.step(1500, false)
	sum := s.m.Summary()
	if sum.Shed == 0 || sum.Limited == 0 {
		t.Fatalf("%d shed, %d limited: the run must have both", sum.Shed, sum.Limited)
	}
	texts := map[string]bool{}
	for _, x := range s.Draw(1280, 720).Layers[SceneLayer].Texts {
		texts[x.S] = true
	}
	for _, w := range []string{"shed " + Commas(sum.Shed), "limited " + Commas(sum.Limited), "discipline adaptive-lifo"} {
		if !texts[w] {
			t.Errorf("the HUD does not say %q", w)
		}
	}
	if !texts["shed"] {
		t.Error("the legend does not key the shed attempts")
	}
	if texts["throttled 0"] || texts["throttled"] {
		t.Error("the HUD counts the throttle, or the legend keys it, which is off")
	}
	th := overloadCases[2]
	ts := overloadSession(t, th.kvs, th.changes)
	ts.step(1500, false)
	texts = map[string]bool{}
	for _, x := range ts.Draw(1280, 720).Layers[SceneLayer].Texts {
		texts[x.S] = true
	}
	if n := ts.m.Summary().Throttled; n == 0 || !texts["throttled "+Commas(n)] || !texts["throttled"] {
		t.Errorf("throttling on, %d throttled: the HUD or the legend does not say so", n)
	}
	if texts["discipline fifo"] {
		t.Error("the HUD names the discipline fifo, the default")
	}
	// A --set that changes the discipline mid-run: the HUD follows it.
	if err := ts.Set("discipline", "lifo"); err != nil {
		t.Fatal(err)
	}
	ts.Apply(StepOne)
	found := false
	for _, x := range ts.Draw(1280, 720).Layers[SceneLayer].Texts {
		found = found || x.S == "discipline lifo"
	}
	if !found {
		t.Errorf("after discipline=lifo at %d the HUD does not say discipline lifo", ts.m.Cycle())
	}
	off := overloadSession(t, []string{"servers", "4", "timeout", "100", "retries", "1", "cycles", "3000"}, nil)
	off.step(500, false)
	for _, x := range off.Draw(1280, 720).Layers[SceneLayer].Texts {
		if x.S == "shed 0" || x.S == "limited 0" || x.S == "throttled 0" || x.S == "shed" || x.S == "throttled" || strings.HasPrefix(x.S, "discipline") {
			t.Errorf("with the controls off the HUD says %q", x.S)
		}
	}
}

// TestThrottleFlightDrawn draws a throttled first attempt at points of its
// flight: it comes in through the gate and stops dead just past it, short
// of every queue, with its client's bar (ThrottleCol, tall and thin)
// standing across its path just ahead of it; it stays where it stopped
// while it fades into ThrottleCol. By shape it is neither a rejection at
// the firewall nor a limit's refusal, which both turn and come back.
func TestThrottleFlightDrawn(t *testing.T) {
	tc := overloadCases[2]
	s := overloadSession(t, tc.kvs, tc.changes)
	var fl *flight
	for fl == nil {
		if s.m.Cycle() >= 3000 {
			t.Fatal("no throttled first attempt by the run's end")
		}
		s.anim.reset()
		s.step(1, true)
		for i := range s.anim.flights {
			if f := s.anim.flights[i]; f.kind == flyThrottle && !f.retry {
				fl = &f
				break
			}
		}
	}
	// attempt returns the attempt's quad at progress at, and the bar's
	// when it stands (the quad three times taller than wide).
	attempt := func(at float32) (Quad, *Rect) {
		t.Helper()
		var req []Quad
		var bar *Rect
		for _, q := range flightDrawn(s, *fl, at) {
			if b := quadBounds(q); b.H >= 3*b.W {
				if !near(opaque(q.C), ThrottleCol, 0x10) {
					t.Errorf("at %.2f: the bar is %v, want ThrottleCol %v", at, q.C, ThrottleCol)
				}
				bar = &b
				continue
			}
			req = append(req, q)
		}
		if len(req) != 1 {
			t.Fatalf("at %.2f: %d quads besides the bar, want the attempt's one", at, len(req))
		}
		return req[0], bar
	}
	f := s.Draw(1280, 720)
	gate := f.Layout.Gate
	in, noBar := attempt(0.1)
	if noBar != nil {
		t.Error("the bar stands at 0.1, before the attempt nears it")
	}
	stopped, bar := attempt(0.5)
	end, endBar := attempt(0.95)
	pi, ps, pe := quadCentre(in), quadCentre(stopped), quadCentre(end)
	size := quadBounds(stopped).W
	if bar == nil || endBar == nil {
		t.Fatal("no bar once the attempt has stopped")
	}
	if !(pi.X < ps.X) || abs32(pe.X-ps.X) > 0.5 || abs32(pe.Y-ps.Y) > 0.5 {
		t.Errorf("at 0.1, 0.5, 0.95: %v, %v, %v: want it to come in and stop dead (no bounce back)", pi, ps, pe)
	}
	if ps.X <= gate.X+gate.W {
		t.Errorf("stops at x %.1f, inside the gate (its right edge %.1f): the client throttles past the firewall", ps.X, gate.X+gate.W)
	}
	lane, _ := s.laneGeom(f.Layout, 0, s.shown()[0])
	if q := lane.Queue; ps.X+size/2 >= q.X {
		t.Errorf("stops at x %.1f, size %.1f: reaches the queue at %.1f", ps.X, size, q.X)
	}
	if !(bar.X > ps.X+size/2 && bar.X-(ps.X+size/2) < size && bar.Y < ps.Y && bar.Y+bar.H > ps.Y) {
		t.Errorf("bar %v: want it just ahead of the attempt at %v (size %.1f), across its path", *bar, ps, size)
	}
	if !near(opaque(end.C), ThrottleCol, 0x20) {
		t.Errorf("colour %v near its end, want ThrottleCol %v", end.C, ThrottleCol)
	}
	if w := quadBounds(end).W; w >= size {
		t.Errorf("%.1f wide at its end, %.1f when it stopped: want it shrinking in place (a rejection grows)", w, size)
	}
}
