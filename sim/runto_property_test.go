package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genBusyConfig draws a run that keeps its queue long for stretches, so
// that RunTo takes its shortcuts: a few to 30 servers, a large initial queue,
// any policy and service distribution, sometimes a switch, a cap or faults.
func genBusyConfig(t *rapid.T) Config {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	cfg.Servers = rapid.IntRange(1, 30).Draw(t, "servers")
	cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "minServers")
	cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 20).Draw(t, "extraServers")
	cfg.Cycles = rapid.Int64Range(1, 6000).Draw(t, "cycles")
	cfg.TaskMin = rapid.IntRange(1, 30).Draw(t, "taskMin")
	cfg.TaskMax = cfg.TaskMin + rapid.IntRange(0, 60).Draw(t, "taskSpan")
	cfg.InitialPerServer = rapid.IntRange(0, 200).Draw(t, "initialPerServer")
	cfg.Rate = Rate(rapid.Int64Range(0, 6*RateScale).Draw(t, "rate"))
	cfg.Wave = rapid.Bool().Draw(t, "wave")
	cfg.WavePeriod = rapid.Int64Range(1, 5000).Draw(t, "wavePeriod")
	cfg.ScaleUp = Factor(rapid.Int64Range(1, 100_000).Draw(t, "scaleUp"))
	cfg.ScaleDown = Factor(rapid.Int64Range(0, int64(cfg.ScaleUp)-1).Draw(t, "scaleDown"))
	cfg.Cooldown = rapid.Int64Range(1, 60).Draw(t, "cooldown")
	if rapid.IntRange(0, 2).Draw(t, "perServer") == 0 {
		cfg.Queues = PerServer
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "policy")
	if rapid.IntRange(0, 2).Draw(t, "speeds") == 0 {
		cfg.Speeds = []Speed{Speed(rapid.IntRange(50, 300).Draw(t, "speed1")), Speed(rapid.IntRange(50, 300).Draw(t, "speed2"))}
	}
	switch rapid.IntRange(0, 6).Draw(t, "service") {
	case 1:
		cfg.Service, cfg.MeanService = Geometric, rapid.IntRange(1, 40).Draw(t, "meanService")
	case 2:
		cfg.Service, cfg.MeanService = Constant, rapid.IntRange(1, 40).Draw(t, "meanService")
	case 3:
		cfg.Service, cfg.MeanService = Lognormal, rapid.IntRange(1, 40).Draw(t, "meanService")
		cfg.ServiceCV = Decimal(rapid.Int64Range(1, int64(MaxServiceCV)).Draw(t, "cv"))
	case 4:
		cfg.Service, cfg.MeanService = Pareto, rapid.IntRange(1, 40).Draw(t, "meanService")
		cfg.ServiceShape = Decimal(rapid.Int64Range(DecimalScale+1, 5*DecimalScale).Draw(t, "alpha"))
		cfg.ServiceMax = rapid.IntRange(cfg.MeanService, 2000).Draw(t, "serviceMax")
	case 5:
		cfg.Service, cfg.LongShare = Bimodal, Decimal(rapid.Int64Range(0, DecimalScale).Draw(t, "longShare"))
	case 6:
		cfg.Service = Empirical
		cfg.ServiceValues = rapid.SliceOfN(rapid.Int32Range(1, 300), 1, 20).Draw(t, "values")
	}
	if rapid.IntRange(0, 3).Draw(t, "switch") == 0 {
		cfg.Switch = true
	}
	if rapid.IntRange(0, 3).Draw(t, "capped") == 0 {
		cfg.QueueCap = rapid.IntRange(1, 3000).Draw(t, "queueCap")
	}
	if rapid.IntRange(0, 5).Draw(t, "faults") == 0 {
		cfg.MTBF, cfg.MTTR = rapid.Int64Range(1, 3000).Draw(t, "mtbf"), rapid.Int64Range(1, 50).Draw(t, "mttr")
	}
	return cfg
}

// TestRunToMatchesStepping runs random busy configurations, with random
// changes and faults scheduled, to random stops by RunTo and by Step one
// cycle at a time: state, summary and last row must agree at every stop.
func TestRunToMatchesStepping(t *testing.T) {
	checks := 600
	if testing.Short() {
		checks = 60
	}
	rapidDefaults(checks)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genBusyConfig(t)
		stepped, err := New(cfg)
		if err != nil {
			t.Skip(err) // a drawn combination the validation refuses
		}
		jumped, _ := New(cfg)
		var changes []Change
		for range rapid.IntRange(0, 6).Draw(t, "changes") {
			c := Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "changeCycle")}
			switch rapid.IntRange(0, 5).Draw(t, "changeKind") {
			case 0:
				c.Setting, c.Value = SetRate, rapid.Int64Range(0, 6*RateScale).Draw(t, "newRate")
			case 1:
				c.Setting, c.Value = SetCooldown, rapid.Int64Range(1, 60).Draw(t, "newCooldown")
			case 2:
				c.Setting, c.Value = SetTaskMax, int64(cfg.TaskMax+rapid.IntRange(0, 200).Draw(t, "taskMaxUp"))
			case 3:
				c.Setting, c.Value = SetScaleUp, int64(cfg.ScaleUp)+rapid.Int64Range(0, 50_000).Draw(t, "scaleUpUp")
			case 4:
				c.Setting, c.Value = SetDown, int64(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "downID")))
			case 5:
				c.Setting, c.Value = SetUp, int64(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "upID")))
			}
			changes = append(changes, c)
		}
		slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
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
		}
	})
}

// TestRunToSaturatedBound runs the cases where runSaturated's bound on
// dispatches is nearly tight: every server finishes its requests in lock
// step at the shortest time, the queue drains faster than requests arrive,
// and scaling seldom adds a server. A stretch one cycle too long would
// dispatch a request before it arrived.
func TestRunToSaturatedBound(t *testing.T) {
	for _, servers := range []int{1, 3, 20} {
		for _, time := range []int{1, 2, 5} {
			for _, perServer := range []int{4, 15, 60} {
				cfg := DefaultConfig()
				cfg.Seed, cfg.Cycles = 9, 3000
				cfg.Servers, cfg.MinServers, cfg.MaxServers = servers, servers, servers+2
				cfg.Service, cfg.MeanService = Constant, time
				cfg.InitialPerServer = perServer
				cfg.Rate, cfg.Wave = Rate(servers)*RateScale/Rate(2*time), false
				cfg.Cooldown = 60
				stepped, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				jumped, _ := New(cfg)
				t.Logf("%d servers, time %d, %d requests each", servers, time, perServer)
				for _, stop := range []int64{7, 150, 1000, cfg.Cycles} {
					stepAndJump(t, stepped, jumped, stop)
				}
			}
		}
	}
}

// TestRunToDuplicateWheelEntry gives server 1 a second entry in the bucket
// of its completion, as a server that failed and then took a request due
// in the same cycle has: it must complete once, by RunTo as by Step.
func TestRunToDuplicateWheelEntry(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 5, 3000
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	for _, m := range []*Model{stepped, jumped} {
		b := m.bal[0]
		b.wheel.add(b.srv[0].done, 1)
	}
	stepAndJump(t, stepped, jumped, cfg.Cycles)
}
