package lesson

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// tailLessons are the lessons of fan-out and hedging: a request of many
// parts waits for its slowest, and a hedge after a part's p95 cuts that
// tail for a few percent more attempts.
var tailLessons = []Lesson{
	{
		Name:  "tail-at-scale",
		Topic: TopicTheory,
		Title: "the tail at scale: a request of 20 parts waits for the slowest; hedging cuts it",
		Caption: []string{
			"Each request asks 20 of 40 servers at once (load 0.05) and waits for the slowest. Top lane: one part",
			"each, p99 response about 90 cycles. Middle, 20 parts: p99 about 160; median about 65, a part's p95.",
			"Bottom, hedged: a part not done after 62 cycles (its p95) is also sent to another server; the first",
			"answer wins: p99 about 110, for 20.8 attempts a request, 4% more than its 20 parts.",
		},
		Query: "compare=one part:fanout=1;fan-out 20:fanout=20;hedged:fanout=20,hedge-after=62" +
			"&seed=1&queues=per-server&policy=round-robin&servers=40&min-servers=40&max-servers=40&initial-per-server=0" +
			"&service=geometric&mean-service=20&rate=0.005&wave=false&block=none&cycles=200000&speed=3000",
		Measure:    ResponseP99,
		CheckLanes: tailLanesHold,
	},
}

// tailLanesHold checks the tail-at-scale caption on its three lanes: one
// part a request, twenty, and twenty hedged after a part's p95.
func tailLanesHold(s []sim.Summary) error {
	if err := tailHolds(s[0], s[1]); err != nil {
		return err
	}
	return hedgedHolds(s[1], s[2])
}

// tailHolds checks the tail-at-scale caption on its lanes: one part a
// request (part) and twenty (req), the same requests.
func tailHolds(part, req sim.Summary) error {
	switch {
	case part.ResponseP99 < 80 || part.ResponseP99 > 105:
		return fmt.Errorf("a part's p99 response %d, the caption says about 90", part.ResponseP99)
	case req.ResponseP99 < 135 || req.ResponseP99 > 175 || 10*req.ResponseP99 < 14*part.ResponseP99:
		return fmt.Errorf("a request's p99 response %d (a part's %d), the caption says about 160", req.ResponseP99, part.ResponseP99)
	case req.ResponseP50 < 55 || req.ResponseP50 > 75 || 10*req.ResponseP50 < 9*part.ResponseP95:
		return fmt.Errorf("a request's median %d, a part's p95 %d: the caption says about 65, about a part's p95", req.ResponseP50, part.ResponseP95)
	case part.ResponseP95 < 55 || part.ResponseP95 > 70:
		return fmt.Errorf("a part's p95 response %d: the caption hedges after 62, about a part's p95", part.ResponseP95)
	case req.Fanout != 20 || req.Parts != 20*req.Admitted || part.Fanout != 1 || req.Generated != part.Generated:
		return fmt.Errorf("fan-out %d, %d parts of %d requests; %d and %d requests generated: want 20 parts each, the same requests",
			req.Fanout, req.Parts, req.Admitted, req.Generated, part.Generated)
	}
	return nil
}

// hedgedHolds checks the caption's hedged lane against the unhedged one
// (req): the same requests, a p99 about 110 (well below the unhedged
// one's), 20.8 attempts a request (about 1 − F(62) ≈ 4% more), every
// hedge sent (no budget) and each one either winning or cancelled.
func hedgedHolds(req, hedged sim.Summary) error {
	perReq := float64(hedged.Attempts) / float64(max(hedged.Admitted, 1))
	switch {
	case hedged.ResponseP99 < 95 || hedged.ResponseP99 > 125 || 10*hedged.ResponseP99 > 8*req.ResponseP99:
		return fmt.Errorf("a hedged request's p99 response %d (unhedged %d): the caption says about 110", hedged.ResponseP99, req.ResponseP99)
	case perReq < 20.6 || perReq > 21.05 || hedged.Hedges == 0 || hedged.HedgesDenied != 0:
		return fmt.Errorf("%.3g attempts a request (%d hedges, %d denied): the caption says 20.8, about 4%% more than 20", perReq, hedged.Hedges, hedged.HedgesDenied)
	case hedged.Generated != req.Generated || hedged.Parts != req.Parts || hedged.HedgesWon == 0 || hedged.Cancelled != hedged.Hedges:
		return fmt.Errorf("%d and %d requests generated, %d and %d parts; %d hedges won, %d cancelled of %d: want the same requests, every race settled by one cancel",
			req.Generated, hedged.Generated, req.Parts, hedged.Parts, hedged.HedgesWon, hedged.Cancelled, hedged.Hedges)
	}
	return nil
}

// tailQuizzes are tailLessons' questions.
var tailQuizzes = map[string]*Quiz{
	"tail-at-scale": {
		Question: "A part answers within 90 cycles 99% of the time. A request of 20 parts, at p99?",
		Answers:  []string{"about 90, as one part", "about 160", "about 1,800: twenty parts' worth"},
		Right:    1,
		Holds: func(s []sim.Summary) int {
			switch r := float64(s[1].ResponseP99) / float64(max(s[0].ResponseP99, 1)); {
			case r < 1.25:
				return 0
			case r > 5:
				return 2
			}
			return 1
		},
		Why:     "it waits for the slowest of 20 parts at once: a part's 99.95th percentile, not a sum.",
		Try:     "service=constant",
		TryText: "parts that each take exactly 20 cycles",
		Look:    "every lane's p99 is 20, and no hedge goes: with no spread, no part is slow or late.",
		TryCheck: func(s []sim.Summary) error {
			if len(s) != 3 {
				return fmt.Errorf("%d lanes, want 3", len(s))
			}
			for i, l := range s {
				if l.ResponseP99 != 20 || l.Hedges != 0 {
					return fmt.Errorf("lane %d: p99 response %d, %d hedges: want 20 in every lane, no hedge", i, l.ResponseP99, l.Hedges)
				}
			}
			return nil
		},
	},
}
