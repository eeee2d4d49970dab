package sim

import (
	"flag"
	"fmt"
	"testing"
)

// mm1Customers is how many customers BenchmarkMM1 runs through each
// queue: 100,000 by default, so the suite stays short; the README's
// table runs 900,000 (-mm1.customers 900000, the most the billion-cycle
// bound lets mean 1,000 take).
var mm1Customers = flag.Int64("mm1.customers", 100_000, "customers per BenchmarkMM1 run")

// mm1Config is an M/M/1 queue at ρ 0.9: one server (a fixed pool of one),
// geometric service of the given mean, Poisson arrivals at 0.9/mean a
// cycle, no wave and no firewall, for as many cycles as customers
// arrivals take on average; pooled, or per-server with random routing.
func mm1Config(mean int, customers int64, queues QueueMode) Config {
	c := DefaultConfig()
	c.Seed = 1
	c.Servers, c.MinServers, c.MaxServers = 1, 1, 1
	c.Service, c.MeanService = Geometric, mean
	c.Rate, c.Wave = Rate(9*RateScale/10/mean), false
	c.InitialPerServer, c.Blocked = 0, nil
	c.Cycles = min(customers*int64(mean)*10/9, MaxCycles)
	c.Queues = queues
	if queues == PerServer {
		c.Policy = Random
	}
	return c
}

// BenchmarkMM1 is issue 42's measure of the cost of a customer against
// the time scale: an M/M/1 queue at ρ 0.9 with mean service 10, 100 and
// 1,000 cycles, pooled and per-server, reported as ns/customer (elapsed
// time over completed requests). A clock that pays per cycle costs 100
// times more a customer at mean 1,000 than at 10; one that pays per event
// the same. On a shared host, cpu-ns/customer (the process's CPU time over
// the same customers) moves less than the wall time.
func BenchmarkMM1(b *testing.B) {
	production(b)
	for _, q := range []QueueMode{Pooled, PerServer} {
		for _, mean := range []int{10, 100, 1000} {
			cfg := mm1Config(mean, *mm1Customers, q)
			b.Run(fmt.Sprintf("%s/mean-%d", q, mean), func(b *testing.B) {
				b.ReportAllocs()
				var done int64
				cpu0, cpu := cpuNanos()
				for b.Loop() {
					m, err := New(cfg)
					if err != nil {
						b.Fatal(err)
					}
					m.Run()
					done += m.Totals().Completed
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(done), "ns/customer")
				if cpu1, ok := cpuNanos(); cpu && ok {
					b.ReportMetric(float64(cpu1-cpu0)/float64(done), "cpu-ns/customer")
				}
			})
		}
	}
}
