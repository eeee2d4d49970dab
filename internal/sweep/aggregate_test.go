package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// small is a results file worked by hand: point rate=0.3 has avg_wait 1, 2,
// 3 and point rate=0.6 has 2, 4, 4, 6 (its replication 3 lies in a second
// file).
const small = `{"point":{"rate":0.3},"replication":0,"seed":7,"summary":{"avg_wait":1,"peak_queue":5}}
{"point":{"rate":0.3},"replication":1,"seed":8,"summary":{"avg_wait":2,"peak_queue":5}}
{"point":{"rate":0.3},"replication":2,"seed":9,"summary":{"avg_wait":3,"peak_queue":5}}
{"point":{"rate":0.6},"replication":0,"seed":7,"summary":{"avg_wait":2,"peak_queue":9}}
{"point":{"rate":0.6},"replication":1,"seed":8,"summary":{"avg_wait":4,"peak_queue":9}}
{"point":{"rate":0.6},"replication":2,"seed":9,"summary":{"avg_wait":4,"peak_queue":9}}
`

const smallRest = `{"point":{"rate":0.6},"replication":3,"seed":10,"summary":{"avg_wait":6,"peak_queue":9}}
`

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(b)) }

func TestAggregateByHand(t *testing.T) {
	rep, err := Aggregate([]Input{{"a", strings.NewReader(small)}, {"b", strings.NewReader(smallRest)}},
		[]string{"avg_wait", "peak_queue"}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// rate=0.3: mean 2, s = 1, se = 1/√3, t(2) = 4.302652730: half 2.4841377.
	// rate=0.6: mean 4, s = √(8/3), se = √(2/3), t(3) = 3.182446305: half 2.5984565.
	// Replication 3 of rate=0.3 was never run: it is missing.
	want := []struct {
		point     string
		runs      int
		mean, hw  float64
		wide      bool
		needed    int
		peak, phw float64
	}{
		{"rate=0.3", 3, 2, 2.4841377, true, 7, 5, 0},
		{"rate=0.6", 4, 4, 2.5984565, true, 6, 9, 0},
	}
	if len(rep.Points) != len(want) {
		t.Fatalf("%d points, want %d", len(rep.Points), len(want))
	}
	for i, w := range want {
		p := rep.Points[i]
		aw, pq := p.Stats[0], p.Stats[1]
		if p.Point.String() != w.point || p.Runs != w.runs || !near(aw.Mean, w.mean) || !near(aw.HalfWidth, w.hw) ||
			!near(aw.Low, w.mean-w.hw) || !near(aw.High, w.mean+w.hw) || aw.Wide != w.wide || aw.Needed != w.needed ||
			pq.Mean != w.peak || pq.HalfWidth != w.phw || pq.Wide {
			t.Errorf("point %d: %v runs %d avg_wait %+v peak_queue %+v; want %+v", i, p.Point, p.Runs, aw, pq, w)
		}
	}
	// Needed at precision 0.5: rate=0.3 (s = 1, target 0.5·2 = 1): t(5)/√6 =
	// 1.049 > 1, t(6)/√7 = 0.925 ≤ 1, so 7. rate=0.6 (s = 1.633, target 2):
	// t(4)·s/√5 = 2.028 > 2, t(5)·s/√6 = 1.714 ≤ 2, so 6. peak_queue does
	// not vary: its interval has width 0 and is never wide.
	if len(rep.Missing) != 1 || rep.Missing[0] != (Key{`{"rate":0.3}`, 3}) {
		t.Errorf("missing %v, want rate 0.3 replication 3", rep.Missing)
	}
	if rep.Replications != 4 || rep.Runs != 7 || len(rep.Duplicates)+len(rep.Conflicts) != 0 || !slices.Equal(rep.BaseSeeds, []uint64{7}) {
		t.Errorf("report %+v", rep)
	}
}

func TestAggregateMergeReportsMissingAndDuplicated(t *testing.T) {
	lines := strings.SplitAfter(small, "\n")
	// Shard 0 of 2 and shard 1 of 2, the second given twice over one of its
	// lines, and run 2 (rate 0.3, replication 2) lost.
	var s0, s1 strings.Builder
	for i, l := range lines[:6] {
		if i == 2 {
			continue
		}
		if i%2 == 0 {
			s0.WriteString(l)
		} else {
			s1.WriteString(l)
		}
	}
	s1.WriteString(lines[3])
	rep, err := Aggregate([]Input{{"s0", strings.NewReader(s0.String())}, {"s1", strings.NewReader(s1.String())}}, []string{"avg_wait"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Missing, []Key{{`{"rate":0.3}`, 2}}) {
		t.Errorf("missing %v", rep.Missing)
	}
	if !slices.Equal(rep.Duplicates, []Key{{`{"rate":0.6}`, 0}}) {
		t.Errorf("duplicates %v", rep.Duplicates)
	}
	if got := rep.Points[0].Stats[0]; got.N != 2 || got.Mean != 1.5 {
		t.Errorf("rate 0.3 from 2 runs: %+v", got)
	}
	// The same run with a different result is a conflict; a partial last
	// line is reported and left out.
	other := strings.Replace(lines[0], `"avg_wait":1`, `"avg_wait":100`, 1) + `{"point":{"rate":0.`
	rep, err = Aggregate([]Input{{"a", strings.NewReader(small)}, {"b", strings.NewReader(other)}}, []string{"avg_wait"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 1 || !slices.Equal(rep.Partial, []string{"b"}) || rep.Points[0].Stats[0].Mean != 2 {
		t.Errorf("conflicts %v partial %v mean %v", rep.Conflicts, rep.Partial, rep.Points[0].Stats[0].Mean)
	}
}

func TestAggregateOrderFromShards(t *testing.T) {
	// A sweep policy=b,a × 2 replications, in shards 0/3, 1/3, 2/3: the
	// points come back in the sweep's order, not sorted.
	runs := []string{
		`{"point":{"policy":"b"},"replication":0,"seed":1,"summary":{"w":1}}`,
		`{"point":{"policy":"b"},"replication":1,"seed":2,"summary":{"w":2}}`,
		`{"point":{"policy":"a"},"replication":0,"seed":1,"summary":{"w":3}}`,
		`{"point":{"policy":"a"},"replication":1,"seed":2,"summary":{"w":4}}`,
	}
	var inputs []Input
	for s := range 3 {
		var b strings.Builder
		for k := s; k < len(runs); k += 3 {
			b.WriteString(runs[k] + "\n")
		}
		inputs = append(inputs, Input{"s", strings.NewReader(b.String())})
	}
	rep, err := Aggregate(inputs, []string{"w"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) != 2 || rep.Points[0].Point.String() != "policy=b" || rep.Points[0].Stats[0].Mean != 1.5 {
		t.Errorf("points %+v", rep.Points)
	}
}

func TestAggregateRefuses(t *testing.T) {
	for _, tc := range []struct {
		file, metric, want string
	}{
		{small, "colour", "no number called colour; it has avg_wait, peak_queue"},
		{"", "avg_wait", "no runs"},
		{"not json\n", "avg_wait", "line 1: not a JSON object"},
		{`{"point":{"a":1},"replication":0,"seed":1,"summary":{"w":1}}` + "\n" + `{"point":{"b":1},"replication":0,"seed":1,"summary":{"w":1}}` + "\n", "w", "different sweeps"},
		{`{"point":[1],"replication":0,"seed":1,"summary":{}}` + "\n", "w", `"point" is missing or not an object`},
	} {
		_, err := Aggregate([]Input{{"f", strings.NewReader(tc.file)}}, []string{tc.metric}, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}

func TestSummarizeOneReplication(t *testing.T) {
	st := Summarize([]float64{3}, 0.05)
	if st.Mean != 3 || !math.IsNaN(st.HalfWidth) || st.Wide {
		t.Errorf("%+v", st)
	}
}

func FuzzReadFile(f *testing.F) {
	f.Add(small + smallRest)
	f.Add(`{"point":{},"replication":0,"seed":1,"summary":{}}` + "\n{")
	f.Fuzz(func(t *testing.T, s string) {
		var n int
		c, err := ReadFile(strings.NewReader(s), func(int, Line) error { n++; return nil })
		if err != nil {
			return
		}
		if c.Complete > int64(len(s)) || (c.Partial != (c.Complete < int64(len(s)))) {
			t.Fatalf("contents %+v of %d bytes", c, len(s))
		}
		if c.Complete > 0 && s[c.Complete-1] != '\n' {
			t.Fatalf("complete part does not end in a newline")
		}
		Aggregate([]Input{{"f", strings.NewReader(s)}}, []string{"avg_wait", "P.avg_wait"}, 0.05)
	})
}
