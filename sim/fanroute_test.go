package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// fanRecords describes every request in flight under fan-out (its parts
// left, its retries, where each attempt is live), in id order, for
// comparing two models beyond Hash.
func fanRecords(m *Model) string {
	f := m.fan
	if f == nil {
		return ""
	}
	ids := make([]int64, 0, f.reqs.len())
	f.reqs.each(func(id int64, _ *fanReq) { ids = append(ids, id) })
	slices.Sort(ids)
	var s strings.Builder
	for _, id := range ids {
		r := f.reqs.get(id)
		fmt.Fprintf(&s, "%d: left %d tries %d at %v\n", id, r.left, r.tries, r.at)
		if h := r.hedgeReq; h != nil {
			fmt.Fprintf(&s, "   sent %v done %b\n", h.sent, h.done)
		}
	}
	return s.String()
}

// genFanRouted draws a per-server run with fan-out shaped to take the
// per-server shortcuts: one balancer or a fleet of two or three (exact
// or local loads), every policy that routes parts, a fixed or scaling pool, load from 10% to 150% of it, uniform, geometric
// or constant service, sometimes a queue cap, a quiet client side
// (a timeout, retries and health checks with no fault), speeds, and
// scheduled changes of the rate and of the fan-out's servers (down/up).
func genFanRouted(t *rapid.T) (Config, []Change) {
	cfg := DefaultConfig()
	cfg.Queues, cfg.Seed = PerServer, rapid.Uint64().Draw(t, "seed")
	cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "policy")
	if !fanoutPolicy(cfg.Policy) {
		cfg.Policy = RoundRobin
	}
	cfg.Cycles = rapid.Int64Range(50, 1500).Draw(t, "cycles")
	cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	if rapid.Bool().Draw(t, "scaling") {
		cfg.MinServers = rapid.IntRange(1, cfg.Servers).Draw(t, "min")
		cfg.MaxServers = cfg.Servers + rapid.IntRange(0, 4).Draw(t, "more")
		cfg.Cooldown = rapid.Int64Range(1, 40).Draw(t, "cooldown")
	}
	cfg.Fanout = rapid.IntRange(2, 6).Draw(t, "fanout")
	cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
	mean := int64(rapid.IntRange(1, 60).Draw(t, "mean"))
	if cfg.Service == Uniform {
		cfg.TaskMin = int(1 + mean/2)
		cfg.TaskMax = cfg.TaskMin + int(mean)
		mean = int64(cfg.TaskMin+cfg.TaskMax) / 2
	} else {
		cfg.MeanService = int(mean)
	}
	load := rapid.Int64Range(10, 150).Draw(t, "load%")
	cfg.Rate = Rate(max(load*int64(cfg.Servers)*RateScale/100/mean/int64(cfg.Fanout), 1))
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
	if rapid.IntRange(0, 3).Draw(t, "fleet") == 0 {
		cfg.Balancers = rapid.IntRange(2, 3).Draw(t, "balancers")
		cfg.LoadInfo = rapid.SampledFrom([]LoadInfo{LoadExact, LoadLocal}).Draw(t, "loadInfo")
	}
	if rapid.IntRange(0, 2).Draw(t, "client") == 0 {
		cfg.Timeout = rapid.Int64Range(1, 400).Draw(t, "timeout")
		cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
		cfg.Backoff = rapid.Int64Range(0, 5).Draw(t, "backoff")
		cfg.Jitter = rapid.Bool().Draw(t, "jitter")
		cfg.HealthInterval = rapid.Int64Range(0, 50).Draw(t, "healthInterval")
	}
	var changes []Change
	for range rapid.IntRange(0, 3).Draw(t, "changes") {
		at := rapid.Int64Range(1, cfg.Cycles).Draw(t, "at")
		switch rapid.IntRange(0, 2).Draw(t, "change") {
		case 0:
			changes = append(changes, Change{Cycle: at, Setting: SetRate, Value: int64(cfg.Rate) * rapid.Int64Range(0, 3).Draw(t, "rateX")})
		case 1:
			changes = append(changes, Change{Cycle: at, Setting: SetDown, Value: int64(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "down")))})
		case 2:
			changes = append(changes, Change{Cycle: at, Setting: SetUp, Value: int64(MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "up")))})
		}
	}
	return cfg, changes
}

// TestFanoutShortcutsMatchStepping runs fan-out through RunTo, which lets
// its parts take the per-server cycle loop and windows (fanroute.go), to
// random stops and by Step alone, and compares the hash, the summary, the
// last row, the servers and queues, and every request's record of its
// parts. Enough runs must have taken a window (one in ten) and the
// cycle loop with parts (a stop a run) for the property to say anything.
func TestFanoutShortcutsMatchStepping(t *testing.T) {
	rapidDefaults(1000)
	runs, windows, routed := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		cfg, changes := genFanRouted(t)
		stepped, jumped := twins(t, cfg, changes)
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 5).Draw(t, "stops")
		slices.Sort(stops)
		for _, stop := range append(stops, cfg.Cycles) {
			if jumped.gate() == viaRouted {
				routed++
			}
			stepAndJump(t, stepped, jumped, stop)
			if a, b := fanRecords(jumped), fanRecords(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different parts:\n%s\n%s", stop, a, b)
			}
		}
		if jumped.win != nil {
			windows++
		}
	})
	t.Logf("%d runs took a window, %d stops opened the cycle loop with parts", windows, routed)
	if windows == 0 || 10*windows < runs || routed < runs {
		t.Errorf("too few runs took the shortcuts with parts: %d windows, %d routed", windows, routed)
	}
}

// TestCandidatesGapsListsCandidatesBut: the candidates left by skip, read
// through candidatesGaps and nthBut, are candidatesBut's list, in order,
// whatever the dense array's order (servers taken out and put back) and
// skip (repeats, and slots that are not candidates, included).
func TestCandidatesGapsListsCandidatesBut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy, cfg.Fanout = PerServer, P2C, 2
		cfg.Servers = rapid.IntRange(1, 40).Draw(t, "servers")
		cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b := m.bal[0]
		for range rapid.IntRange(0, 20).Draw(t, "moves") {
			id := rapid.IntRange(1, cfg.Servers).Draw(t, "moved")
			if b.cands.pos[id-1] != 0 {
				b.cands.remove(id)
			} else {
				b.cands.add(id)
			}
		}
		skip := rapid.SliceOfN(rapid.IntRange(1, cfg.Servers), 0, 12).Draw(t, "skip")
		want := slices.Clone(b.candidatesBut(skip))
		n, gaps := b.candidatesGaps(skip)
		if n != len(want) {
			t.Fatalf("%d candidates left, want %d", n, len(want))
		}
		for x := range n {
			if got := b.cands.ids[nthBut(x, gaps)]; got != want[x] {
				t.Fatalf("candidate %d: %d, want %d (gaps %v, ids %v)", x, got, want[x], gaps, b.cands.ids)
			}
		}
	})
}
