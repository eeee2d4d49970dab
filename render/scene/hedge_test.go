package scene

import (
	"maps"
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

// hedgeClientCases are hedged runs with the client side, where a retry
// and a hedge of one part may wait in queues at once (the model then
// cancels the retry first: it keeps the slot of the attempt it retries):
// one part a request with timeouts and retries under a load where
// attempts queue; and a fan-out of 2 with timeouts, retries, health
// checks, outlier ejection and random faults; and a fan-out of 2 whose
// random faults re-queue attempts (routed again with no event naming the
// new queue).
var hedgeClientCases = []struct {
	name     string
	kvs, chs []string
}{
	{"one part, timeouts and retries", []string{"fanout", "1", "servers", "4", "min-servers", "4", "max-servers", "4", "rate", "0.17",
		"hedge-after", "10", "hedge-max", "3", "timeout", "80", "retries", "2", "backoff", "15", "fail-time", "2"}, []string{"1:fail=1"}},
	{"fan-out 2, health checks and ejection", []string{"fanout", "2", "servers", "6", "min-servers", "6", "max-servers", "6", "rate", "0.12",
		"hedge-after", "20", "timeout", "50", "retries", "2", "backoff", "3", "health-interval", "10", "eject-after", "2",
		"mtbf", "1500", "mttr", "150", "policy", "least-connections"}, nil},
	{"fan-out 2, random faults re-queue", []string{"fanout", "2", "servers", "6", "min-servers", "6", "max-servers", "6", "rate", "0.12",
		"hedge-after", "20", "mtbf", "600", "mttr", "100"}, nil},
}

// attemptID is an attempt as the events and the model's queues give it:
// its request, part, whether a retry, and its time.
type attemptID struct {
	id    int64
	part  uint8
	retry bool
	time  uint32
}

func attemptOf(r sim.Request) attemptID { return attemptID{r.ID, r.Part, r.Retry, r.Time} }

// heldAt counts the attempts each server of m's first balancer holds,
// queued or in service (not abandoned work), by server and attempt.
func heldAt(m *sim.Model) map[int]map[attemptID]int {
	b := m.Balancers()[0]
	out := map[int]map[attemptID]int{}
	for v := range b.Servers() {
		c := map[attemptID]int{}
		for i := range v.Queued {
			c[attemptOf(b.ServerQueueAt(v.ID, i))]++
		}
		if (v.State == sim.Busy || v.State == sim.Retiring) && !v.Abandoned {
			c[attemptOf(v.Request)]++
		}
		out[v.ID] = c
	}
	return out
}

// TestHedgeFlights steps hedged runs a cycle at a time, animated, and
// checks each cycle's flights against its events and the model's counts:
// one flight per hedge sent, from the gate to the hedge's server, in its
// request's group and marked a hedge; one flight per retry sent; one
// fading flight per attempt cancelled, at the server whose queue (or
// service) held that very attempt, by the model's own queues; no other
// flight marked a hedge; a hedge its server's limit refuses bounces off
// it instead.
func TestHedgeFlights(t *testing.T) {
	cases := slices.Clone(hedgeClientCases)
	for _, tc := range hedgeCases {
		cases = append(cases, struct {
			name     string
			kvs, chs []string
		}{tc.name, tc.kvs, nil})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := running(t, hedgeConfig(t, tc.kvs...), mustChanges(t, tc.chs...)...)
			var hedges, cancelled, queuedCancels, limited, retries int64
			for s.m.Cycle() < 4000 {
				s.anim.flights = s.anim.flights[:0] // the notes of queued attempts stay
				before := heldAt(s.m)
				s.step(1, true)
				after := heldAt(s.m)
				last := s.m.Last()
				var sent, cancels []sim.Event
				var queued, refused, retried, unseen int
				evs := s.m.Events()
				// Refused by a concurrency limit (a down server's refusal
				// is a flight to it, then an error back).
				isRefused := func(e sim.Event) bool {
					return s.m.Config().ConcurrencyLimit != 0 && slices.ContainsFunc(evs, func(x sim.Event) bool { return x.Kind == sim.Error && refusalOf(x) == refusalOf(e) })
				}
				// gone: each server's attempts that left it this cycle
				// otherwise than by an event naming it.
				gone := map[int]map[attemptID]int{}
				for id, c := range before {
					gone[id] = maps.Clone(c)
				}
				for id, c := range after {
					if gone[id] == nil {
						gone[id] = map[attemptID]int{}
					}
					for a, n := range c {
						gone[id][a] -= n
					}
				}
				for _, e := range evs {
					switch e.Kind {
					case sim.Arrive, sim.Retry, sim.Hedge:
						if e.Server != 0 && gone[e.Server] != nil {
							gone[e.Server][attemptOf(e.Request)]++
						}
					case sim.Complete, sim.Error, sim.TimedOut, sim.Discard, sim.Requeue, sim.Shed:
						if gone[e.Server] != nil {
							gone[e.Server][attemptOf(e.Request)]--
						}
					}
					switch {
					case e.Kind == sim.Hedge && isRefused(e):
						refused++ // refused by its server's limit: it bounces off (flyRefuse)
					case e.Kind == sim.Hedge:
						sent = append(sent, e)
					case e.Kind == sim.Retry && !isRefused(e):
						retried++
					case e.Kind == sim.Cancel && e.Server == 0 && slices.ContainsFunc(evs, func(x sim.Event) bool {
						return x.Kind == sim.Requeue && attemptOf(x.Request) == attemptOf(e.Request)
					}):
						// Taken back from a failed server and cancelled in
						// one cycle: no event names the queue it was routed
						// to, and it is gone by the cycle's end (no fade).
						unseen++
					case e.Kind == sim.Cancel:
						cancels = append(cancels, e)
						if e.Server == 0 {
							queued++
						}
					}
				}
				var flew, crossed []flight
				var crossedQueued, bounced, retryFlights int
				for _, fl := range s.anim.flights {
					switch {
					case fl.kind == flyRefuse:
						bounced++
					case fl.hedge:
						flew = append(flew, fl)
					case fl.kind == flyCancel:
						crossed = append(crossed, fl)
						if fl.queued {
							crossedQueued++
						}
					case fl.retry && (fl.kind == flyDispatch || fl.kind == flyRetry):
						retryFlights++
					}
				}
				if len(sent)+refused != last.Hedges || len(flew) != len(sent) || len(crossed)+unseen != last.Cancelled || len(crossed) != len(cancels) ||
					crossedQueued != queued || bounced != last.Limited || retryFlights != retried {
					t.Fatalf("cycle %d: %d hedges sent (%d events, %d refused), %d flew; %d cancelled (%d events, %d queued), %d crossed (%d queued); %d limited, %d bounced; %d retries, %d flew",
						s.m.Cycle(), last.Hedges, len(sent), refused, len(flew), last.Cancelled, len(cancels), queued, len(crossed), crossedQueued, last.Limited, bounced, retried, retryFlights)
				}
				for i, fl := range flew {
					e := sent[i]
					if fl.kind != flyDispatch || fl.server != e.Server || e.Server == 0 || fl.group != e.Request.ID || fl.retry {
						t.Fatalf("cycle %d: hedge %v flies %+v", s.m.Cycle(), e, fl)
					}
				}
				// Each cancel fades where the model held that attempt.
				for i, fl := range crossed {
					e, a := cancels[i], attemptOf(cancels[i].Request)
					if fl.group != e.Request.ID || fl.queued != (e.Server == 0) || gone[fl.server][a] < 1 {
						t.Fatalf("cycle %d: attempt %+v cancelled (event server %d) fades at server %d (queued %v), which did not hold it: before %v, after %v",
							s.m.Cycle(), a, e.Server, fl.server, fl.queued, before[fl.server], after[fl.server])
					}
					gone[fl.server][a]--
				}
				hedges += int64(len(sent) + refused)
				limited += int64(refused)
				cancelled += int64(len(cancels))
				queuedCancels += int64(queued)
				retries += int64(retried)
			}
			sum := s.m.Summary()
			t.Logf("%d hedges (%d won, %d denied, %d refused by a limit), %d cancelled (%d queued), %d retries, %d ejections, %d requeued", hedges, sum.HedgesWon, sum.HedgesDenied, limited, cancelled, queuedCancels, retries, sum.Ejections, sum.Requeued)
			if hedges != sum.Hedges || hedges < 20 || cancelled < 20 || queuedCancels == 0 || queuedCancels == cancelled {
				t.Errorf("%d hedges flew of %d sent; %d cancelled, %d of them queued: want both kinds of cancel", hedges, sum.Hedges, cancelled, queuedCancels)
			}
			if strings.Contains(tc.name, "budget") && sum.HedgesDenied == 0 {
				t.Errorf("the budget denied no hedge")
			}
			if strings.Contains(tc.name, "limit") != (limited > 0) {
				t.Errorf("%d hedges refused by a limit", limited)
			}
			if slices.Contains(tc.kvs, "retries") != (retries > 0) || retries != sum.Retries {
				t.Errorf("%d retries flew of %d", retries, sum.Retries)
			}
			if strings.Contains(tc.name, "re-queue") && sum.Requeued == 0 {
				t.Errorf("nothing re-queued")
			}
			if slices.Contains(tc.kvs, "eject-after") && sum.Ejections == 0 {
				t.Errorf("no ejection")
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
