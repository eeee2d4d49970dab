package sim

import (
	"fmt"
	"testing"
)

// fanoutCostBase is the fan-out and hedging cost benchmarks' run: a fixed
// pool of 20 per-server queues, 100,000 cycles, no firewall, no wave, no
// initial queue, parts arriving at pct percent of the pool's capacity
// (mean service 45 under the default uniform shape, geometric with
// hedging) split into requests of k parts.
func fanoutCostBase(policy Policy, pct int64, k int) Config {
	cfg := defaultSeed1()
	cfg.Queues, cfg.Policy, cfg.Wave, cfg.InitialPerServer, cfg.Blocked = PerServer, policy, false, 0, nil
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	// parts a cycle = pct% × 20 servers ÷ 45 cycles a part
	cfg.Rate = Rate(pct * int64(cfg.Servers) * RateScale / 100 / 45 / int64(k))
	cfg.Fanout = k
	return cfg
}

// benchAttempts runs cfg to the end b.N times and reports the time per
// attempt (parts, retries and hedges).
func benchAttempts(b *testing.B, cfg Config) {
	var attempts int64
	for b.Loop() {
		m, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		m.Run()
		attempts += m.Summary().Attempts
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(attempts), "ns/attempt")
}

// BenchmarkFanoutCost sets a fan-out of K against K times as many plain
// requests, the same parts a cycle (K = 1 is the plain run), at low load
// (10% of the pool's capacity) and moderate load (50%), under the
// policies that read nothing of the servers (round-robin, random, swrr,
// hash: windows) and one that reads their loads (p2c: the cycle loop). The ratio is
// ns/attempt of K = 5 or 20 over that of K = 1 at the same load and policy.
func BenchmarkFanoutCost(b *testing.B) {
	production(b)
	for _, policy := range []Policy{RoundRobin, Random, SWRR, Hash, P2C} {
		for _, load := range []int64{10, 50} {
			for _, k := range []int{1, 5, 20} {
				cfg := fanoutCostBase(policy, load, k)
				b.Run(fmt.Sprintf("%v/load-%d/K=%d", policy, load, k), func(b *testing.B) { benchAttempts(b, cfg) })
			}
		}
	}
}

// BenchmarkHedgeCost sets hedged runs against the same runs unhedged, at
// low load (10%): geometric service of mean 45, each part hedged once
// after 135 cycles (about its 95th percentile: some 5% more attempts),
// with fan-out 1 and 5, p2c. The ratio is ns/attempt hedged over
// unhedged.
func BenchmarkHedgeCost(b *testing.B) {
	production(b)
	for _, k := range []int{1, 5} {
		for _, after := range []int64{0, 135} {
			cfg := fanoutCostBase(P2C, 10, k)
			cfg.Service, cfg.MeanService = Geometric, 45
			cfg.HedgeAfter = after
			name := fmt.Sprintf("K=%d/plain", k)
			if after > 0 {
				name = fmt.Sprintf("K=%d/hedged", k)
			}
			b.Run(name, func(b *testing.B) { benchAttempts(b, cfg) })
		}
	}
}

// BenchmarkHedgeNoCandidate is hedging where almost no hedge can be
// placed: 64 servers, fan-out 64 (every server holds a part of each
// request), least-connections, 2 requests a cycle against a pool that
// cannot keep up, each part hedged after 50 cycles; nearly every hedge
// due finds no candidate. The plain run is the same without hedging.
func BenchmarkHedgeNoCandidate(b *testing.B) {
	production(b)
	for _, after := range []int64{0, 50} {
		cfg := defaultSeed1()
		cfg.Servers, cfg.MinServers, cfg.MaxServers, cfg.Cycles = 64, 64, 64, 1500
		cfg.Queues, cfg.Policy, cfg.Wave = PerServer, LeastConnections, false
		cfg.Rate, cfg.Fanout, cfg.HedgeAfter = 2*RateScale, 64, after
		name := "plain"
		if after > 0 {
			name = "hedged"
		}
		b.Run(name, func(b *testing.B) { benchAttempts(b, cfg) })
	}
}
