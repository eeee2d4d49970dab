package scene

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim/mmc"
)

// theoryState is the theory panel's side of a Session: whether it is shown
// and the time averages it sets beside Erlang C.
type theoryState struct {
	theory bool
	meas   measured
	// tailKey names the inputs tail was worked out for: the tail theory
	// sums a part's whole distribution, too much for every frame.
	tailKey string
	tail    mmc.Tail
	tailErr error
}

// measured holds the time averages the theory panel sets beside Erlang
// C, over a window that starts when the initial queue has drained (the
// first cycle that ends with an empty queue), so the start-up does not
// weigh on them; before that, since cycle 0.
type measured struct {
	from               int64 // first cycle of the window
	drained            bool  // the window has started after the initial queue
	cycles             int64
	queue, busy, live  int64
	dispatched, waited int64 // dispatches, and those that had waited ≥ 1 cycle
	waitSum            int64
}

// add records one cycle of m.
func (ms *measured) add(m *sim.Model) {
	if !ms.drained && m.Cycle() > 0 && m.QueueLen() == 0 {
		*ms = measured{from: m.Cycle() + 1, drained: true}
		return
	}
	p := m.Pool()
	ms.cycles++
	ms.queue += int64(m.QueueLen())
	ms.busy += int64(p.Busy)
	ms.live += int64(p.Live)
	for _, e := range m.Events() {
		if e.Kind == sim.Dispatch {
			ms.dispatched++
			ms.waitSum += e.Wait
			if e.Wait > 0 {
				ms.waited++
			}
		}
	}
}

// Sig3 writes x with three significant digits: 0.0412, 4.12, 41.2, 412,
// 4,120.
func Sig3(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	e := int(math.Floor(math.Log10(math.Abs(x))))
	p := math.Pow(10, float64(e-2))
	r := math.Round(x/p) * p
	if e >= 2 {
		return Commas(int64(r))
	}
	return strconv.FormatFloat(r, 'f', 2-e, 64)
}

// TheoryLines returns the theory panel's text for the settings in effect:
// the queueing model's prediction (Erlang C for the central queue, c ×
// M/M/1 or the supermarket model for per-server queues, bounds where no
// closed form exists) beside the measured values, or why no model
// applies; with fan-out or hedging, the tail theory (tailLines).
func (s *Session) TheoryLines() []string {
	cfg := s.m.Config()
	if in := mmc.TailOf(cfg); in.On() {
		return s.tailLines(cfg, in)
	}
	in := mmc.FitInput(cfg)
	general := generalShape(cfg.Service)
	if general {
		// The shape is M/G/c's to answer (below): ask the fit about the
		// rest of the run as if its times were geometric.
		in.Service = queueing.ServiceGeometric
	}
	fit := queueing.CheckFit(in)
	title := "M/M/c theory (Erlang C) for the settings now"
	if general {
		title = "M/G/c theory for " + cfg.Service.String() + " service times"
	}
	if cfg.Queues == sim.PerServer {
		title = "queueing theory for " + cfg.Policy.String() + " routing to per-server queues"
	}
	lines := []string{title}
	if !fit.Applies {
		lines = append(lines, "does not apply to this run, because:")
		for _, r := range fit.Reasons {
			lines = append(lines, "• "+r)
		}
		return lines
	}
	if why := staleTheory(cfg); why != "" {
		return append(lines, why)
	}
	var pr mmc.Prediction
	var err error
	if general {
		pr, err = mmc.PredictShape(in.Servers, in.Lambda, s.moments(&cfg), cfg.Service, cfg.Queues, cfg.Policy, cfg.Choices)
		if err == nil && pr.Why == "" {
			title += " · " + pr.Model
			lines[0] = title
		}
	} else {
		pr, err = mmc.Predict(in.Servers, in.Lambda, in.MeanService, cfg.Queues, cfg.Policy, cfg.Choices)
	}
	switch {
	case err != nil:
		return append(lines, "no steady state: "+err.Error())
	case pr.Why != "":
		return append(lines, pr.Why)
	}
	ms := s.meas
	n := max(ms.cycles, 1)
	wq, util := 0.0, 0.0
	if ms.dispatched > 0 {
		wq = float64(ms.waitSum) / float64(ms.dispatched)
	}
	if ms.live > 0 {
		util = float64(ms.busy) / float64(ms.live)
	}
	window := fmt.Sprintf("measured: cycles %s–%s", Commas(ms.from), Commas(s.m.Cycle()))
	if ms.drained {
		window += ", after the initial queue drained"
	} else {
		window += " (the initial queue has not drained yet)"
	}
	if b := pr.Bounds; b != nil {
		lines = append(lines,
			"\tbounds\tmeasured",
			"wait Wq (cycles)\t"+Sig3(b.WqLow)+"–"+Sig3(b.WqHigh)+"\t"+Sig3(wq),
			"load ρ (busy share)\t\t"+Sig3(util),
			b.Note,
			window)
		return lines
	}
	th := pr.Theory
	if cfg.Queues == sim.PerServer && !general {
		lines[0] += " · " + pr.Model
	}
	lines = append(lines,
		"\ttheory\tmeasured",
		"load ρ (busy share)\t"+Sig3(th.Rho)+"\t"+Sig3(util),
		"wait Wq (cycles)\t"+Sig3(th.Wq)+"\t"+Sig3(wq),
		"queue Lq (requests)\t"+Sig3(th.Lq)+"\t"+Sig3(float64(ms.queue)/float64(n)),
		"P(wait)\t"+Sig3(th.PWait)+"\t"+s.measuredPWait(),
		window)
	return lines
}

// tailLines returns the theory panel's text for a run with fan-out or
// hedging (in): the low-load response (F(t)^K, hedged or not) and the
// fork-join mean beside what the run measured so far, or "no closed form"
// and why.
func (s *Session) tailLines(cfg sim.Config, in mmc.TailInput) []string {
	s.tailTheory(cfg, in)
	tl := s.tail
	title := fmt.Sprintf("tail at scale: fan-out %d", max(in.Fanout, 1))
	if in.HedgeAfter > 0 {
		title += fmt.Sprintf(", hedged after %s", Commas(int64(in.HedgeAfter)))
	}
	lines := []string{title}
	if s.tailErr != nil {
		return append(lines, "no theory: "+s.tailErr.Error())
	}
	sum := s.m.Summary()
	attempts := "—"
	if sum.Admitted > 0 {
		attempts = Sig3(float64(sum.Attempts) / float64(sum.Admitted))
	}
	measured := fmt.Sprintf("measured: cycles 0–%s, %s requests completed", Commas(s.m.Cycle()), Commas(sum.Completed))
	lt, fj := tl.LowLoad, tl.ForkJoin
	if lt == nil && fj == nil {
		return append(lines, tl.LowLoadWhy, measured)
	}
	lines = append(lines, "\ttheory\tmeasured")
	if lt != nil {
		lines = append(lines,
			"request p50 (cycles)\t"+Commas(int64(lt.RequestP50))+"\t"+Commas(sum.ResponseP50),
			"request p99 (cycles)\t"+Commas(int64(lt.RequestP99))+"\t"+Commas(sum.ResponseP99),
			"attempts per request\t"+Sig3(lt.AttemptsPerRequest)+"\t"+attempts,
			"a part's p99 (cycles)\t"+Commas(int64(lt.PartP99))+"\t"+s.partMeasured(false))
		if in.HedgeAfter > 0 {
			lines = append(lines, "a hedged part's p99\t"+Commas(int64(lt.HedgedPartP99))+"\t"+s.partMeasured(true))
		}
		lines = append(lines, "requests within it\t"+Sig3(lt.WithinPartP99)+"\t")
	}
	if fj != nil {
		lines = append(lines, "avg response (fork-join)\t"+Sig3(fj.AvgResponse)+"\t"+Sig3(sum.AvgResponse))
	}
	if lt != nil {
		lines = append(lines, lt.Model)
	} else {
		lines = append(lines, tl.LowLoadWhy)
	}
	if fj != nil {
		lines = append(lines, fj.Model)
	}
	return append(lines, measured)
}

// tailTheory works out the tail theory of cfg with fan-out or hedging in
// (s.tail, s.tailErr), once for each set of inputs: the theory panel and
// the HUD's p99 readout read it.
func (s *Session) tailTheory(cfg sim.Config, in mmc.TailInput) {
	key := fmt.Sprint(mmc.FitInput(cfg), cfg.Shape(), in)
	if s.tailKey != key {
		s.tailKey = key
		s.tail, s.tailErr = mmc.PredictTail(cfg, in)
	}
}

// generalShape reports whether service shape v is one of M/G/c's, not
// Erlang C's (geometric) or the uniform and constant shapes the fit check
// knows.
func generalShape(v sim.Service) bool {
	return v != sim.Uniform && v != sim.Geometric && v != sim.Constant
}

// moments returns the exact moments of the service times cfg draws, kept
// for the shape they were worked out for (for a long cut they sum a
// million terms, too many for every frame).
func (s *Session) moments(cfg *sim.Config) sim.Moments {
	key := fmt.Sprint(cfg.Shape())
	if s.momentsKey != key {
		s.momentsKey, s.momentsOf = key, sim.ServiceMoments(cfg)
	}
	return s.momentsOf
}

// theoryLineUnits is the pitch of the theory panel's lines.
const theoryLineUnits = 16

// theoryText wraps the theory panel's lines to width w at the panel's
// text size.
func theoryText(lines []string, size, w float32) []string {
	var out []string
	for _, line := range lines {
		if strings.Contains(line, "\t") {
			out = append(out, line)
			continue
		}
		out = append(out, wrapWidth(line, size, w)...)
	}
	return out
}

// wrapWidth breaks s at spaces into lines no wider than w at size; a
// continuation line is indented.
func wrapWidth(s string, size, w float32) []string { return wrapText(s, size, w, false) }

// wrapText is wrapWidth for text drawn bold or not.
func wrapText(s string, size, w float32, bold bool) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && TextWidth(next, size, bold) > w {
			out = append(out, line)
			next = "   " + word
		}
		line = next
	}
	return append(out, line)
}

// drawTheory draws the theory panel in its own place (Layout.Theory, under
// the servers), so it hides nothing.
func (s *Session) drawTheory(f *Frame, l Layout) {
	if !s.theory || l.Theory.H <= 0 {
		return
	}
	u := l.T
	r := l.Theory
	size := 13 * u
	lines := theoryText(s.TheoryLines(), size, r.W-20*u)
	f.rect(OverlayLayer, r, Background)
	f.stroke(OverlayLayer, r, max(u, 1), BusyColor)
	for i, line := range lines {
		y := r.Y + 5*u + float32(i)*theoryLineUnits*u
		if y+size > r.Y+r.H {
			break
		}
		cells := strings.Split(line, "\t")
		f.text(OverlayLayer, cells[0], r.X+10*u, y, size, i == 0, AlignStart, TextColor)
		for k, c := range cells[1:] {
			f.text(OverlayLayer, c, r.X+r.W*(0.7+0.14*float32(k)), y, size, i == 1, AlignEnd, TextColor)
		}
	}
}

// measuredPWait is the share of dispatched requests that waited at least
// one cycle, or "—" before the first dispatch.
func (s *Session) measuredPWait() string {
	if s.meas.dispatched == 0 {
		return "—"
	}
	return Sig3(float64(s.meas.waited) / float64(s.meas.dispatched))
}
