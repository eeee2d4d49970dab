package sim

import (
	"testing"
)

// faultConfig is a small trace-driven config without scaling or firewall.
func faultConfig(servers int, cycles int64, rows ...TraceRow) Config {
	c := DefaultConfig()
	c.Servers, c.Cycles = servers, cycles
	c.MinServers, c.MaxServers = 1, servers+10
	c.ScaleUp, c.ScaleDown = 1_000_000*FactorScale, 0 // never scale
	c.Blocked = nil
	c.Trace = append([]TraceRow{}, rows...)
	return c
}

// assertBooks checks the accounting lines and the pool's counts after a
// cycle, for the model and each balancer.
func assertBooks(t *testing.T, m *Model) {
	t.Helper()
	for _, s := range []Summary{m.Summary()} {
		if !s.Consistent {
			t.Fatalf("cycle %d: accounting does not hold: %+v", m.Cycle(), s)
		}
	}
	for _, b := range m.Balancers() {
		s := b.Summary()
		if !s.Consistent {
			t.Fatalf("cycle %d: balancer %q accounting does not hold: %+v", m.Cycle(), b.Name(), s)
		}
		busy, live, down := 0, 0, 0
		for v := range b.Servers() {
			switch v.State {
			case Failed:
				down++ // it keeps its slot: live
			case Busy, Retiring:
				busy++
			}
			live++
		}
		if p := b.Pool(); p.Busy != busy || p.Live != live || p.Down != down || p.Idle != live-busy-down {
			t.Fatalf("cycle %d: pool %+v, counted busy %d live %d down %d", m.Cycle(), p, busy, live, down)
		}
	}
}

func runWithFaults(t *testing.T, cfg Config, changes ...Change) (*Model, []Event) {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	events := append([]Event{}, m.Events()...)
	assertBooks(t, m)
	for m.Step() {
		events = append(events, m.Events()...)
		assertBooks(t, m)
	}
	return m, events
}

func fault(cycle int64, kind string, ref string) Change {
	c, err := NewChange(cycle, kind, ref)
	if err != nil {
		panic(err)
	}
	return c
}

func TestFaultRequeuesToTheHeadWithItsArrivalKept(t *testing.T) {
	// Two servers, three requests of time 10 at cycle 0: #1 → server 1,
	// #2 → server 2, #3 waits. Server 1 fails at cycle 4: #1 goes back to
	// the head of the queue, before #3, and waits for server 2 (free at 10).
	cfg := faultConfig(2, 40,
		TraceRow{Cycle: 0, Time: 10}, TraceRow{Cycle: 0, Time: 10}, TraceRow{Cycle: 0, Time: 10})
	m, events := runWithFaults(t, cfg, fault(4, "down", "1"))
	var got []Event
	for _, e := range events {
		if e.Kind == Dispatch || e.Kind == Requeue || e.Kind == Complete {
			got = append(got, e)
		}
	}
	want := []struct {
		cycle int64
		kind  EventKind
		id    int64
		srv   int
		wait  int64
	}{
		{0, Dispatch, 1, 1, 0},
		{0, Dispatch, 2, 2, 0},
		{4, Requeue, 1, 1, 0},
		{10, Complete, 2, 2, 0},
		{10, Dispatch, 1, 2, 6}, // waited from its requeue at 4, not from arrival 0
		{20, Complete, 1, 2, 0},
		{20, Dispatch, 3, 2, 20},
		{30, Complete, 3, 2, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Cycle != w.cycle || g.Kind != w.kind || g.Request.ID != w.id || g.Server != w.srv || g.Wait != w.wait {
			t.Errorf("event %d = cycle %d %v #%d server %d wait %d; want cycle %d %v #%d server %d wait %d",
				i, g.Cycle, g.Kind, g.Request.ID, g.Server, g.Wait, w.cycle, w.kind, w.id, w.srv, w.wait)
		}
		if g.Kind == Dispatch && g.Request.ID == 1 && g.Cycle == 10 && (g.Request.Arrival != 0 || !g.Request.Requeued) {
			t.Errorf("requeued request lost its arrival or mark: %+v", g.Request)
		}
	}
	s := m.Summary()
	if s.Requeued != 1 || s.Down != 1 || s.Up != 0 || s.Dispatched != 4 || s.Completed != 3 || s.TotalWait != 26 || s.ServersDown != 1 {
		t.Errorf("summary %+v: want requeued 1, down 1, dispatched 4, completed 3, total wait 26, 1 server down", s)
	}
	if _, ok := m.Balancers()[0].Server(1); !ok {
		t.Error("a down server must still be visible to views")
	}
}

func TestFaultDownThenUpComesBackIdleWithTheSameID(t *testing.T) {
	cfg := faultConfig(1, 30, TraceRow{Cycle: 0, Time: 5}, TraceRow{Cycle: 0, Time: 5})
	m := mustNew(t, cfg, fault(2, "down", "1"), fault(6, "up", "1"))
	b := m.Balancers()[0]
	for m.Cycle() < 5 {
		m.Step()
		if v, _ := b.Server(1); v.State != Failed && m.Cycle() >= 2 {
			t.Fatalf("cycle %d: server 1 is %v, want down", m.Cycle(), v.State)
		}
		if p := b.Pool(); m.Cycle() >= 2 && (p.Live != 1 || p.Active != 0 || p.Idle != 0 || p.Down != 1) {
			t.Fatalf("cycle %d: pool %+v, want one live server, down (it keeps its slot), nothing active or idle", m.Cycle(), p)
		}
	}
	m.Step() // cycle 6: up, then dispatch of #1 again
	v, _ := b.Server(1)
	if v.State != Busy || v.Request.ID != 1 || v.Start != 6 || v.Done != 11 {
		t.Fatalf("after coming back: %+v, want busy with #1 from 6 to 11", v)
	}
	m.Run()
	if s := m.Summary(); s.Completed != 2 || s.Down != 1 || s.Up != 1 || s.Requeued != 1 || s.ServersFinal != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestFaultOnARetiringServerEndsItsRetirement(t *testing.T) {
	// Scale-down marks busy server 2 retiring at cycle 10; it fails at 12:
	// its request is requeued and the server leaves for good.
	cfg := faultConfig(2, 40, TraceRow{Cycle: 0, Time: 30}, TraceRow{Cycle: 0, Time: 30})
	cfg.ScaleUp, cfg.ScaleDown = 100*FactorScale, 1*FactorScale // Q=0 < 1·2 at cycle 10
	m, events := runWithFaults(t, cfg, fault(12, "down", "2"))
	var kinds []EventKind
	for _, e := range events {
		if e.Server == 2 && e.Kind != Dispatch {
			kinds = append(kinds, e.Kind)
		}
	}
	want := []EventKind{Retire, Down, Requeue, Dispatch}
	if len(kinds) < 3 || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
		t.Fatalf("server 2's events %v, want retire, down, requeue", kinds)
	}
	if _, ok := m.Balancers()[0].Server(2); ok {
		t.Error("a retiring server that failed must have left the pool")
	}
	if s := m.Summary(); s.Requeued != 1 || s.ServersRetiring != 0 || s.ServersFinal != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestFaultErrorsAreSkippedAndReported(t *testing.T) {
	tests := []struct {
		name    string
		changes []Change
	}{
		{"no such server", []Change{fault(3, "down", "9")}},
		{"already down", []Change{fault(3, "down", "1"), fault(4, "down", "1")}},
		{"up while up", []Change{fault(3, "up", "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := runWithFaults(t, faultConfig(2, 10), tt.changes...)
			if m.FaultError() == nil {
				t.Fatal("FaultError() = nil, want an error")
			}
			if s := m.Summary(); s.FaultsSkipped != 1 {
				t.Errorf("faults_skipped = %d, want 1", s.FaultsSkipped)
			}
		})
	}
}

func TestRandomFaultsKeepTheBooks(t *testing.T) {
	for _, sw := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Cycles, cfg.Switch = 7, 5000, sw
		cfg.MTBF, cfg.MTTR = 300, 40
		m, events := runWithFaults(t, cfg)
		s := m.Summary()
		if s.Down < 50 || s.Requeued == 0 || s.Up == 0 {
			t.Fatalf("switch=%v: %d failures, %d requeued, %d back: want many", sw, s.Down, s.Requeued, s.Up)
		}
		if s.Down-s.Up != s.ServersDown {
			t.Errorf("switch=%v: down %d − up %d ≠ servers down %d", sw, s.Down, s.Up, s.ServersDown)
		}
		// Every admitted request is dispatched at most once more than it
		// was requeued, and never completes twice.
		completed := map[int64]int{}
		for _, e := range events {
			if e.Kind == Complete {
				completed[e.Request.ID]++
				if completed[e.Request.ID] > 1 {
					t.Fatalf("request %d completed twice", e.Request.ID)
				}
			}
		}
	}
}

func TestRandomFaultsLeaveTheRequestStreamAlone(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 11, 3000
	plain, _ := New(cfg)
	plain.Run()
	cfg.MTBF, cfg.MTTR = 500, 20
	faulty, _ := New(cfg)
	faulty.Run()
	p, f := plain.Summary(), faulty.Summary()
	if p.Generated != f.Generated || p.Rejected != f.Rejected {
		t.Errorf("faults changed the arrivals: generated %d vs %d, rejected %d vs %d", p.Generated, f.Generated, p.Rejected, f.Rejected)
	}
	if f.Down == 0 {
		t.Error("no random faults happened")
	}
}

// TestDownServersKeepTheirSlot: a down server stays live (counted against
// max-servers and in the cost) but not active, so random faults never let
// scaling grow the pool past max-servers. Before, 5 servers with max 5
// ended with 8 live, and max 1 grew without bound.
func TestDownServersKeepTheirSlot(t *testing.T) {
	for _, c := range []struct{ servers, max int }{{5, 5}, {1, 1}, {3, 6}} {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Cycles = 1, 100_000
		cfg.Servers, cfg.MinServers, cfg.MaxServers = c.servers, 1, c.max
		cfg.MTBF, cfg.MTTR = 100, 10
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Run()
		s := m.Summary()
		if s.ServersPeak > int64(c.max) || s.Down == 0 {
			t.Errorf("servers %d, max %d: pool peak %d after %d failures, want at most %d", c.servers, c.max, s.ServersPeak, s.Down, c.max)
		}
		if s.ServersIdle+s.ServersBusy+s.ServersDown != s.ServersFinal {
			t.Errorf("servers %d, max %d: idle %d + busy %d + down %d != live %d", c.servers, c.max, s.ServersIdle, s.ServersBusy, s.ServersDown, s.ServersFinal)
		}
	}
}
