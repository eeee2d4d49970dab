package main

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/lbsim/lbsim/internal/sweep"
)

// BenchmarkSweep measures a sweep of many short runs (10,000 cycles, the
// other settings default) on 1 and 2 workers, in runs per second: the
// speed-up is the ratio of the two. Results go to io.Discard.
func BenchmarkSweep(b *testing.B) {
	c := &cli{stdout: io.Discard, stderr: io.Discard}
	base := []string{"--cycles=10000"}
	g, err := sweep.NewGrid([]sweep.Dimension{{Name: "rate", Values: []string{"0.3", "0.5", "0.7", "0.9"}},
		{Name: "policy", Values: []string{"round-robin", "random"}}}, 25, 1)
	if err != nil {
		b.Fatal(err)
	}
	all := func(yield func(int64) bool) {
		for k := range g.Runs() {
			if !yield(k) {
				return
			}
		}
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			var runs int64
			for b.Loop() {
				if err := sweep.Execute(context.Background(), g, all, jobs, c.sweepRun(base), io.Discard, nil); err != nil {
					b.Fatal(err)
				}
				runs += g.Runs()
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
