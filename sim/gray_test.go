package sim

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// grayRun runs cfg (a trace, servers fixed, nothing blocked) with changes,
// checking the invariants after every cycle, and returns the model and each
// cycle's events.
func grayRun(t *testing.T, cfg Config, changes ...Change) (*Model, []Event) {
	t.Helper()
	cfg.Blocked = nil
	cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
	m := mustNewEvents(t, cfg, changes...)
	events := append([]Event(nil), m.Events()...)
	for m.Step() {
		checkInvariants(t, m)
		events = append(events, m.Events()...)
	}
	if err := m.FaultError(); err != nil {
		t.Fatal(err)
	}
	return m, events
}

// at returns the cycles at which events of kind happened to request id.
func at(events []Event, kind EventKind, id int64) []int64 {
	var cs []int64
	for _, e := range events {
		if e.Kind == kind && e.Request.ID == id {
			cs = append(cs, e.Cycle)
		}
	}
	return cs
}

func grayTrace(servers int, cycles int64, rows ...TraceRow) Config {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.Trace = 1, cycles, servers, rows
	return cfg
}

// TestSlowTrace: one server; #1 (time 10) starts at cycle 1 and keeps its
// time when the server turns slow ×2.5 at cycle 5, completing at 11; #2
// (time 7) then starts at 11 and takes ⌈7 · 250 ÷ 100⌉ = 18 cycles,
// completing at 29. avg_service is (10 + 18) ÷ 2.
func TestSlowTrace(t *testing.T) {
	cfg := grayTrace(1, 40, TraceRow{Cycle: 1, Src: 1, Time: 10}, TraceRow{Cycle: 1, Src: 2, Time: 7})
	m, ev := grayRun(t, cfg, fault(5, "slow", "1x2.5"))
	if got := at(ev, Complete, 1); len(got) != 1 || got[0] != 11 {
		t.Errorf("#1 completed at %v, want 11 (started before the fault: its own time)", got)
	}
	if got := at(ev, Complete, 2); len(got) != 1 || got[0] != 29 {
		t.Errorf("#2 completed at %v, want 29 (11 + ⌈7 × 2.5⌉)", got)
	}
	if s := m.Summary(); s.AvgService != 14 || s.Errors != 0 || !s.Consistent {
		t.Errorf("avg_service %v errors %d consistent %v, want 14, 0, true", s.AvgService, s.Errors, s.Consistent)
	}
}

// TestFailTrace: two servers, first-idle, server 1 failing from cycle 1
// with --fail-time 3, a request of time 10 arriving every cycle 1…20.
// Server 1 takes #1 at 1, which ends in error at 4, and so on every 3
// cycles; server 2 takes #2 at 2 and completes it at 12. The failing
// server looks idle sooner, so it is given far more work.
func TestFailTrace(t *testing.T) {
	var rows []TraceRow
	for c := int64(1); c <= 20; c++ {
		rows = append(rows, TraceRow{Cycle: c, Src: uint32(c), Time: 10})
	}
	cfg := grayTrace(2, 30, rows...)
	cfg.FailTime = 3
	_, ev := grayRun(t, cfg, fault(1, "fail", "1"))
	if got := at(ev, Error, 1); len(got) != 1 || got[0] != 4 {
		t.Errorf("#1 ended in error at %v, want 4 (dispatched at 1, fail-time 3)", got)
	}
	if got := at(ev, Complete, 2); len(got) != 1 || got[0] != 12 {
		t.Errorf("#2 completed at %v, want 12", got)
	}
	per := map[int]int{}
	for _, e := range ev {
		if e.Kind == Dispatch {
			per[e.Server]++
		}
	}
	if per[1] < 3*per[2] {
		t.Errorf("dispatches: failing server %d, healthy server %d; want the failing one to attract far more", per[1], per[2])
	}
}

// TestHangTrace: server 1 hangs from cycle 1; #1 (time 5) hangs there
// while #2 completes on server 2 at 6. Server 1 stays busy until it goes
// down at 10: #1 is requeued and served by server 2 from 10, done at 15.
func TestHangTrace(t *testing.T) {
	cfg := grayTrace(2, 20, TraceRow{Cycle: 1, Src: 1, Time: 5}, TraceRow{Cycle: 1, Src: 2, Time: 5})
	m, ev := grayRun(t, cfg, fault(1, "hang", "1"), fault(10, "down", "1"))
	if got := at(ev, Complete, 1); len(got) != 1 || got[0] != 15 {
		t.Errorf("#1 completed at %v, want 15 (requeued at 10 when its hanging server went down)", got)
	}
	if got := at(ev, Requeue, 1); len(got) != 1 || got[0] != 10 {
		t.Errorf("#1 requeued at %v, want 10", got)
	}
	s := m.Summary()
	if s.Completed != 2 || s.Requeued != 1 || s.Errors != 0 || s.AvgService != 5 {
		t.Errorf("completed %d requeued %d errors %d avg_service %v; want 2, 1, 0, 5 (the hanging attempt not counted)", s.Completed, s.Requeued, s.Errors, s.AvgService)
	}
}

// TestHealAndSkips: heal restores healthy; a gray fault that changes
// nothing is skipped and reported, as a down of a down server.
func TestHealAndSkips(t *testing.T) {
	cfg := grayTrace(1, 20, TraceRow{Cycle: 6, Src: 1, Time: 4})
	m, ev := grayRun(t, cfg, fault(1, "fail", "1"), fault(5, "heal", "1"))
	if got := at(ev, Complete, 1); len(got) != 1 || got[0] != 10 {
		t.Errorf("#1 completed at %v, want 10 (healed before it came)", got)
	}
	if m.Summary().Errors != 0 {
		t.Error("errors after the heal")
	}
	cfg.MinServers, cfg.MaxServers = 1, 1
	cfg.Blocked = nil
	m, _ = New(cfg)
	m.Schedule(fault(3, "heal", "1"))
	m.Run()
	if m.FaultError() == nil || m.Summary().FaultsSkipped != 1 {
		t.Errorf("a heal of a healthy server: fault error %v, skipped %d; want it reported", m.FaultError(), m.Summary().FaultsSkipped)
	}
}

// TestGrayRunToMatchesStepping: over random configurations with random
// gray faults (both queue modes, every policy), RunTo gives what stepping
// gives, and the invariants (the accounting with errors among them) hold
// every cycle.
func TestGrayRunToMatchesStepping(t *testing.T) {
	rapidDefaults(100)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genBusyConfig(t)
		cfg.Switch, cfg.Trace = false, nil
		cfg.FailTime = rapid.Int64Range(1, 30).Draw(t, "failTime")
		n := rapid.IntRange(1, 6).Draw(t, "grayFaults")
		var changes []Change
		for range n {
			c := rapid.Int64Range(1, cfg.Cycles).Draw(t, "cycle")
			id := rapid.IntRange(1, cfg.Servers).Draw(t, "server")
			ref := MakeServerRef(0, id).String()
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				f := rapid.SampledFrom([]string{"0.5", "2", "4", "1"}).Draw(t, "factor")
				changes = append(changes, fault(c, "slow", ref+"x"+f))
			case 1:
				changes = append(changes, fault(c, "fail", ref))
			case 2:
				changes = append(changes, fault(c, "hang", ref))
			default:
				changes = append(changes, fault(c, "heal", ref))
			}
		}
		stepped, err := New(cfg)
		if err != nil {
			t.Skip(err) // genBusyConfig's own rule
		}
		jumped, _ := New(cfg)
		if stepped.Schedule(changes...) != nil {
			return // a gray fault at a server scaling has not made yet is still fine; a bad batch is not
		}
		jumped.Schedule(changes...)
		for _, stop := range []int64{cfg.Cycles / 3, cfg.Cycles} {
			for stepped.Cycle() < stop && stepped.Step() {
				checkInvariants(t, stepped)
			}
			jumped.RunTo(stop)
			if jumped.Hash() != stepped.Hash() || !reflect.DeepEqual(jumped.Summary(), stepped.Summary()) {
				t.Fatalf("cycle %d: RunTo differs from stepping", stop)
			}
		}
	})
}
