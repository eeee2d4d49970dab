package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genQueueRules draws a queue discipline (each of the three alike) and,
// half the time, shedding, with an interval of a quarter to four times the
// mean service and a target up to it: queues then stand and empty, and
// shed, within a run. The interval is set only where something reads it.
func genQueueRules(t *rapid.T, cfg *Config, mean int64) {
	cfg.Discipline = rapid.SampledFrom([]Discipline{Fifo, Lifo, AdaptiveLifo}).Draw(t, "discipline")
	n := rapid.Int64Range(max(1, mean/4), min(4*max(1, mean), MaxCodelInterval)).Draw(t, "codelInterval")
	if rapid.Bool().Draw(t, "shedding") {
		cfg.CodelTarget = rapid.Int64Range(1, n).Draw(t, "codelTarget")
	}
	if cfg.Discipline == AdaptiveLifo || cfg.CodelTarget > 0 {
		cfg.CodelInterval = n
	}
}

// genQueueRuled draws a per-server run, one balancer or a small fleet,
// sometimes with a client side or with fan-out and hedging, with a
// discipline and shedding (genQueueRules) and changes that switch them, at
// loads where per-server queues form and empty: what the routed shortcut's
// cycle loop takes with step d's rules (queuerules.go).
func genQueueRuled(t *rapid.T) (Config, []Change) {
	cfg := DefaultConfig()
	cfg.Queues, cfg.Seed = PerServer, rapid.Uint64().Draw(t, "seed")
	cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "policy")
	cfg.Cycles = rapid.Int64Range(50, 2000).Draw(t, "cycles")
	cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if rapid.IntRange(0, 3).Draw(t, "scaling") == 0 {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "min")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 4).Draw(t, "more")
		cfg.Cooldown = rapid.Int64Range(1, 40).Draw(t, "cooldown")
	}
	cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
	mean := int64(rapid.IntRange(1, 60).Draw(t, "mean"))
	if cfg.Service == Uniform {
		cfg.TaskMin = int(1 + mean/2)
		cfg.TaskMax = cfg.TaskMin + int(mean)
		mean = int64(cfg.TaskMin+cfg.TaskMax) / 2
	} else {
		cfg.MeanService = int(mean)
	}
	load := rapid.Int64Range(20, 150).Draw(t, "load%")
	cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/mean, 1))
	cfg.Wave = rapid.Bool().Draw(t, "wave")
	cfg.WavePeriod = rapid.Int64Range(100, 2000).Draw(t, "wavePeriod")
	cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(t, "initial")
	if rapid.Bool().Draw(t, "open") {
		cfg.Blocked = nil
	}
	if rapid.IntRange(0, 3).Draw(t, "capped") == 0 {
		cfg.QueueCap = rapid.IntRange(1, 10).Draw(t, "cap")
	}
	if rapid.IntRange(0, 3).Draw(t, "slow") == 0 {
		cfg.Speeds = []Speed{50, 100, 200}
	}
	if rapid.IntRange(0, 5).Draw(t, "fleet") == 0 {
		cfg.Balancers = rapid.IntRange(2, 3).Draw(t, "balancers")
		cfg.LoadInfo = rapid.SampledFrom([]LoadInfo{LoadExact, LoadLocal}).Draw(t, "loadInfo")
	}
	if rapid.IntRange(0, 3).Draw(t, "client") == 0 {
		cfg.Timeout = rapid.Int64Range(1, 400).Draw(t, "timeout")
		cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
		cfg.Backoff = rapid.Int64Range(0, 5).Draw(t, "backoff")
	}
	if fanoutPolicy(cfg.Policy) && rapid.IntRange(0, 2).Draw(t, "parts") == 0 {
		cfg.Fanout = rapid.IntRange(2, 4).Draw(t, "fanout")
		cfg.Rate = max(cfg.Rate/Rate(cfg.Fanout), 1) // the same load in parts
		if rapid.Bool().Draw(t, "hedging") {
			cfg.HedgeAfter = rapid.Int64Range(1, 2*mean).Draw(t, "hedgeAfter")
			cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
			dropRefusedHedging(&cfg)
		}
	}
	genQueueRules(t, &cfg, mean)
	genLimitScaled(t, &cfg, int(mean)) // a limit a third of the time (limitskip_test.go)
	var changes []Change
	for range rapid.IntRange(0, 4).Draw(t, "changes") {
		c := Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "at")}
		switch rapid.IntRange(0, 3).Draw(t, "change") {
		case 0:
			c.Setting, c.Value = SetRate, int64(cfg.Rate)*rapid.Int64Range(0, 3).Draw(t, "rateX")
		case 1:
			c.Setting, c.Value = SetDiscipline, int64(rapid.SampledFrom([]Discipline{Fifo, Lifo, AdaptiveLifo}).Draw(t, "newDiscipline"))
		case 2:
			c.Setting, c.Value = SetCodelTarget, rapid.Int64Range(0, cfg.codelInterval()).Draw(t, "newCodelTarget")
		case 3:
			c.Setting, c.Value = SetPolicy, int64(rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "newPolicy"))
		}
		changes = append(changes, c)
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
	return cfg, changes
}

// queueHistories describes, by server id, each per-server queue's joined
// cycles and, while it holds an attempt, the first cycle from whose end it
// has not been empty: what shedding and the disciplines read later (the
// hash has the second; the first shows only once an attempt is shed).
func queueHistories(m *Model) string {
	var s strings.Builder
	for _, b := range m.bal {
		for i := range b.sq {
			q := &b.sq[i]
			if q.n == 0 {
				continue
			}
			fmt.Fprintf(&s, "%d since %d joined", b.idOf(i+1), q.since)
			for k := range q.n {
				fmt.Fprintf(&s, " %d", q.joined(k))
			}
			s.WriteString("\n")
		}
	}
	return s.String()
}

// TestQueueRulesShortcutsMatchStepping runs random per-server runs with a
// discipline and shedding (genQueueRuled) by RunTo, which takes the routed
// shortcut's cycle loop where queuerules.go allows, to random stops and
// by Step alone, and compares the hash (the queues' empty history and the
// shed counts included while a rule is in force), the summary, the last
// row, the servers and queues, every queued attempt's joined cycle and,
// with fan-out, every request's parts.
// Enough stops must have opened the cycle loop with a rule in force (one
// a run), and enough runs shed (one in ten), handed out newest first (one
// in three), took the loop with parts (one in twenty) and, under
// adaptive-lifo or shedding, a window (one in twenty), for the property
// to say anything.
func TestQueueRulesShortcutsMatchStepping(t *testing.T) {
	rapidDefaults(1000)
	runs, routed, shed, newest, parts, windows := 0, 0, 0, 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		cfg, changes := genQueueRuled(t)
		stepped, jumped := twins(t, cfg, changes)
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 5).Draw(t, "stops")
		slices.Sort(stops)
		routedHere := false
		for _, stop := range append(stops, cfg.Cycles) {
			if jumped.gate() == viaRouted && jumped.queueRuled() {
				routed++
				routedHere = true
			}
			stepAndJump(t, stepped, jumped, stop)
			if a, b := queueHistories(jumped), queueHistories(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different queue histories:\n%s\n%s", stop, a, b)
			}
			if a, b := fanRecords(jumped), fanRecords(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different parts:\n%s\n%s", stop, a, b)
			}
		}
		if stepped.Summary().Shed > 0 {
			shed++
		}
		if cfg.Discipline != Fifo {
			newest++
		}
		if cfg.Fanout > 1 && routedHere {
			parts++
		}
		if jumped.win != nil && (cfg.Discipline == AdaptiveLifo || cfg.CodelTarget > 0) {
			windows++
		}
	})
	t.Logf("%d runs: %d stops opened the cycle loop with a rule in force, %d runs shed, %d began newest first, %d with parts took the loop, %d with adaptive-lifo or shedding took a window",
		runs, routed, shed, newest, parts, windows)
	if routed < runs || 10*shed < runs || 3*newest < runs || 20*parts < runs || 20*windows < runs {
		t.Errorf("too few runs took the routed shortcut with step d's rules: %d routed, %d shed, %d newest first, %d with parts, %d windows",
			routed, shed, newest, parts, windows)
	}
}

// TestQueueRulesWindowsMatchStepping runs per-server runs that take
// windows (a policy that reads nothing of the servers, no cap, one
// balancer) under adaptive-lifo or shedding with short intervals, at loads
// where queues stand and empty within a window's length, by RunTo to stops
// a few cycles apart and by Step, comparing as
// TestQueueRulesShortcutsMatchStepping does: a window that ran one cycle
// past ruledWindowEnd's bounds would hand out the oldest where step d
// takes the newest, or keep an attempt step d sheds. A limit is drawn a
// third of the time. Two runs in five must take a window.
func TestQueueRulesWindowsMatchStepping(t *testing.T) {
	rapidDefaults(2000)
	runs, windows := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		cfg := DefaultConfig()
		cfg.Queues, cfg.Seed, cfg.Blocked, cfg.Wave = PerServer, rapid.Uint64().Draw(t, "seed"), nil, false
		cfg.Policy = rapid.SampledFrom([]Policy{RoundRobin, Random, SWRR, Hash}).Draw(t, "policy")
		cfg.Servers = rapid.IntRange(1, 3).Draw(t, "servers")
		cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
		cfg.Cycles = rapid.Int64Range(100, 1500).Draw(t, "cycles")
		mean := int64(rapid.IntRange(1, 20).Draw(t, "mean"))
		cfg.Service, cfg.MeanService = rapid.SampledFrom([]Service{Geometric, Constant}).Draw(t, "service"), int(mean)
		load := rapid.Int64Range(40, 200).Draw(t, "load%")
		cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/mean, 1))
		cfg.InitialPerServer = rapid.IntRange(0, 2).Draw(t, "initial")
		cfg.CodelInterval = rapid.Int64Range(1, 3*mean+8).Draw(t, "codelInterval")
		if rapid.Bool().Draw(t, "adaptive") {
			cfg.Discipline = AdaptiveLifo
		}
		if cfg.Discipline == Fifo || rapid.Bool().Draw(t, "shedding") {
			// M = N half the time: a queue that does not stand sheds
			// past N, so only then does its first wait past M shed.
			cfg.CodelTarget = cfg.CodelInterval
			if rapid.Bool().Draw(t, "below") {
				cfg.CodelTarget = rapid.Int64Range(1, cfg.CodelInterval).Draw(t, "codelTarget")
			}
		}
		genLimitScaled(t, &cfg, int(mean)) // a limit a third of the time: its windows' check as well
		stepped, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		jumped, _ := New(cfg)
		every := rapid.Int64Range(1, 200).Draw(t, "every")
		for stop := every; ; stop += every {
			stop = min(stop, cfg.Cycles)
			stepAndJump(t, stepped, jumped, stop)
			if a, b := queueHistories(jumped), queueHistories(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different queue histories:\n%s\n%s", stop, a, b)
			}
			if stop == cfg.Cycles {
				break
			}
		}
		if jumped.win != nil {
			windows++
		}
	})
	t.Logf("%d runs, %d took a window", runs, windows)
	if 5*windows < 2*runs {
		t.Errorf("only %d runs in %d took a window", windows, runs)
	}
}

// TestPooledShedsBesideUnpickedServers: a pooled queue whose idle servers
// all weigh 0 is never handed out, yet step d sheds from it in every cycle
// (shedding comes before the first dispatch, which finds no server to
// pick). The pooled cycle loop must visit those cycles: RunTo to each
// stop matches stepping, and attempts are shed.
func TestPooledShedsBesideUnpickedServers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Blocked, cfg.Wave = 7, 3000, nil, false
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 2, 2, 2
	cfg.Policy, cfg.Weights = SWRR, []int{0, 0}
	cfg.Rate = RateScale / 50 // an arrival every 50 cycles or so
	cfg.CodelTarget, cfg.CodelInterval = 7, 30
	for _, d := range []Discipline{Fifo, Lifo, AdaptiveLifo} {
		cfg.Discipline = d
		plain, err := New(cfg, WithPlain())
		if err != nil {
			t.Fatal(err)
		}
		jumped, _ := New(cfg)
		if g := jumped.gate(); g != viaPooled {
			t.Fatalf("%v: the gate opens %d, want the pooled loop (%d)", d, g, viaPooled)
		}
		for stop := int64(97); stop < cfg.Cycles; stop += 97 {
			plain.RunTo(stop)
			stepAndJump(t, plain, jumped, stop)
		}
		if s := jumped.Summary(); s.Shed == 0 || s.Dispatched != 0 {
			t.Errorf("%v: shed %d, dispatched %d; want attempts shed and none dispatched", d, s.Shed, s.Dispatched)
		}
	}
}
