package scene

import (
	"fmt"
	"strings"

	"github.com/lbsim/lbsim/sim/mmc"
	"github.com/lbsim/lbsim/sim/queueing"
)

// theoryState is the theory panel's side of a Session: whether it is shown
// and the time averages it sets beside Erlang C.
type theoryState struct {
	theory bool
	meas   measured
}

// measured holds the time averages the theory panel sets beside Erlang C.
type measured struct {
	cycles             int64
	queue, busy, live  int64
	dispatched, waited int64 // dispatches, and those that had waited ≥ 1 cycle
}

// TheoryLines returns the theory panel's text for the settings in effect:
// Erlang C beside the measured values, or why M/M/c does not apply.
func (s *Session) TheoryLines() []string {
	cfg := s.m.Config()
	in := mmc.FitInput(cfg)
	fit := queueing.CheckFit(in)
	lines := []string{"M/M/c theory (Erlang C) for the settings now"}
	if !fit.Applies {
		lines = append(lines, "does not apply to this run, because:")
		for _, r := range fit.Reasons {
			lines = append(lines, wrap("• "+r, 58)...)
		}
		return lines
	}
	th, err := queueing.MMC{Servers: in.Servers, Lambda: in.Lambda, MeanService: in.MeanService}.Metrics()
	if err != nil {
		return append(lines, wrap("no steady state: "+err.Error(), 58)...)
	}
	n := max(s.meas.cycles, 1)
	t := s.m.Totals()
	wq := 0.0
	if t.Dispatched > 0 {
		wq = float64(t.TotalWait) / float64(t.Dispatched)
	}
	util := 0.0
	if s.meas.live > 0 {
		util = float64(s.meas.busy) / float64(s.meas.live)
	}
	lines = append(lines,
		"\ttheory\tmeasured",
		fmt.Sprintf("load ρ (busy share)\t%.3f\t%.3f", th.Rho, util),
		fmt.Sprintf("wait Wq (cycles)\t%.2f\t%.2f", th.Wq, wq),
		fmt.Sprintf("queue Lq\t%.2f\t%.2f", th.Lq, float64(s.meas.queue)/float64(n)),
		fmt.Sprintf("P(wait)\t%.3f\t%s", th.PWait, s.measuredPWait()),
		"measured: averages since cycle 0, initial queue included")
	return lines
}

func wrap(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > n {
		cut := n
		for cut > n/2 && r[cut] != ' ' {
			cut--
		}
		out = append(out, string(r[:cut]))
		r = append([]rune("  "), r[cut:]...)
	}
	return append(out, string(r))
}

func (s *Session) drawTheory(f *Frame, l Layout) {
	if !s.theory {
		return
	}
	u := l.Unit
	lines := s.TheoryLines()
	r := l.Charts[1]
	h := max(r.H, float32(len(lines))*17*u+12*u)
	r = Rect{r.X, r.Y + r.H - h, r.W, h}
	f.rect(OverlayLayer, r, Background)
	f.stroke(OverlayLayer, r, 2*u, BusyColor)
	for i, line := range lines {
		y := r.Y + 6*u + float32(i)*17*u
		cells := strings.Split(line, "\t")
		f.text(OverlayLayer, cells[0], r.X+10*u, y, 14*u, i == 0, AlignStart, TextColor)
		for k, c := range cells[1:] {
			f.text(OverlayLayer, c, r.X+r.W*(0.55+0.2*float32(k)), y, 14*u, i == 1, AlignEnd, TextColor)
		}
	}
}

// measuredPWait is the share of dispatched requests that waited at least
// one cycle, or "—" before the first dispatch.
func (s *Session) measuredPWait() string {
	if s.meas.dispatched == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(s.meas.waited)/float64(s.meas.dispatched))
}
