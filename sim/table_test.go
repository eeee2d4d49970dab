package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// eventful is a small run in which every changeable setting has something
// to act on: per-server queues under load, autoscaling with a low
// threshold, a failing server, a server down and back, and a second one
// down for good.
func eventful(t *testing.T, needs []string) (Config, []Change) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Seed = 11
	for _, kv := range [][2]string{
		{"servers", "6"}, {"cycles", "4000"}, {"queues", "per-server"}, {"policy", "round-robin"},
		{"task-min", "5"}, {"task-max", "25"}, {"rate", "0.7"}, {"initial-per-server", "20"},
		{"scale-up", "6"}, {"scale-down", "2"}, {"max-servers", "20"},
	} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(needs); i += 2 {
		if needs[i] == "--fault" {
			continue // the faults below include a fail fault
		}
		if err := cfg.Set(strings.TrimPrefix(needs[i], "--"), needs[i+1]); err != nil {
			t.Fatalf("needs %v: %v", needs, err)
		}
	}
	var faults []Change
	for _, f := range []string{"fail:2@100", "down:3@300", "up:3@900", "down:4@1200"} {
		c, err := ParseFault(f)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, c)
	}
	return cfg, faults
}

// hashTrail runs cfg with changes and returns every cycle's state hash.
func hashTrail(t *testing.T, cfg Config, changes []Change) []uint64 {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	var hs []uint64
	for !m.Done() {
		m.Step()
		hs = append(hs, m.Hash())
	}
	return hs
}

// TestEveryChangeTakesEffect walks the settings table: for every row --set
// may change, a change to its example value at cycle 50 of a run in which
// the setting is read (its Needs turned on) changes what the model does
// from that cycle on, not only its configuration. A row whose effect is
// deleted (its store a no-op, or the model reading a copy) fails here.
func TestEveryChangeTakesEffect(t *testing.T) {
	const at = 50
	for _, r := range Rows() {
		if !r.Changeable {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			needs := r.Needs
			if r.Name == "load-info" {
				// A change sets only a periodic board's period: the run has one.
				needs = append(slices.Clone(needs), "--load-info", "periodic:100")
			}
			cfg, faults := eventful(t, needs)
			if r.Get(&cfg) == r.Example {
				t.Fatalf("the example %s is the run's value already: give the row another example", r.Example)
			}
			change, err := NewChange(at, r.Name, r.Example)
			if err != nil {
				t.Fatalf("the example value: %v", err)
			}
			before := hashTrail(t, cfg, faults)
			after := hashTrail(t, cfg, append([]Change{change}, faults...))
			for i := range at - 1 {
				if before[i] != after[i] {
					t.Fatalf("the runs differ at cycle %d, before the change", i+1)
				}
			}
			for i := at - 1; i < len(before); i++ {
				if before[i] != after[i] {
					return
				}
			}
			t.Errorf("--set %v changed nothing in %d cycles", change, len(before))
		})
	}
}

// TestEveryRangeIsOneCheck: a value just outside a row's range is refused
// alike as a flag (Set, then Validate), as a --set (NewChange, then the
// schedule's check) and as a change in a snapshot (ValidateChanges).
func TestEveryRangeIsOneCheck(t *testing.T) {
	for _, r := range Rows() {
		lo, hi, ok := r.Bounds()
		if !ok {
			continue
		}
		for _, v := range []int64{lo - 1, hi + 1} {
			if r.IsBool() || strings.HasPrefix(r.syntax, "want one of") || v < 0 {
				continue // not writable as text: checked as a stored value below
			}
			text := r.format(v)
			cfg := DefaultConfig()
			flagErr := cfg.Set(r.Name, text)
			if flagErr == nil {
				flagErr = cfg.Validate()
			}
			var fe *FieldError
			if !errors.As(flagErr, &fe) || fe.Field != r.Name {
				t.Errorf("--%s %s: %v, want it refused naming %s", r.Name, text, flagErr, r.Name)
			}
			if r.Changeable {
				c, err := NewChange(10, r.Name, text)
				if err == nil {
					cfg := DefaultConfig()
					err = ValidateChanges(cfg, []Change{c})
				}
				if err == nil || !strings.Contains(err.Error(), r.Name) {
					t.Errorf("--set 10:%s=%s: %v, want it refused", r.Name, text, err)
				}
			}
		}
		if !r.Changeable {
			continue
		}
		for _, v := range []int64{lo - 1, hi + 1} {
			cfg := DefaultConfig()
			cfg.Seed = 1
			err := ValidateChanges(cfg, []Change{{Cycle: 10, Setting: r.Change, Value: v}})
			if err == nil || !strings.Contains(err.Error(), r.Name) {
				t.Errorf("a snapshot's change of %s to %d: %v, want it refused", r.Name, v, err)
			}
		}
	}
}

// TestSettingNumbersAreOwned: every Setting number belongs to one
// changeable row or one action, and its name reads back.
func TestSettingNumbersAreOwned(t *testing.T) {
	for s := range numSettings {
		row, act := ChangeRow(s), actionOf(s)
		if (row == nil) == (act == nil) {
			t.Fatalf("setting %d: row %v, action %v", s, row, act)
		}
		if got, ok := settingNamed(s.String()); !ok || got != s {
			t.Errorf("setting %d (%s) reads back as %d", s, s, got)
		}
	}
}

// TestUnreadFollowsEachRun: a setting that refines another is unread
// while that one is off, and read when a change turns it on; every row's
// Needs arguments turn it on.
func TestUnreadFollowsEachRun(t *testing.T) {
	for _, r := range Rows() {
		if len(r.Needs) == 0 {
			continue
		}
		cfg := DefaultConfig()
		var changes []Change
		for i := 0; i+1 < len(r.Needs); i += 2 {
			name := strings.TrimPrefix(r.Needs[i], "--")
			if name == "fault" {
				c, err := ParseFault(r.Needs[i+1])
				if err != nil {
					t.Fatal(err)
				}
				changes = append(changes, c)
				continue
			}
			if err := cfg.Set(name, r.Needs[i+1]); err != nil {
				t.Fatalf("%s needs %v: %v", r.Name, r.Needs, err)
			}
		}
		if why, unread := Unread(&cfg, changes)[r.Name]; unread {
			t.Errorf("%s with %v: unread (%s)", r.Name, r.Needs, why)
		}
	}
	cfg := DefaultConfig()
	if _, unread := Unread(&cfg, nil)["backoff"]; !unread {
		t.Error("backoff without retries: read, want unread")
	}
	if _, unread := Unread(&cfg, []Change{{Cycle: 5, Setting: SetRetries, Value: 2}})["backoff"]; unread {
		t.Error("backoff with a change that turns retries on: unread, want read")
	}
	cfg.Service = Geometric
	if _, unread := Unread(&cfg, nil)["task-min"]; !unread {
		t.Error("task-min with geometric service: read, want unread")
	}
}

// TestNeedsNameOthers: what a row needs (as `lbsim settings` prints it)
// names other settings, never the row itself.
func TestNeedsNameOthers(t *testing.T) {
	for _, r := range Rows() {
		for i := 0; i < len(r.Needs); i += 2 {
			if r.Needs[i] == "--"+r.Name {
				t.Errorf("--%s needs %v: itself among them", r.Name, r.Needs)
			}
		}
	}
}
