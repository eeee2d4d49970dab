package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fleetPool is a fixed pool of n per-server queues behind k balancers
// under policy with load information info, kept about 90% busy by
// geometric service of mean 100.
func fleetPool(n, k int, policy Policy, info LoadInfo) Config {
	c := DefaultConfig()
	c.Seed, c.Cycles = 1, 400
	c.Servers, c.MinServers, c.MaxServers = n, n, n
	c.Service, c.MeanService = Geometric, 100
	c.Rate, c.Wave = Rate(int64(n)*9*RateScale/1000), false
	c.InitialPerServer, c.Blocked = 0, nil
	c.Queues, c.Policy = PerServer, policy
	c.Balancers, c.LoadInfo = k, info
	return c
}

// picksOf returns the picks of every balancer of b.
func picksOf(b *Balancer) int64 {
	var n int64
	for _, r := range b.tally.routed {
		n += r
	}
	return n
}

// TestFleetPickCostLogarithmic: least-connections and least-work with
// local counts or a board pick through an index of each balancer's view,
// whose steps (heap moves, going down the board's order, the rebuilds
// after each refresh) grow with the log of the servers a pick: they used
// to read every server's load a pick (and, for least-work with local
// counts, every queue), so 4,096 servers cost 4,096 reads a pick.
func TestFleetPickCostLogarithmic(t *testing.T) {
	for _, tc := range []struct {
		policy Policy
		info   LoadInfo
	}{
		{LeastConnections, LoadLocal}, {LeastConnections, 50},
		{LeastWork, LoadLocal}, {LeastWork, 50},
	} {
		t.Run(tc.policy.String()+"/"+tc.info.String(), func(t *testing.T) {
			var perPick [2]float64
			for i, n := range []int{512, 4096} {
				m, err := New(fleetPool(n, 8, tc.policy, tc.info))
				if err != nil {
					t.Fatal(err)
				}
				m.RunTo(m.cfg.Cycles)
				b := m.bal[0]
				ix, picks := b.fleet.v.ix, picksOf(b)
				if ix == nil || picks < int64(n) {
					t.Fatalf("%d servers: index %v, %d picks: the run does not pick through a view's index", n, ix != nil, picks)
				}
				steps := ix.ops + ix.rebuilt
				perPick[i] = float64(steps) / float64(picks)
				t.Logf("%d servers: %d picks, %d steps (%d in rebuilds), %.1f a pick", n, picks, steps, ix.rebuilt, perPick[i])
				if lg := float64(bits.Len(uint(n))); perPick[i] > 8*lg {
					t.Errorf("%d servers: %d steps for %d picks, %.1f a pick, above 8·log₂ n = %.0f", n, steps, picks, perPick[i], 8*lg)
				}
			}
			// Eight times the servers: log₂ grows from 10 to 13; a scan
			// would cost eight times as much a pick.
			if perPick[1] > 2*perPick[0] {
				t.Errorf("steps a pick %.1f at 512 servers, %.1f at 4,096: they grow faster than the log", perPick[0], perPick[1])
			}
		})
	}
}

// TestFleetLocalWorkReadsNoQueue: least-work with local counts reads a
// balancer's work at a server from counts kept as requests come and go,
// never walking the server's queue (it used to walk every queue at every
// pick: quadratic in the queue). Ten servers start with 2,000 and then
// 8,000 requests each; the steps a pick stay the same, and no queue is
// walked after the start.
func TestFleetLocalWorkReadsNoQueue(t *testing.T) {
	var perPick []float64
	for _, initial := range []int{2000, 8000} {
		cfg := fleetPool(10, 4, LeastWork, LoadLocal)
		cfg.InitialPerServer, cfg.Cycles = initial, 300
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.RunTo(cfg.Cycles)
		b := m.bal[0]
		v := b.fleet.v
		if v.walked > int64(10*initial) {
			t.Errorf("initial %d a server: %d queued requests read, more than the queues held once", initial, v.walked)
		}
		picks := picksOf(b)
		perPick = append(perPick, float64(v.ix.ops+v.ix.rebuilt)/float64(picks))
		t.Logf("initial %d a server: %d picks, %.1f steps a pick, %d queued read", initial, picks, perPick[len(perPick)-1], v.walked)
	}
	if perPick[0] > 40 || perPick[1] > 40 || perPick[1] > 1.5*perPick[0]+1 {
		t.Errorf("steps a pick %.1f with 2,000 queued a server, %.1f with 8,000: want a few, the same", perPick[0], perPick[1])
	}
}

// TestFleetIdleQueueLeavesInConstantSteps: join-idle-queue over 2,000
// servers with faults: a server leaving the candidates leaves its I-queue
// in O(1) (it used to be deleted by a scan of the queue), so the entries
// touched stay within a few per registration, departure and pick; and
// each cycle's registration reads the free servers a word of 64 at a
// time (it used to visit each free server every cycle).
func TestFleetIdleQueueLeavesInConstantSteps(t *testing.T) {
	cfg := fleetPool(2000, 2, JIQ, LoadExact)
	cfg.Rate = 2 * RateScale // a light load: most servers idle and registered
	cfg.MTBF, cfg.MTTR, cfg.Cycles = 200, 20, 400
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.RunTo(cfg.Cycles)
	b := m.bal[0]
	f := b.fleet
	var regs int64
	for s := range f.gen {
		regs += int64(f.gen[s])
	}
	if b.tot.Downs < 1000 || regs < 2000 {
		t.Fatalf("%d downs, %d registrations: the run does not exercise the I-queues", b.tot.Downs, regs)
	}
	events := regs + b.tot.Downs + picksOf(b)
	words := (cfg.Cycles + 1) * int64(len(b.free.w))
	t.Logf("%d registrations, %d downs, %d picks, %d words of free servers read: %d steps", regs, b.tot.Downs, picksOf(b), words, f.iqSteps)
	if f.iqSteps > 4*events+words {
		t.Errorf("%d I-queue steps for %d registrations, departures and picks and %d words", f.iqSteps, events, words)
	}
}

// TestBoardRefreshReadsNoQueue: a periodic board's refresh writes each
// server's load and work from counts kept as requests come and go, once a
// server (it used to walk every queue for the work, even under
// least-connections, which reads none): 10 servers holding 20,000 queued
// requests each, refreshed every cycle. Each refresh writes exactly each
// server's true load and remaining work.
func TestBoardRefreshReadsNoQueue(t *testing.T) {
	cfg := fleetPool(10, 2, LeastConnections, 1)
	cfg.InitialPerServer, cfg.Cycles = 20_000, 50
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := m.bal[0]
	v := b.fleet.v
	for m.Cycle() < cfg.Cycles {
		m.Step()
		before := v.written
		v.refresh(m.Cycle())
		if got := v.written - before; got != int64(len(b.srv)) {
			t.Fatalf("cycle %d: a refresh wrote %d entries, want one a server (%d)", m.Cycle(), got, len(b.srv))
		}
		for s := 1; s <= len(b.srv); s++ {
			if v.boardLoad[s-1] != b.load(s) || v.boardWork[s-1] != b.remainingWork(s, m.Cycle()) {
				t.Fatalf("cycle %d, server %d: board (%d, %d), true load and work (%d, %d)", m.Cycle(), s,
					v.boardLoad[s-1], v.boardWork[s-1], b.load(s), b.remainingWork(s, m.Cycle()))
			}
		}
	}
	if v.walked != 0 {
		t.Errorf("%d queued requests read", v.walked)
	}
}

// allocated returns the bytes New and the first cycle allocate for cfg.
func allocated(t *testing.T, cfg Config) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Step()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFleetMemoryPerServer: a fleet's state is what docs/cli.md says a
// balancer and a server slot cost (8 bytes for the picks, 4 more with
// local counts, 16 more with a board), allocated once for the servers at
// the start: its arrays used to grow a server at a time, allocating two to
// three times that (256 balancers over 100,000 servers with a board
// peaked at 1.0–1.2 GB against the 600 MB stated).
func TestFleetMemoryPerServer(t *testing.T) {
	const n, k = 4000, 64
	base := allocated(t, fleetPool(n, 1, LeastConnections, LoadExact))
	for _, tc := range []struct {
		info LoadInfo
		per  float64
	}{{LoadExact, 8}, {LoadLocal, 12}, {100, 24}} {
		got := float64(allocated(t, fleetPool(n, k, LeastConnections, tc.info))-base) / (n * k)
		t.Logf("load information %v: %.2f bytes a balancer and server", tc.info, got)
		if got > tc.per*1.1 || got < tc.per*0.9 {
			t.Errorf("load information %v: %.1f bytes a balancer and server, want %.0f (±10%%)", tc.info, got, tc.per)
		}
	}
}

// TestLoadReadersHaveViews: every policy the table says reads load picks,
// in a fleet, by the attempt's balancer's view (its router is a
// fleetPicker), and a fleet with local counts routes otherwise than one
// with exact information: a policy that reads load added without a view
// would route by the true loads in every fleet and fail here.
func TestLoadReadersHaveViews(t *testing.T) {
	for p := range numPolicies {
		info := p.Info()
		if !info.ReadsLoad {
			continue
		}
		t.Run(p.String(), func(t *testing.T) {
			routes := map[LoadInfo][]int{}
			for _, li := range []LoadInfo{LoadExact, LoadLocal, 20} {
				cfg := fleetPool(20, 4, p, li)
				// Queues two deep from the start: a load-reading pick whose
				// parameter's default looks no further than a load of 1 or 2
				// (a threshold) still reads the views apart.
				cfg.Cycles, cfg.InitialPerServer = 300, 2
				servers, _, m := routedTo(t, cfg)
				if _, ok := m.bal[0].rt.(fleetPicker); !ok {
					t.Fatalf("the %s router picks for no balancer of a fleet (no fleetPicker)", p)
				}
				routes[li] = servers
			}
			if slices.Equal(routes[LoadExact], routes[LoadLocal]) || slices.Equal(routes[LoadExact], routes[20]) {
				t.Errorf("%s routes the same with local counts or a board as with exact loads: its picks read no view", p)
			}
		})
	}
}

// TestTableReadsLoadAsTheRouterSays: the table's ReadsLoad is what each
// policy's per-server router says its picks read (Caps.Reads, loads or
// work): a policy whose picks read loads but whose row says not would
// have --load-info refused and the views it reads left out of every test
// above, with nothing failing.
func TestTableReadsLoadAsTheRouterSays(t *testing.T) {
	for p := range numPolicies {
		if p.Allowed(PerServer) != "" {
			continue
		}
		m, err := New(fleetPool(4, 1, p, LoadExact))
		if err != nil {
			t.Fatal(err)
		}
		if reads := m.bal[0].caps.Reads != ReadsNothing; reads != p.Info().ReadsLoad {
			t.Errorf("%s: its router's picks read loads or work: %v; its row's ReadsLoad: %v", p, reads, p.Info().ReadsLoad)
		}
	}
}

// TestNoPolicyNamesOutsideTheTable: outside the policy table (policy.go)
// and the routers (route_*.go), no code of the package compares a policy
// with a policy's name (p == JIQ, case LeastWork): what a policy does is
// its table row's and its router's.
func TestNoPolicyNamesOutsideTheTable(t *testing.T) {
	names := policyConsts(t)
	if len(names) != int(numPolicies) {
		t.Fatalf("found %d policy constants in policy.go, want %d", len(names), numPolicies)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || path == "policy.go" || strings.HasPrefix(path, "route_") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var xs []ast.Expr
			switch e := n.(type) {
			case *ast.BinaryExpr:
				if e.Op == token.EQL || e.Op == token.NEQ {
					xs = []ast.Expr{e.X, e.Y}
				}
			case *ast.CaseClause:
				xs = e.List
			}
			for _, x := range xs {
				if id, ok := x.(*ast.Ident); ok && names[id.Name] {
					t.Errorf("%s: compares with the policy %s: ask its table row or router", fset.Position(id.Pos()), id.Name)
				}
			}
			return true
		})
	}
}

// policyConsts returns the names of the policies' constants, read from
// policy.go's const block of type Policy.
func policyConsts(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "policy.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || len(g.Specs) == 0 {
			continue
		}
		if first := g.Specs[0].(*ast.ValueSpec); first.Type == nil || types(first.Type) != "Policy" {
			continue
		}
		for _, spec := range g.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				if !strings.HasPrefix(n.Name, "num") {
					names[n.Name] = true
				}
			}
		}
	}
	return names
}

// types returns the name of a type written as an identifier.
func types(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestFleetSWRRMemory: swrr's per-balancer scores over a fleet cost what
// docs/cli.md says a balancer and server slot cost (about 58 bytes with the
// picks), allocated once: each balancer's index grew a server at a time and
// built its tree at each doubling (176 bytes allocated; 256 balancers over
// 100,000 servers took 2.6–3.0 GB and 7 s before cycle 1).
func TestFleetSWRRMemory(t *testing.T) {
	const n, k = 4000, 64
	base := allocated(t, fleetPool(n, 1, SWRR, LoadExact))
	got := float64(allocated(t, fleetPool(n, k, SWRR, LoadExact))-base) / (n * k)
	t.Logf("%.2f bytes a balancer and server", got)
	if got > 64 {
		t.Errorf("%.1f bytes a balancer and server, want at most 64", got)
	}
}
