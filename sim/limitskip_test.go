package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genLimitOn turns a concurrency limit on in cfg, small enough for a run
// at some load to reach it: half the time a fixed one, else an adaptive
// one starting there within bounds close by (so that it moves both ways),
// its latency bound never (half the time) or from a quarter of the mean
// service to three times it. The limit, or the start, is 1 to 8, a third
// of the time 1 to 40 (room for windows, reached at a queue's peak).
func genLimitOn(t *rapid.T, cfg *Config, mean int) {
	most := 8
	if rapid.IntRange(0, 2).Draw(t, "roomy") == 0 {
		most = 40
	}
	if rapid.Bool().Draw(t, "fixedLimit") {
		cfg.ConcurrencyLimit = rapid.IntRange(1, most).Draw(t, "limit")
		return
	}
	cfg.ConcurrencyLimit = LimitAIMD
	cfg.LimitInitial = rapid.IntRange(1, most).Draw(t, "limitInitial")
	cfg.LimitMin = rapid.IntRange(1, cfg.LimitInitial).Draw(t, "limitMin")
	cfg.LimitMax = cfg.LimitInitial + rapid.IntRange(0, 6).Draw(t, "limitAbove")
	if rapid.Bool().Draw(t, "latencyBound") {
		cfg.LimitLatency = rapid.Int64Range(int64(max(1, mean/4)), int64(3*mean+1)).Draw(t, "limitLatency")
	}
}

// genLimitScaled draws, a third of the time, a limit for
// genTimeScaleConfig's runs (genLimitOn), per-server or pooled, where
// the validation takes it.
func genLimitScaled(t *rapid.T, cfg *Config, mean int) {
	if rapid.IntRange(0, 2).Draw(t, "limited") != 0 {
		return
	}
	was := *cfg
	genLimitOn(t, cfg, mean)
	if cfg.Validate() != nil {
		*cfg = was
	}
}

// genLimitRouted draws a run with a concurrency limit (genLimitOn) shaped
// to take the shortcuts that keep a limit: per-server two times in three
// (any policy: those that read loads through the cycle loop, the others
// in windows where they have room), else pooled; one balancer, a fixed or
// scaling pool of 1 to 6 servers, load from 10% to 200% of it, uniform,
// geometric or constant service, a small initial queue, sometimes a queue
// cap, fan-out (per-server, 2 or 3 parts) or hedging (1 to 3 parts, after
// up to twice the mean service), a client side (a quarter of the time
// timeouts and health checks, a quarter timeouts, retries and backoff),
// the throttle a third of the time (genThrottle), and rate changes.
func genLimitRouted(t *rapid.T) (Config, []Change) {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	if rapid.IntRange(0, 2).Draw(t, "pooled") != 0 {
		cfg.Queues = PerServer
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "policy")
	cfg.Cycles = rapid.Int64Range(50, 3000).Draw(t, "cycles")
	cfg.Servers = rapid.IntRange(1, 6).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if rapid.IntRange(0, 2).Draw(t, "scaling") == 0 {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "min")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 3).Draw(t, "more")
		cfg.Cooldown = rapid.Int64Range(1, 40).Draw(t, "cooldown")
	}
	cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
	mean := rapid.IntRange(1, 40).Draw(t, "mean")
	if cfg.Service == Uniform {
		cfg.TaskMin = 1 + mean/2
		cfg.TaskMax = cfg.TaskMin + mean
		mean = (cfg.TaskMin + cfg.TaskMax) / 2
	} else {
		cfg.MeanService = mean
	}
	load := rapid.Int64Range(10, 200).Draw(t, "load%")
	cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/int64(mean), 1))
	cfg.Wave = rapid.Bool().Draw(t, "wave")
	cfg.WavePeriod = rapid.Int64Range(100, 2000).Draw(t, "wavePeriod")
	cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(t, "initial")
	cfg.Blocked = nil
	if rapid.IntRange(0, 3).Draw(t, "capped") == 0 {
		cfg.QueueCap = rapid.IntRange(1, 10).Draw(t, "cap")
	}
	if cfg.Queues == PerServer && fanoutPolicy(cfg.Policy) {
		switch rapid.IntRange(0, 5).Draw(t, "parts") {
		case 0:
			cfg.Fanout = rapid.IntRange(2, 3).Draw(t, "fanout")
			cfg.Rate = max(cfg.Rate/Rate(cfg.Fanout), 1)
		case 1:
			cfg.Fanout = rapid.IntRange(1, 3).Draw(t, "hedgedFanout")
			cfg.Rate = max(cfg.Rate/Rate(cfg.Fanout), 1)
			cfg.HedgeAfter = rapid.Int64Range(1, int64(2*mean)).Draw(t, "hedgeAfter")
			cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
		}
	}
	switch rapid.IntRange(0, 7).Draw(t, "client") {
	case 0, 1:
		cfg.Timeout = rapid.Int64Range(1, int64(8*mean)).Draw(t, "timeout")
		cfg.HealthInterval = rapid.Int64Range(0, 50).Draw(t, "healthInterval")
	case 2, 3:
		cfg.Timeout = rapid.Int64Range(1, int64(8*mean)).Draw(t, "timeout")
		cfg.Retries = rapid.IntRange(1, 3).Draw(t, "retries")
		cfg.Backoff = rapid.Int64Range(0, 5).Draw(t, "backoff")
	}
	genLimitOn(t, &cfg, mean)
	genThrottle(t, &cfg) // a third of the time: the throttle before the pick, the limit after it
	var changes []Change
	for range rapid.IntRange(0, 3).Draw(t, "changes") {
		at := rapid.Int64Range(1, cfg.Cycles).Draw(t, "at")
		changes = append(changes, Change{Cycle: at, Setting: SetRate, Value: int64(cfg.Rate) * rapid.Int64Range(0, 3).Draw(t, "rateX")})
	}
	return cfg, changes
}

// limitsMoved reports whether any adaptive limit of m stands elsewhere
// than where it started.
func limitsMoved(m *Model) bool {
	l := m.bal[0].lim
	if l == nil || !l.aimd {
		return false
	}
	start := int32(m.cfg.limitInitial())
	return int(start) != l.pool || slices.ContainsFunc(l.per, func(v int32) bool { return v != start })
}

// TestLimitShortcutsMatchStepping runs concurrency limits (fixed and
// adaptive, small enough to refuse and to move) through RunTo, which lets
// them take skipAhead and the per-server cycle loop (limitskip.go), to
// random stops and by Step alone, and compares the hash (which holds
// the refusals, errors and every limit), the summary, the last row, the
// servers and queues, and fan-out's records. Enough runs must refuse
// (a third), adaptive limits must move (a quarter of the runs), and the
// shortcuts must open with a limit on (a stop a run per-server, one in
// four runs the pooled loop and skipAhead; windows, which few of these runs take, have
// TestLimitWindowsMatchStepping).
func TestLimitShortcutsMatchStepping(t *testing.T) {
	rapidDefaults(1000)
	runs, refused, moved, routed, pooled, skipped, windows := 0, 0, 0, 0, 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		cfg, changes := genLimitRouted(t)
		stepped, jumped := twins(t, cfg, changes)
		runs++
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 5).Draw(t, "stops")
		slices.Sort(stops)
		anyMoved := false
		for _, stop := range append(stops, cfg.Cycles) {
			switch jumped.gate() {
			case viaRouted:
				routed++
			case viaPooled:
				pooled++
			case viaSkip:
				skipped++
			}
			stepAndJump(t, stepped, jumped, stop)
			if a, b := fanRecords(jumped), fanRecords(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different parts:\n%s\n%s", stop, a, b)
			}
			anyMoved = anyMoved || limitsMoved(stepped)
		}
		if stepped.Summary().Limited > 0 {
			refused++
		}
		if anyMoved {
			moved++
		}
		if jumped.win != nil {
			windows++
		}
	})
	t.Logf("%d runs: %d refused, %d moved an adaptive limit; stops opened the cycle loop %d times, the pooled loop %d, skipAhead %d; %d runs took a window",
		runs, refused, moved, routed, pooled, skipped, windows)
	// Counted over 300 runs or more (fewer say little). skipAhead alone: a
	// switch, a trace, faults, events, fan-out with the throttle (a
	// throttled pool takes the pooled loop).
	if runs >= 300 && (3*refused < runs || 4*moved < runs || routed < runs || pooled < runs/4 || skipped < runs/8) {
		t.Errorf("too few runs refused, moved a limit or took the shortcuts: %d runs, %d refused, %d moved, %d routed, %d pooled, %d skipped",
			runs, refused, moved, routed, pooled, skipped)
	}
}

// TestLimitWindowsMatchStepping runs limits where windows may take them:
// a per-server pool of 1 to 6 servers whose router reads no loads
// (round-robin, random, swrr, hash), no cap, no client side, loads of 50%
// to 200%, a fixed limit or an adaptive one with no latency bound, both
// from 2 to 40, so that queues reach them and windows stop short of
// them. RunTo must match Step at random stops (as
// TestLimitShortcutsMatchStepping compares), and enough runs must both
// take a window and refuse or move a limit.
func TestLimitWindowsMatchStepping(t *testing.T) {
	rapidDefaults(500)
	runs, both := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Queues, cfg.Blocked = rapid.Uint64().Draw(t, "seed"), PerServer, nil
		cfg.Policy = rapid.SampledFrom([]Policy{RoundRobin, Random, SWRR, Hash}).Draw(t, "policy")
		cfg.Servers = rapid.IntRange(1, 6).Draw(t, "servers")
		cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
		cfg.Cycles = rapid.Int64Range(100, 4000).Draw(t, "cycles")
		cfg.TaskMin = rapid.IntRange(1, 20).Draw(t, "taskMin")
		cfg.TaskMax = cfg.TaskMin + rapid.IntRange(0, 40).Draw(t, "taskSpan")
		mean := int64(cfg.TaskMin+cfg.TaskMax) / 2
		load := rapid.Int64Range(50, 200).Draw(t, "load%")
		cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/mean, 1))
		cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(t, "initial")
		cfg.ConcurrencyLimit = rapid.IntRange(2, 40).Draw(t, "limit")
		if rapid.Bool().Draw(t, "aimd") {
			cfg.LimitInitial, cfg.ConcurrencyLimit = cfg.ConcurrencyLimit, LimitAIMD
			cfg.LimitMin = rapid.IntRange(1, cfg.LimitInitial).Draw(t, "limitMin")
			cfg.LimitMax = cfg.LimitInitial + rapid.IntRange(0, 20).Draw(t, "limitAbove")
		}
		stepped, err := New(cfg)
		if err != nil {
			t.Skip(err)
		}
		runs++
		jumped, _ := New(cfg)
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 5).Draw(t, "stops")
		slices.Sort(stops)
		acted := false
		for _, stop := range append(stops, cfg.Cycles) {
			stepAndJump(t, stepped, jumped, stop)
			acted = acted || stepped.Summary().Limited > 0 || limitsMoved(stepped)
		}
		if acted && jumped.win != nil {
			both++
		}
	})
	t.Logf("%d runs, %d took a window and refused or moved a limit", runs, both)
	if 4*both < runs {
		t.Errorf("%d runs, only %d took a window and refused or moved a limit", runs, both)
	}
}
