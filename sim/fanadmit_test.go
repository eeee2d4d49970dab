package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// SiblingsByRecord has fanAdmit route parts as pickPart does (by the
// request's record) while on, for tests of package sim_test; it returns
// the function that turns it back off.
func SiblingsByRecord() (off func()) {
	siblingsByRecord = true
	return func() { siblingsByRecord = false }
}

// TestSiblingGapsMatchCandidatesGaps: the siblings placedSibling keeps
// (servers placed on, in any number, some more than once, some not
// active, some not candidates) are the active ones in order, as
// pickPartFrom lists them, and their positions are candidatesGaps's for
// that list: the candidates left, read through them, are candidatesBut's.
func TestSiblingGapsMatchCandidatesGaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy, cfg.Fanout = PerServer, P2C, 2
		cfg.Servers = rapid.IntRange(1, 40).Draw(t, "servers")
		cfg.MinServers, cfg.MaxServers = cfg.Servers, cfg.Servers
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, f := m.bal[0], m.fan
		for range rapid.IntRange(0, 20).Draw(t, "moves") {
			id := rapid.IntRange(1, cfg.Servers).Draw(t, "moved")
			switch {
			case rapid.IntRange(0, 3).Draw(t, "inactive") == 0:
				b.active.remove(id)
			case b.cands.pos[id-1] != 0:
				b.cands.remove(id)
			default:
				b.cands.add(id)
			}
		}
		f.startSiblings(b)
		var want []int
		for _, id := range rapid.SliceOfN(rapid.IntRange(1, cfg.Servers), 0, 30).Draw(t, "placed") {
			f.placedSibling(b, id)
			if b.active.has(id) {
				want = append(want, id)
			}
			if !slices.Equal(f.sib, want) {
				t.Fatalf("siblings %v, want %v", f.sib, want)
			}
			list := slices.Clone(b.candidatesBut(want))
			n := len(b.cands.ids) - len(f.sibGaps)
			if n != len(list) {
				t.Fatalf("%d candidates left, want %d", n, len(list))
			}
			for x := range n {
				if got := b.cands.ids[nthBut(x, f.sibGaps)]; got != list[x] {
					t.Fatalf("candidate %d: %d, want %d (gaps %v, ids %v)", x, got, list[x], f.sibGaps, b.cands.ids)
				}
			}
		}
	})
}
