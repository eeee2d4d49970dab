package scene

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// Step mode (StepArrival, key A or the "arrival" button) follows one
// routing decision at a time: it pauses, runs the focused lane to the next
// cycle in which an attempt is routed, and labels each decision of that
// cycle in turn (a press each) on the picture: the server chosen, ringed,
// and in words the policy's rule, which servers it read and what it read
// there (a fleet's balancer's beliefs beside the truth), and why it chose.
//
// The model is only read: what a policy read at a decision is worked out
// from the state at the end of the cycle and the cycle's events (step b
// routes after the completions of step a, and nothing after it changes a
// server's load but later attempts of the same step b, which are taken
// back one by one). The random draws of p2c and peak-EWMA are the
// model's own: while a press runs its cycle, the focused lane's balancers
// note them (sim.Balancer.TapDraws, read-only), so the label names the
// servers drawn and what each read, the one the winner beat too.

// maxStepCycles bounds the cycles one press runs looking for an arrival.
const maxStepCycles = 100_000

// decision is one routing decision of the cycle stepped to.
type decision struct {
	lane, bal, server int
	req               sim.Request
	text              string
	draw              *sim.Draw // the model's draw (p2c, peak-EWMA), nil for none
}

// stepState is step mode's: the decisions of the cycle stepped to, and the
// one shown.
type stepState struct {
	on   bool
	decs []decision
	at   int
	// none is said when a press found no arrival before the end, the
	// pause or maxStepCycles.
	none string
}

// shown returns the decision shown, and false when there is none.
func (st *stepState) shown() (decision, bool) {
	if !st.on || st.at >= len(st.decs) {
		return decision{}, false
	}
	return st.decs[st.at], true
}

// stepArrival carries out StepArrival: the next decision of the cycle
// stepped to, else the next cycle that routes an attempt in the focused
// lane.
func (s *Session) stepArrival() {
	s.paused = true
	s.pace.Reset()
	defer s.followGate()
	if s.steps.on && s.steps.at+1 < len(s.steps.decs) {
		s.steps.at++
		return
	}
	s.steps = stepState{on: true}
	for range maxStepCycles {
		c := s.m.Cycle()
		s.tapDraws(true)
		s.step(1, true)
		decs := s.decisions(s.lane)
		s.tapDraws(false)
		if s.m.Cycle() == c {
			break // the end, or the pause
		}
		if len(decs) > 0 {
			s.steps.decs = decs
			return
		}
	}
	s.steps.none = "step: no request routed before cycle " + Commas(s.m.Cycle()) + " (the end, the pause or " + Commas(maxStepCycles) + " cycles on)"
}

// followGate selects the gate of the fleet's balancer that made the
// decision shown, when it is drawn, so that the servers show what that
// balancer believes beside the truth (fleet.go).
func (s *Session) followGate() {
	d, ok := s.steps.shown()
	if !ok {
		return
	}
	b := s.set.Lanes[d.lane].Model.Balancers()[d.bal]
	if g := int(d.req.Member); b.FleetSize() > 1 && g < gateCount(b.FleetSize()) {
		s.fleet = fleetView{on: true, lane: d.lane, gate: g}
	}
}

// stepLines are the lines step mode shows in the message strip, or nil.
func (s *Session) stepLines() []string {
	if !s.steps.on || !s.paused {
		return nil
	}
	if d, ok := s.steps.shown(); ok {
		n := fmt.Sprintf("step (A) %d of %d, cycle %s", s.steps.at+1, len(s.steps.decs), Commas(s.m.Cycle()))
		return []string{n + ": " + d.text}
	}
	if s.steps.none != "" {
		return []string{s.steps.none}
	}
	return nil
}

// captionShown is the lesson's caption while it shows: not while the
// lessons menu takes its room, nor while step
// mode's label takes its room (it comes back when step mode ends).
func (s *Session) captionShown() []string {
	if len(s.stepLines()) > 0 || s.dialog == dialogLessons {
		return nil
	}
	return s.caption
}

// routedEvents returns the attempts balancer bi of model m routed in the
// cycle just run, in step b's order: per-server, the arrivals, retries
// and discards routed to a server; pooled, the dispatches to idle servers.
func routedEvents(m *sim.Model, bi int, perServer bool) []sim.Event {
	var out []sim.Event
	for _, e := range m.Events() {
		if e.Balancer != bi || e.Server <= 0 {
			continue
		}
		if perServer && (e.Kind == sim.Arrive || e.Kind == sim.Retry || e.Kind == sim.Discard) || !perServer && e.Kind == sim.Dispatch {
			out = append(out, e)
		}
	}
	return out
}

// tapDraws turns the tap on the focused lane's draws on (afresh) or off.
func (s *Session) tapDraws(on bool) {
	for _, b := range s.set.Lanes[s.lane].Model.Balancers() {
		b.TapDraws(on)
	}
}

// decisions returns lane li's routing decisions of the cycle just run,
// each explained.
func (s *Session) decisions(li int) []decision {
	m := s.set.Lanes[li].Model
	var out []decision
	for bi, b := range m.Balancers() {
		routed := routedEvents(m, bi, b.PerServer())
		draws := b.Draws()
		for k, e := range routed {
			var d *sim.Draw
			d, draws = drawOf(draws, e)
			out = append(out, decision{lane: li, bal: bi, server: e.Server, req: e.Request, text: explain(m, b, routed, k, d), draw: d})
		}
	}
	return out
}

// drawOf returns the draw (noted by the tap, in routing order) that routed
// attempt e, and the draws after it; nil and draws when none did (the tap
// was off, or the policy draws nothing). The draws passed over are of
// requests re-queued off a failed server.
func drawOf(draws []sim.Draw, e sim.Event) (*sim.Draw, []sim.Draw) {
	for i := range draws {
		if d := &draws[i]; d.Request == e.Request.ID && d.Picked == e.Server {
			return d, draws[i+1:]
		}
	}
	return nil, draws
}

// read is what a policy read of one candidate at a decision: its belief
// (the load the balancer reads) and its true load.
type read struct {
	id            int
	belief, truth int64
}

// readsAt returns what the balancer of attempt routed[k] read of each
// candidate of b at that decision: the end-of-cycle loads less the later
// attempts of the cycle (for a belief, those its own balancer routed,
// unless every balancer reads the true loads).
func readsAt(m *sim.Model, b *sim.Balancer, routed []sim.Event, k int) []read {
	work := m.Config().Policy == sim.LeastWork
	member := int(routed[k].Request.Member)
	exact := b.FleetSize() == 1 || m.Config().LoadInfo == sim.LoadExact
	added := map[int]bool{} // servers added after step b, by scaling
	for _, e := range m.Events() {
		if e.Kind == sim.ScaleUp {
			added[e.Server] = true
		}
	}
	var out []read
	for v := range b.Servers() {
		if v.Ejected || v.Warming || v.State == sim.Retiring || added[v.ID] {
			continue
		}
		bel, ok := b.Belief(member, v.ID)
		if !ok {
			continue
		}
		if work {
			bel = workOf(m, b, v, routed[k:])
		}
		truth := int64(v.Queued)
		if v.State == sim.Busy {
			truth++
		}
		for _, e := range routed[k:] {
			if e.Server != v.ID || e.Kind == sim.Discard {
				continue
			}
			truth--
			if !work && (exact || int(e.Request.Member) == member) {
				bel--
			}
		}
		out = append(out, read{v.ID, max(bel, 0), max(truth, 0)})
	}
	return out
}

// workOf is server v's remaining work at step b, the cycles least-work
// reads: what it holds at the end of the cycle (the request in service to
// its end, each queued one at v's speed) less the attempts routed to it
// later in the cycle (later).
func workOf(m *sim.Model, b *sim.Balancer, v sim.ServerView, later []sim.Event) int64 {
	now := m.Cycle()
	w := int64(0)
	if v.State == sim.Busy {
		w = max(v.Done-now, 0)
	}
	for i := range v.Queued {
		w += int64(v.Speed.Cycles(b.ServerQueueAt(v.ID, i).Time))
	}
	for _, e := range later {
		if e.Server == v.ID && e.Kind != sim.Discard {
			w -= int64(v.Speed.Cycles(e.Request.Time))
		}
	}
	return max(w, 0)
}

// explain says decision routed[k] of balancer b: who routed which request
// where, the policy's rule, what it read and why it chose; draw is the
// model's own draw for it, when the policy draws and the tap noted it.
func explain(m *sim.Model, b *sim.Balancer, routed []sim.Event, k int, draw *sim.Draw) string {
	cfg := m.Config()
	e := routed[k]
	pol := cfg.Policy
	who := ""
	if n := b.FleetSize(); n > 1 {
		who = fmt.Sprintf("balancer %d of %d (%s counts): ", int(e.Request.Member)+1, n, cfg.LoadInfo)
	}
	what := "request"
	if e.Kind == sim.Retry || e.Request.Retry {
		what = "retry of"
	}
	head := fmt.Sprintf("%s%s #%s to server %d.", who, what, Commas(e.Request.ID), e.Server)
	if !b.PerServer() {
		return head + " " + pol.String() + " (pooled): " + pol.Info().Pooled + "."
	}
	reads := readsAt(m, b, routed, k)
	var chosen read
	for _, r := range reads {
		if r.id == e.Server {
			chosen = r
		}
	}
	beliefs := b.FleetSize() > 1 && cfg.LoadInfo != sim.LoadExact // beside the truth
	var why string
	switch pol {
	case sim.LeastConnections:
		least := slices.MinFunc(reads, func(a, b read) int { return int(a.belief - b.belief) })
		why = fmt.Sprintf("least-connections read %s: %d held %d, the fewest%s.", loadList(reads, e.Server, beliefs), e.Server, chosen.belief, tieNote(reads, least.belief))
	case sim.P2C, sim.PeakEWMA:
		if draw != nil {
			why = drewText(pol, draw, beliefs) + " All: " + loadList(reads, e.Server, beliefs) + "."
			break
		}
		d := 2
		if pol == sim.P2C {
			d = cmp.Or(cfg.Choices, sim.DefaultChoices)
		}
		others := "the others as much or more"
		if d == 2 {
			others = "the other as much or more"
		}
		cost := ""
		if pol == sim.PeakEWMA {
			cost = " (its cost: peak-EWMA response time × (load + 1))"
		}
		why = fmt.Sprintf("%s drew %d and %s at random%s: %d read %d, %s. All: %s.",
			pol, e.Server, plural(d-1, "other"), cost, e.Server, chosen.belief, others, loadList(reads, e.Server, beliefs))
	case sim.LeastWork:
		why = fmt.Sprintf("least-work read the cycles of work each holds, %s: %d held %d, the least.", strings.Replace(loadList(reads, e.Server, false), "id:load", "id:work", 1), e.Server, chosen.belief)
	case sim.RoundRobin:
		why = fmt.Sprintf("round-robin: %d comes next by id after %s.", e.Server, prevByID(reads, e.Server))
	case sim.Random:
		why = fmt.Sprintf("random: %d drawn uniformly of %d candidates.", e.Server, len(reads))
	case sim.Hash:
		why = fmt.Sprintf("hash: source %s falls on server %d's arc of the ring.", sim.FormatIPv4(e.Request.Src), e.Server)
	case sim.JIQ:
		if chosen.truth == 0 {
			why = fmt.Sprintf("jiq: %d was idle: the head of the balancer's idle queue (or, the queue empty, a uniform draw that found it idle).", e.Server)
		} else {
			why = fmt.Sprintf("jiq: the balancer's idle queue was empty, so it drew %d uniformly (it held %d).", e.Server, chosen.truth)
		}
	case sim.SWRR:
		why = fmt.Sprintf("swrr (weights %s): %d's running weight was the highest.", weightsOf(cfg), e.Server)
	default:
		why = pol.String() + ": " + pol.Info().PerServer + "."
	}
	return head + " " + why
}

// drewText says a draw of p2c or peak-EWMA: the servers drawn, what the
// policy read of each (load; peak-EWMA's cost × (load + 1)) and the
// winner: "p2c drew 3 and 7; 3 has 1, 7 has 4: 3 the fewest." With
// beliefs (a fleet's view) each load is what the balancer believed.
func drewText(pol sim.Policy, d *sim.Draw, beliefs bool) string {
	has := "has"
	if beliefs {
		has = "believed"
	}
	ids := make([]string, len(d.Drawn))
	reads := make([]string, len(d.Drawn))
	value := func(c sim.Drawn) float64 { return float64(c.Load) }
	if pol == sim.PeakEWMA {
		value = func(c sim.Drawn) float64 { return c.Cost * float64(c.Load+1) }
	}
	var won sim.Drawn
	for i, c := range d.Drawn {
		ids[i] = fmt.Sprint(c.ID)
		reads[i] = fmt.Sprintf("%d %s %d", c.ID, has, c.Load)
		if pol == sim.PeakEWMA {
			reads[i] = fmt.Sprintf("%d costs %.4g × (%d + 1) = %.4g", c.ID, c.Cost, c.Load, value(c))
		}
		if c.ID == d.Picked {
			won = c
		}
	}
	tied := 0
	for _, c := range d.Drawn {
		if value(c) == value(won) {
			tied++
		}
	}
	least := "the fewest"
	if pol == sim.PeakEWMA {
		least = "the lower (cost: peak-EWMA response time)"
	}
	verdict := fmt.Sprintf("%d %s", d.Picked, least)
	if len(d.Drawn) == 1 {
		verdict = fmt.Sprintf("%d the only candidate", d.Picked)
	} else if tied > 1 {
		verdict = fmt.Sprintf("a tie: %d, drawn first, wins", d.Picked)
	}
	return fmt.Sprintf("%s drew %s; %s: %s.", pol, andList(ids), strings.Join(reads, ", "), verdict)
}

// andList joins "3", "7", "9" as "3, 7 and 9".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// plural writes n things: "one other", "2 others".
func plural(n int, thing string) string {
	if n <= 1 {
		return "one " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// tieNote says how many tied when several candidates read the least
// load (least-connections takes the lowest id of them), else "".
func tieNote(reads []read, least int64) string {
	n := 0
	for _, r := range reads {
		if r.belief == least {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf(" (%d tied: the lowest id wins)", n)
	}
	return ""
}

// maxListed is the most candidates a decision lists by id.
const maxListed = 12

// loadList writes the candidates' loads as read, "id:load 1:2 2:0 [3:1]
// 4:3", the chosen one in brackets; with truth, each belief with the true
// load after it ("id:belief/truth 1:0/3"). Past maxListed candidates it
// lists the chosen one and the range.
func loadList(reads []read, chosen int, truth bool) string {
	item := func(r read) string {
		t := fmt.Sprintf("%d:%d", r.id, r.belief)
		if truth {
			t += fmt.Sprintf("/%d", r.truth)
		}
		if r.id == chosen {
			t = "[" + t + "]"
		}
		return t
	}
	if len(reads) > maxListed {
		lo := slices.MinFunc(reads, func(a, b read) int { return int(a.belief - b.belief) })
		hi := slices.MaxFunc(reads, func(a, b read) int { return int(a.belief - b.belief) })
		var c read
		for _, r := range reads {
			if r.id == chosen {
				c = r
			}
		}
		return fmt.Sprintf("%d servers' loads from %d to %d; %s", len(reads), lo.belief, hi.belief, item(c))
	}
	parts := make([]string, len(reads))
	for i, r := range reads {
		parts[i] = item(r)
	}
	if truth {
		return "id:belief/truth " + strings.Join(parts, " ")
	}
	return "id:load " + strings.Join(parts, " ")
}

// prevByID names the candidate before server id by id, wrapping: the
// one round-robin picked last, when it is still a candidate.
func prevByID(reads []read, id int) string {
	prev, last := 0, 0
	for _, r := range reads {
		if r.id < id {
			prev = r.id
		}
		last = max(last, r.id)
	}
	if prev == 0 {
		prev = last
	}
	if prev == 0 || prev == id {
		return "itself, the only candidate"
	}
	return fmt.Sprintf("%d, the one picked last (or the last before it, by id, if that one left)", prev)
}

// weightsOf writes the configured weights, "1 each" without any.
func weightsOf(cfg sim.Config) string {
	if len(cfg.Weights) == 0 {
		return "1 each"
	}
	ws := make([]string, len(cfg.Weights))
	for i, w := range cfg.Weights {
		ws[i] = fmt.Sprint(w)
	}
	return strings.Join(ws, ",")
}
