package sim

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// perServerConfig is traceConfig in per-server mode with the given policy.
func perServerConfig(p Policy, servers int, cycles int64, rows ...TraceRow) Config {
	cfg := traceConfig(servers, cycles, rows...)
	cfg.Queues, cfg.Policy = PerServer, p
	return cfg
}

// routes runs cfg (with changes) and returns, per request id, the server
// it was routed to at arrival (0 = the lobby), and the harness.
func routes(t *testing.T, cfg Config, changes ...Change) (map[int64]int, *harness) {
	t.Helper()
	h := newHarness(t, cfg)
	if err := h.m.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	got := map[int64]int{}
	see := func() {
		for _, e := range h.m.Events() {
			if e.Kind == Arrive {
				got[e.Request.ID] = e.Server
			}
		}
	}
	see()
	for h.step() {
		see()
	}
	return got, h
}

func wantRoutes(t *testing.T, got map[int64]int, want ...int) {
	t.Helper()
	for i, w := range want {
		if g := got[int64(i+1)]; g != w {
			t.Errorf("request #%d routed to server %d, want %d (all: %v)", i+1, g, w, got)
		}
	}
}

// TestRoundRobinPerServer: requests go 1, 2, 3, 1, … whatever the loads.
func TestRoundRobinPerServer(t *testing.T) {
	var rows []TraceRow
	for i := range 7 {
		rows = append(rows, row(int64(i/2), uint32(1+5*(i%3))))
	}
	got, _ := routes(t, perServerConfig(RoundRobin, 3, 20, rows...))
	wantRoutes(t, got, 1, 2, 3, 1, 2, 3, 1)
}

// TestLeastConnectionsTiesAndWeights: the least load per weight, ties to
// the lowest id, weight 0 never.
func TestLeastConnectionsTiesAndWeights(t *testing.T) {
	// Cycle 0: six requests of time 10 over weights 2, 1, 0.
	// #1: loads 0,0 → server 1 (tie, lowest id). #2: 1/2 vs 0/1 → 2.
	// #3: 1/2 vs 1/1 → 1. #4: 2/2 vs 1/1 → tie → 1. #5: 3/2 vs 1/1 → 2.
	// #6: 3/2 vs 2/1 → 1.
	var rows []TraceRow
	for range 6 {
		rows = append(rows, row(0, 10))
	}
	cfg := perServerConfig(LeastConnections, 3, 5, rows...)
	cfg.Weights = []int{2, 1, 0}
	got, h := routes(t, cfg)
	wantRoutes(t, got, 1, 2, 1, 1, 2, 1)
	if s := h.m.Summary(); s.ServerQueueMax != 3 {
		t.Errorf("server_queue_max = %d, want 3 (server 1 holds 4, one in service)", s.ServerQueueMax)
	}
}

// TestLeastWorkSpeeds: speeds 2, 1, 0.5; work counts cycles at each
// server's speed, from the moment of routing.
func TestLeastWorkSpeeds(t *testing.T) {
	// Cycle 0, times 10: #1 → 1 (all idle: lowest id; 5 cycles at speed 2).
	// #2 → 2 (idle; 10 cycles). #3 → 3 (idle; 20 cycles).
	// #4: work 5, 10, 20 → 1 (now 10). #5: 10, 10, 20 → 1 (tie: lowest id; 15).
	// #6: 15, 10, 20 → 2 (20). #7: 15, 20, 20 → 1 (20).
	// Cycle 12 (time 4): server 1 has done 5+5 and serves #5 until 15, then
	// #7 until 20: work 8; server 2 serves #6 until 20: work 8; server 3
	// until 20: 8. #8 → 1 (tie, lowest id).
	var rows []TraceRow
	for range 7 {
		rows = append(rows, row(0, 10))
	}
	rows = append(rows, row(12, 4))
	cfg := perServerConfig(LeastWork, 3, 30, rows...)
	cfg.Speeds = []Speed{200, 100, 50}
	got, h := routes(t, cfg)
	wantRoutes(t, got, 1, 2, 3, 1, 1, 2, 1, 1)
	h.m.RunTo(30)
	if s := h.m.Summary(); s.Completed != 8 {
		t.Errorf("completed %d, want 8", s.Completed)
	}
}

// TestMurmurFinalizer pins mix against values computed by hand from its
// definition (and FNV-1a against the standard library).
func TestMurmurFinalizer(t *testing.T) {
	ref := func(x uint64) uint64 {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		x *= 0xc4ceb9fe1a85ec53
		x ^= x >> 33
		return x
	}
	for _, c := range []struct{ in, want uint64 }{
		{0, 0},
		{1, 0xb456bcfc34c2cb2c},
		{0xffffffffffffffff, 0x64b5720b4b825f21},
	} {
		if got := mix(c.in); got != c.want || ref(c.in) != c.want {
			t.Errorf("mix(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	for _, a := range []uint32{0, 1, 0xC0000207, 0xFFFFFFFF} {
		h := fnv.New64a()
		h.Write([]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
		if fnv4(a) != h.Sum64() {
			t.Errorf("fnv4(%#x) = %#x, want %#x", a, fnv4(a), h.Sum64())
		}
	}
}

// TestHashRing routes a few sources by a ring computed here from the
// definition: 64 points per server, the first point ≥ the key, wrapping.
func TestHashRing(t *testing.T) {
	type point struct {
		at    uint64
		id, k int
	}
	ringOf := func(ids ...int) []point {
		var ps []point
		for _, id := range ids {
			for k := range 64 {
				h := fnv.New64a()
				h.Write([]byte{0, 0, byte(id >> 8), byte(id), 0, 0, 0, byte(k)})
				ps = append(ps, point{mix(h.Sum64()), id, k})
			}
		}
		slices.SortFunc(ps, func(a, b point) int {
			if a.at != b.at {
				if a.at < b.at {
					return -1
				}
				return 1
			}
			return a.id - b.id
		})
		return ps
	}
	owner := func(ps []point, src uint32) int {
		h := fnv.New64a()
		h.Write([]byte{byte(src >> 24), byte(src >> 16), byte(src >> 8), byte(src)})
		key := mix(h.Sum64())
		for _, p := range ps {
			if p.at >= key {
				return p.id
			}
		}
		return ps[0].id
	}
	srcs := []uint32{0xC0000201, 0xC0000202, 0xC6336407, 0x08080808, 0x01010101, 0xCB007101, 0x5DB8D822, 0xFFFFFFFE}
	var rows []TraceRow
	for i, s := range srcs {
		rows = append(rows, TraceRow{Cycle: int64(i), Src: s, Dst: dstAddr, Time: 3})
	}
	// Server 2 fails at cycle 4: its sources move, the others stay.
	cfg := perServerConfig(Hash, 3, 12, rows...)
	got, _ := routes(t, cfg, Change{Cycle: 4, Setting: SetDown, Value: int64(MakeServerRef(0, 2))})
	all, without2 := ringOf(1, 2, 3), ringOf(1, 3)
	for i, s := range srcs {
		want := owner(all, s)
		if i >= 4 {
			want = owner(without2, s)
		}
		if got[int64(i+1)] != want {
			t.Errorf("source %s routed to %d, want %d", FormatIPv4(s), got[int64(i+1)], want)
		}
		if i >= 4 && owner(all, s) != 2 && want != owner(all, s) {
			t.Errorf("source %s moved although its server stayed", FormatIPv4(s))
		}
	}
	// The same source always lands on the same server.
	if RingPoint(2, 5) != ringOf(2)[slices.IndexFunc(ringOf(2), func(p point) bool { return p.k == 5 })].at {
		t.Errorf("RingPoint(2, 5) disagrees with the definition")
	}
}

// TestRetiringKeepsItsQueue: scale-down retires a server with a queue; it
// gets nothing new, serves its queue, then leaves.
func TestRetiringKeepsItsQueue(t *testing.T) {
	// Two servers, round-robin: #1..#4 at cycle 0 (time 4): server 1 holds
	// #1, #3; server 2 holds #2, #4. Scaling at cycle 2 (D huge): no idle
	// server with an empty queue, so server 2 (the highest id) retires.
	// #5 at cycle 3 goes to server 1. Server 2 completes #2 at 4, #4 at 8,
	// and leaves then.
	rows := []TraceRow{row(0, 4), row(0, 4), row(0, 4), row(0, 4), row(3, 4)}
	cfg := perServerConfig(RoundRobin, 2, 12, rows...)
	cfg.Cooldown, cfg.ScaleUp, cfg.ScaleDown = 2, MaxFactor, MaxFactor-1
	got, h := routes(t, cfg)
	wantRoutes(t, got, 1, 2, 1, 2, 1)
	var log []string
	for _, l := range h.log {
		if !slices.Contains([]string{"arrive", "dispatch"}, kindOf(l)) {
			log = append(log, l)
		}
	}
	want := []string{"2 retire s2", "4 complete #1 s1", "4 complete #2 s2", "8 complete #3 s1", "8 complete #4 s2", "8 leave s2", "12 complete #5 s1"}
	if !slices.Equal(log, want) {
		t.Errorf("events\n%v\nwant\n%v", log, want)
	}
}

func kindOf(l string) string {
	var c int
	var k string
	fmt.Sscanf(l, "%d %s", &c, &k)
	return k
}

// TestDownServerReroutes: a server that fails hands its request in service
// and its queue back to the policy, each counted requeued and waiting from
// that cycle; when every server is down they wait in the lobby.
func TestDownServerReroutes(t *testing.T) {
	// Round-robin over 2 servers: #1 → 1, #2 → 2, #3 → 1, #4 → 2 (time 10).
	// Cycle 3: server 1 fails; #1 (in service) and #3 join server 2's
	// queue (the only candidate), behind #4. Cycle 5: server 2 fails too:
	// #2 (in service), #4, #1, #3 wait in the lobby; #5 joins them at 6.
	// Cycle 7: server 1 is back; the lobby drains to it in order. (No
	// scaling: with no active server any queue would add one.)
	rows := []TraceRow{row(0, 10), row(0, 10), row(0, 10), row(0, 10), row(6, 10)}
	cfg := perServerConfig(RoundRobin, 2, 60, rows...)
	cfg.Cooldown = 1000
	ref := func(id int) int64 { return int64(MakeServerRef(0, id)) }
	got, h := routes(t, cfg,
		Change{Cycle: 3, Setting: SetDown, Value: ref(1)},
		Change{Cycle: 5, Setting: SetDown, Value: ref(2)},
		Change{Cycle: 7, Setting: SetUp, Value: ref(1)})
	if got[5] != 0 {
		t.Errorf("request #5 arrived with every server down: routed to %d, want the lobby (0)", got[5])
	}
	s := h.m.Summary()
	// Requeued: #1, #3 at 3; #2, #4, #1, #3 at 5.
	if s.Requeued != 6 || s.Completed != 5 || !s.Consistent || s.Lobby != 0 {
		t.Errorf("requeued %d completed %d consistent %v lobby %d, want 6, 5, true, 0", s.Requeued, s.Completed, s.Consistent, s.Lobby)
	}
	var disp []string
	for _, l := range h.log {
		if kindOf(l) == "dispatch" {
			disp = append(disp, l)
		}
	}
	// Server 1 back at 7 takes the lobby in order: #2 (queued at 5), then
	// #4, #1, #3, then #5; each waits from its requeue cycle.
	want := []string{"0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0",
		"7 dispatch #2 s1 w2", "17 dispatch #4 s1 w12", "27 dispatch #1 s1 w22", "37 dispatch #3 s1 w32", "47 dispatch #5 s1 w41"}
	if !slices.Equal(disp, want) {
		t.Errorf("dispatches\n%v\nwant\n%v", disp, want)
	}
}

// TestLatencyQuantiles: nearest rank on small lists, ties, none.
func TestLatencyQuantiles(t *testing.T) {
	for _, c := range []struct {
		values        []int64
		p50, p90, p99 int64
		max           int64
	}{
		{nil, 0, 0, 0, 0},
		{[]int64{7}, 7, 7, 7, 7},
		{[]int64{1, 2, 3, 4}, 2, 4, 4, 4},
		{[]int64{5, 5, 5, 1}, 5, 5, 5, 5},
		{[]int64{3, 1, 2, 10, 4, 5, 6, 7, 8, 9}, 5, 9, 10, 10},
		{[]int64{0, 0, 100000, 200000}, 0, 199680, 199680, 200000}, // 200,000 lies in [199,680, 200,192)
	} {
		var h latency
		for _, v := range c.values {
			h.add(v)
		}
		got := []int64{h.quantile(50, 100), h.quantile(90, 100), h.quantile(99, 100), h.maximum()}
		want := []int64{c.p50, c.p90, c.p99, c.max}
		if !slices.Equal(got, want) {
			t.Errorf("%v: p50/p90/p99/max = %v, want %v", c.values, got, want)
		}
	}
}

// TestLatencyRelativeError: above 65,536 a quantile is within 1/256 below
// the true value.
func TestLatencyRelativeError(t *testing.T) {
	for v := int64(1 << 16); v < 1<<40; v = v*3/2 + 7 {
		var h latency
		h.add(v)
		h.add(v + 1<<41) // the max stays apart
		got := h.quantile(50, 100)
		if got > v || float64(v-got) > float64(v)/256 {
			t.Fatalf("one value %d: p50 = %d, more than 1/256 off", v, got)
		}
	}
}

// TestRequestStreamIdentical: for one seed the requests (id, source,
// destination, time, type, arrival) are the same whatever the policy, the
// queue mode, the speeds, the weights and the scaling settings.
func TestRequestStreamIdentical(t *testing.T) {
	rapidDefaults(150)
	rapid.Check(t, func(t *rapid.T) {
		base := DefaultConfig()
		base.Seed = rapid.Uint64().Draw(t, "seed")
		base.Cycles = rapid.Int64Range(1, 3000).Draw(t, "cycles")
		base.Servers = rapid.IntRange(1, 12).Draw(t, "servers")
		base.MaxServers = base.Servers + 10
		base.InitialPerServer = rapid.IntRange(0, 20).Draw(t, "initial")
		base.Rate = Rate(rapid.Int64Range(0, 4*RateScale).Draw(t, "rate"))
		stream := func(cfg Config) uint64 {
			m, err := New(cfg, WithEvents())
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			h := fnv.New64a()
			for {
				for _, e := range m.Events() {
					if e.Kind == Arrive || e.Kind == Reject || e.Kind == Discard {
						r := e.Request
						fmt.Fprintf(h, "%d %d %d %d %d %d;", r.ID, r.Src, r.Dst, r.Time, r.Type, r.Arrival)
					}
				}
				if !m.Step() {
					return h.Sum64()
				}
			}
		}
		want := stream(base)
		for i := range 3 {
			cfg := base.Clone()
			if rapid.Bool().Draw(t, fmt.Sprint("perServer", i)) {
				cfg.Queues = PerServer
			}
			cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, fmt.Sprint("policy", i))
			cfg.Speeds = []Speed{Speed(rapid.IntRange(1, 1000).Draw(t, fmt.Sprint("speed", i)))}
			cfg.Weights = []int{rapid.IntRange(0, 5).Draw(t, fmt.Sprint("weight", i))}
			cfg.Choices = rapid.IntRange(1, 5).Draw(t, fmt.Sprint("choices", i))
			cfg.ScaleUp = Factor(rapid.Int64Range(1, 200_000).Draw(t, fmt.Sprint("up", i)))
			cfg.ScaleDown = Factor(rapid.Int64Range(0, int64(cfg.ScaleUp)-1).Draw(t, fmt.Sprint("down", i)))
			cfg.Cooldown = rapid.Int64Range(1, 50).Draw(t, fmt.Sprint("cooldown", i))
			if rapid.Bool().Draw(t, fmt.Sprint("capped", i)) {
				cfg.QueueCap = rapid.IntRange(1, 50).Draw(t, fmt.Sprint("cap", i))
			}
			if got := stream(cfg); got != want {
				t.Fatalf("variant %d (%v, %v): the request stream differs from the base run's", i, cfg.Queues, cfg.Policy)
			}
		}
	})
}

// TestPerServerFastPaths: the gate opens RunTo's saturated stretch to the
// central queue only, and runRouted to per-server runs of one balancer
// only, without events, faults or a trace (RunTo equals stepping in all of
// them: see TestRunToMatchesStepping).
func TestPerServerFastPaths(t *testing.T) {
	base := DefaultConfig()
	base.Seed, base.Cycles, base.Queues, base.Policy = 3, 2000, PerServer, RoundRobin
	base.InitialPerServer = 500 // a long queue: the pooled run takes stretches
	for _, c := range []struct {
		name             string
		change           func(*Config)
		opts             []Option
		saturated, route bool
	}{
		{"per-server", func(*Config) {}, nil, false, true},
		{"pooled", func(c *Config) { c.Queues, c.Policy = Pooled, FirstIdle }, nil, true, false},
		{"switch", func(c *Config) { c.Switch = true }, nil, false, false},
		{"faults", func(c *Config) { c.MTBF, c.MTTR = 500, 10 }, nil, false, false},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(5, 3)} }, nil, false, false},
		{"events", func(*Config) {}, []Option{WithEvents()}, false, false},
	} {
		cfg := base
		c.change(&cfg)
		m, err := New(cfg, c.opts...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := viaSkip
		switch {
		case c.saturated:
			want = viaSaturated
		case c.route:
			want = viaRouted
		}
		if got := m.gate(); got != want {
			t.Fatalf("%s: the gate opens %d, want %d", c.name, got, want)
		}
		if c.saturated && !m.runSaturated(m.bal[0], cfg.Cycles) || c.route && !m.runRouted(m.bal[0], cfg.Cycles) {
			t.Errorf("%s: the shortcut did not advance", c.name)
		}
	}
}

// TestPercentilesAgreeWithQuantile: the one-pass percentiles are the
// nearest-rank quantiles, on random lists with values on both sides of
// the exact table's bound.
func TestPercentilesAgreeWithQuantile(t *testing.T) {
	rapidDefaults(300)
	rapid.Check(t, func(t *rapid.T) {
		var h latency
		for range rapid.IntRange(0, 200).Draw(t, "n") {
			h.add(rapid.SampledFrom([]int64{0, 1, 7, 100, 65535, 65536, 70000, 1 << 30}).Draw(t, "v") + rapid.Int64Range(0, 3).Draw(t, "d"))
		}
		p50, p90, p95, p99, mx := h.percentiles()
		want := []int64{h.quantile(50, 100), h.quantile(90, 100), h.quantile(95, 100), h.quantile(99, 100), h.maximum()}
		if got := []int64{p50, p90, p95, p99, mx}; !slices.Equal(got, want) {
			t.Fatalf("percentiles %v, quantiles %v", got, want)
		}
	})
}

// sortedRing returns the live servers' points sorted by a comparison
// sort, the reference for the ring's counting sort and merges.
func sortedRing(b *Balancer) []ringPoint {
	var ps []ringPoint
	for id := 1; id <= len(b.srv); id++ {
		if !b.srv[id-1].gone {
			ps = appendPoints(ps, b.idOf(id), id)
		}
	}
	slices.SortFunc(ps, cmpPoints)
	return ps
}

// checkRingIndex fails unless start[k] is the first point whose top bits
// are ≥ k, for every bucket k, with as many bits as the points call for.
func checkRingIndex(t tester, r *ring) {
	t.Helper()
	if len(r.start) != 1<<r.bits+1 || r.bits != ringBits(len(r.points)) {
		t.Fatalf("the index has %d entries for %d bits, %d points", len(r.start), r.bits, len(r.points))
	}
	for k := range r.start {
		want := sort.Search(len(r.points), func(i int) bool { return r.points[i].at>>(64-r.bits) >= uint64(k) })
		if int(r.start[k]) != want {
			t.Fatalf("start[%d] = %d, want %d", k, r.start[k], want)
		}
	}
}

// TestRingRebuildSorts: the ring built by the counting sort of its buckets
// is the comparison sort's, ties of position included, for pools from 1 to
// 3,000 servers with some gone.
func TestRingRebuildSorts(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64, 3000} {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy = PerServer, Hash
		cfg.Servers, cfg.MaxServers = n, n
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b := m.Balancers()[0]
		for id := 2; id <= n; id += 3 {
			b.srv[id-1].gone = true
		}
		var r ring
		r.rebuild(b)
		if want := sortedRing(b); !slices.Equal(r.points, want) {
			t.Fatalf("%d servers: the rebuilt ring differs from the sorted points", n)
		}
		checkRingIndex(t, &r)
	}
	tie := []ringPoint{{5, 2, 1}, {5, 1, 3}, {5, 1, 2}, {3, 9, 0}}
	want := slices.Clone(tie)
	slices.SortFunc(want, cmpPoints)
	for i := 1; i < len(tie); i++ { // the insertion sort a bucket gets
		for j := i; j > 0 && before(&tie[j], &tie[j-1]); j-- {
			tie[j], tie[j-1] = tie[j-1], tie[j]
		}
	}
	if !slices.Equal(tie, want) {
		t.Fatalf("ties sort as %v, want %v", tie, want)
	}
}

// ringAll returns every point the ring holds, those waiting beside it
// (ring.over) included, in ring order; it fails unless each bucket's chain
// holds that bucket's waiting points in ring order, each once.
func ringAll(t tester, r *ring) []ringPoint {
	t.Helper()
	if len(r.next) != len(r.over) {
		t.Fatalf("%d waiting points, %d links", len(r.over), len(r.next))
	}
	chained := 0
	if len(r.over) > 0 {
		if len(r.head) != len(r.start)-1 {
			t.Fatalf("%d chains for %d buckets", len(r.head), len(r.start)-1)
		}
		for bk, o := range r.head {
			var prev *ringPoint
			for ; o != 0; o = r.next[o-1] {
				p := &r.over[o-1]
				if p.at>>(64-r.bits) != uint64(bk) || prev != nil && !before(prev, p) {
					t.Fatalf("bucket %d chains %v after %v", bk, *p, prev)
				}
				if chained++; chained > len(r.over) {
					t.Fatalf("the chains hold more than the %d waiting points", len(r.over))
				}
				prev = p
			}
		}
	}
	if chained != len(r.over) {
		t.Fatalf("the chains hold %d of the %d waiting points", chained, len(r.over))
	}
	all := append(slices.Clone(r.points), r.over...)
	slices.SortFunc(all, cmpPoints)
	return all
}

// TestRingInsertEqualsRebuild: growing the ring one server at a time (with
// servers leaving) gives the ring built from scratch, with the points
// waiting beside it counted in.
func TestRingInsertEqualsRebuild(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Policy = 5, 3000, PerServer, Hash
	// Past mergeBelow, so that new servers' points wait beside the ring.
	cfg.Servers, cfg.MaxServers, cfg.Cooldown, cfg.Rate = 60, 200, 5, 2*RateScale
	cfg.InitialPerServer, cfg.ScaleUp, cfg.ScaleDown = 0, 4*FactorScale, 2*FactorScale
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := m.Balancers()[0]
	r := &b.rt.(*hashRouter).ring
	inserts, waited := 0, 0
	for m.Step() {
		if !r.stale && len(r.points) > 0 && m.Last().Scale == 1 {
			inserts++
			if len(r.over) > 0 {
				waited++
			}
			var fresh ring
			fresh.rebuild(b)
			var live []ringPoint
			for _, p := range ringAll(t, r) {
				if !b.srv[p.id-1].gone {
					live = append(live, p)
				}
			}
			if !slices.Equal(live, fresh.points) || !slices.Equal(live, sortedRing(b)) {
				t.Fatalf("cycle %d: the merged ring differs from the rebuilt one", m.Cycle())
			}
			checkRingIndex(t, r)
		}
	}
	if downs := m.Totals().ScaleDowns; inserts == 0 || waited == 0 || waited == inserts || downs == 0 {
		t.Fatalf("%d scale-ups, %d left points waiting, %d scale-downs: the test proves nothing", inserts, waited, downs)
	}
}

// quantile is the reference the one-pass percentiles are checked
// against: it returns the nearest-rank p-quantile for p = num/den: the
// smallest value v such that at least ⌈p·n⌉ of the n values are ≤ v (the
// smallest value when that rank is 0), or 0 with no values. Above
// exactBelow it returns the low end of v's bucket, never more than the
// maximum.
func (h *latency) quantile(num, den int64) int64 {
	n := h.count()
	if n == 0 {
		return 0
	}
	rank := max((n*num+den-1)/den, 1) // ⌈p·n⌉, in integers
	var seen int64
	for v, c := range h.exact {
		if seen += int64(c); seen >= rank {
			return int64(v)
		}
	}
	for i, c := range h.log {
		if seen += int64(c); seen >= rank {
			return min(logLow(i), h.slowMax)
		}
	}
	return h.maximum()
}

// TestPolicyBecomesLeastWork switches a per-server run with queues at
// servers of speeds 2, 1 and 0.5 to least-work: its index must start from
// each queue's service cycles at that server's speed (the invariants add
// them up each cycle), and route as least-work from then on.
func TestPolicyBecomesLeastWork(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 3, 300
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 3, 3, 3
	cfg.Queues, cfg.Policy, cfg.Speeds = PerServer, RoundRobin, []Speed{200, 100, 50}
	cfg.InitialPerServer, cfg.Blocked = 6, nil
	h := newHarness(t, cfg)
	const at = 20
	if err := h.m.Schedule(Change{Cycle: at, Setting: SetPolicy, Value: int64(LeastWork)}); err != nil {
		t.Fatal(err)
	}
	h.stepTo(at - 1)
	b := h.m.bal[0]
	queued := 0
	for id := 1; id <= 3; id++ {
		if b.srv[id-1].speed != SpeedScale {
			queued += b.sq[id-1].Len()
		}
	}
	if queued == 0 {
		t.Fatal("no request waits at a server of speed 2 or 0.5 when the policy changes: the test proves nothing")
	}
	for h.step() {
	}
	if lw, ok := b.rt.(*leastWork); !ok || lw.ix == nil {
		t.Fatal("the run did not end under least-work with its index")
	}
}

// TestAppendPointsMatchesRingPoint checks the ring's shortcut hashing
// against the definition, for ids whose bytes are all used: the points are
// placed by the id and named by the slot given.
func TestAppendPointsMatchesRingPoint(t *testing.T) {
	for _, id := range []int{1, 2, 255, 256, 65_537, 1<<24 + 3, 1<<31 - 1} {
		for _, p := range appendPoints(nil, id, 7) {
			if want := RingPoint(id, int(p.k)); p.at != want || p.id != 7 {
				t.Fatalf("server %d point %d at %#x, want %#x", id, p.k, p.at, want)
			}
		}
	}
}

// TestPickOfTwoMatchesDrawn checks p2c's written-out choice of two
// against the general draw of d distinct candidates with d = 2: from the
// same routing generator, over loads with many ties, both pick the same
// server (the first drawn on a tie) and leave the generator in the same
// state.
func TestPickOfTwoMatchesDrawn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy, cfg.Choices = PerServer, P2C, 2
		cfg.Seed = rapid.Uint64().Draw(t, "seed")
		cfg.Servers = rapid.IntRange(2, 40).Draw(t, "servers")
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b := m.bal[0]
		p := b.rt.(*p2c)
		for i := range b.cands.load {
			b.cands.load[i] = int32(rapid.IntRange(0, 2).Draw(t, "load"))
		}
		for range 50 {
			before := *m.rpcg
			got := p.pick(packed{}, 0)
			after := *m.rpcg
			*m.rpcg = before
			load := b.cands.load
			want := pickDrawnBy(b, 0, 0, len(b.cands.ids), 2, func(x int) int64 { return int64(load[x]) }, b.cands.ids)
			if got != want || *m.rpcg != after {
				t.Fatalf("the choice of two picked server %d, the general draw %d (generators equal after: %v)", got, want, *m.rpcg == after)
			}
		}
	})
}
