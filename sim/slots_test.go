package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
		run := func(min int) (tr trail, created int) {
			withCompactMin(min, func() {
				m, err := New(cfg, WithEvents())
				if err != nil {
					t.Skip(err)
				}
				if err := m.Schedule(changes...); err != nil {
					t.Skip(err)
				}
				for m.Step() {
					tr.note(m)
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
		tr, created := run(1 << 62)
		tr1, _ := run(1)
		sameTrail(t, tr, tr1, "compaction")
		if created > cfg.Servers*(1+btoi(cfg.Switch)) && len(tr.events) == 0 {
			t.Fatal("no events recorded") // the comparison above compared nothing
		}
	})
}

// trail is what a stepped run leaves behind: its state hash at every
// cycle, and its events.
type trail struct {
	hashes []uint64
	events []Event
}

// note adds m's state hash and the events of its last cycle.
func (tr *trail) note(m *Model) {
	tr.hashes = append(tr.hashes, m.Hash())
	tr.events = append(tr.events, m.Events()...)
}

// sameTrail fails t where trail b, of a run with what a's did not have,
// differs from a.
func sameTrail(t interface{ Fatalf(string, ...any) }, a, b trail, with string) {
	if i := firstDiff(a.hashes, b.hashes); i >= 0 {
		t.Fatalf("cycle %d: the state hash differs with %s", i+1, with)
	}
	if i := firstDiff(a.events, b.events); i >= 0 {
		t.Fatalf("event %d differs with %s: %v, want %v", i, with, b.events[i], a.events[i])
	}
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
	if len(b.ids) != n || !slices.IsSorted(b.ids) || (n > 0 && int(b.ids[n-1]) > b.created) {
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

// slotFacts returns, by server id, everything the balancer holds of each
// server that has a slot: its state, queue, detection record, the maps
// and sets it is in (and its place among the candidates), its wheel
// entries, the attempts in flight at it and its pending comebacks; and,
// by id 0, what names a server by slot outside them (the last one given a
// request).
func slotFacts(b *Balancer) map[int]string {
	facts := map[int]string{}
	add := func(s int, format string, args ...any) {
		id := 0
		if s > 0 {
			id = b.idOf(s)
		}
		facts[id] += fmt.Sprintf(format+"; ", args...)
	}
	for s := 1; s <= len(b.srv); s++ {
		add(s, "server %+v", b.srv[s-1])
		if b.perServer {
			for i := range b.sq[s-1].n {
				add(s, "queued %v", b.sq[s-1].at(i))
			}
		}
		if s <= len(b.det) {
			add(s, "detection %+v", b.det[s-1])
		}
		for name, in := range map[string]bool{"free": b.free.has(s), "ready": b.ready.has(s), "idle": b.idle.has(s), "active": b.active.has(s)} {
			if in {
				add(s, "in %s", name)
			}
		}
		if s <= len(b.cands.pos) && b.cands.pos[s-1] != 0 {
			add(s, "candidate %d", b.cands.pos[s-1])
		}
	}
	addMap(add, "gray %+v", b.grays)
	addMap(add, "ends %v", b.ends)
	addMap(add, "gray start %v", b.grayStart)
	addMap(add, "ejected %+v", b.ejected)
	addMap(add, "warming until %d", b.warming)
	for id := b.outSince.ids.first(); id != 0; id = b.outSince.ids.next(id + 1) {
		since, _ := b.outSince.at(id)
		add(id, "out since %d", since)
	}
	addMap(add, "known down %v", b.known)
	for _, s := range b.refused {
		add(s, "refused")
	}
	for i, bucket := range b.wheel.buckets {
		for _, s := range bucket {
			if !b.srv[s-1].gone {
				add(int(s), "wheel bucket %d", i)
			}
		}
	}
	for _, r := range append(slices.Clone(b.repairs.h), b.repairs.run[b.repairs.next:]...) {
		if r.id > 0 && !b.srv[r.id-1].gone {
			add(r.id, "comeback at %d (%d)", r.cycle, r.seq)
		}
	}
	if c := b.cl; c != nil {
		addMap(add, "abandoned at %d", c.abandonAt)
		for _, f := range c.flights {
			if f.server != 0 {
				add(f.server, "flight %d at %d", f.req.id, f.at)
			}
		}
		for i := c.firsts.base; i < c.firsts.end(); i++ {
			if v := c.firsts.get(i); v != 0 {
				if id, _ := placeOf(v); id != 0 {
					add(id, "flight %d at %d", i, int64(v>>locBits))
				}
			}
		}
	}
	if b.lastGiven > 0 {
		facts[0] += fmt.Sprintf("last given %d", b.idOf(b.lastGiven))
	}
	for id, f := range facts {
		parts := strings.Split(f, "; ")
		slices.Sort(parts)
		facts[id] = strings.Join(parts, "; ")
	}
	return facts
}

// addMap adds, for each slot a map keys, its value as format says.
func addMap[V any](add func(int, string, ...any), format string, m map[int]V) {
	for s, v := range m {
		add(s, format, v)
	}
}

// TestCompactKeepsEveryFact runs random configurations with the client
// side and detection, faults and changes, compacting only when the test
// says, and at random cycles compacts and checks that the balancer holds
// the same facts of every server, by id, as before (slotFacts), and no
// server that has left but the last one given a request.
func TestCompactKeepsEveryFact(t *testing.T) {
	rapidDefaults(150)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClientConfig(t)
		changes := genClientChanges(t, cfg)
		if rapid.Bool().Draw(t, "faults") {
			cfg.MTBF, cfg.MTTR = rapid.Int64Range(20, 400).Draw(t, "mtbf"), rapid.Int64Range(1, 100).Draw(t, "mttr")
		}
		every := rapid.Int64Range(1, 50).Draw(t, "every")
		withCompactMin(1<<62, func() {
			m, err := New(cfg)
			if err != nil {
				t.Skip(err)
			}
			if err := m.Schedule(changes...); err != nil {
				t.Skip(err)
			}
			for m.Step() {
				if m.cycle%every != 0 {
					continue
				}
				for _, b := range m.bal {
					before := slotFacts(b)
					for s := range before {
						if s > 0 && b.srv[b.slotOf(s)-1].gone && b.slotOf(s) != b.lastGiven {
							delete(before, s) // it gives its slot up
						}
					}
					b.compact()
					if after := slotFacts(b); !maps.Equal(before, after) {
						for id := range maps.Keys(before) {
							if before[id] != after[id] {
								t.Fatalf("cycle %d: server %d held\n%s\nbefore compacting, and\n%s\nafter", m.cycle, id, before[id], after[id])
							}
						}
						t.Fatalf("cycle %d: %d servers' facts before compacting, %d after", m.cycle, len(before), len(after))
					}
				}
			}
		})
	})
}
