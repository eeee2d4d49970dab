package lesson

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// scalingLessons are the lessons of the autoscalers.
var scalingLessons = []Lesson{
	{
		Name:  "autoscalers",
		Topic: TopicScaling,
		Title: "autoscalers: the queue rule against target tracking, clients giving up",
		Caption: []string{
			"The same wave in both lanes (2 requests a cycle ±60%: 90 servers' work); clients give up at 400.",
			"The queue rule (top) adds a server when the queue passes 80 a server, but requests leave the queue",
			"as their clients give up: it seldom gets there. About 12 servers, almost none served (p95 wait 399).",
			"Target tracking keeps busy servers near 70%: about 140 (up to 200), p95 wait 0, 12 times the cost.",
		},
		Query: "compare=queue-rule:autoscaler=queue;target:autoscaler=target,scale-target=0.7" +
			"&seed=1&servers=40&rate=2&timeout=400&server-cost=0.01&cycles=40000&speed=3000",
		Measure: Goodput,
		Check:   autoscalersHold,
	},
}

// meanPool is a run's live servers on average: its server-cycles over
// its cycles.
func meanPool(s sim.Summary) float64 { return float64(s.ServerCycles) / float64(max(s.Cycles, 1)) }

// autoscalersHold checks the autoscalers lesson's caption on its lanes,
// the queue rule's and target tracking's.
func autoscalersHold(q, t sim.Summary) error {
	qm, tm, ratio := meanPool(q), meanPool(t), t.Cost/max(q.Cost, 1e-9)
	if qm < 9 || qm > 16 || q.WaitP95 < 390 || q.WaitP95 > 400 || q.Goodput > 0.05 ||
		tm < 120 || tm > 160 || t.ServersPeak != 200 || t.WaitP95 > 10 || t.Goodput < 1.7 || ratio < 10 || ratio > 14 {
		return fmt.Errorf("queue rule: %.1f servers on average, p95 wait %d, goodput %.4f; target tracking: %.1f servers (peak %d), p95 wait %d, goodput %.4f; "+
			"cost %.0f against %.0f (×%.1f): the caption says about 12, 399 and almost none against about 140 (up to 200), 0, 12 times the cost",
			qm, q.WaitP95, q.Goodput, tm, t.ServersPeak, t.WaitP95, t.Goodput, t.Cost, q.Cost, ratio)
	}
	return nil
}

// scalingQuizzes are scalingLessons' questions.
var scalingQuizzes = map[string]*Quiz{
	"autoscalers": {
		Question: "Clients give up after 400 cycles. How large does the queue rule's pool grow?",
		Answers:  []string{"near the 90 servers the load needs", "far under it: a tenth or so", "past target tracking's"},
		Right:    1,
		Holds: func(s []sim.Summary) int {
			q, t := meanPool(s[0]), meanPool(s[1])
			switch {
			case q > t:
				return 2
			case q < t/3:
				return 1
			}
			return 0
		},
		Why:     "requests leave the queue as clients give up: it seldom reaches 80 a server, the rule's trigger.",
		Try:     "timeout=4000",
		TryText: "clients that wait ten times longer",
		Look:    "the queue forms and the queue rule's pool grows, but its p95 wait runs to thousands.",
		TryCheck: func(s []sim.Summary) error {
			if q, t := s[0], s[1]; meanPool(q) < 60 || q.WaitP95 < 2_000 || t.WaitP95 > 1_000 {
				return fmt.Errorf("queue rule: %.1f servers on average, p95 wait %d; target tracking: p95 wait %d: want the pool grown past 60, a p95 in the thousands, and under 1,000",
					meanPool(q), q.WaitP95, t.WaitP95)
			}
			return nil
		},
	},
}
