// Command clientmodel runs package clientmodel's independent model of
// lbsim's client rules for two scenarios and prints what it measured, to
// set beside lbsim's own runs:
//
//	clientmodel reneging   [-seeds 10] [-cycles 2000000] [-rate-scale 1]
//	clientmodel metastable [-seeds 10] [-rate-scale 1]
//
// reneging: c = 10, geometric m = 100, λ = 0.095 (ρ = 0.95), timeout 100,
// no retries; the share timed out while queued, in service, completed and
// the mean wait of the dispatched, with 95% t-intervals over the seeds,
// beside the exact chain of package queueing. metastable: c = 10, m = 100,
// λ = 0.08 with a spike to 0.15 in cycles 20,000 … 24,999, timeout 1000,
// 3 retries, 80,000 cycles: requests completed in the last 20,000 cycles
// against first attempts admitted there, without the spike, with it, and
// with it and a retry budget of 0.1, beside queueing's retry equilibria.
// -rate-scale multiplies the rates, to match lbsim runs whose firewall
// rejects a share of requests.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lbsim/lbsim/internal/clientmodel"
	"github.com/lbsim/lbsim/queueing"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	seeds := fs.Int("seeds", 10, "runs, with seeds 1 … N")
	cycles := fs.Int64("cycles", 2_000_000, "cycles of each reneging run (a tenth is warm-up)")
	scale := fs.Float64("rate-scale", 1, "multiply every arrival rate by this (0 < x ≤ 1): the share a firewall admits, e.g. 60655/65536 = 0.9255218505859375 for lbsim's default blocked ranges")
	if err := fs.Parse(os.Args[2:]); err != nil || *seeds < 2 || *seeds > 1000 || fs.NArg() > 0 ||
		!(*scale > 0 && *scale <= 1) || *cycles < 10 || *cycles > 1e10 {
		fmt.Fprintln(os.Stderr, "clientmodel: -seeds must be 2 … 1000, -rate-scale in (0, 1], -cycles 10 … 1e10, and no arguments after the flags")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "reneging":
		err = reneging(*seeds, *cycles, *scale)
	case "metastable":
		err = metastable(*seeds, *scale)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientmodel:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: clientmodel reneging|metastable [-seeds N] [-cycles N]")
	os.Exit(2)
}

// interval returns the 95% t-interval of xs, one value per seed.
func interval(xs []float64) (queueing.Interval, error) {
	var b queueing.BatchMeans
	for _, x := range xs {
		if err := b.AddBatch(x, 1); err != nil {
			return queueing.Interval{}, err
		}
	}
	return b.Interval()
}

func reneging(seeds int, cycles int64, scale float64) error {
	q := queueing.Reneging{Servers: 10, Lambda: 0.095 * scale, MeanService: 100, Patience: 100}
	disc, err := q.Discrete()
	if err != nil {
		return err
	}
	cont, err := q.Continuous()
	if err != nil {
		return err
	}
	cols := make([][]float64, 6)
	for s := 1; s <= seeds; s++ {
		r, err := clientmodel.Run(clientmodel.Params{
			Servers: 10, MeanService: 100, Phases: []clientmodel.Phase{{From: 0, Rate: q.Lambda}},
			Timeout: 100, Cycles: cycles, From: cycles / 10, Seed: uint64(s),
		})
		if err != nil {
			return err
		}
		w := r.Window
		ended := float64(w.TimedOutQueued + w.TimedOutInService + w.Completed)
		for i, x := range []float64{
			float64(w.TimedOutQueued) / ended, float64(w.TimedOutInService) / ended, float64(w.Completed) / ended,
			float64(w.TotalWait) / float64(w.Dispatched), float64(w.TotalResponse) / float64(w.Completed),
			float64(w.Admitted) / float64(cycles-cycles/10),
		} {
			cols[i] = append(cols[i], x)
		}
	}
	fmt.Printf("reneging: c=10 m=100 λ=%g timeout=100, %d seeds × %d cycles (first tenth dropped)\n", q.Lambda, seeds, cycles)
	fmt.Printf("%-22s %22s %14s %14s\n", "", "model (95% interval)", "exact chain", "continuous")
	for i, row := range []struct {
		name       string
		disc, cont float64
	}{
		{"timed out queued", disc.TimedOutQueued, cont.TimedOutQueued},
		{"timed out in service", disc.TimedOutInService, cont.TimedOutInService},
		{"completed", disc.Completed, cont.Completed},
		{"wait of dispatched", disc.WaitServed, cont.WaitServed},
		{"response of completed", disc.ResponseCompleted, cont.ResponseCompleted},
		{"arrivals per cycle", q.Lambda, q.Lambda},
	} {
		iv, err := interval(cols[i])
		if err != nil {
			return err
		}
		fmt.Printf("%-22s %10.5f ± %-9.5f %14.5f %14.5f\n", row.name, iv.Mean, iv.High-iv.Mean, row.disc, row.cont)
	}
	return nil
}

func metastable(seeds int, scale float64) error {
	calm, high := 0.08*scale, 0.15*scale
	fmt.Printf("metastable: c=10 m=100 λ=%g (spike %g in 20000…24999) timeout=1000 retries=3, 80000 cycles; window 60000…79999\n", calm, high)
	eq, err := queueing.Reneging{Servers: 10, Lambda: calm, MeanService: 100, Patience: 1000}.RetryEquilibria(3)
	if err != nil {
		return err
	}
	for _, e := range eq {
		fmt.Printf("mean field: Λ = %.5f (%.3f attempts a request), %.4f of requests complete, stable %v\n",
			e.AttemptRate, e.AttemptsPerRequest, e.Completed, e.Stable)
	}
	fmt.Printf("%-26s %-6s %9s %9s %8s %9s | %s\n", "case", "seed", "admitted", "completed", "ratio", "retries", "whole run: timed out, gave up")
	for _, cs := range []struct {
		name   string
		spike  bool
		budget int64
	}{{"no spike", false, 0}, {"spike, no budget", true, 0}, {"spike, budget 0.1", true, 100_000}} {
		var ratios []float64
		for s := 1; s <= seeds; s++ {
			phases := []clientmodel.Phase{{From: 0, Rate: calm}}
			if cs.spike {
				phases = append(phases, clientmodel.Phase{From: 20_000, Rate: high}, clientmodel.Phase{From: 25_000, Rate: calm})
			}
			r, err := clientmodel.Run(clientmodel.Params{
				Servers: 10, MeanService: 100, Phases: phases, Timeout: 1000, Retries: 3,
				BudgetMillionths: cs.budget, Cycles: 80_000, From: 60_000, Seed: uint64(s),
			})
			if err != nil {
				return err
			}
			w := r.Window
			ratio := float64(w.Completed) / float64(w.Admitted)
			ratios = append(ratios, ratio)
			fmt.Printf("%-26s %-6d %9d %9d %8.4f %9d | %d %d\n", cs.name, s, w.Admitted, w.Completed, ratio, w.Retries, r.Total.TimedOut, r.Total.GaveUpBudget)
		}
		iv, err := interval(ratios)
		if err != nil {
			return err
		}
		fmt.Printf("%-26s mean completed/admitted %.4f ± %.4f (95%%, %d seeds)\n\n", cs.name, iv.Mean, iv.High-iv.Mean, seeds)
	}
	return nil
}
