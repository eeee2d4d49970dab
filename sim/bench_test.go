package sim

import (
	"fmt"
	"runtime"
	"testing"
)

// benchRun runs cfg to the end b.N times and reports ns/request (elapsed
// time over generated requests) and cycles/s.
func benchRun(b *testing.B, cfg Config) {
	b.ReportAllocs()
	var requests, cycles int64
	for b.Loop() {
		m, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		m.Run()
		requests += m.Totals().Generated
		cycles += m.Cycle()
	}
	elapsed := b.Elapsed()
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(requests), "ns/request")
	b.ReportMetric(float64(cycles)/elapsed.Seconds(), "cycles/s")
}

// BenchmarkDefaultRun is the default run: 20 servers, 100,000 cycles, seed 1.
func BenchmarkDefaultRun(b *testing.B) {
	production(b)
	benchRun(b, defaultSeed1())
}

// BenchmarkAutoscalers is the default run under each autoscaler: the
// queue rule as it is (its pool lags the wave and the queue stays long,
// where the saturated stretches serve it in bulk), the queue rule with
// thresholds low enough to keep servers idle (U = 0.5, D = 0.1: the
// regime target tracking runs in, every arrival served at once), and
// target tracking at its defaults.
func BenchmarkAutoscalers(b *testing.B) {
	production(b)
	queue, low, target := defaultSeed1(), defaultSeed1(), defaultSeed1()
	low.ScaleUp, low.ScaleDown = FactorScale/2, FactorScale/10
	target.Autoscaler = TargetTracking
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"queue", queue}, {"queue-low", low}, {"target", target}} {
		b.Run(c.name, func(b *testing.B) { benchRun(b, c.cfg) })
	}
}

// BenchmarkLargePool keeps 10,000 servers about 80% busy for 100,000
// cycles: mean task time 50, so 0.8 × 10000 / 50 = 160 arrivals per cycle,
// no firewall and a fixed pool.
func BenchmarkLargePool(b *testing.B) {
	production(b)
	cfg := DefaultConfig()
	cfg.Seed = 1
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 10_000, 10_000, 10_000
	cfg.TaskMin, cfg.TaskMax = 10, 90
	cfg.Rate, cfg.Wave = 160*RateScale, false
	cfg.InitialPerServer = 1
	cfg.Blocked = nil
	benchRun(b, cfg)
}

// BenchmarkRandomFaultsLargePool fails and repairs servers of a pool of
// 100,000 every cycle (mtbf 1, mttr 1; no initial queue), then lets them
// stay down long (mtbf 10, mttr 10,000): each failure picks a random
// active server and schedules its comeback, which must not cost a scan of
// the pool or of the servers already down.
func BenchmarkRandomFaultsLargePool(b *testing.B) {
	production(b)
	for _, c := range []struct {
		name       string
		mtbf, mttr int64
		cycles     int64
	}{{"mtbf1-mttr1", 1, 1, 100}, {"mtbf10-mttr10000", 10, 10_000, 2_000}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Cycles = 1, c.cycles
			cfg.Servers, cfg.MaxServers = 100_000, 100_000
			cfg.InitialPerServer = 0
			cfg.MTBF, cfg.MTTR = c.mtbf, c.mttr
			for b.Loop() {
				m, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				m.Run()
			}
		})
	}
}

// BenchmarkQueueMemory pushes a million requests into a fifo and reports
// the heap the queue keeps per request.
func BenchmarkQueueMemory(b *testing.B) {
	production(b)
	const n = 1_000_000
	var retained uint64
	var runs int
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		var q fifo
		for i := range n {
			q.pushBack(pack(Request{ID: int64(i), Time: 1}), 0)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		retained += after.HeapAlloc - before.HeapAlloc
		runs++
		runtime.KeepAlive(&q)
		if q.Len() != n {
			b.Fatalf("queue holds %d, want %d", q.Len(), n)
		}
	}
	b.ReportMetric(float64(retained)/float64(runs)/n, "B/request")
}

// BenchmarkSparseRun is a quiet run: 20 servers, one arrival per 500 cycles
// on average, 10 million cycles. Its cost is dominated by the quiet cycles
// that Run jumps over.
func BenchmarkSparseRun(b *testing.B) {
	production(b)
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 1, 10_000_000
	cfg.Rate, cfg.Wave, cfg.InitialPerServer = 2_000, false, 0
	cfg.Cooldown = 1000
	benchRun(b, cfg)
}

// BenchmarkPerServer routes per-server runs under every policy: the large
// pool's 10,000 servers about 80% busy (speeds 2, 1, 0.5 for the first
// three), and the default run's 20 servers.
func BenchmarkPerServer(b *testing.B) {
	production(b)
	for _, p := range PoliciesFor(PerServer) {
		large := DefaultConfig()
		large.Seed, large.Cycles = 1, 20_000
		large.Servers, large.MinServers, large.MaxServers = 10_000, 10_000, 10_000
		large.TaskMin, large.TaskMax = 10, 90
		large.Rate, large.Wave = 160*RateScale, false
		large.InitialPerServer, large.Blocked = 1, nil
		large.Queues, large.Policy, large.Speeds = PerServer, p, []Speed{200, 100, 50}
		b.Run("10000/"+p.String(), func(b *testing.B) { benchRun(b, large) })
		small := defaultSeed1()
		small.Queues, small.Policy = PerServer, p
		b.Run("20/"+p.String(), func(b *testing.B) { benchRun(b, small) })
	}
}

// BenchmarkHashLookup looks up random source addresses on the ring of
// 10,000 servers (640,000 points, 10 MB): the part of a hash-routed
// request that the ring's size makes slow.
func BenchmarkHashLookup(b *testing.B) {
	production(b)
	cfg := DefaultConfig()
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 10_000, 10_000, 10_000
	cfg.Queues, cfg.Policy = PerServer, Hash
	m, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	bal := m.bal[0]
	ring := &bal.rt.(*hashRouter).ring
	ring.rebuild(bal)
	src, owners := uint32(1), 0
	for b.Loop() {
		src = src*1664525 + 1013904223 // a full-period LCG: every source once per 2^32
		if ring.owner(HashKey(src), &bal.active) != 0 {
			owners++
		}
	}
	if owners == 0 {
		b.Fatal("no lookup found an owner")
	}
}

// BenchmarkHashPick routes random source addresses on a steady ring of
// 10,000 servers as an arrival is routed (the router's pick): the ring's
// lookup with what the router adds to it.
func BenchmarkHashPick(b *testing.B) {
	production(b)
	cfg := DefaultConfig()
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 10_000, 10_000, 10_000
	cfg.Queues, cfg.Policy, cfg.InitialPerServer = PerServer, Hash, 0
	m, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	rt := m.bal[0].rt
	src, owners := uint32(1), 0
	for b.Loop() {
		src = src*1664525 + 1013904223
		if rt.pick(packed{addr: uint64(src) << 32}, 0) != 0 {
			owners++
		}
	}
	if owners == 0 {
		b.Fatal("no lookup found an owner")
	}
}

// BenchmarkHashScaleUp grows a hash-routed per-server pool from 20 to
// 20,000 servers one scale-up at a time, with 16 lookups after each (as a
// run routes arrivals between scale-ups): what adding a server to the ring
// costs as the ring grows. It reports the time per scale-up.
func BenchmarkHashScaleUp(b *testing.B) {
	production(b)
	cfg := DefaultConfig()
	cfg.Queues, cfg.Policy = PerServer, Hash
	cfg.Servers, cfg.MaxServers = 20, 20_000
	src, owners, ups := uint32(1), 0, 0
	for b.Loop() {
		m, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		bal := m.bal[0]
		for bal.live < cfg.MaxServers {
			bal.addServer(0)
			ups++
			for range 16 {
				src = src*1664525 + 1013904223
				if bal.rt.pick(packed{addr: uint64(src) << 32}, 0) != 0 {
					owners++
				}
			}
		}
	}
	if owners == 0 {
		b.Fatal("no lookup found an owner")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ups), "ns/scale-up")
}

// BenchmarkClientSide runs the same 1,000 servers 80% busy (geometric
// service of mean 50, 16 arrivals a cycle, 20,000 cycles) with the client
// side off (the shortcuts run), on but quiet (a timeout no attempt
// reaches: every cycle is stepped, every attempt has a deadline), and
// acting (timeouts of 150 cycles with three retries and jitter, and health
// checks every 10 cycles).
func BenchmarkClientSide(b *testing.B) {
	production(b)
	base := realisticBase()
	base.Cycles, base.MeanService, base.Rate = 20_000, 50, 16*RateScale
	benchCases(b, base,
		benchCase{"off", func(*Config) {}},
		benchCase{"quiet", func(c *Config) { c.Timeout = 1_000_000 }},
		benchCase{"acting", func(c *Config) {
			c.Timeout, c.Retries, c.Backoff, c.Jitter, c.HealthInterval = 150, 3, 20, true, 10
		}},
	)
}

// benchCase is a variant of a benchmark's configuration.
type benchCase struct {
	name string
	set  func(*Config)
}

// benchCases runs benchRun on base with each case's changes, as a
// sub-benchmark of its name.
func benchCases(b *testing.B, base Config, cases ...benchCase) {
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cfg := base
			c.set(&cfg)
			benchRun(b, cfg)
		})
	}
}

// scheduled builds the model of cfg with changes scheduled.
func scheduled(t tester, cfg Config, changes ...Change) *Model {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Fatalf("%v", err)
	}
	return m
}

// BenchmarkFleet is the comparison of a fleet's cost: 100 servers
// with per-server queues, geometric service of mean 100, 0.9 arrivals a
// cycle (90% load), p2c, routed by one balancer and by a fleet of 100
// with local counts (and, for reference, a fleet with exact information
// and with a periodic board). The cost per request is the time over the
// requests generated (each run generates about 0.9 × cycles).
func BenchmarkFleet(b *testing.B) {
	production(b)
	base := fleetBase()
	benchCases(b, base,
		benchCase{"one", func(*Config) {}},
		benchCase{"100-exact", func(c *Config) { c.Balancers = 100 }},
		benchCase{"100-local", func(c *Config) { c.Balancers, c.LoadInfo = 100, LoadLocal }},
		benchCase{"100-periodic-1000", func(c *Config) { c.Balancers, c.LoadInfo = 100, 1000 }},
	)
}

// fleetBase is the fleet's benchmark and the README's table: a fixed pool
// of 100 per-server queues, geometric service of mean 100, rate 0.9.
func fleetBase() Config {
	c := DefaultConfig()
	c.Seed, c.Cycles = 1, 200_000
	c.Servers, c.MinServers, c.MaxServers = 100, 100, 100
	c.Service, c.MeanService = Geometric, 100
	c.Rate, c.Wave = 9*RateScale/10, false
	c.InitialPerServer, c.Blocked = 0, nil
	c.Queues, c.Policy = PerServer, P2C
	return c
}

// BenchmarkFanout compares a fan-out of 5 with five times as many plain
// requests, the same parts a cycle (per-server, 20 servers, round-robin,
// utilisation about 0.6, 100,000 cycles): the cost of a part against that
// of a request (ns/attempt), the plain requests also stepped a cycle at a
// time (BenchmarkFanoutCost sets more loads, fan-outs and policies).
func BenchmarkFanout(b *testing.B) {
	production(b)
	for _, run := range []struct {
		k    int
		opts []Option
	}{{1, nil}, {1, []Option{WithPlain()}}, {5, nil}} {
		k := run.k
		cfg := defaultSeed1()
		cfg.Queues, cfg.Policy, cfg.Wave, cfg.InitialPerServer = PerServer, RoundRobin, false, 0
		cfg.MinServers, cfg.Blocked = cfg.Servers, nil
		cfg.Rate = Rate(int64(25*RateScale/100) / int64(k)) // 0.25 parts a cycle × 45 cycles ÷ 20 servers
		cfg.Fanout = k
		name := fmt.Sprintf("K=%d", k)
		if run.opts != nil {
			name += "-stepped" // a cycle at a time, with no shortcut
		}
		b.Run(name, func(b *testing.B) {
			var attempts int64
			for b.Loop() {
				m, err := New(cfg, run.opts...)
				if err != nil {
					b.Fatal(err)
				}
				m.Run()
				attempts += m.Summary().Attempts
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(attempts), "ns/attempt")
		})
	}
}
