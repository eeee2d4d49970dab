package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genTimeScaleConfig draws a run at a time scale where most cycles are
// quiet: a pool of one to four servers (fixed half the time), service of
// mean 1 to 2,500 cycles, arrivals for a load of 10% to 120%, any cooldown
// from 1 to 2,000, sometimes the wave, a switch, a cap, random faults, the
// client side and detection (their times scaled to the service) or a
// fleet of balancers, fan-out and hedging: every mechanism that tells
// RunTo when it next acts.
func genTimeScaleConfig(t *rapid.T) Config {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	cfg.Servers = rapid.IntRange(1, 4).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if !rapid.Bool().Draw(t, "fixed") {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "minServers")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 3).Draw(t, "extraServers")
	}
	mean := rapid.SampledFrom([]int{1, 2, 5, 10, 37, 100, 333, 1000, 2500}).Draw(t, "mean")
	switch rapid.IntRange(0, 3).Draw(t, "service") {
	case 0:
		cfg.Service, cfg.MeanService = Geometric, mean
	case 1:
		cfg.Service, cfg.MeanService = Constant, mean
	case 2:
		cfg.Service, cfg.MeanService = Lognormal, mean
	default:
		cfg.TaskMin, cfg.TaskMax = max(1, mean/2), mean+mean/2
	}
	load := rapid.Int64Range(10, 120).Draw(t, "loadPercent")
	cfg.Rate = Rate(load * int64(cfg.Servers) * RateScale / 100 / int64(mean))
	cfg.Wave = rapid.IntRange(0, 3).Draw(t, "wave") == 0
	cfg.WavePeriod = rapid.Int64Range(1, 20_000).Draw(t, "wavePeriod")
	cfg.WaveAmplitude = rapid.IntRange(0, 100).Draw(t, "waveAmplitude")
	cfg.Cooldown = rapid.SampledFrom([]int64{1, 10, 100, 2000}).Draw(t, "cooldown")
	cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(t, "initialPerServer")
	cfg.Cycles = rapid.Int64Range(1, 40_000).Draw(t, "cycles")
	cfg.Blocked = nil
	if rapid.Bool().Draw(t, "perServer") {
		cfg.Queues = PerServer
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "policy")
	switch rapid.IntRange(0, 9).Draw(t, "mechanism") {
	case 0:
		cfg.Switch = true
	case 1:
		cfg.QueueCap = rapid.IntRange(1, 20).Draw(t, "queueCap")
	case 2:
		cfg.MTBF = rapid.Int64Range(100, 100_000).Draw(t, "mtbf")
		cfg.MTTR = rapid.Int64Range(1, 1000).Draw(t, "mttr")
	case 3, 4:
		genClientSettings(t, &cfg)
		scale := int64(max(1, mean/10))
		cfg.Timeout *= scale
		cfg.HealthInterval *= scale
		cfg.Backoff *= scale
	case 5:
		if cfg.Queues == PerServer {
			cfg.Balancers = rapid.IntRange(2, 4).Draw(t, "balancers")
			cfg.LoadInfo = rapid.SampledFrom([]LoadInfo{LoadExact, LoadLocal, 1, 37, 500}).Draw(t, "loadInfo")
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "target") == 0 {
		genTarget(t, &cfg, rapid.SampledFrom([]int64{1, 15, 100, 2000}).Draw(t, "period"))
	}
	genTimeScaleParts(t, &cfg, mean)
	if rapid.IntRange(0, 2).Draw(t, "queueRules") == 0 {
		genQueueRules(t, &cfg, int64(mean)) // a discipline, shedding (queuerules_test.go)
	}
	genLimitScaled(t, &cfg, mean) // limitskip_test.go
	genThrottle(t, &cfg)          // throttleskip_test.go
	return cfg
}

// genTimeScaleParts draws, for a per-server run whose policy routes
// parts, fan-out (2 to 4 parts) a third of the time and hedging (after
// a quarter to twice the mean, up to 4 hedges, a budget or none) a
// quarter of the time, where they combine with what was drawn: the
// per-server shortcuts take their parts and hedges (fanroute.go,
// hedgeskip.go).
func genTimeScaleParts(t *rapid.T, cfg *Config, mean int) {
	if cfg.Queues != PerServer || !fanoutPolicy(cfg.Policy) || cfg.Switch {
		return
	}
	if rapid.IntRange(0, 2).Draw(t, "parts") == 0 {
		cfg.Fanout = rapid.IntRange(2, 4).Draw(t, "fanout")
		cfg.Rate = max(cfg.Rate/Rate(cfg.Fanout), 1) // the same load in parts
	}
	if rapid.IntRange(0, 3).Draw(t, "hedging") == 0 {
		cfg.HedgeAfter = max(1, rapid.Int64Range(int64(mean)/4, 2*int64(mean)).Draw(t, "hedgeAfter"))
		cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
		if rapid.Bool().Draw(t, "hedgeBudget") {
			cfg.HedgeBudget = Decimal(rapid.Int64Range(1, DecimalScale).Draw(t, "hedgeBudgetF"))
		}
		dropRefusedHedging(cfg)
	}
}

// genTarget turns target tracking on with period p: any metric, a target
// its metric allows, a tolerance and a window (both stored plus one, 0
// for the default).
func genTarget(t *rapid.T, cfg *Config, p int64) {
	cfg.Autoscaler, cfg.ScalePeriod = TargetTracking, p
	cfg.ScaleMetric = ScaleMetric(rapid.IntRange(0, len(scaleMetricNames)-1).Draw(t, "metric"))
	hi := int64(3 * DecimalScale)
	if cfg.ScaleMetric == MetricUtilization {
		hi = DecimalScale
	}
	cfg.ScaleTarget = Decimal(rapid.Int64Range(int64(MinScaleTarget), hi).Draw(t, "scaleTarget"))
	cfg.ScaleTolerance = Decimal(rapid.Int64Range(0, DecimalScale/4).Draw(t, "scaleTolerance"))
	cfg.ScaleDownWindow = rapid.Int64Range(0, 3*p+1).Draw(t, "scaleDownWindow")
}

// TestJumpMatchesSteppingAtTimeScales runs random quiet-cycled runs (see
// genTimeScaleConfig), with random changes, to random stops by RunTo and by
// Step one cycle at a time: cycle, hash, summary, last row, servers and
// queues must agree at every stop, and a run recording its events must
// record the same events in the last cycle.
func TestJumpMatchesSteppingAtTimeScales(t *testing.T) {
	checks := 300
	if testing.Short() {
		checks = 40
	}
	rapidDefaults(checks)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genTimeScaleConfig(t)
		var opts []Option
		events := rapid.IntRange(0, 3).Draw(t, "events") == 0
		if events {
			opts = append(opts, WithEvents())
		}
		stepped, err := New(cfg, opts...)
		if err != nil {
			t.Skip(err) // a drawn combination the validation refuses
		}
		jumped, _ := New(cfg, opts...)
		changes := genBusyChanges(t, cfg)
		if cfg.Timeout > 0 || cfg.HealthInterval > 0 {
			changes = append(changes, genClientChanges(t, cfg)...)
			slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
		}
		if err := stepped.Schedule(changes...); err != nil {
			t.Skip(err)
		}
		jumped.Schedule(changes...)
		stops := []int64{cfg.Cycles}
		for range rapid.IntRange(0, 4).Draw(t, "stops") {
			stops = append(stops, rapid.Int64Range(1, cfg.Cycles).Draw(t, "stop"))
		}
		slices.Sort(stops)
		for _, stop := range stops {
			stepAndJump(t, stepped, jumped, stop)
			if events && !slices.Equal(jumped.Events(), stepped.Events()) {
				t.Fatalf("at cycle %d: events differ:\n%v\n%v", stop, jumped.Events(), stepped.Events())
			}
		}
	})
}

// TestRunToScalesWhenARetiringServerLeaves: a pool of seven to eight
// servers retires one with a long queue, which leaves it at its most live
// servers and its fewest active ones, so no evaluation could act but for
// the retiring server: once it leaves (inside a saturated stretch), the
// pool is below its most servers and scaling adds one back at cycle 90.
// The shortcuts must not pass that evaluation as one that cannot act
// (scaleFixed).
func TestRunToScalesWhenARetiringServerLeaves(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Wave, cfg.Blocked, cfg.Rate = 4, 400, false, nil, 0
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 8, 7, 8
	cfg.TaskMin, cfg.TaskMax = 1, 13
	cfg.InitialPerServer, cfg.Cooldown = 50, 10
	cfg.ScaleDown, cfg.ScaleUp = 39*FactorScale, 40*FactorScale
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	for stop := int64(1); stop <= cfg.Cycles; stop += 10 {
		stepAndJump(t, stepped, jumped, stop) // a shortcut starts after every evaluation
	}
	if got := stepped.Totals(); got.ScaleDowns == 0 || got.ScaleUps == 0 {
		t.Fatalf("the run scaled down %d and up %d times, want both", got.ScaleDowns, got.ScaleUps)
	}
}
