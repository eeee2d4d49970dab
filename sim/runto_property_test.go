package sim

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// busyLimits bound what genBusyConfigWithin draws.
type busyLimits struct {
	servers  int   // at most this many servers at the start
	cycles   int64 // at most this many cycles
	initial  int   // at most this many initial requests per server
	taskSpan int   // task-max − task-min at most this
}

// busyDefaults are genBusyConfig's limits: long enough for every RunTo
// shortcut to take long stretches.
var busyDefaults = busyLimits{servers: 30, cycles: 6000, initial: 200, taskSpan: 60}

// genBusyConfig draws a run that keeps its queue long for stretches, so
// that RunTo takes its shortcuts: a few to 30 servers, a large initial queue,
// any policy and service distribution, speeds and weights (zeros included)
// for any policy, sometimes a switch, a cap or faults, and sometimes scaling
// settings that make the pool hunt (see genHunting).
func genBusyConfig(t *rapid.T) Config { return genBusyConfigWithin(t, busyDefaults) }

// genBusyConfigWithin is genBusyConfig within lim.
func genBusyConfigWithin(t *rapid.T, lim busyLimits) Config {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	cfg.Servers = rapid.IntRange(1, lim.servers).Draw(t, "servers")
	cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "minServers")
	cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 20).Draw(t, "extraServers")
	cfg.Cycles = rapid.Int64Range(1, lim.cycles).Draw(t, "cycles")
	cfg.TaskMin = rapid.IntRange(1, 30).Draw(t, "taskMin")
	cfg.TaskMax = cfg.TaskMin + rapid.IntRange(0, lim.taskSpan).Draw(t, "taskSpan")
	cfg.InitialPerServer = rapid.IntRange(0, lim.initial).Draw(t, "initialPerServer")
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
		for range rapid.IntRange(1, 5).Draw(t, "speedCount") {
			v := Speed(rapid.IntRange(50, 300).Draw(t, "speed"))
			if rapid.IntRange(0, 9).Draw(t, "oddSpeed") == 0 {
				// The slowest (a request takes 100 times its time: the
				// timing wheel grows), very slow, and the fastest.
				v = rapid.SampledFrom([]Speed{MinSpeed, 3, 33, MaxSpeed}).Draw(t, "extremeSpeed")
			}
			cfg.Speeds = append(cfg.Speeds, v)
		}
	}
	switch rapid.IntRange(0, 5).Draw(t, "weights") {
	case 0, 1:
		for range rapid.IntRange(1, 6).Draw(t, "weightCount") {
			cfg.Weights = append(cfg.Weights, rapid.IntRange(0, 3).Draw(t, "weight")) // 0 a quarter of the time
		}
	case 2:
		// Every server at the start weighs 0: swrr and least-connections
		// place nothing (the lobby holds it) until scaling adds one.
		cfg.Weights = make([]int, cfg.Servers)
	}
	cfg.Choices = rapid.IntRange(0, 4).Draw(t, "choices")
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
	switch rapid.IntRange(0, 5).Draw(t, "capped") {
	case 0:
		cfg.QueueCap = rapid.IntRange(1, 3000).Draw(t, "queueCap")
	case 1:
		cfg.QueueCap = rapid.IntRange(1, 20).Draw(t, "queueCap") // discards often
	}
	if rapid.IntRange(0, 5).Draw(t, "faults") == 0 {
		cfg.MTBF, cfg.MTTR = rapid.Int64Range(1, 3000).Draw(t, "mtbf"), rapid.Int64Range(1, 50).Draw(t, "mttr")
		// A failing server's queue is routed again: with few servers up
		// and neither shedding nor a cap, the backlog grows with the run
		// and each fault moves it (work grows as the cycles squared: one
		// run of 5,704 cycles took 100 s). Random faults close every
		// shortcut, so these runs lose nothing by being short.
		cfg.Cycles = min(cfg.Cycles, 600)
	}
	if rapid.IntRange(0, 3).Draw(t, "hunting") == 0 {
		genHunting(t, &cfg)
	}
	genLimit(t, &cfg, 60)
	genRest(t, &cfg, busyShaped)
	genOverload(t, &cfg)
	if rapid.IntRange(0, 5).Draw(t, "lifo") == 5 { // about a sixth of the time
		cfg.Discipline = rapid.SampledFrom([]Discipline{Lifo, AdaptiveLifo}).Draw(t, "discipline")
	}
	if cfg.HedgeAfter != 0 && rapid.IntRange(0, 2).Draw(t, "hedged") != 1 {
		cfg.HedgeAfter, cfg.HedgeMax, cfg.HedgeBudget = 0, 0, 0 // most per-server runs do not hedge
	}
	dropRefusedHedging(&cfg)
	return cfg
}

// dropRefusedHedging turns hedging off in cfg where it is refused (it
// does not yet combine with everything).
func dropRefusedHedging(cfg *Config) {
	if cfg.HedgeAfter == 0 {
		return
	}
	var fe *FieldError
	if err := cfg.Validate(); errors.As(err, &fe) && (fe.Field == "hedge-after" || fe.Field == "policy") {
		cfg.HedgeAfter, cfg.HedgeMax, cfg.HedgeBudget = 0, 0, 0
	}
}

// genOverload draws shedding and the throttle, each on about a fifth of
// the time and both about a fifteenth (rapid favours a range's ends: the
// draws pick from its middle), so that most runs have neither and the
// shortcuts, which take them in part or not at all, stay drawn.
func genOverload(t *rapid.T, cfg *Config) {
	k := rapid.IntRange(0, 11).Draw(t, "overload")
	if k >= 4 && k <= 6 {
		cfg.CodelTarget = rapid.Int64Range(1, cfg.codelInterval()).Draw(t, "codelTarget")
	}
	if k >= 6 && k <= 8 {
		cfg.Throttle = Hundredths(rapid.Int64Range(int64(MinThrottle), int64(MaxThrottle)).Draw(t, "throttle"))
	}
}

// busyShaped are the rows genBusyConfigWithin draws in a shape of its own,
// or leaves to the tests that draw them (the client side, the rows --fault
// takes and fail-time: genClientSettings; fleets: the fleet's reference
// test); genRest draws the rest.
var busyShaped = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range []string{"servers", "min-servers", "max-servers", "cycles", "task-min", "task-max",
		"initial-per-server", "rate", "wave", "wave-period", "scale-up", "scale-down", "cooldown", "queues", "policy",
		"choices", "service", "mean-service", "service-cv", "service-shape", "service-max", "long-share", "switch",
		"queue-cap", "mtbf", "mttr", "balancers", "fail-time", "concurrency-limit",
		"codel-target", "throttle", "discipline"} {
		m[name] = true
	}
	for _, r := range Rows() {
		if r.FaultKind {
			m[r.Name] = true
		}
	}
	return m
}()

// genHunting sets scaling that makes a busy pool hunt: with Q requests
// queued per the initial S servers, scale-down acts while Q < D·S and
// scale-up once Q > U·(S − 1), so D and U are drawn between Q/S and
// Q/(S − 1). A busy server retires, leaves when it completes, and a
// server is added at a later evaluation: the pool's minimum dips for a
// few cycles, which RunTo must see as stepping does.
func genHunting(t *rapid.T, cfg *Config) {
	if cfg.Servers < 2 || cfg.InitialPerServer == 0 {
		return
	}
	q := int64(cfg.InitialPerServer) * FactorScale // Q/S
	span := q / int64(cfg.Servers-1)               // Q/(S−1) − Q/S
	lo := rapid.Int64Range(0, span).Draw(t, "huntDown")
	hi := rapid.Int64Range(lo+1, span+1).Draw(t, "huntUp")
	cfg.ScaleDown, cfg.ScaleUp = Factor(q+lo), Factor(q+hi)
	cfg.MinServers = rapid.IntRange(1, cfg.Servers-1).Draw(t, "huntMin")
	cfg.Cooldown = rapid.Int64Range(1, 30).Draw(t, "huntCooldown")
	if rapid.Bool().Draw(t, "huntAtMax") {
		// At the maximum, a scale-up waits for the retiring server to
		// leave: the dip always shows, however long it serves.
		cfg.MaxServers = cfg.Servers
	}
}

// TestRunToPoolDips runs pools that hunt (genHunting) with every RunTo
// shortcut open to them (one balancer, no cap, no faults), stopping RunTo
// at every scaling evaluation: a stop there is where a server that left in
// the cycle before, inside a shortcut, and a scale-up in the stopping
// cycle would hide the pool's dip from everything but the shortcut's own
// record of it. State, summary (servers_min included) and last row must
// agree with stepping at every stop. Two runs in three are per-server with
// short tasks, few servers, evaluations two or three cycles apart and the
// pool at its maximum, so that retiring servers empty their queues and
// leave often, and a leave falls on a window's last cycle before a stop.
func TestRunToPoolDips(t *testing.T) {
	checks := 400
	if testing.Short() {
		checks = 40
	}
	rapidDefaults(checks)
	rapid.Check(t, func(t *rapid.T) {
		perServer := rapid.IntRange(0, 2).Draw(t, "perServerDips") > 0
		lim := busyLimits{servers: 8, cycles: 800, initial: 60, taskSpan: 30}
		if perServer {
			lim = busyLimits{servers: 4, cycles: 300, initial: 10, taskSpan: 2}
		}
		cfg := genBusyConfigWithin(t, lim)
		cfg.Switch, cfg.QueueCap, cfg.MTBF, cfg.MTTR = false, 0, 0, 0
		cfg.Servers = max(cfg.Servers, 2)
		cfg.MinServers = min(cfg.MinServers, cfg.Servers)
		cfg.MaxServers = max(cfg.MaxServers, cfg.Servers)
		cfg.InitialPerServer = max(cfg.InitialPerServer, 1)
		if perServer {
			cfg.Queues = PerServer
			cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "dipPolicy")
			cfg.Service = Uniform
			cfg.TaskMin = rapid.IntRange(1, 3).Draw(t, "dipTaskMin")
			cfg.TaskMax = cfg.TaskMin + rapid.IntRange(0, 2).Draw(t, "dipTaskSpan")
			cfg.Speeds, cfg.Weights = nil, nil // no server slow to empty its queue, none left out
			if !fanoutPolicy(cfg.Policy) {
				cfg.Fanout = 0 // the policy drawn cannot route parts
			}
		}
		genHunting(t, &cfg)
		if perServer {
			cfg.Cooldown = rapid.Int64Range(2, 3).Draw(t, "dipCooldown")
			cfg.MaxServers = cfg.Servers
		}
		dropRefusedHedging(&cfg)
		stepped, err := New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		jumped, _ := New(cfg)
		for stop := cfg.Cooldown; stop < cfg.Cycles; stop += cfg.Cooldown {
			stepAndJump(t, stepped, jumped, stop)
		}
		stepAndJump(t, stepped, jumped, cfg.Cycles)
	})
}

// TestRunToKeepsPoolDip: in this pooled run (`lbsim run --seed 52 --cycles
// 300 --servers 4 --scale-up 95 --scale-down 80 --rate 0.2 --task-min 1
// --task-max 20 --wave=false`) a retiring server leaves inside a saturated
// stretch and scaling restores the pool before any stepped cycle sees it,
// when RunTo stops every 30 cycles as the command's status lines do:
// servers_min is 3 by stepping, and must be by RunTo.
func TestRunToKeepsPoolDip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers = 52, 300, 4
	cfg.ScaleUp, cfg.ScaleDown = 95*FactorScale, 80*FactorScale
	cfg.Rate, cfg.Wave = RateScale/5, false
	cfg.TaskMin, cfg.TaskMax = 1, 20
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for stepped.Step() {
	}
	jumped, _ := New(cfg)
	for stop := int64(30); stop <= cfg.Cycles; stop += 30 {
		jumped.RunTo(stop)
	}
	if got := stepped.Summary().ServersMin; got != 3 {
		t.Fatalf("stepping: servers_min %d, want 3", got)
	}
	if got := jumped.Summary().ServersMin; got != 3 {
		t.Errorf("RunTo: servers_min %d, want 3 as stepping gives", got)
	}
	if !reflect.DeepEqual(jumped.Summary(), stepped.Summary()) {
		t.Errorf("RunTo's summary differs from stepping's:\n%+v\n%+v", jumped.Summary(), stepped.Summary())
	}
}

// genBusyChanges draws up to six changes for a run of cfg, in cycle order:
// settings (rate, cooldown, task range, scaling, policy, cap, pool bounds,
// block lists) and explicit faults of either balancer; some may be refused
// together, which Schedule reports.
func genBusyChanges(t *rapid.T, cfg Config) []Change {
	var changes []Change
	bals := 1
	if cfg.Switch {
		bals = 2
	}
	for range rapid.IntRange(0, 6).Draw(t, "changes") {
		c := Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "changeCycle")}
		switch rapid.IntRange(0, 11).Draw(t, "changeKind") {
		case 0:
			c.Setting, c.Value = SetRate, rapid.Int64Range(0, 6*RateScale).Draw(t, "newRate")
		case 1:
			c.Setting, c.Value = SetCooldown, rapid.Int64Range(1, 60).Draw(t, "newCooldown")
		case 2:
			c.Setting, c.Value = SetTaskMax, int64(cfg.TaskMax+rapid.IntRange(0, 200).Draw(t, "taskMaxUp"))
		case 3:
			c.Setting, c.Value = SetScaleUp, int64(cfg.ScaleUp)+rapid.Int64Range(0, 50_000).Draw(t, "scaleUpUp")
		case 4:
			c.Setting, c.Value = SetDown, int64(MakeServerRef(rapid.IntRange(0, bals-1).Draw(t, "downBal"), rapid.IntRange(1, cfg.Servers+2).Draw(t, "downID")))
		case 5:
			c.Setting, c.Value = SetUp, int64(MakeServerRef(rapid.IntRange(0, bals-1).Draw(t, "upBal"), rapid.IntRange(1, cfg.Servers+2).Draw(t, "upID")))
		case 6:
			c.Setting, c.Value = SetPolicy, int64(rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "newPolicy"))
		case 7:
			c.Setting, c.Value = SetQueueCap, int64(rapid.IntRange(0, 40).Draw(t, "newQueueCap"))
		case 8:
			c.Setting, c.Value = SetScaleDown, rapid.Int64Range(0, int64(cfg.ScaleDown)).Draw(t, "scaleDownDown")
		case 9:
			c.Setting, c.Value = SetMinServers, int64(rapid.IntRange(1, cfg.MinServers).Draw(t, "newMinServers"))
		case 10:
			c.Setting, c.Value = SetMaxServers, int64(cfg.MaxServers+rapid.IntRange(0, 5).Draw(t, "maxServersUp"))
		case 11:
			first := rapid.Uint32().Draw(t, "blockFirst")
			c.Setting, c.Value = SetBlock, RangeValue(Range{First: first, Last: first + min(rapid.Uint32Range(0, 1<<30).Draw(t, "blockSize"), ^first)})
		}
		changes = append(changes, c)
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
	if cfg.Autoscaler == TargetTracking {
		targetChanges(t, cfg, changes)
	}
	return changes
}

// targetChanges turns the queue rule's changes, which target tracking
// refuses, into changes of its own settings: the target, the tolerance
// and the window (the last two stored plus one).
func targetChanges(t *rapid.T, cfg Config, changes []Change) {
	for i := range changes {
		c := &changes[i]
		switch c.Setting {
		case SetCooldown:
			hi := int64(3 * DecimalScale)
			if cfg.ScaleMetric == MetricUtilization {
				hi = DecimalScale
			}
			c.Setting, c.Value = SetScaleTarget, rapid.Int64Range(int64(MinScaleTarget), hi).Draw(t, "newScaleTarget")
		case SetScaleUp:
			c.Setting, c.Value = SetScaleTolerance, 1+rapid.Int64Range(0, DecimalScale/2).Draw(t, "newScaleTolerance")
		case SetScaleDown:
			c.Setting, c.Value = SetScaleDownWindow, 1+rapid.Int64Range(0, 200).Draw(t, "newScaleDownWindow")
		}
	}
}

// TestRunToMatchesStepping runs random busy configurations, with random
// changes and faults scheduled, to random stops by RunTo and by Step one
// cycle at a time: state, summary and last row must agree at every stop.
// It fails if the shortcuts are taken too rarely (the gate, read at each
// stop): of 300 runs or more (the default checks, not -short), a third
// must open one, and each of skipAhead and the saturated, routed and
// pooled stretches one run in 100 (the default checks open 1.5 to 15
// times that; skipAhead counts only without random faults, which it
// does not pass).
func TestRunToMatchesStepping(t *testing.T) {
	checks := 600
	if testing.Short() {
		checks = 60
	}
	rapidDefaults(checks)
	runs, open := 0, 0
	var opened [viaPooled + 1]int
	rapid.Check(t, func(t *rapid.T) {
		cfg := genBusyConfig(t)
		stepped, err := New(cfg)
		if err != nil {
			t.Skip(err) // a drawn combination the validation refuses
		}
		jumped, _ := New(cfg)
		changes := genBusyChanges(t, cfg)
		if err := stepped.Schedule(changes...); err != nil {
			t.Skip(err)
		}
		jumped.Schedule(changes...)
		stops := []int64{cfg.Cycles}
		for range rapid.IntRange(0, 4).Draw(t, "stops") {
			stops = append(stops, rapid.Int64Range(1, cfg.Cycles).Draw(t, "stop"))
		}
		slices.Sort(stops)
		var seen [viaPooled + 1]bool
		for _, stop := range stops {
			if g := jumped.gate(); g != viaSkip || cfg.MTBF == 0 { // skipAhead passes nothing while faults may strike
				seen[g] = true
			}
			stepAndJump(t, stepped, jumped, stop)
		}
		runs++
		for g, ok := range seen {
			if ok {
				opened[g]++
			}
		}
		if slices.Contains(seen[viaSkip:], true) {
			open++
		}
	})
	t.Logf("%d runs: %d opened a shortcut at a stop; skipAhead %d, saturated %d, routed %d, pooled %d",
		runs, open, opened[viaSkip], opened[viaSaturated], opened[viaRouted], opened[viaPooled])
	if runs >= 300 && (3*open < runs || slices.ContainsFunc(opened[viaSkip:], func(n int) bool { return 100*n < runs })) {
		t.Errorf("too few runs opened RunTo's shortcuts: %d runs, %d opened one, by via %v", runs, open, opened)
	}
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

// TestRunToWindowKeepsPoolDip is TestRunToKeepsPoolDip for per-server
// windows: server 2 retires at cycle 2 and leaves at 3, the last cycle of
// a window when RunTo stops at 4, where scaling adds server 3. Stepping
// gives servers_min 1 from cycle 3 on; so must RunTo.
func TestRunToWindowKeepsPoolDip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 0, 5
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 2, 1, 2
	cfg.TaskMin, cfg.TaskMax, cfg.InitialPerServer = 1, 1, 2
	cfg.Rate, cfg.Wave = 1_198_854, false
	cfg.Queues, cfg.Policy, cfg.Speeds = PerServer, RoundRobin, []Speed{50}
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 2001, 2000, 2
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	for _, stop := range []int64{2, 4, 5} {
		stepAndJump(t, stepped, jumped, stop)
		if stop < 3 {
			continue
		}
		if got := stepped.Summary().ServersMin; got != 1 {
			t.Fatalf("cycle %d: stepping gives servers_min %d, want 1 (the test's premise)", stop, got)
		}
	}
}

// twins makes two models of cfg with changes scheduled, one to step and
// one to take RunTo's shortcuts, or skips the draw where New or Schedule
// refuses them.
func twins(t *rapid.T, cfg Config, changes []Change) (stepped, jumped *Model) {
	stepped, err := New(cfg)
	if err != nil {
		t.Skip(err)
	}
	if err := stepped.Schedule(changes...); err != nil {
		t.Skip(err)
	}
	jumped, _ = New(cfg)
	_ = jumped.Schedule(changes...)
	return stepped, jumped
}
