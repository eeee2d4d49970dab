package lesson

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// overloadLessons are the lessons of overload control: the defences a
// server runs against a spike past its capacity.
var overloadLessons = []Lesson{
	{
		Name:  "overload-control",
		Topic: TopicScaling,
		Title: "overload control: FIFO, adaptive LIFO with CoDel, an AIMD limit through a spike",
		Caption: []string{
			"Ten servers at 80% load, a queue each; clients give up after 1,000 cycles and retry up to 3 times.",
			"Arrivals reach 1.5× capacity from 20,000 to 25,000. FIFO (top) serves its oldest: clients gone.",
			"Adaptive LIFO with CoDel (target 50) sheds what waited long; an AIMD limit refuses past each limit.",
			"It pauses at cycle 50,000: goodput so far about 0.048 with FIFO, held down by retries; 0.081, 0.080.",
		},
		Query: "compare=fifo:discipline=fifo;lifo-codel:discipline=adaptive-lifo,codel-target=50;aimd:concurrency-limit=aimd,limit-latency=500" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.08&service=geometric&mean-service=100" +
			"&block=none&initial-per-server=0&queues=per-server&policy=least-connections&cycles=80000&timeout=1000&retries=3" +
			"&set=20000:rate=0.15&set=25000:rate=0.08&speed=3000&pause-at=50000",
		Measure:    Goodput,
		CheckLanes: overloadControlHolds,
		CheckPause: overloadControlPaused,
	},
}

// overloadControlHolds checks the overload-control lesson's lanes at the
// run's end: FIFO never recovers (goodput low, a queue of retries at the
// end), the two defences serve near the arrivals, one by shedding, the
// other by refusing with per-server limits a few wide.
func overloadControlHolds(s []sim.Summary) error {
	fifo, codel, aimd := s[0], s[1], s[2]
	if fifo.Goodput < 0.030 || fifo.Goodput > 0.046 || fifo.FinalQueue < 150 ||
		codel.Goodput < 0.076 || codel.Shed < 1_000 || codel.Limited != 0 ||
		aimd.Goodput < 0.076 || aimd.Limited < 500 || aimd.Shed != 0 || aimd.LimitFinalMin < 2 || aimd.LimitFinalMax > 20 {
		return fmt.Errorf("goodput %.4f with FIFO (queue %d at the end), %.4f with adaptive LIFO and CoDel (%d shed), %.4f with AIMD (%d limited, limits %d–%d): "+
			"the caption says FIFO stays overloaded, the other two serve about 0.08 by shedding and by refusing",
			fifo.Goodput, fifo.FinalQueue, codel.Goodput, codel.Shed, aimd.Goodput, aimd.Limited, aimd.LimitFinalMin, aimd.LimitFinalMax)
	}
	return nil
}

// overloadControlPaused checks the goodput so far that the caption quotes
// at the pause: about 0.048 with FIFO (its queue still long), 0.081 and
// 0.080 with the defences.
func overloadControlPaused(s []sim.Summary) error {
	fifo, codel, aimd := s[0], s[1], s[2]
	if fifo.Goodput < 0.043 || fifo.Goodput > 0.053 || fifo.FinalQueue < 150 ||
		codel.Goodput < 0.077 || codel.Goodput > 0.085 || aimd.Goodput < 0.076 || aimd.Goodput > 0.084 {
		return fmt.Errorf("at the pause goodput %.4f with FIFO (queue %d), %.4f with adaptive LIFO and CoDel, %.4f with AIMD: "+
			"the caption says about 0.048, still overloaded, 0.081 and 0.080", fifo.Goodput, fifo.FinalQueue, codel.Goodput, aimd.Goodput)
	}
	return nil
}

// overloadQuizzes are overloadLessons' questions.
var overloadQuizzes = map[string]*Quiz{
	"overload-control": {
		Question: "Arrivals reach 1.5× capacity for 5,000 cycles; clients retry. Whose goodput falls?",
		Answers:  []string{"FIFO's (top lane)", "adaptive LIFO with CoDel's", "the AIMD limit's", "none: the spike passes"},
		Right:    0,
		Holds:    goodputFalls,
		Why:      "FIFO serves its oldest, whose clients have gone, while their retries queue behind them.",
		Try:      "retries=0",
		TryText:  "clients that never retry",
		Look:     "FIFO recovers after the spike: the retries kept it overloaded. CoDel's sheds are lost now.",
		TryCheck: func(s []sim.Summary) error {
			fifo, codel, aimd := s[0], s[1], s[2]
			if fifo.Retries != 0 || fifo.Goodput < 0.074 || fifo.FinalQueue > 100 || codel.Goodput >= fifo.Goodput || aimd.Goodput < 0.074 {
				return fmt.Errorf("goodput %.4f with FIFO (queue %d), %.4f with CoDel, %.4f with AIMD: want FIFO recovered near 0.08, CoDel below it",
					fifo.Goodput, fifo.FinalQueue, codel.Goodput, aimd.Goodput)
			}
			return nil
		},
	},
}

// goodputFalls is the lane whose goodput falls below four fifths of every
// other lane's, or the last answer (none) when no lane's does.
func goodputFalls(s []sim.Summary) int {
	low := 0
	for i := range s {
		if s[i].Goodput < s[low].Goodput {
			low = i
		}
	}
	for i := range s {
		if i != low && s[low].Goodput >= 0.8*s[i].Goodput {
			return len(s)
		}
	}
	return low
}
