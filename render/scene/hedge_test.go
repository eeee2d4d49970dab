package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// hedgeCases are hedged runs over per-server queues: one part a request
// (a hedge races its request's only attempt) with a budget that denies
// some; a fan-out of 3 with two hedges a part over few servers, so that
// attempts queue and two of one part may wait at once; and a fan-out of 2
// beside a concurrency limit that refuses some hedges.
var hedgeCases = []struct {
	name string
	kvs  []string
}{
	{"one part, budget 0.1", []string{"fanout", "1", "servers", "8", "min-servers", "8", "max-servers", "8", "rate", "0.2",
		"hedge-after", "25", "hedge-budget", "0.1"}},
	{"fan-out 3, two hedges", []string{"fanout", "3", "servers", "10", "min-servers", "10", "max-servers", "10", "rate", "0.08",
		"hedge-after", "20", "hedge-max", "2", "policy", "p2c"}},
	{"fan-out 2, a limit of 2 a server", []string{"fanout", "2", "servers", "6", "min-servers", "6", "max-servers", "6", "rate", "0.1",
		"hedge-after", "15", "concurrency-limit", "fixed:2"}},
	{"fan-out 3, codel sheds", []string{"fanout", "3", "servers", "6", "min-servers", "6", "max-servers", "6", "rate", "0.09",
		"hedge-after", "15", "codel-target", "10"}},
}

// hedgeConfig is a hedged run of case kvs: geometric times of mean 20,
// per-server round-robin (unless kvs says), no initial queue.
func hedgeConfig(t *testing.T, kvs ...string) sim.Config {
	t.Helper()
	base := []string{"queues", "per-server", "policy", "round-robin", "initial-per-server", "0", "service", "geometric",
		"mean-service", "20", "wave", "false", "block", "none"}
	return configWith(t, append(base, kvs...)...)
}

// TestHedgeFlights steps hedged runs a cycle at a time, animated, and
// checks each cycle's flights against its events and the model's counts:
// one flight per hedge sent, from the gate to the hedge's server, in its
// request's group and marked a hedge; one fading flight per attempt
// cancelled, queued ones at a server's queue; no other flight marked a
// hedge; a hedge its server's limit refuses bounces off it instead.
func TestHedgeFlights(t *testing.T) {
	for _, tc := range hedgeCases {
		t.Run(tc.name, func(t *testing.T) {
			s := running(t, hedgeConfig(t, tc.kvs...))
			var hedges, cancelled, queuedCancels, limited int64
			for s.m.Cycle() < 4000 {
				s.anim.flights = s.anim.flights[:0] // the notes of queued attempts stay
				held := map[int]int{}               // each server's queue before the cycle
				for v := range s.m.Balancers()[0].Servers() {
					held[v.ID] = v.Queued
				}
				s.step(1, true)
				last := s.m.Last()
				var sent []sim.Event
				var cancels, queued, refused int
				evs := s.m.Events()
				for _, e := range evs {
					switch {
					case e.Kind == sim.Hedge && slices.ContainsFunc(evs, func(x sim.Event) bool { return x.Kind == sim.Error && refusalOf(x) == refusalOf(e) }):
						refused++ // refused by its server's limit: it bounces off (flyRefuse)
					case e.Kind == sim.Hedge:
						sent = append(sent, e)
					case e.Kind == sim.Cancel:
						cancels++
						if e.Server == 0 {
							queued++
						}
					}
				}
				var flew []flight
				var crossed, crossedQueued, bounced int
				for _, fl := range s.anim.flights {
					switch {
					case fl.kind == flyRefuse:
						bounced++
					case fl.hedge:
						flew = append(flew, fl)
					case fl.kind == flyCancel:
						crossed++
						if fl.queued {
							crossedQueued++
							// Where it fades held it: queued before the
							// cycle, or sent there in it.
							joined := slices.ContainsFunc(evs, func(e sim.Event) bool {
								return (e.Kind == sim.Hedge || e.Kind == sim.Arrive || e.Kind == sim.Retry) && e.Server == fl.server && e.Request.ID == fl.group
							})
							if held[fl.server] == 0 && !joined {
								t.Fatalf("cycle %d: a queued attempt of request %d fades at server %d, whose queue was empty", s.m.Cycle(), fl.group, fl.server)
							}
						}
					}
				}
				if len(sent)+refused != last.Hedges || len(flew) != len(sent) || crossed != last.Cancelled || crossed != cancels || crossedQueued != queued || bounced != last.Limited {
					t.Fatalf("cycle %d: %d hedges sent (%d events, %d refused), %d flew; %d cancelled (%d events, %d queued), %d crossed (%d queued); %d limited, %d bounced",
						s.m.Cycle(), last.Hedges, len(sent), refused, len(flew), last.Cancelled, cancels, queued, crossed, crossedQueued, last.Limited, bounced)
				}
				for i, fl := range flew {
					e := sent[i]
					if fl.kind != flyDispatch || fl.server != e.Server || e.Server == 0 || fl.group != e.Request.ID || fl.retry {
						t.Fatalf("cycle %d: hedge %v flies %+v", s.m.Cycle(), e, fl)
					}
				}
				hedges += int64(len(sent) + refused)
				limited += int64(refused)
				cancelled += int64(cancels)
				queuedCancels += int64(queued)
			}
			sum := s.m.Summary()
			t.Logf("%d hedges (%d won, %d denied, %d refused by a limit), %d cancelled (%d queued)", hedges, sum.HedgesWon, sum.HedgesDenied, limited, cancelled, queuedCancels)
			if hedges != sum.Hedges || hedges < 20 || cancelled < 20 || queuedCancels == 0 || queuedCancels == cancelled {
				t.Errorf("%d hedges flew of %d sent; %d cancelled, %d of them queued: want both kinds of cancel", hedges, sum.Hedges, cancelled, queuedCancels)
			}
			if strings.Contains(tc.name, "budget") && sum.HedgesDenied == 0 {
				t.Errorf("the budget denied no hedge")
			}
			if strings.Contains(tc.name, "limit") != (limited > 0) {
				t.Errorf("%d hedges refused by a limit", limited)
			}
		})
	}
}

// hedgeInFlight runs the first hedge case to the first cycle a hedge is
// sent and draws the frame a third of the way through its flight: the
// hedge's flight and the frame.
func hedgeInFlight(t *testing.T) (flight, *Frame) {
	t.Helper()
	s := running(t, hedgeConfig(t, hedgeCases[0].kvs...))
	stepUntil(t, s, 3000, func(fl flight) bool { return fl.hedge })
	fl := s.anim.flights[slices.IndexFunc(s.anim.flights, func(fl flight) bool { return fl.hedge })]
	s.anim.flights = []flight{fl} // the hedge alone
	s.tick += max(fl.dur/3, 1)
	return fl, s.Draw(BaseW, BaseH)
}

// TestHedgeDrawn: a hedge in the air is drawn as a marker in HedgeCol
// with a dark bar across its middle, between the gate and its server,
// ringed and tethered in its request's tint; the footer keys the look.
func TestHedgeDrawn(t *testing.T) {
	fl, f := hedgeInFlight(t)
	if !hedgeBarred(f, fl) {
		t.Error("the hedge is not drawn in its colour with its bar")
	}
	tint := GroupTint(fl.group)
	if ts := tethers(f, fade(tint, 0.45)); len(ts) != 1 || ts[0][0].X > f.Layout.Gate.X+f.Layout.Gate.W {
		t.Errorf("the hedge's tether: %v (want one, from the gate)", ts)
	}
	keyed := slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "hedge" && f.Layout.Footer.Contains(textBox(x)) })
	if !keyed {
		t.Error("the footer does not key a hedge")
	}
	// Without hedging: no key.
	s := running(t, hedgeConfig(t, "fanout", "3", "servers", "10", "min-servers", "10", "max-servers", "10", "rate", "0.08"))
	s.step(50, false)
	f = s.Draw(BaseW, BaseH)
	if slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "hedge" }) {
		t.Error("a run without hedging keys a hedge")
	}
}

// hedgeBarred reports whether frame f draws hedge fl as one quad in
// HedgeCol outside the footer, on its way right from the gate, with a
// quad in the background's colour across its middle (its bar).
func hedgeBarred(f *Frame, fl flight) bool {
	quads := f.Layers[SceneLayer].Quads
	var marks []Quad
	for _, q := range quads {
		if q.C == HedgeCol && !f.Layout.Footer.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
			marks = append(marks, q)
		}
	}
	if len(marks) != 1 {
		return false
	}
	m := marks[0]
	cx, cy := (m.P[0].X+m.P[2].X)/2, (m.P[0].Y+m.P[2].Y)/2
	w := m.P[2].X - m.P[0].X
	if cx <= f.Layout.Gate.X || w <= 0 {
		return false
	}
	return slices.ContainsFunc(quads, func(q Quad) bool {
		bx, by := (q.P[0].X+q.P[2].X)/2, (q.P[0].Y+q.P[2].Y)/2
		bw, bh := q.P[2].X-q.P[0].X, q.P[2].Y-q.P[0].Y
		return q.C == Background && abs32(bx-cx) < 0.01 && abs32(by-cy) < 0.01 && abs32(bw-w) < 0.01 && bh > 0 && bh < w/2
	})
}

// hedgeCancelDrawn runs a hedged run of one part a request to the first
// cycle that completes one attempt and cancels one: with a hedge winning,
// its request's first attempt cancelled in service; or (hedgeCancelled)
// with the first attempt winning, its hedge cancelled (queued or in
// service); and reports whether the frame a third into its fade draws it
// crossed where it was.
func hedgeCancelDrawn(t *testing.T, hedgeCancelled bool) bool {
	t.Helper()
	s := running(t, hedgeConfig(t, hedgeCases[0].kvs...))
	for range 20000 {
		before := s.m.Totals().HedgesWon
		s.anim.flights = s.anim.flights[:0]
		s.step(1, true)
		last := s.m.Last()
		hedgeWon := s.m.Totals().HedgesWon > before
		if last.Cancelled != 1 || last.Completed != 1 || hedgeWon == hedgeCancelled {
			continue
		}
		i := slices.IndexFunc(s.anim.flights, func(fl flight) bool { return fl.kind == flyCancel })
		if i < 0 {
			t.Logf("cycle %d: the cancel has no flight", s.m.Cycle())
			return false
		}
		fl := s.anim.flights[i]
		if !hedgeCancelled && fl.queued {
			continue // a first attempt still queued when its hedge won
		}
		s.tick += fl.dur / 3
		p, _ := fl.progress(s.tick)
		f := s.Draw(BaseW, BaseH)
		cross := tethers(f, fade(CancelCol, 1-p))
		if len(cross) < 2 {
			t.Logf("cycle %d: %d segments in the cancel colour", s.m.Cycle(), len(cross))
			return false
		}
		a, b := cross[len(cross)-2], cross[len(cross)-1]
		c := Point{(a[0].X + a[1].X) / 2, (a[0].Y + a[1].Y) / 2}
		c2 := Point{(b[0].X + b[1].X) / 2, (b[0].Y + b[1].Y) / 2}
		t.Logf("cycle %d: cancelled at server %d, queued %v", s.m.Cycle(), fl.server, fl.queued)
		return abs32(c.X-c2.X) < 0.01 && abs32(c.Y-c2.Y) < 0.01 && c.X > f.Layout.Gate.X+f.Layout.Gate.W
	}
	t.Logf("no such cycle")
	return false
}

// TestHedgeCancelFades: a first attempt cancelled in service when its
// hedge wins, and a hedge cancelled when its first attempt wins, each
// fade crossed where they were.
func TestHedgeCancelFades(t *testing.T) {
	for _, hedge := range []bool{false, true} {
		if !hedgeCancelDrawn(t, hedge) {
			t.Errorf("hedge cancelled %v: not drawn crossed", hedge)
		}
	}
}

// TestHUDCountsHedges: with hedging on, the HUD counts the hedges sent,
// won and (with a budget) denied, the run's own counts, and the attempts
// a request (parts and hedges, no retries here, ÷ requests admitted); each compare
// lane that hedges counts its own; without hedging, none of these.
func TestHUDCountsHedges(t *testing.T) {
	for _, tc := range hedgeCases {
		s := running(t, hedgeConfig(t, tc.kvs...))
		s.step(3000, false)
		sum := s.m.Summary()
		hud := hudTexts(s.Draw(BaseW, BaseH))
		want := []string{"hedges " + Commas(sum.Hedges), "won " + Commas(sum.HedgesWon), "parts " + Commas(sum.Parts), "cancelled " + Commas(sum.Cancelled),
			"attempts/req " + Sig3(float64(sum.Parts+sum.Hedges)/float64(sum.Admitted))} // no retries here
		budget := s.m.Config().HedgeBudget > 0
		if budget {
			want = append(want, "denied "+Commas(sum.HedgesDenied))
		}
		for _, w := range want {
			if !slices.Contains(hud, w) {
				t.Errorf("%s: the HUD does not show %q: %q", tc.name, w, hud)
			}
		}
		if denied := slices.ContainsFunc(hud, func(x string) bool { return strings.HasPrefix(x, "denied ") }); denied != budget || sum.Hedges == 0 || sum.HedgesWon == 0 {
			t.Errorf("%s: %d hedges, %d won; a denied count shown %v with a budget %v", tc.name, sum.Hedges, sum.HedgesWon, denied, budget)
		}
	}
	// Compare: the hedged lane counts its hedges, the other none.
	plain := hedgeConfig(t, hedgeCases[1].kvs...)
	plain.HedgeAfter = 0
	hedged := hedgeConfig(t, hedgeCases[1].kvs...)
	s := mustNew(t, Options{Config: plain, Lanes: []snapshot.LaneSpec{{Label: "plain", Config: plain}, {Label: "hedged", Config: hedged}}, Speed: 600, PauseAt: -1})
	s.step(3000, false)
	hud := hudTexts(s.Draw(BaseW, BaseH))
	for i, l := range s.laneStates() {
		want := fanoutLaneText(l.Label, l.Summary)
		if i == 1 {
			want += " · hedges " + Commas(l.Summary.Hedges) + " · won " + Commas(l.Summary.HedgesWon) +
				" · attempts/req " + Sig3(float64(l.Summary.Parts+l.Summary.Hedges)/float64(l.Summary.Admitted))
		}
		if !slices.Contains(hud, want) || (i == 1) != (l.Summary.Hedges > 0) {
			t.Errorf("lane %s (%d hedges): the HUD does not show %q: %q", l.Label, l.Summary.Hedges, want, hud)
		}
	}
	// Without hedging: no hedge counts.
	s = running(t, plain)
	s.step(300, false)
	for _, x := range hudTexts(s.Draw(BaseW, BaseH)) {
		if strings.HasPrefix(x, "hedges ") || strings.HasPrefix(x, "won ") || strings.HasPrefix(x, "denied ") {
			t.Errorf("without hedging the HUD shows %q", x)
		}
	}
}
