//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/lbsim/lbsim/internal/sweep"
)

// BenchmarkSweep measures a sweep of many short runs (10,000 cycles, the
// other settings default) on 1 and 2 workers, in runs per second: the
// speed-up is the ratio of the two. Results go to io.Discard. It also
// reports the CPU time per run (user + system, all threads): if it does not
// grow with the workers, the workers do not get in each other's way, and
// runs/s scales with the cores that are free.
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
			cpu0 := cpuTime()
			for b.Loop() {
				if err := sweep.Execute(context.Background(), g, all, jobs, c.sweepRun(base, c.newQueueShare(jobs)), io.Discard, nil); err != nil {
					b.Fatal(err)
				}
				runs += g.Runs()
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(runs), "cpu-ms/run")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
