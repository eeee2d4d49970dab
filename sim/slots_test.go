package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// production makes benchmark b compact as the package does outside its
// tests.
func production(b *testing.B) {
	old := compactMin
	compactMin = compactMinDefault
	b.Cleanup(func() { compactMin = old })
}

// withCompactMin runs f with compactMin set to n.
func withCompactMin(n int, f func()) {
	old := compactMin
	compactMin = n
	defer func() { compactMin = old }()
	f()
}

// TestCompactLeavesRunsAsTheyWere runs random configurations, changes and
// faults twice, stepping, with slots compacted at every chance and never,
// and checks that the two agree on every cycle's events and state hash,
// and that the compacting run compacted whenever it was due.
func TestCompactLeavesRunsAsTheyWere(t *testing.T) {
	rapidDefaults(200)
	rapid.Check(t, func(t *rapid.T) {
		var cfg Config
		var changes []Change
		if rapid.Bool().Draw(t, "client") {
			cfg = genClientConfig(t)
			changes = genClientChanges(t, cfg)
		} else {
			cfg = genBusyConfig(t)
			changes = genBusyChanges(t, cfg)
		}
		if rapid.Bool().Draw(t, "faults") {
			cfg.MTBF, cfg.MTTR = rapid.Int64Range(20, 400).Draw(t, "mtbf"), rapid.Int64Range(1, 100).Draw(t, "mttr")
		}
		run := func(min int) (hashes []uint64, events []Event, created int) {
			withCompactMin(min, func() {
				m, err := New(cfg, WithEvents())
				if err != nil {
					t.Skip(err)
				}
				if err := m.Schedule(changes...); err != nil {
					t.Skip(err)
				}
				for m.Step() {
					hashes = append(hashes, m.Hash())
					events = append(events, m.Events()...)
					for _, b := range m.bal {
						if b.compactDue() {
							t.Fatalf("cycle %d: balancer %d (%v) left a compaction due: %d of %d slots given up", m.cycle, b.index, m.cfg.Policy, b.left, len(b.srv))
						}
					}
				}
				for _, b := range m.bal {
					created += b.created
				}
			})
			return
		}
		hashes, events, created := run(1 << 62)
		hashes1, events1, _ := run(1)
		if i := firstDiff(hashes, hashes1); i >= 0 {
			t.Fatalf("cycle %d: the state hash differs with compaction", i+1)
		}
		if i := firstDiff(events, events1); i >= 0 {
			t.Fatalf("event %d differs with compaction: %v, want %v", i, events1[i], events[i])
		}
		if created > cfg.Servers*(1+btoi(cfg.Switch)) && len(events) == 0 {
			t.Fatal("no events recorded") // the comparison above compared nothing
		}
	})
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff[T comparable](a, b []T) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestSlotsBoundedByLive runs a per-server pool that scales up and down
// for long (thousands of servers created, about 40 live) and checks, at
// points along the run, that the balancer's per-server structures are
// sized by the servers it has now, not by every server it ever created;
// and that slots and ids stay in step: ascending ids, and views that carry
// ids, not slots.
func TestSlotsBoundedByLive(t *testing.T) {
	for _, queues := range []QueueMode{PerServer, Pooled} {
		t.Run(queues.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.Seed = queues, P2C, 3
			cfg.Rate, cfg.Servers = 2*RateScale, 40
			cfg.Cycles = 300_000
			if queues == Pooled {
				cfg.Policy = RoundRobin
			}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := m.bal[0]
			for c := int64(50_000); c <= cfg.Cycles; c += 50_000 {
				m.RunTo(c)
				checkSlots(t, b)
			}
			if b.created < 500 {
				t.Fatalf("only %d servers created: the case does not churn", b.created)
			}
		})
	}
}

// checkSlots checks that b's per-server structures are sized by its live
// servers and that its slots map to ascending ids.
func checkSlots(t *testing.T, b *Balancer) {
	t.Helper()
	n := len(b.srv)
	if n > 2*b.live+2 {
		t.Fatalf("cycle %d: %d slots for %d live servers (%d created)", b.m.cycle, n, b.live, b.created)
	}
	if len(b.ids) != n || !slices.IsSorted(b.ids) || (n > 0 && b.ids[n-1] > b.created) {
		t.Fatalf("cycle %d: ids %v do not map %d slots in order", b.m.cycle, b.ids, n)
	}
	words := (n + 63) / 64
	for name, l := range map[string]int{
		"server queues": len(b.sq), "detection records": len(b.det), "candidate positions": len(b.cands.pos),
		"free (words)": len(b.free.w) * 64, "ready (words)": len(b.ready.w) * 64,
		"idle (words)": len(b.idle.w) * 64, "active (words)": len(b.active.w) * 64,
	} {
		if l > max(n, words*64) {
			t.Errorf("cycle %d: %s hold %d entries for %d slots", b.m.cycle, name, l, n)
		}
	}
	for v := range b.Servers() {
		if s := b.slotOf(v.ID); s == 0 || b.idOf(s) != v.ID {
			t.Fatalf("cycle %d: view of server %d does not map back to its slot", b.m.cycle, v.ID)
		}
	}
}
