package scene

import (
	"math"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
)

// nearestRank is the p-th percentile of values the plain way: sorted,
// the value at rank ⌈p·n/100⌉ (0 with none).
func nearestRank(values []int64, p int64) int64 {
	if len(values) == 0 {
		return 0
	}
	v := slices.Clone(values)
	slices.Sort(v)
	n := int64(len(v))
	return v[max((n*p+99)/100, 1)-1]
}

// firstCompletions collects, from events evs, the response (completion −
// arrival) of each part's first attempt to complete, into seen (by
// request and part) and out.
func firstCompletions(evs []sim.Event, seen map[[2]int64]bool, out []int64) []int64 {
	for _, e := range evs {
		k := [2]int64{e.Request.ID, int64(e.Request.Part)}
		if e.Kind == sim.Complete && !seen[k] {
			seen[k] = true
			out = append(out, e.Cycle-e.Request.Arrival)
		}
	}
	return out
}

// TestPartTimesHandStream: on a hand-made stream of three requests of
// three parts, a part's response runs from its request's arrival to the
// first of its attempts to complete (a later attempt of a part done
// counts nothing while its request waits for another part), a request
// given up leaves its done parts counted, and the
// percentiles are the plain nearest-rank ones: exact below the exact
// bound, above it within the bucket's width.
func TestPartTimesHandStream(t *testing.T) {
	req := func(id, arrival int64, part uint8) sim.Request {
		return sim.Request{ID: id, Arrival: arrival, Part: part, Time: 5}
	}
	ev := func(cycle int64, k sim.EventKind, r sim.Request) sim.Event {
		return sim.Event{Cycle: cycle, Kind: k, Server: 1, Request: r}
	}
	cycles := [][]sim.Event{
		{ev(10, sim.Arrive, req(1, 10, 0)), ev(10, sim.Arrive, req(1, 10, 1)), ev(10, sim.Arrive, req(1, 10, 2))},
		{ev(12, sim.Complete, req(1, 10, 2)), ev(12, sim.Dispatch, req(1, 10, 1))},
		{ev(15, sim.Hedge, req(1, 10, 1))},
		{ev(30, sim.Complete, req(1, 10, 1)), ev(30, sim.Cancel, req(1, 10, 1))},
		{ev(40, sim.Complete, req(1, 10, 1))}, // a second attempt of a part done: nothing
		{ev(50, sim.Complete, req(1, 10, 0))},
		{ev(120, sim.Complete, req(2, 20, 0)), ev(130, sim.GiveUp, req(2, 20, 1))},
		{ev(7, sim.Complete, req(3, 0, 1)), ev(8, sim.Complete, req(3, 0, 2)), ev(10_000, sim.Complete, req(3, 0, 0))},
	}
	want := []int64{2, 20, 40, 100, 7, 8, 10_000} // by hand
	var p partTimes
	var all []sim.Event
	for _, evs := range cycles {
		p.observe(evs, 3)
		all = append(all, evs...)
	}
	got := firstCompletions(all, map[[2]int64]bool{}, nil)
	if !slices.Equal(got, want) || p.dist.n != int64(len(want)) {
		t.Fatalf("counted %d; the plain way %v, by hand %v", p.dist.n, got, want)
	}
	for _, pc := range []int64{1, 50, 70, 85} {
		if a, b := p.dist.percentile(pc), nearestRank(want, pc); a != b {
			t.Errorf("p%d: %d, the plain way %d", pc, a, b)
		}
	}
	// 10,000 is above the exact bound: its bucket's top, within an
	// eighth of a doubling.
	if top := p.dist.percentile(99); top < 10_000 || float64(top) > 10_000*math.Exp2(1.0/8) {
		t.Errorf("p99 %d, want 10,000 within its bucket", top)
	}
	if len(p.done) != 0 {
		t.Errorf("%d requests still noted: %v", len(p.done), p.done)
	}
}

// TestPartP99OnRuns: on hedged runs the page's part percentiles are the
// plain ones computed from every cycle's events; with one part a
// request, a part's response is the request's, and the page's p50, p95
// and p99 are the run's own (its histogram, not the events).
func TestPartP99OnRuns(t *testing.T) {
	for _, tc := range hedgeCases {
		s := running(t, hedgeConfig(t, tc.kvs...))
		seen := map[[2]int64]bool{}
		var resp []int64
		for s.m.Cycle() < 6000 {
			s.step(1, false)
			resp = firstCompletions(s.m.Events(), seen, resp)
		}
		d := &s.parts[0].dist
		sum := s.m.Summary()
		if d.n != int64(len(resp)) || d.n != sum.AttemptsCompleted || d.n < 200 {
			t.Errorf("%s: %d counted, %d the plain way, %d attempts completed", tc.name, d.n, len(resp), sum.AttemptsCompleted)
		}
		for _, pc := range []int64{50, 95, 99} {
			if a, b := d.percentile(pc), nearestRank(resp, pc); a != b {
				t.Errorf("%s: p%d %d, the plain way %d", tc.name, pc, a, b)
			}
		}
		if s.m.Config().Fanout <= 1 {
			got := [3]int64{d.percentile(50), d.percentile(95), d.percentile(99)}
			if run := [3]int64{sum.ResponseP50, sum.ResponseP95, sum.ResponseP99}; got != run {
				t.Errorf("%s: one part a request: p50/p95/p99 %v, the run's %v", tc.name, got, run)
			}
		}
		if p99, _ := s.PartP99(0); p99 > sum.ResponseP99 || p99 == 0 {
			t.Errorf("%s: a part's p99 %d, a request's %d", tc.name, p99, sum.ResponseP99)
		}
	}
	// Without fan-out or hedging nothing is counted.
	s := running(t, hedgeConfig(t, "servers", "8", "rate", "0.2"))
	s.step(2000, false)
	if _, n := s.PartP99(0); n != 0 {
		t.Errorf("a plain run counts %d parts", n)
	}
}

// TestHedgedPartReadout: the lesson's hedged lane as a single run (20
// parts over 40 servers at a load of 0.05, hedged after 62 cycles): the
// HUD reads a part's p99 and a request's, both measured, each with the
// low-load theory beside it (a hedged part's: the first of its attempts
// to complete); the measured part's p99 lies near its theory and below a
// single attempt's; the theory panel sets the two side by side.
func TestHedgedPartReadout(t *testing.T) {
	cfg := fanoutConfig(t, "20", "hedge-after", "62", "block", "none")
	s := running(t, cfg)
	s.step(100_000, false)
	tl, err := mmc.PredictTail(cfg, mmc.TailOf(cfg))
	if err != nil || tl.LowLoad == nil {
		t.Fatalf("no low-load theory: %v %s", err, tl.LowLoadWhy)
	}
	lt, sum := tl.LowLoad, s.m.Summary()
	part, n := s.PartP99(0)
	want := "part p99 " + Commas(part) + " (theory " + Commas(int64(lt.HedgedPartP99)) + ") · request p99 " + Commas(sum.ResponseP99) +
		" (theory " + Commas(int64(lt.RequestP99)) + ")"
	if hud := hudTexts(s.Draw(BaseW, BaseH)); !slices.Contains(hud, want) {
		t.Errorf("the HUD does not show %q: %q", want, hud)
	}
	if n < 5_000 || lt.HedgedPartP99 >= lt.PartP99 || lt.HedgedPartP99 < 62 ||
		float64(part) < 0.85*float64(lt.HedgedPartP99) || float64(part) > 1.15*float64(lt.HedgedPartP99) {
		t.Errorf("%d parts: a hedged part's p99 %d measured, %d in theory; a single attempt's %d in theory", n, part, lt.HedgedPartP99, lt.PartP99)
	}
	row := "a hedged part's p99\t" + Commas(int64(lt.HedgedPartP99)) + "\t" + Commas(part)
	if lines := s.tailLines(cfg, mmc.TailOf(cfg)); !slices.Contains(lines, row) {
		t.Errorf("the theory panel lacks %q: %q", row, lines)
	}
	t.Logf("part p99 %d (theory %d, one attempt %d), request p99 %d (theory %d)", part, lt.HedgedPartP99, lt.PartP99, sum.ResponseP99, lt.RequestP99)
}
