package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genPooledLoop draws a pooled run that RunTo's pooled cycle loop takes
// (runPooled: one balancer, generated requests, no random faults, no
// events, the oldest-first hand-out and no overload control): one to six
// servers, fixed, scaling or hunting (genHunting), any pooled policy,
// speeds and weights (zeros included), any service shape at mean 1 to
// 300, a load of 10% to 130%, sometimes the wave, an initial queue, a cap,
// or a quiet client side (a timeout, retries, a retry budget and health
// checks, their times scaled to the service).
func genPooledLoop(t *rapid.T) Config {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	cfg.Servers = rapid.IntRange(1, 6).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if rapid.Bool().Draw(t, "scaling") {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "minServers")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 4).Draw(t, "extraServers")
		cfg.ScaleUp = Factor(rapid.Int64Range(1, 8*FactorScale).Draw(t, "scaleUp"))
		cfg.ScaleDown = Factor(rapid.Int64Range(0, int64(cfg.ScaleUp)-1).Draw(t, "scaleDown"))
	}
	cfg.Cooldown = rapid.SampledFrom([]int64{1, 3, 10, 100}).Draw(t, "cooldown")
	mean := rapid.SampledFrom([]int{1, 2, 5, 10, 37, 100, 300}).Draw(t, "mean")
	switch rapid.IntRange(0, 4).Draw(t, "service") {
	case 0:
		cfg.Service, cfg.MeanService = Geometric, mean
	case 1:
		cfg.Service, cfg.MeanService = Constant, mean
	case 2:
		cfg.Service, cfg.MeanService = Lognormal, mean
	case 3:
		cfg.Service = Empirical
		cfg.ServiceValues = rapid.SliceOfN(rapid.Int32Range(1, int32(2*mean)), 1, 6).Draw(t, "values")
	default:
		cfg.TaskMin, cfg.TaskMax = max(1, mean/2), mean+mean/2
	}
	load := rapid.Int64Range(10, 130).Draw(t, "loadPercent")
	cfg.Rate = Rate(load * int64(cfg.Servers) * RateScale / 100 / int64(mean))
	cfg.Wave = rapid.IntRange(0, 3).Draw(t, "wave") == 0
	cfg.WavePeriod = rapid.Int64Range(1, 20_000).Draw(t, "wavePeriod")
	cfg.InitialPerServer = rapid.SampledFrom([]int{0, 0, 1, 3, 40}).Draw(t, "initialPerServer")
	cfg.Cycles = rapid.Int64Range(1, 20_000).Draw(t, "cycles")
	if rapid.Bool().Draw(t, "firewall") {
		cfg.Blocked = nil
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(Pooled)).Draw(t, "policy")
	if rapid.IntRange(0, 2).Draw(t, "speeds") == 0 {
		cfg.Speeds = rapid.SliceOfN(rapid.SampledFrom([]Speed{50, 100, 150, 300}), 1, 4).Draw(t, "speedList")
	}
	if rapid.IntRange(0, 2).Draw(t, "weights") == 0 {
		cfg.Weights = rapid.SliceOfN(rapid.IntRange(0, 3), 1, 6).Draw(t, "weightList")
	}
	if rapid.IntRange(0, 2).Draw(t, "hunting") == 0 {
		genHunting(t, &cfg) // a server retires, leaves, and is added back: the pool dips
	}
	if rapid.IntRange(0, 4).Draw(t, "capped") == 0 {
		cfg.QueueCap = rapid.IntRange(1, 20).Draw(t, "queueCap")
	}
	if rapid.IntRange(0, 3).Draw(t, "client") == 0 {
		scale := int64(max(1, mean/5))
		cfg.Timeout = scale * rapid.Int64Range(1, 100).Draw(t, "timeout")
		cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
		cfg.Backoff = scale * rapid.Int64Range(0, 8).Draw(t, "backoff")
		cfg.Jitter = rapid.Bool().Draw(t, "jitter")
		if rapid.Bool().Draw(t, "budget") {
			cfg.RetryBudget = Decimal(rapid.Int64Range(DecimalScale/10, DecimalScale).Draw(t, "retryBudget"))
		}
		if rapid.Bool().Draw(t, "health") {
			cfg.HealthInterval = scale * rapid.Int64Range(1, 20).Draw(t, "healthInterval")
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "queueRules") == 0 {
		genQueueRules(t, &cfg, int64(mean)) // a discipline, shedding (queuerules_test.go)
	}
	return cfg
}

// TestPooledLoopMatchesStepping runs pooled runs the cycle loop takes
// (genPooledLoop), with random changes, to random stops by RunTo and
// built WithPlain (every cycle stepped): cycle, hash, summary, last row,
// servers and queues must agree at every stop. Enough stops must open the
// loop (the gate's pooled ways) for the property to say anything, and
// enough of them with a server idle (the early hand-out to arrivals) and
// with a queue (the early hand-out at completions, and runQueued).
func TestPooledLoopMatchesStepping(t *testing.T) {
	rapidDefaults(300)
	runs, opened, idle, queued := 0, 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		cfg := genPooledLoop(t)
		plain, err := New(cfg, WithPlain())
		if err != nil {
			t.Skip(err) // a drawn combination the validation refuses
		}
		jumped, _ := New(cfg)
		changes := genBusyChanges(t, cfg)
		if err := plain.Schedule(changes...); err != nil {
			t.Skip(err)
		}
		jumped.Schedule(changes...)
		runs++
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 0, 5).Draw(t, "stops")
		slices.Sort(stops)
		for _, stop := range append(stops, cfg.Cycles) {
			if g := jumped.gate(); (g == viaPooled || g == viaSaturated) && stop > jumped.Cycle()+1 {
				opened++
				b := jumped.bal[0]
				if b.idle.n > 0 {
					idle++
				}
				if b.queue.n > 0 {
					queued++
				}
			}
			plain.RunTo(stop)
			stepAndJump(t, plain, jumped, stop)
			// The queue's empty history, which the newest-first
			// hand-outs and shedding read (and the hash covers only
			// while they are on; a change may turn them on later): the
			// cycle it last emptied while it is empty, the cycle since
			// which it has held a request while it holds one.
			p, j := &plain.bal[0].queue, &jumped.bal[0].queue
			if p.n == 0 && p.emptied != j.emptied || p.n > 0 && p.since != j.since {
				t.Fatalf("at cycle %d: the queue's empty history differs: emptied %d, since %d by RunTo; %d, %d stepping",
					stop, j.emptied, j.since, p.emptied, p.since)
			}
		}
	})
	t.Logf("%d runs: %d stops opened the pooled loop, %d with a server idle, %d with a queue", runs, opened, idle, queued)
	if opened < runs || 4*idle < runs || 4*queued < runs {
		t.Errorf("too few stops opened the pooled loop: %d runs, %d opened, %d idle, %d queued", runs, opened, idle, queued)
	}
}

// TestPooledGate: the gate opens the pooled cycle loop to a pooled run of
// one balancer with the oldest-first hand-out, the saturated way while no
// server is idle and the queue may be served apart (and runPooled then
// advances either way), skipAhead alone to a switch, a trace, random
// faults, recorded events or the throttle, the loop without its early
// hand-outs to a discipline or shedding (queuerules.go), and no shortcut
// while a limit is on (the loop does not take them yet).
func TestPooledGate(t *testing.T) {
	base := DefaultConfig()
	base.Seed, base.Cycles = 3, 2000
	base.InitialPerServer = 0 // servers idle at the start
	for _, c := range []struct {
		name   string
		change func(*Config)
		opts   []Option
		want   via
	}{
		{"idle", func(*Config) {}, nil, viaPooled},
		{"queued", func(c *Config) { c.InitialPerServer = 500 }, nil, viaSaturated},
		{"capped", func(c *Config) { c.InitialPerServer, c.QueueCap = 500, 1000 }, nil, viaPooled},
		{"client", func(c *Config) { c.InitialPerServer, c.Timeout = 500, 100_000 }, nil, viaPooled},
		{"switch", func(c *Config) { c.Switch = true }, nil, viaSkip},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(5, 3)} }, nil, viaSkip},
		{"faults", func(c *Config) { c.MTBF, c.MTTR = 500, 10 }, nil, viaSkip},
		{"events", func(*Config) {}, []Option{WithEvents()}, viaSkip},
		{"lifo", func(c *Config) { c.Discipline = Lifo }, nil, viaPooled},
		{"codel", func(c *Config) { c.CodelTarget = 5 }, nil, viaPooled},
		{"throttle", func(c *Config) { c.Throttle = MinThrottle }, nil, viaSkip},
		{"limit", func(c *Config) { c.ConcurrencyLimit = 4 }, nil, viaPooled},
		{"limit queued", func(c *Config) { c.InitialPerServer, c.ConcurrencyLimit = 500, MaxConcurrencyLimit }, nil, viaPooled}, // no saturated stretch (limitskip.go)
	} {
		cfg := base
		c.change(&cfg)
		m, err := New(cfg, c.opts...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := m.gate(); got != c.want {
			t.Fatalf("%s: the gate opens %d, want %d", c.name, got, c.want)
		}
		if (c.want == viaPooled || c.want == viaSaturated) && !m.runPooled(m.bal[0], cfg.Cycles) {
			t.Errorf("%s: the pooled loop did not advance", c.name)
		}
	}
}
