package lesson

import (
	"fmt"
	"strconv"

	"github.com/lbsim/lbsim/sim"
)

// Quiz is a lesson's question, asked before the run shows its answer:
// the learner predicts, then watches. The view asks it at cycle 0 with the
// run held (the figures that answer it not yet made), runs once it is
// answered or revealed, and at the key moment (KeyMoment) says which
// answer held and why, then offers one change to try next.
type Quiz struct {
	Question string   // one line
	Answers  []string // two to four, one line each
	// Right is the answer the lesson's run bears out at its key moment;
	// the lessons' tests check it on the CLI (Holds of that run's
	// summaries).
	Right int
	// Holds says which answer the lanes' summaries bear out (a single
	// run: one summary); the view asks it at the key moment, so a run
	// with another seed is judged on its own figures.
	Holds func(lanes []sim.Summary) int
	// Why says why the right answer holds, in a line.
	Why string
	// Try is the change to make next, as query parameters applied after
	// the lesson's (to every lane; ?lesson=NAME&try=1 opens it); TryText
	// says it in words and Look what to look for then, a line each.
	Try, TryText, Look string
	// TryCheck reports whether the run with Try shows, at the key moment,
	// what Look says.
	TryCheck func(lanes []sim.Summary) error
}

// Quiz returns the lesson's question, or nil when it asks none.
func (l Lesson) Quiz() *Quiz { return quizzes[l.Name] }

// TryParams are the parameters of the lesson's "now try" run: the
// lesson's, then its quiz's Try (which override them); nil without a quiz.
func (l Lesson) TryParams() [][2]string {
	q := l.Quiz()
	if q == nil {
		return nil
	}
	return append(l.Params(), split(q.Try)...)
}

// KeyMoment is the cycle the lesson's claim is judged at: its pause-at,
// or the end of its run.
func (l Lesson) KeyMoment() int64 {
	at, cycles := int64(-1), sim.DefaultConfig().Cycles
	for _, p := range l.Params() {
		n, err := strconv.ParseInt(p[1], 10, 64)
		if err != nil {
			continue
		}
		switch p[0] {
		case "pause-at":
			at = n
		case "cycles":
			cycles = n
		}
	}
	if at >= 0 && at < cycles {
		return at
	}
	return cycles
}

// Verdict is what the view says at the key moment: which answer held (of
// the lanes' summaries then), the learner's, and why; picked is the
// learner's answer, or −1 when revealed without one. Each line is one of
// a caption's.
func (q *Quiz) Verdict(lanes []sim.Summary, picked int) []string {
	held := q.Holds(lanes)
	first := fmt.Sprintf("Held: %d, %s.", held+1, q.Answers[held])
	switch {
	case picked == held:
		first += " Your answer, right."
	case picked >= 0:
		first += fmt.Sprintf(" You answered %d, %s.", picked+1, q.Answers[picked])
	}
	lines := []string{first}
	if held == q.Right {
		lines = append(lines, "Why: "+q.Why)
	}
	if q.Try != "" {
		lines = append(lines, "Now try (Y): "+q.TryText+" ("+q.Try+").", "Look for: "+q.Look)
	}
	return lines
}

// TryCaption is the caption of the "now try" run.
func (q *Quiz) TryCaption() []string {
	return []string{"Now try: " + q.TryText + " (" + q.Try + ").", "Look for: " + q.Look}
}

// Asked is the question as the view states it in words: the question,
// then its answers numbered.
func (q *Quiz) Asked() string {
	s := "Question: " + q.Question
	for i, a := range q.Answers {
		s += fmt.Sprintf(" %d: %s.", i+1, a)
	}
	return s
}

// lowestP95 is Holds for a question "which lane waits less at the 95th
// percentile?" whose answers are the lanes, then "about the same": the
// lane with the lowest p95 wait, or len(lanes) when every lane's is
// within a fifth of the lowest.
func lowestP95(lanes []sim.Summary) int {
	return extreme(lanes, func(s sim.Summary) float64 { return float64(s.WaitP95) }, false)
}

// highestP95 is the lane with the highest p95 wait (the first of equals).
func highestP95(lanes []sim.Summary) int {
	best := 0
	for i, s := range lanes {
		if s.WaitP95 > lanes[best].WaitP95 {
			best = i
		}
	}
	return best
}

// extreme is the lane whose figure of is lowest (or highest), or
// len(lanes) — the answer "about the same" — when every other lane's is
// within a fifth of it.
func extreme(lanes []sim.Summary, of func(sim.Summary) float64, highest bool) int {
	best := 0
	for i, s := range lanes {
		if (highest && of(s) > of(lanes[best])) || (!highest && of(s) < of(lanes[best])) {
			best = i
		}
	}
	b := of(lanes[best])
	for i, s := range lanes {
		if v := of(s); i != best && max(v-b, b-v) > 0.2*max(v, b) {
			return best
		}
	}
	return len(lanes)
}

// errorShare is the share of the admitted requests that ended in error.
func errorShare(s sim.Summary) float64 { return float64(s.Errors) / float64(max(s.Admitted, 1)) }

// quizzes are the lessons' questions, by lesson name.
var quizzes = func() map[string]*Quiz {
	m := map[string]*Quiz{}
	for _, qs := range []map[string]*Quiz{firstQuizzes, moreQuizzes, scalingQuizzes, tailQuizzes, overloadQuizzes} {
		for name, q := range qs {
			m[name] = q
		}
	}
	return m
}()

// firstQuizzes are the questions of the first lessons.
var firstQuizzes = map[string]*Quiz{
	"queues": {
		Question: "Same requests, three servers: which waits less at p95?",
		Answers:  []string{"per-server queues (top lane)", "one pooled queue (lower lane)", "about the same"},
		Right:    1, Holds: lowestP95,
		Why:     "one pooled queue gives each request the first free server: none waits while a server idles.",
		Try:     "rate=0.045",
		TryText: "a lighter load, 0.045 a cycle instead of 0.06",
		Look:    "both p95 waits fall far; the pooled queue's stays about a third of the split one's.",
		TryCheck: func(s []sim.Summary) error {
			if s[0].WaitP95 > 250 || s[0].WaitP95 < 5*s[1].WaitP95/2 {
				return fmt.Errorf("p95 waits %d per-server, %d pooled: want under 250 and about 3 times the pooled", s[0].WaitP95, s[1].WaitP95)
			}
			return nil
		},
	},
	"speeds": {
		Question: "Servers of speeds 2, 1 and 1: which policy waits less at p95?",
		Answers:  []string{"round-robin (top lane)", "least-connections (lower lane)", "about the same"},
		Right:    1, Holds: lowestP95,
		Why:      "round-robin gives each slow server a third, more than it can do; least-connections does not.",
		Try:      "rate=0.06",
		TryText:  "fewer arrivals, 0.06 a cycle instead of 0.08",
		Look:     "round-robin's p95 falls from thousands to about 220: a slow server now keeps up.",
		TryCheck: topP95Falls(150, 300, 220, "least-connections"),
	},
	"fast-failing": {
		Question: "Server 3 fails each request at once: which lane ends more in error?",
		Answers:  []string{"round-robin (top lane)", "least-connections (lower lane)", "about the same"},
		Right:    1,
		Holds:    func(s []sim.Summary) int { return extreme(s, errorShare, true) },
		Why:      "a server that fails at once is always empty, so least-connections thinks it the least loaded.",
		Try:      "fail-time=40",
		TryText:  "make server 3 fail slowly, each request after 40 cycles",
		Look:     "server 3 looks busy now: least-connections stops favouring it, errors as round-robin's.",
		TryCheck: func(s []sim.Summary) error {
			rr, lc := errorShare(s[0]), errorShare(s[1])
			if lc > 0.1 || lc > rr*1.25 || lc < rr/1.25 {
				return fmt.Errorf("errors %.1f%% round-robin, %.1f%% least-connections: want about the same, under 10%%", 100*rr, 100*lc)
			}
			return nil
		},
	},
	"heavy-tails": {
		Question: "A few requests take hundreds of cycles: which policy waits less at p95?",
		Answers:  []string{"round-robin (top lane)", "least-work (lower lane)", "about the same"},
		Right:    1, Holds: lowestP95,
		Why:      "round-robin queues short requests behind long ones; least-work sees them and goes around.",
		Try:      "service-cv=1",
		TryText:  "tamer times, cv 1 instead of 3",
		Look:     "round-robin's p95 falls from about 1,100 to about 160: the tail made most of its wait.",
		TryCheck: topP95Falls(120, 220, 160, "least-work"),
	},
	"herding": {
		Question: "Twenty balancers, ten servers: which waits longest at p95?",
		Answers:  []string{"least-connections, exact counts", "least-connections, local counts", "p2c, local counts"},
		Right:    1,
		Holds:    highestP95,
		Why:      "on local counts every balancer sees the same empty servers and sends them its requests: a herd.",
		Try:      "balancers=2",
		TryText:  "two balancers instead of twenty",
		Look:     "each sees half the requests: least-connections' p95 on local counts falls to about 65.",
		TryCheck: func(s []sim.Summary) error {
			if s[1].WaitP95 < 45 || s[1].WaitP95 > 90 || s[1].WaitP95 >= s[2].WaitP95 {
				return fmt.Errorf("p95 waits %d least-connections, %d p2c on local counts with two balancers: want about 65, below p2c's", s[1].WaitP95, s[2].WaitP95)
			}
			return nil
		},
	},
}

// topP95Falls is the try check of a round-robin lane (top) beside a
// load-reading one: round-robin's p95 wait lands in lo…hi (about about)
// and the other lane's stays lower.
func topP95Falls(lo, hi, about int64, other string) func([]sim.Summary) error {
	return func(s []sim.Summary) error {
		if s[0].WaitP95 < lo || s[0].WaitP95 > hi || s[1].WaitP95 >= s[0].WaitP95 {
			return fmt.Errorf("p95 waits %d round-robin, %d %s: want about %d, %s lower", s[0].WaitP95, s[1].WaitP95, other, about, other)
		}
		return nil
	}
}
