package queueing_test

import (
	"errors"
	"fmt"

	"github.com/lbsim/lbsim/queueing"
)

// One queue in front of five servers against five servers with a queue
// each, at the same load: the pooled queue waits far less, because no server
// sits idle while a request waits in another server's queue.
func Example_pooledVersusSplit() {
	q := queueing.MMC{Servers: 5, Lambda: 0.04, MeanService: 100} // ρ = 0.04·100/5 = 0.8
	pooled, err := q.Metrics()
	if err != nil {
		fmt.Println(err)
		return
	}
	split, err := q.Split()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("c = %d, λ = %g per cycle, m = %g cycles, ρ = %.2f\n", q.Servers, q.Lambda, q.MeanService, pooled.Rho)
	fmt.Printf("%-26s %8s %8s\n", "", "P(wait)", "Wq")
	fmt.Printf("%-26s %8.3f %8.1f\n", "one queue, 5 servers", pooled.PWait, pooled.Wq)
	fmt.Printf("%-26s %8.3f %8.1f\n", "5 queues, 1 server each", split.PWait, split.Wq)
	fmt.Printf("the split queues wait %.1f times as long\n", split.Wq/pooled.Wq)
	// Output:
	// c = 5, λ = 0.04 per cycle, m = 100 cycles, ρ = 0.80
	//                             P(wait)       Wq
	// one queue, 5 servers          0.554     55.4
	// 5 queues, 1 server each       0.800    400.0
	// the split queues wait 7.2 times as long
}

func ExampleErlangC() {
	c, err := queueing.ErlangC(2, 1) // two servers, one erlang offered
	fmt.Printf("%.4f %v\n", c, err)

	_, err = queueing.ErlangC(3, 3.3)
	fmt.Println(errors.Is(err, queueing.ErrUnstable))
	fmt.Println(err)
	// Output:
	// 0.3333 <nil>
	// true
	// queueing: offered load a = λ·m = 3.3 ≥ c = 3 servers (ρ = a/c = 1.1): the queue grows without bound; Erlang C applies only when ρ < 1
}

func ExampleCheckFit() {
	// lbsim's default run: the pool scales, the rate follows a wave and
	// task times are uniform.
	fit := queueing.CheckFit(queueing.FitInput{
		Servers: 20, Lambda: 0.45, MeanService: 30, Service: queueing.ServiceUniform,
		Autoscaling: true, Wave: true,
	})
	fmt.Print(fit)
	// Output:
	// M/M/c does not apply:
	//   - autoscaling is on: the number of servers changes, but M/M/c assumes a fixed c (turn scaling off, e.g. with min servers = max servers = c)
	//   - the arrival rate follows a wave; M/M/c assumes a constant rate λ (turn the wave off)
	//   - service times are uniform, not exponential (geometric): they vary less than M/M/c assumes, so requests wait less than Erlang C says
	// Caveats:
	//   - the whole-cycle clock makes the measured Wq a little lower than Erlang C, by roughly 1/m = 3.3% at m = 30 cycles; use m ≥ 100 where a match within 1–2% is wanted
}

func ExampleBatchMeans() {
	// Waits measured in three time windows, as (total wait, requests).
	var b queueing.BatchMeans
	for _, w := range [][2]float64{{5200, 100}, {6100, 110}, {4900, 95}} {
		if err := b.AddBatch(w[0], int(w[1])); err != nil {
			fmt.Println(err)
			return
		}
	}
	iv, err := b.Interval()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Wq = %.1f cycles, 95%% interval [%.1f, %.1f] from %d batches\n", iv.Mean, iv.Low, iv.High, iv.Batches)
	// Output:
	// Wq = 53.0 cycles, 95% interval [47.7, 58.3] from 3 batches
}
