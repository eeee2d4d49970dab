package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// fanoutTrace is a per-server run of the trace rows with fan-out k,
// round-robin, on servers of the speeds given.
func fanoutTrace(k int, speeds []Speed, cycles int64, rows ...TraceRow) Config {
	cfg := traceConfig(len(speeds), cycles, rows...)
	cfg.Queues, cfg.Policy, cfg.Fanout, cfg.Speeds = PerServer, RoundRobin, k, speeds
	return cfg
}

// TestFanoutHandTraces: a fan-out of 3 with one part on a slow server
// completes with its slowest part; a part's error ends its request and
// cancels a sibling in service (its server freed at once, the cycles it
// served wasted) and a queued one.
func TestFanoutHandTraces(t *testing.T) {
	t.Run("slow part", func(t *testing.T) {
		// Request 1 at cycle 1, time 10, parts to servers 1, 2, 3 (round-
		// robin, distinct): 10 cycles at speed 1, 20 at speed 0.5.
		cfg := fanoutTrace(3, []Speed{100, 100, 50}, 40, TraceRow{Cycle: 1, Time: 10, Src: 0x01020304})
		m := mustNew(t, cfg)
		var done []int64
		for m.Step() {
			if m.Last().Completed > 0 {
				done = append(done, m.Cycle())
			}
		}
		s := m.Summary()
		if len(done) != 1 || done[0] != 21 {
			t.Errorf("the request completed at cycles %v, want [21] (its slow part's completion)", done)
		}
		if s.Completed != 1 || s.Parts != 3 || s.AttemptsCompleted != 3 || s.ResponseMax != 20 || s.AvgResponse != 20 || s.Dispatched != 3 {
			t.Errorf("completed %d parts %d attempts_completed %d response_max %d avg_response %v dispatched %d, want 1 3 3 20 20 3",
				s.Completed, s.Parts, s.AttemptsCompleted, s.ResponseMax, s.AvgResponse, s.Dispatched)
		}
		if !s.Consistent {
			t.Errorf("the books do not balance: %+v", s)
		}
	})
	t.Run("error cancels", func(t *testing.T) {
		// Server 4 fails from cycle 1 (fail-time 5). Request 1 (cycle 1,
		// time 40) takes servers 1, 2, 3; request 2 (cycle 2) goes to 4
		// (free, erring at 2+5 = 7), then, round-robin past the servers
		// holding its parts, queues at 1 and 2. Server 1 (speed 10) is
		// done with request 1's part at 1+4 = 5 and serves request 2's
		// part from step d of 5. At 7 the error ends request 2 (no
		// retries): its part in service at 1 is cancelled (2 cycles
		// served: 6 and 7, step a having passed server 1), its part queued
		// at 2 leaves; server 1 is idle at once.
		cfg := fanoutTrace(3, []Speed{1000, 100, 100, 100}, 60,
			TraceRow{Cycle: 1, Time: 40, Src: 0x01020304}, TraceRow{Cycle: 2, Time: 40, Src: 0x01020305})
		cfg.FailTime = 5
		m := mustNewEvents(t, cfg, Change{Cycle: 1, Setting: SetFail, Value: int64(MakeServerRef(0, 4))})
		var cancels []Event
		for m.Step() {
			for _, e := range m.Events() {
				if e.Kind == Cancel {
					cancels = append(cancels, e)
				}
			}
			if m.Cycle() == 7 {
				v, _ := m.Balancers()[0].Server(1)
				if v.State != Idle {
					t.Errorf("server 1 at the end of cycle 7: %v, want idle (freed by the cancellation)", v.State)
				}
			}
		}
		s := m.Summary()
		if len(cancels) != 2 || cancels[0].Cycle != 7 || cancels[0].Server != 1 || cancels[0].Request.ID != 2 || cancels[0].Request.Part != 1 ||
			cancels[1].Server != 0 || cancels[1].Request.ID != 2 || cancels[1].Request.Part != 2 {
			t.Errorf("cancellations %v, want request 2's part 1 in service at server 1 and part 2 queued, at cycle 7", cancels)
		}
		if s.Errors != 1 || s.Failed != 1 || s.Cancelled != 2 || s.WastedCycles != 2 || s.Completed != 1 || s.AttemptsCompleted != 3 {
			t.Errorf("errors %d failed %d cancelled %d wasted %d completed %d attempts_completed %d, want 1 1 2 2 1 3",
				s.Errors, s.Failed, s.Cancelled, s.WastedCycles, s.Completed, s.AttemptsCompleted)
		}
		if !s.Consistent {
			t.Errorf("the books do not balance: %+v", s)
		}
	})
}

// TestFanoutBooksEveryCycle: with fan-out, faults, health checks,
// timeouts, retries, a budget and a queue cap, both lines of accounting hold at the end of
// every cycle (parts = admitted × K, attempts = parts + retries + hedges,
// and every attempt sent is completed, cancelled, in error, timed out,
// queued or in service), and jumping agrees with stepping.
func TestFanoutBooksEveryCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues = PerServer
		cfg.Seed = rapid.Uint64().Draw(t, "seed")
		cfg.Cycles = int64(rapid.IntRange(1, 400).Draw(t, "cycles"))
		cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
		cfg.MaxServers = cfg.Servers + 4
		cfg.Fanout = rapid.IntRange(2, 6).Draw(t, "fanout")
		cfg.Balancers = rapid.IntRange(1, 3).Draw(t, "balancers")
		cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "policy")
		cfg.Rate = Rate(rapid.Int64Range(0, 3*RateScale).Draw(t, "rate"))
		cfg.TaskMin, cfg.TaskMax = 1, rapid.IntRange(1, 30).Draw(t, "taskMax")
		cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
		if cfg.Service != Uniform {
			cfg.MeanService = rapid.IntRange(1, 20).Draw(t, "mean")
		}
		cfg.InitialPerServer = rapid.IntRange(0, 2).Draw(t, "initial")
		cfg.QueueCap = rapid.IntRange(0, 6).Draw(t, "cap")
		cfg.Timeout = int64(rapid.IntRange(0, 40).Draw(t, "timeout"))
		cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
		cfg.Backoff = int64(rapid.IntRange(0, 4).Draw(t, "backoff"))
		cfg.Jitter = rapid.Bool().Draw(t, "jitter")
		if rapid.Bool().Draw(t, "budget") {
			cfg.RetryBudget = Decimal(rapid.Int64Range(1, DecimalScale).Draw(t, "budgetF"))
		}
		cfg.EjectAfter = rapid.IntRange(0, 2).Draw(t, "ejectAfter")
		cfg.HealthInterval = int64(rapid.IntRange(0, 6).Draw(t, "healthInterval"))
		if rapid.Bool().Draw(t, "faults") {
			cfg.MTBF, cfg.MTTR = int64(rapid.IntRange(20, 200).Draw(t, "mtbf")), int64(rapid.IntRange(1, 30).Draw(t, "mttr"))
		}
		cfg.FailTime = int64(rapid.IntRange(1, 8).Draw(t, "failTime"))
		genOverload(t, &cfg) // shedding and the throttle
		genLimit(t, &cfg, 6)
		runGrayBooked(t, cfg, func(m *Model, s Summary) {
			if s.Parts != s.Admitted*int64(cfg.Fanout) || s.InFlight < 0 {
				t.Fatalf("cycle %d: parts %d for %d admitted, in flight %d", m.Cycle(), s.Parts, s.Admitted, s.InFlight)
			}
		})
	})
}

// runGrayBooked draws up to three gray changes (fail, hang, slow, heal)
// for cfg, steps a model through them checking the books every cycle and
// calling check on each cycle's summary, then confirms a run jumped to
// its end matches the stepped one. A schedule refused skips the case.
func runGrayBooked(t *rapid.T, cfg Config, check func(m *Model, s Summary)) {
	t.Helper()
	var changes []Change
	for range rapid.IntRange(0, 3).Draw(t, "grays") {
		kind := rapid.SampledFrom([]Setting{SetFail, SetHang, SetSlow, SetHeal}).Draw(t, "gray")
		c := Change{Cycle: int64(rapid.IntRange(1, int(cfg.Cycles)).Draw(t, "at")), Setting: kind,
			Value: int64(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "server")))}
		if kind == SetSlow {
			c.Value = SlowValue(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "server")), 300)
		}
		changes = append(changes, c)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Skip(err)
	}
	jumped, _ := New(cfg)
	if err := jumped.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	for {
		s := m.Summary()
		arrivals, requests, attempts := s.Books()
		if !arrivals || !requests || !attempts {
			t.Fatalf("cycle %d: the books do not balance (arrivals %v, requests %v, attempts %v): %+v", m.Cycle(), arrivals, requests, attempts, s)
		}
		check(m, s)
		if !m.Step() {
			break
		}
	}
	jumped.Run()
	if jumped.Hash() != m.Hash() {
		t.Fatalf("a run jumped to its end differs from one stepped")
	}
}

// TestFanoutRefusals: fan-out is refused where it cannot route its parts.
func TestFanoutRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"pooled", func(c *Config) {}, "fan-out routes each part at arrival: use --queues per-server"},
		{"switch", func(c *Config) { c.Queues, c.Policy, c.Switch = PerServer, RoundRobin, true }, "fan-out and the P/S switch do not combine"},
		{"too many", func(c *Config) { c.Queues, c.Policy, c.Fanout = PerServer, RoundRobin, 65 }, "from 1 to 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Fanout = 3
			tc.set(&cfg)
			err := cfg.Validate()
			if err == nil || !contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestEveryPerServerPolicyRoutesParts: every policy that routes at
// arrival picks among a set, so fan-out takes it (a new one without
// pickAmong would be refused with fan-out).
func TestEveryPerServerPolicyRoutesParts(t *testing.T) {
	for _, p := range PoliciesFor(PerServer) {
		if !fanoutPolicy(p) {
			t.Errorf("policy %v routes at arrival but cannot pick among a set: fan-out refuses it", p)
		}
	}
	if fanoutPolicy(FirstIdle) {
		t.Errorf("first-idle picks among a set, but it never routes at arrival")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
