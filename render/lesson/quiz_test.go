package lesson

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestVerdict: the verdict names the answer the lanes bear out, then the
// learner's (right, another, or none when revealed); why only when the
// answer the lesson calls right held; the change to try last.
func TestVerdict(t *testing.T) {
	q := firstQuizzes["queues"]
	split, pooled := sim.Summary{WaitP95: 550}, sim.Summary{WaitP95: 170}
	for _, tc := range []struct {
		name   string
		lanes  []sim.Summary
		picked int
		first  string
		why    bool
	}{
		{"right", []sim.Summary{split, pooled}, 1, "Held: 2, one pooled queue (lower lane). Your answer, right.", true},
		{"wrong", []sim.Summary{split, pooled}, 0, "Held: 2, one pooled queue (lower lane). You answered 1, per-server queues (top lane).", true},
		{"revealed", []sim.Summary{split, pooled}, -1, "Held: 2, one pooled queue (lower lane).", true},
		{"the same", []sim.Summary{split, {WaitP95: 500}}, 2, "Held: 3, about the same. Your answer, right.", false},
		{"the other way", []sim.Summary{pooled, split}, 1, "Held: 1, per-server queues (top lane). You answered 2, one pooled queue (lower lane).", false},
	} {
		v := q.Verdict(tc.lanes, tc.picked)
		if v[0] != tc.first || strings.HasPrefix(v[1], "Why: ") != tc.why || !strings.HasPrefix(v[len(v)-2], "Now try (Y): ") {
			t.Errorf("%s: %q", tc.name, v)
		}
	}
}

// TestKeyMoment: a lesson's pause-at, or the end of its run.
func TestKeyMoment(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int64
	}{
		{"cycles=2000&pause-at=301", 301},
		{"cycles=2000", 2000},
		{"pause-at=5000&cycles=3000", 3000},
		{"seed=1", sim.DefaultConfig().Cycles},
	} {
		if got := (Lesson{Query: tc.query}).KeyMoment(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.query, got, tc.want)
		}
	}
}

// TestHoldsNamesAnAnswer: whatever the lanes' figures, each question's
// Holds names one of its answers (the verdict indexes them), for as many
// lanes as its lesson shows.
func TestHoldsNamesAnAnswer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range All {
		q := l.Quiz()
		if q == nil {
			continue
		}
		lanes := 1
		for _, p := range l.Params() {
			if p[0] == "compare" {
				lanes = len(strings.Split(p[1], ";"))
			}
		}
		for range 2000 {
			sums := make([]sim.Summary, lanes)
			for i := range sums {
				n := r.Int64N(100_000)
				sums[i] = sim.Summary{WaitP95: r.Int64N(3) * r.Int64N(5_000), AvgWait: float64(r.Int64N(4)) * r.Float64() * 50,
					Admitted: n, Errors: r.Int64N(n + 1), Cycles: r.Int64N(3), TotalWait: r.Int64N(1_000_000),
					MaxShare: r.Float64(), FinalQueue: r.Int64N(3_000)}
			}
			if h := q.Holds(sums); h < 0 || h >= len(q.Answers) {
				t.Fatalf("%s: Holds(%+v) = %d of %d answers", l.Name, sums, h, len(q.Answers))
			}
		}
	}
}
