package lesson

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// tailLessons are the lessons of fan-out: a request of many parts waits
// for its slowest. (Its hedged half, a hedge after a part's p95, comes
// with hedging: a third lane.)
var tailLessons = []Lesson{
	{
		Name:  "tail-at-scale",
		Topic: TopicTheory,
		Title: "the tail at scale: a request of 20 parts waits for the slowest",
		Caption: []string{
			"Lower lane: each request asks 20 of 40 servers at once and waits for its slowest part (load 0.05).",
			"Top lane: the same requests as one part each; a part's p99 response is about 90 cycles.",
			"A request of 20 parts: p99 about 160, and its median, about 65, is a part's p95:",
			"among 20 parts, one slower than a part's p95 is the rule, not the exception.",
		},
		Query: "compare=one part:fanout=1;fan-out 20:fanout=20" +
			"&seed=1&queues=per-server&policy=round-robin&servers=40&min-servers=40&max-servers=40&initial-per-server=0" +
			"&service=geometric&mean-service=20&rate=0.005&wave=false&block=none&cycles=200000&speed=3000",
		Measure: ResponseP99,
		Check:   tailHolds,
	},
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
	case req.Fanout != 20 || req.Parts != 20*req.Admitted || part.Fanout != 1 || req.Generated != part.Generated:
		return fmt.Errorf("fan-out %d, %d parts of %d requests; %d and %d requests generated: want 20 parts each, the same requests",
			req.Fanout, req.Parts, req.Admitted, req.Generated, part.Generated)
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
		Look:    "both lanes' p99 are 20: with no spread in a part's time, the slowest of 20 is no slower.",
		TryCheck: func(s []sim.Summary) error {
			if s[0].ResponseP99 != 20 || s[1].ResponseP99 != 20 {
				return fmt.Errorf("p99 response %d one part, %d twenty: want both 20", s[0].ResponseP99, s[1].ResponseP99)
			}
			return nil
		},
	},
}
