package scene

import (
	"strings"

	"github.com/lbsim/lbsim/sim/mmc"
)

// fanoutTexts is the HUD's second line with fan-out on: texts with the
// p95 wait (a part's, not a request's) given up for the parts, the
// attempts cancelled and the p99 readout (p99Text).
func (s *Session) fanoutTexts(texts []string) []string {
	sum := s.m.Summary()
	out := make([]string, 0, len(texts)+2)
	for _, t := range texts {
		if !strings.HasPrefix(t, "p95 wait ") {
			out = append(out, t)
		}
	}
	return append(out, "parts "+Commas(sum.Parts), "cancelled "+Commas(sum.Cancelled), s.p99Text())
}

// p99Text is the readout of a part's p99 against a request's: the run
// measures a request's response (the last of its parts); a part's comes
// from the tail theory, and says so, where it holds (low load), else the
// readout says there is none.
func (s *Session) p99Text() string {
	cfg := s.m.Config()
	req := "request " + Commas(s.m.Summary().ResponseP99)
	s.tailTheory(cfg, mmc.TailOf(cfg))
	if s.tailErr != nil || s.tail.LowLoad == nil {
		return "p99: " + req + " · part: no closed form"
	}
	return "p99: part " + Commas(int64(s.tail.LowLoad.PartP99)) + " (theory) · " + req
}
