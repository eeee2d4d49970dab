package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genThrottle draws the throttle on a third of the time, its K where it
// throttles often (1), at the rules' own 2, anywhere from 1 to 10, or at
// 10 (a window with any accepts lets everything through).
func genThrottle(t *rapid.T, cfg *Config) {
	if rapid.IntRange(0, 2).Draw(t, "throttled") != 0 {
		return
	}
	cfg.Throttle = rapid.SampledFrom([]Hundredths{MinThrottle, 2 * HundredthsScale, MaxThrottle,
		Hundredths(rapid.Int64Range(int64(MinThrottle), int64(MaxThrottle)).Draw(t, "throttleK"))}).Draw(t, "throttle")
}

// genThrottled draws a throttled run for the shortcuts: pooled or
// per-server (a quarter with a policy that runs windows and nothing that
// keeps them off; fan-out a quarter of the others), fixed or scaling
// pools, loads from a tenth to one and a half of capacity over runs of
// one to four windows of 1000 cycles, K where it throttles and where it
// does not, the client side (retries, so throttled attempts come back)
// half the time, a capped queue, a switch; a failing backend (all
// servers but a few fail every attempt: accepts are few), rate changes,
// and a quiet spell of about a window (no arrivals: a stretch passes every
// slot).
func genThrottled(t *rapid.T) (Config, []Change) {
	cfg := DefaultConfig()
	cfg.Seed = rapid.Uint64().Draw(t, "seed")
	if rapid.Bool().Draw(t, "perServer") {
		cfg.Queues = PerServer
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "policy")
	windowed := rapid.IntRange(0, 3).Draw(t, "windowed") == 0
	if windowed {
		// A policy that runs windows plain, nothing else that keeps them
		// off: throttled, it takes the cycle loop.
		cfg.Queues = PerServer
		cfg.Policy = rapid.SampledFrom([]Policy{RoundRobin, Random, SWRR, Hash, LeastWork}).Draw(t, "windowPolicy")
	}
	cfg.Cycles = rapid.Int64Range(200, 4000).Draw(t, "cycles")
	cfg.Servers = rapid.IntRange(1, 10).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if rapid.IntRange(0, 2).Draw(t, "scaling") == 0 {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "min")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 4).Draw(t, "more")
		cfg.Cooldown = rapid.Int64Range(1, 60).Draw(t, "cooldown")
	}
	cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
	mean := int64(rapid.IntRange(1, 80).Draw(t, "mean"))
	if cfg.Service == Uniform {
		cfg.TaskMin = int(1 + mean/2)
		cfg.TaskMax = cfg.TaskMin + int(mean)
		mean = int64(cfg.TaskMin+cfg.TaskMax) / 2
	} else {
		cfg.MeanService = int(mean)
	}
	load := rapid.Int64Range(10, 150).Draw(t, "load%")
	cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/mean, 1))
	cfg.Wave = rapid.Bool().Draw(t, "wave")
	cfg.WavePeriod = rapid.Int64Range(100, 3000).Draw(t, "wavePeriod")
	cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(t, "initial")
	if rapid.Bool().Draw(t, "open") {
		cfg.Blocked = nil
	}
	cfg.Throttle = rapid.SampledFrom([]Hundredths{MinThrottle, 150, 2 * HundredthsScale, MaxThrottle,
		Hundredths(rapid.Int64Range(int64(MinThrottle), int64(MaxThrottle)).Draw(t, "throttleK"))}).Draw(t, "throttle")
	mechanism := rapid.IntRange(0, 7).Draw(t, "mechanism")
	if windowed {
		mechanism = 0 // none
	}
	switch mechanism {
	case 7:
		cfg.QueueCap = rapid.IntRange(1, 10).Draw(t, "cap")
	case 1:
		cfg.Switch = true
	case 2, 3:
		if cfg.Queues == PerServer && fanoutPolicy(cfg.Policy) {
			cfg.Fanout = rapid.IntRange(2, 4).Draw(t, "fanout")
		}
	}
	if !windowed && rapid.Bool().Draw(t, "client") {
		cfg.Timeout = rapid.Int64Range(0, 400).Draw(t, "timeout")
		cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
		cfg.Backoff = rapid.Int64Range(0, 20).Draw(t, "backoff")
		cfg.Jitter = rapid.Bool().Draw(t, "jitter")
	}
	var changes []Change
	if rapid.IntRange(0, 2).Draw(t, "failing") == 0 {
		// A failing backend: every server but the first few fails each
		// attempt after fail-time from the start, so accepts are few.
		cfg.FailTime = rapid.Int64Range(1, 10).Draw(t, "failTime")
		healthy := rapid.IntRange(0, 2).Draw(t, "healthy")
		at := rapid.Int64Range(1, 50).Draw(t, "failAt")
		for id := healthy + 1; id <= cfg.Servers; id++ {
			changes = append(changes, Change{Cycle: at, Setting: SetFail, Value: int64(MakeServerRef(0, id))})
		}
		if rapid.Bool().Draw(t, "heals") {
			heal := rapid.Int64Range(at+1, cfg.Cycles).Draw(t, "healAt")
			for id := healthy + 1; id <= cfg.Servers; id++ {
				changes = append(changes, Change{Cycle: heal, Setting: SetHeal, Value: int64(MakeServerRef(0, id))})
			}
		}
	}
	for range rapid.IntRange(0, 2).Draw(t, "rateChanges") {
		changes = append(changes, Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "rateAt"), Setting: SetRate,
			Value: int64(cfg.Rate) * rapid.Int64Range(0, 3).Draw(t, "rateX")})
	}
	if rapid.IntRange(0, 3).Draw(t, "quiet") == 0 {
		// No arrivals for a window or more: the stretch passes every slot.
		at := rapid.Int64Range(1, cfg.Cycles).Draw(t, "quietAt")
		changes = append(changes, Change{Cycle: at, Setting: SetRate, Value: 0},
			Change{Cycle: at + rapid.Int64Range(900, 1200).Draw(t, "quietFor"), Setting: SetRate, Value: int64(cfg.Rate)})
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
	return cfg, changes
}

// sameThrottle fails t unless a and b hold the same throttle windows:
// every slot, the sums, the counts of the cycle and the window fixed for
// the next one (the state hash reads only the sums and the draws).
func sameThrottle(t tester, a, b *Model) {
	t.Helper()
	for i, x := range a.bal {
		y := b.bal[i]
		if (x.th == nil) != (y.th == nil) || x.th != nil && *x.th != *y.th {
			t.Fatalf("at cycle %d: balancer %s's throttle windows differ", a.cycle, x.name)
		}
	}
}

// TestThrottleShortcutsMatchStepping runs throttled runs (genThrottled)
// through RunTo, which takes them through the per-server cycle loop and
// skipAhead (throttleskip.go), to random stops and by Step alone, and
// compares the hash (the throttle generator's state and the window's
// sums among it), the summary, the last row, the servers and queues and
// every slot of the windows. Enough stops must have opened a cycle loop
// and skipAhead, and enough runs throttled, for it to say anything; the
// policies that run windows plain must take the cycle loop throttled.
func TestThrottleShortcutsMatchStepping(t *testing.T) {
	rapidDefaults(400)
	runs, routed, skipped, throttled, windows, passed := 0, 0, 0, 0, 0, int64(0)
	rapid.Check(t, func(t *rapid.T) {
		cfg, changes := genThrottled(t)
		stepped, jumped := twins(t, cfg, changes)
		runs++
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 6).Draw(t, "stops")
		slices.Sort(stops)
		for _, stop := range append(stops, cfg.Cycles) {
			switch jumped.gate() {
			case viaRouted, viaPooled:
				routed++
			case viaSkip:
				skipped++
			}
			if c := jumped.cycle; c < stop {
				jumped.shortcut(stop) // as RunTo starts: count what it passes
				passed += jumped.cycle - c
			}
			stepAndJump(t, stepped, jumped, stop)
			sameThrottle(t, jumped, stepped)
		}
		if stepped.Summary().Throttled > 0 {
			throttled++
		}
		if jumped.win != nil && jumped.win.thr && jumped.win.c0 > 0 {
			windows++ // a throttled window ran
		}
	})
	t.Logf("%d runs (%d throttled, %d with throttled windows), %d stops opened the cycle loop, %d skipAhead alone; %d cycles passed by the first shortcut of a stop",
		runs, throttled, windows, routed, skipped, passed)
	if 2*routed < runs || 2*skipped < runs || 3*throttled < runs || 10*windows < runs || passed < 100*int64(runs) {
		t.Errorf("too few runs took the shortcuts, throttled or ran throttled windows: %d routed, %d skipAhead, %d of %d throttled, %d windows, %d cycles passed",
			routed, skipped, throttled, runs, windows, passed)
	}
	for _, r := range []Policy{RoundRobin, Random, SWRR, Hash, LeastWork} {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy, cfg.Throttle, cfg.Cycles = PerServer, r, 200, 2000
		m := mustNew(t, cfg)
		if m.gate() != viaRouted {
			t.Errorf("%v throttled: the cycle loop would not take it", r)
		}
		if m.Run(); m.win == nil || m.win.c0 == 0 {
			t.Errorf("%v throttled: no window routed it", r)
		}
	}
}

// firstThrottled counts the cycle's Throttled events of first attempts:
// generated and admitted, they have no Arrive event.
func firstThrottled(m *Model) int {
	n := 0
	for _, e := range m.Events() {
		if e.Kind == Throttled && !e.Request.Retry {
			n++
		}
	}
	return n
}
