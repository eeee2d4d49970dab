package sim_test

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// The clock on a three-request trace with one server: a request of time T
// dispatched at cycle t completes at t + T, and its server takes the next
// request in the same cycle (work comes before dispatch).
func ExampleModel_Step() {
	src, _ := sim.ParseIPv4("192.0.2.7")
	cfg := sim.DefaultConfig()
	cfg.Servers, cfg.MinServers, cfg.Cycles = 1, 1, 5
	cfg.Blocked = nil
	cfg.Trace = []sim.TraceRow{
		{Cycle: 0, Src: src, Time: 1}, // the initial queue
		{Cycle: 0, Src: src, Time: 2},
		{Cycle: 1, Src: src, Time: 1},
	}
	m, err := sim.New(cfg, sim.WithEvents())
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		for _, e := range m.Events() {
			switch e.Kind {
			case sim.Dispatch:
				fmt.Printf("cycle %d: request %d (time %d) to server %d after waiting %d\n", e.Cycle, e.Request.ID, e.Request.Time, e.Server, e.Wait)
			case sim.Complete:
				fmt.Printf("cycle %d: request %d completes\n", e.Cycle, e.Request.ID)
			}
		}
		if !m.Step() {
			break
		}
	}
	s := m.Summary()
	fmt.Printf("after cycle %d: %d completed, %d queued, %d in service\n", s.Cycles, s.Completed, s.FinalQueue, s.InService)
	// Output:
	// cycle 0: request 1 (time 1) to server 1 after waiting 0
	// cycle 1: request 1 completes
	// cycle 1: request 2 (time 2) to server 1 after waiting 1
	// cycle 3: request 2 completes
	// cycle 3: request 3 (time 1) to server 1 after waiting 2
	// cycle 4: request 3 completes
	// after cycle 5: 3 completed, 0 queued, 0 in service
}
