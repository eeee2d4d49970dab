package sim

import "testing"

// TestBlockAndUnblockChanges blocks every address at cycle 50 and lifts
// the block at cycle 80: the requests of cycles 50–79 are all rejected,
// none before or after (nothing else is blocked), and the changes read and
// write back like --set.
func TestBlockAndUnblockChanges(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.Blocked = 3, 120, 4, nil
	cfg.MaxServers = DefaultMaxServers(4)
	block, err := ParseChange("50:block=0.0.0.0/0")
	if err != nil {
		t.Fatal(err)
	}
	unblock, err := ParseChange("80:unblock=0.0.0.0/0")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Change{block, unblock} {
		if back, err := ParseChange(c.String()); err != nil || back != c {
			t.Errorf("%v reads back as %v, %v", c, back, err)
		}
	}
	m := mustNewEvents(t, cfg, block, unblock)
	for m.Step() {
		for _, e := range m.Events() {
			during := e.Cycle >= 50 && e.Cycle < 80
			if e.Kind == Reject && !during {
				t.Fatalf("cycle %d: a rejection outside the block", e.Cycle)
			}
			if e.Kind == Arrive && during {
				t.Fatalf("cycle %d: an arrival during the block", e.Cycle)
			}
		}
	}
	if s := m.Summary(); s.Rejected == 0 || !s.Consistent {
		t.Errorf("rejected %d, consistent %v", s.Rejected, s.Consistent)
	}
	if len(m.Config().Blocked) != 0 {
		t.Errorf("block list at the end: %v", m.Config().Blocked)
	}
}

func TestUnblockNeedsARangeInTheList(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 1, 100
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"5:unblock=11.0.0.0/8", "5:unblock=10.0.0.0/9"} {
		c, err := ParseChange(bad)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Schedule(c); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	ok, _ := ParseChange("5:unblock=10.0.0.0/8")
	if err := m.Schedule(ok); err != nil {
		t.Errorf("unblocking a listed range: %v", err)
	}
	if _, err := ParseChange("5:block=10.0.0.300/8"); err == nil {
		t.Error("a bad range was read")
	}
}
