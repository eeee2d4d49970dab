package sim

import (
	"fmt"
	"testing"
)

// overloadBenchConfig is a fixed pool of 20 servers (uniform service of
// mean 45) offered load rho (in hundredths) with no wave and no blocked
// sources, 100,000 cycles, seed 1.
func overloadBenchConfig(q QueueMode, rho int64) Config {
	cfg := defaultSeed1()
	cfg.Queues, cfg.Wave, cfg.Blocked, cfg.InitialPerServer = q, false, nil, 0
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if q == PerServer {
		cfg.Policy = LeastConnections
	}
	mean := int64(cfg.TaskMin+cfg.TaskMax) / 2
	cfg.Rate = Rate(rho * int64(cfg.Servers) * RateScale / (100 * mean))
	return cfg
}

// idleControls are the overload controls BenchmarkOverloadIdle runs, each
// set where at utilisation 0.8 it has nothing to do, after the plain run.
var idleControls = []struct {
	name string
	set  func(*Config)
}{
	{"plain", func(*Config) {}},
	{"lifo", func(c *Config) { c.Discipline = Lifo }},
	{"adaptive-lifo", func(c *Config) { c.Discipline = AdaptiveLifo }},
	{"codel", func(c *Config) { c.CodelTarget, c.CodelInterval = 5000, 5000 }},
	{"fixed-limit", func(c *Config) { c.ConcurrencyLimit = MaxConcurrencyLimit }},
	{"aimd", func(c *Config) {
		c.ConcurrencyLimit, c.LimitInitial, c.LimitMin, c.LimitMax = LimitAIMD, 1000, 1000, 1000
	}},
	{"throttle", func(c *Config) { c.Throttle = 200 }},
}

// BenchmarkOverloadIdle runs each overload control at utilisation 0.8 where
// it has nothing to do (no attempt shed, refused or throttled: the test
// TestOverloadIdleDoesNothing checks that), against the plain run, pooled
// and per-server: what a control costs only for being on.
func BenchmarkOverloadIdle(b *testing.B) {
	production(b)
	for _, q := range []QueueMode{Pooled, PerServer} {
		for _, c := range idleControls {
			cfg := overloadBenchConfig(q, 80)
			c.set(&cfg)
			b.Run(fmt.Sprintf("%v/%s", q, c.name), func(b *testing.B) { benchRun(b, cfg) })
		}
	}
	// Round-robin and random per-server run windows (window.go), plain
	// and throttled.
	for _, p := range []Policy{RoundRobin, Random} {
		for _, c := range idleControls {
			if c.name == "plain" || c.name == "throttle" {
				cfg := overloadBenchConfig(PerServer, 80)
				cfg.Policy = p
				c.set(&cfg)
				b.Run(fmt.Sprintf("%v/%s", p, c.name), func(b *testing.B) { benchRun(b, cfg) })
			}
		}
	}
}

// BenchmarkShedding runs shedding (codel target 50) under offered loads
// of 1.5 and 3 times capacity and reports the cost per shed attempt:
// shedding pops expired attempts off the oldest end (O(shed)), so the
// cost per attempt stays flat as the overload, and the queue behind the
// limit, grows.
func BenchmarkShedding(b *testing.B) {
	production(b)
	for _, q := range []QueueMode{Pooled, PerServer} {
		for _, rho := range []int64{150, 300} {
			cfg := overloadBenchConfig(q, rho)
			cfg.CodelTarget = 50
			b.Run(fmt.Sprintf("%v/load-%d%%", q, rho), func(b *testing.B) {
				var attempts, shed int64
				for b.Loop() {
					m, err := New(cfg)
					if err != nil {
						b.Fatal(err)
					}
					m.Run()
					s := m.Summary()
					attempts += s.Attempts
					shed += s.Shed
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(attempts), "ns/attempt")
				b.ReportMetric(float64(shed)/float64(attempts), "shed/attempt")
			})
		}
	}
}

// TestOverloadIdleDoesNothing checks the premise of BenchmarkOverloadIdle:
// at utilisation 0.8 each control, though on, sheds and refuses nothing;
// the throttle rejects only while its window holds requests and no
// accepts yet (the first service times: under 1% of the requests here).
// Shedding does shed under BenchmarkShedding's overloads.
func TestOverloadIdleDoesNothing(t *testing.T) {
	for _, q := range []QueueMode{Pooled, PerServer} {
		for _, c := range idleControls {
			cfg := overloadBenchConfig(q, 80)
			cfg.Cycles = 20_000
			c.set(&cfg)
			m, err := New(cfg)
			if err != nil {
				t.Fatalf("%v/%s: %v", q, c.name, err)
			}
			m.Run()
			s := m.Summary()
			if s.Shed+s.Limited != 0 || s.Throttled*100 >= s.Generated || s.Completed == 0 {
				t.Errorf("%v/%s at 0.8: shed %d, limited %d, throttled %d, completed %d; want none shed or limited, under 1%% throttled, requests completed",
					q, c.name, s.Shed, s.Limited, s.Throttled, s.Completed)
			}
		}
		cfg := overloadBenchConfig(q, 150)
		cfg.Cycles, cfg.CodelTarget = 20_000, 50
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Run()
		if s := m.Summary(); s.Shed == 0 {
			t.Errorf("%v at 1.5× with codel target 50: nothing shed", q)
		}
	}
}
