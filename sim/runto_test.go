package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestRunToEqualsStepping checks that skipping quiet cycles changes nothing:
// RunTo reaches the same state, summary and last row as Step one by one.
func TestRunToEqualsStepping(t *testing.T) {
	sparse := DefaultConfig()
	sparse.Seed, sparse.Cycles, sparse.Rate, sparse.InitialPerServer, sparse.Wave = 3, 200_000, 2_000, 1, false
	wavy := DefaultConfig()
	wavy.Seed, wavy.Cycles, wavy.Rate, wavy.Cooldown = 4, 100_000, 30_000, 37
	tr := traceConfig(3, 5000, row(0, 7), row(40, 3), row(41, 90), row(2000, 5), row(2000, 1), row(4999, 2))
	sw := DefaultConfig()
	sw.Seed, sw.Cycles, sw.Switch, sw.Rate = 5, 50_000, true, 10_000
	cases := map[string]struct {
		cfg     Config
		changes []Change
	}{
		"sparse":  {cfg: sparse, changes: []Change{{Cycle: 70_001, Setting: SetRate, Value: 50_000}, {Cycle: 150_000, Setting: SetCooldown, Value: 1000}}},
		"wave":    {cfg: wavy},
		"trace":   {cfg: tr, changes: []Change{{Cycle: 1500, Setting: SetTaskMax, Value: 500}}},
		"switch":  {cfg: sw, changes: []Change{{Cycle: 900, Setting: SetDown, Value: int64(MakeServerRef(1, 3))}}},
		"default": {cfg: defaultSeed1()},
	}
	for _, p := range PoliciesFor(PerServer) {
		ps := defaultSeed1()
		ps.Queues, ps.Policy, ps.Speeds = PerServer, p, []Speed{200, 100, 50}
		cases["per-server/"+p.String()] = struct {
			cfg     Config
			changes []Change
		}{cfg: ps, changes: []Change{{Cycle: 20_000, Setting: SetDown, Value: int64(MakeServerRef(0, 2))}, {Cycle: 30_000, Setting: SetUp, Value: int64(MakeServerRef(0, 2))}}}
	}
	// Windows as long as they get (a scaling evaluation every 5,000 cycles),
	// with services long enough that a window's last entries can wrap
	// around the timing wheel.
	long := defaultSeed1()
	long.Queues, long.Policy, long.Speeds = PerServer, RoundRobin, []Speed{50}
	long.Cooldown, long.TaskMax, long.Rate, long.Cycles = 5000, 3000, 20_000, 60_000
	cases["per-server/long windows"] = struct {
		cfg     Config
		changes []Change
	}{cfg: long}
	// A server retires with a queue, then the arrivals surge: scaling up
	// must wait for it to leave (the pool is at its maximum until then),
	// and act at the first evaluation after.
	retiring := defaultSeed1()
	retiring.Queues, retiring.Policy, retiring.Wave, retiring.Blocked = PerServer, Random, false, nil
	retiring.Servers, retiring.MinServers, retiring.MaxServers = 3, 1, 3
	retiring.InitialPerServer, retiring.Rate, retiring.Cycles = 5, 0, 3000
	retiring.ScaleDown, retiring.ScaleUp, retiring.Cooldown = 10*FactorScale, 20*FactorScale, 10
	cases["per-server/retiring"] = struct {
		cfg     Config
		changes []Change
	}{cfg: retiring, changes: []Change{{Cycle: 15, Setting: SetRate, Value: 1 * RateScale}}}
	capped := defaultSeed1()
	capped.Queues, capped.Policy, capped.QueueCap = PerServer, LeastConnections, 60
	cases["per-server/capped"] = struct {
		cfg     Config
		changes []Change
	}{cfg: capped}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			stepped, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			jumped, _ := New(c.cfg)
			stepped.Schedule(c.changes...)
			jumped.Schedule(c.changes...)
			for _, stop := range []int64{1, 17, 999, c.cfg.Cycles / 3, c.cfg.Cycles} {
				stepAndJump(t, stepped, jumped, stop)
			}
		})
	}
}

// stepAndJump brings stepped to cycle stop by Step and jumped by RunTo, and
// fails unless the two agree on the cycle, the state, the summary and the
// last row.
func stepAndJump(t tester, stepped, jumped *Model, stop int64) {
	t.Helper()
	for stepped.Cycle() < stop && stepped.Step() {
	}
	jumped.RunTo(stop)
	if jumped.Cycle() != stepped.Cycle() || jumped.Hash() != stepped.Hash() ||
		!reflect.DeepEqual(jumped.Summary(), stepped.Summary()) || jumped.Last() != stepped.Last() {
		t.Fatalf("at cycle %d: RunTo and Step differ:\n%+v\n%+v\nlast %+v\n     %+v", stop,
			jumped.Summary(), stepped.Summary(), jumped.Last(), stepped.Last())
	}
	if a, b := poolState(jumped), poolState(stepped); a != b {
		t.Fatalf("at cycle %d: RunTo and Step leave different servers and queues:\n%s\n%s", stop, a, b)
	}
	sameThrottle(t, jumped, stepped)
	checkInvariants(t, jumped)
}

// poolState describes every server of every balancer (state, request in
// service, completion cycle, own queue) and every queue's requests, for
// comparing two models beyond Hash.
func poolState(m *Model) string {
	var s strings.Builder
	for _, b := range m.bal {
		fmt.Fprintf(&s, "[%s] rr %d:", b.name, b.routerDigest())
		for i := range b.CentralLen() {
			fmt.Fprintf(&s, " %d", b.QueueAt(i).ID)
		}
		for v := range b.Servers() {
			fmt.Fprintf(&s, "\n  %d %v %d@%d:", v.ID, v.State, v.Request.ID, v.Done)
			for i := range v.Queued {
				fmt.Fprintf(&s, " %d", b.ServerQueueAt(v.ID, i).ID)
			}
		}
		s.WriteString("\n")
	}
	return s.String()
}

// TestRunToScalesAfterALeave: at cycle 38 of this run a retiring server
// completes its last request and leaves, and scaling, asked after that in
// step c, finds the pool below its maximum and adds a server, which takes a
// request at once. A saturated stretch once asked scaling before the
// completions and missed the scale-up (found by TestRunToMatchesStepping).
func TestRunToScalesAfterALeave(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 1, 39
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 1, 2
	cfg.TaskMin, cfg.TaskMax = 30, 30
	cfg.InitialPerServer = 0
	cfg.Rate, cfg.Wave = 379855, false
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 2, 1, 1
	cfg.Speeds = []Speed{50, 50}
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	stepAndJump(t, stepped, jumped, cfg.Cycles)
	if s := stepped.Summary(); s.ScaleUps != 3 || s.ServersFinal != 2 {
		t.Fatalf("the run no longer scales up after the leave (%d scale-ups, %d servers): the test proves nothing", s.ScaleUps, s.ServersFinal)
	}
}

// TestWindowsRunByWhatPoliciesRead: RunTo runs the default per-server run
// (saturated: no server is ever free) in windows under the policies whose
// picks pass 1 can work out, and a cycle at a time under those that read
// loads (the equality tests above check both against Step).
func TestWindowsRunByWhatPoliciesRead(t *testing.T) {
	for _, p := range PoliciesFor(PerServer) {
		cfg := defaultSeed1()
		cfg.Queues, cfg.Policy, cfg.Cycles = PerServer, p, 5000
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Run()
		want := m.bal[0].caps.Reads != ReadsLoads && m.bal[0].fleet == nil // a fleet steps every cycle
		if windows := m.win != nil; windows != want {
			t.Errorf("%s: ran in windows = %v, want %v", p, windows, want)
		}
	}
	capped := defaultSeed1()
	capped.Queues, capped.Policy, capped.QueueCap, capped.Cycles = PerServer, RoundRobin, 50, 5000
	m, _ := New(capped)
	if m.Run(); m.win != nil {
		t.Error("a capped queue ran in windows: its cap must see each request leave")
	}
}

// TestRunToPoolLowAtWindowEnd is a run TestRunToMatchesStepping found (seed
// 2): in a window a retiring server leaves at the last cycle, where
// scaling adds one. The pool's low point counts the ends of cycles, not the
// middle of that one.
func TestRunToPoolLowAtWindowEnd(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 13515, 43, 10, 1, 10
	cfg.TaskMin, cfg.TaskMax, cfg.InitialPerServer, cfg.Rate, cfg.Wave = 1, 1, 2, 78024, false
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 2, 1, 1
	cfg.Queues, cfg.Policy, cfg.Speeds = PerServer, Hash, []Speed{50, 50}
	cfg.Service, cfg.MeanService = Geometric, 18
	changes := []Change{{Cycle: 1, Setting: SetCooldown, Value: 1}, {Cycle: 1, Setting: SetCooldown, Value: 1},
		{Cycle: 2, Setting: SetCooldown, Value: 1}, {Cycle: 3, Setting: SetCooldown, Value: 1}}
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	stepped.Schedule(changes...)
	jumped.Schedule(changes...)
	stepAndJump(t, stepped, jumped, cfg.Cycles)
}

// TestTouchedRingRoutesAsStepping runs hash routing over a ring large
// enough that pass 1 looks each cycle's arrivals up together (ringOwners,
// touchRingPoints), with scaling that grows the ring and a server that
// fails and comes back, and checks RunTo against Step.
func TestTouchedRingRoutesAsStepping(t *testing.T) {
	cfg := defaultSeed1()
	cfg.Queues, cfg.Policy, cfg.Wave = PerServer, Hash, false
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 1100, 1000, 1200
	cfg.TaskMin, cfg.TaskMax, cfg.InitialPerServer = 10, 90, 1
	cfg.Rate, cfg.Cycles, cfg.Cooldown = 25*RateScale, 3000, 50 // above the pool's 22 a cycle
	cfg.ScaleUp, cfg.ScaleDown = 2*FactorScale, 1*FactorScale
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	changes := []Change{{Cycle: 700, Setting: SetDown, Value: int64(MakeServerRef(0, 5))}, {Cycle: 1500, Setting: SetUp, Value: int64(MakeServerRef(0, 5))}}
	stepped.Schedule(changes...)
	jumped.Schedule(changes...)
	for _, stop := range []int64{1, 400, 1600, cfg.Cycles} {
		stepAndJump(t, stepped, jumped, stop)
	}
	if h := jumped.bal[0].rt.(*hashRouter); jumped.win == nil || h.touched == 0 {
		t.Fatal("no window touched the ring")
	}
	if s := jumped.Summary(); s.ScaleUps == 0 {
		t.Fatalf("no scale-up: the ring never grew (%d servers at the end)", s.ServersFinal)
	}
}

// TestLeastWorkWindowsFree: least-work windows start with every server
// busy; at 91% utilisation servers run out of work within a window, pass 1
// frees them, and later arrivals go to them. RunTo stops every 37 cycles,
// so that the index is checked at many windows' ends (runWindow frees the
// servers pass 2 left without work).
func TestLeastWorkWindowsFree(t *testing.T) {
	cfg := defaultSeed1()
	cfg.Queues, cfg.Policy, cfg.Wave, cfg.Blocked = PerServer, LeastWork, false, nil
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 4, 4, 4
	cfg.Speeds, cfg.InitialPerServer = []Speed{200, 100, 50}, 3
	cfg.Rate, cfg.Cooldown, cfg.Cycles = 90_000, 400, 20_000
	stepped, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jumped, _ := New(cfg)
	for stop := int64(1); stop <= cfg.Cycles; stop += 37 {
		stepAndJump(t, stepped, jumped, stop)
	}
	if jumped.win == nil {
		t.Fatal("no window ran")
	}
}

// TestPlainStepsEveryCycle: WithPlain keeps RunTo off every shortcut (no
// window is ever run) and gives what the shortcuts give, for a per-server
// run that takes windows and a pooled one that takes saturated stretches.
func TestPlainStepsEveryCycle(t *testing.T) {
	perServer := defaultSeed1()
	perServer.Queues, perServer.Policy, perServer.Cycles = PerServer, RoundRobin, 5000
	pooled := defaultSeed1()
	pooled.Cycles = 5000
	for _, cfg := range []Config{perServer, pooled} {
		fast, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := New(cfg, WithPlain())
		fast.Run()
		plain.Run()
		if plain.win != nil {
			t.Errorf("%v: the plain run ran a window", cfg.Queues)
		}
		if cfg.Queues == PerServer && fast.win == nil {
			t.Errorf("%v: the run took no window: the test proves nothing", cfg.Queues)
		}
		if fast.Hash() != plain.Hash() || !reflect.DeepEqual(fast.Summary(), plain.Summary()) {
			t.Errorf("%v: the plain run differs from the shortcuts'", cfg.Queues)
		}
	}
}
