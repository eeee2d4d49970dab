package sim

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// eventful is a small run in which every changeable setting has something
// to act on: per-server queues under load, autoscaling with a low
// threshold, a failing server, a server down and back, and a second one
// down for good.
func eventful(t *testing.T, fixture [][2]string) (Config, []Change) {
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
	for _, kv := range fixture {
		if kv[0] == "fault" {
			continue // the faults below include a fail fault
		}
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("fixture %v: %v", fixture, err)
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
	m := mustNew(t, cfg, changes...)
	var hs []uint64
	for !m.Done() {
		m.Step()
		hs = append(hs, m.Hash())
	}
	return hs
}

// summaryOf runs cfg with changes to its end and returns the summary (a
// setting such as server-cost shows there, not in the state).
func summaryOf(t *testing.T, cfg Config, changes []Change) Summary {
	t.Helper()
	m := mustNew(t, cfg, changes...)
	m.RunTo(cfg.Cycles)
	return m.Summary()
}

// TestEveryChangeTakesEffect walks the settings table: for every row --set
// may change, a change to its example value at cycle 50 of a run in which
// the setting is read (its fixture turned on) changes what the model does
// from that cycle on, not only its configuration. A row whose effect is
// deleted (its store a no-op, or the model reading a copy) fails here.
func TestEveryChangeTakesEffect(t *testing.T) {
	const at = 50
	for _, r := range Rows() {
		if !r.Changeable {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			cfg, faults := eventful(t, r.fixture)
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
// Needs, read as the command line reads them, and its fixture turn it on.
func TestUnreadFollowsEachRun(t *testing.T) {
	for _, r := range Rows() {
		for _, on := range [][][2]string{needsPairs(t, &r), r.fixture} {
			if len(on) == 0 {
				continue
			}
			cfg := DefaultConfig()
			var changes []Change
			for _, kv := range on {
				if kv[0] == "fault" {
					c, err := ParseFault(kv[1])
					if err != nil {
						t.Fatal(err)
					}
					changes = append(changes, c)
					continue
				}
				if err := cfg.Set(kv[0], kv[1]); err != nil {
					t.Fatalf("%s needs %v: %v", r.Name, on, err)
				}
			}
			if why, unread := Unread(&cfg, changes)[r.Name]; unread {
				t.Errorf("%s with %v: unread (%s)", r.Name, on, why)
			}
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

// needsPairs reads a row's Needs as the command line reads flags: --NAME
// VALUE, or a switch alone (--wave). A Needs naming the row itself, or a
// value after a switch, fails: help would show what the command line
// refuses.
func needsPairs(t *testing.T, r *Row) [][2]string {
	t.Helper()
	var out [][2]string
	for i := 0; i < len(r.Needs); i++ {
		name, ok := strings.CutPrefix(r.Needs[i], "--")
		if !ok {
			t.Errorf("%s needs %v: %q is no flag", r.Name, r.Needs, r.Needs[i])
			return nil
		}
		if name == r.Name {
			t.Errorf("%s needs %v: the setting needs itself", r.Name, r.Needs)
		}
		if o := RowNamed(name); o != nil && o.IsBool() {
			if i+1 < len(r.Needs) && !strings.HasPrefix(r.Needs[i+1], "--") {
				t.Errorf("%s needs %v: the switch --%s takes no value on the command line (--%s=%s)", r.Name, r.Needs, name, name, r.Needs[i+1])
			}
			out = append(out, [2]string{name, "true"})
			continue
		}
		if i+1 >= len(r.Needs) {
			t.Errorf("%s needs %v: --%s has no value", r.Name, r.Needs, name)
			return nil
		}
		out = append(out, [2]string{name, r.Needs[i+1]})
		i++
	}
	return out
}

// TestGetSetRoundTrip: every row's value, as Get writes it, is one its
// own flag accepts and reads back as the same value, in the defaults
// (where balancers and fail-time are 0, standing for 1) and with every
// row at its example value.
func TestGetSetRoundTrip(t *testing.T) {
	ex := DefaultConfig()
	for _, r := range Rows() {
		if !r.File {
			if err := ex.Set(r.Name, r.Example); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, cfg := range map[string]Config{"defaults": DefaultConfig(), "examples": ex} {
		for _, r := range Rows() {
			if r.File {
				continue
			}
			text := r.Get(&cfg)
			if text == "" && r.zeroDefault && r.def == "" {
				continue // not given, and no default to write (mean-service)
			}
			var back Config
			if err := back.Set(r.Name, text); err != nil {
				t.Errorf("%s: --%s %q, as Get wrote it, refused: %v", name, r.Name, text, err)
				continue
			}
			if err := r.Check(&back); err != nil {
				t.Errorf("%s: --%s %q, as Get wrote it, out of range: %v", name, r.Name, text, err)
			}
			if got := r.Get(&back); got != text {
				t.Errorf("%s: --%s %q reads back as %q", name, r.Name, text, got)
			}
		}
	}
}

// TestFaultKindsFromRows: --fault takes the actions that are faults and
// the rows marked FaultKind, and nothing else.
func TestFaultKindsFromRows(t *testing.T) {
	want := map[string]bool{}
	for _, r := range Rows() {
		if r.FaultKind {
			if !r.Changeable {
				t.Errorf("%s is a fault kind but no change", r.Name)
			}
			want[r.Name] = true
		}
	}
	for _, a := range actions {
		if a.fault {
			want[a.name] = true
		}
	}
	got := FaultKinds()
	if len(got) != len(want) {
		t.Errorf("FaultKinds %v, want %d kinds", got, len(want))
	}
	for _, k := range got {
		if !want[k] {
			t.Errorf("FaultKinds has %s", k)
		}
	}
	if _, err := ParseFault("timeout:400@10"); err != nil {
		t.Errorf("timeout as a fault: %v", err)
	}
	if _, err := ParseFault("rate:0.5@10"); err == nil {
		t.Error("rate as a fault: accepted, want it refused (not a fault kind)")
	}
}

// TestEveryRowTakesEffect walks the settings table: every row, changeable
// or not, given its example value at the start of a run in which it is
// read (its fixture turned on) changes what the model does. A row whose
// effect is deleted (the model never reading its field) fails here; a
// changeable row's effect mid-run is TestEveryChangeTakesEffect's.
func TestEveryRowTakesEffect(t *testing.T) {
	for _, r := range Rows() {
		t.Run(r.Name, func(t *testing.T) {
			base, faults := eventful(t, r.fixture)
			ex := base.Clone()
			switch {
			case r.File: // a file's times, given as the command line reads them
				base.ServiceValues, ex.ServiceValues = []int32{10}, []int32{40, 3}
			case r.Get(&base) == r.Example:
				if r.def == "" {
					t.Fatalf("the example %s is the run's value and there is no default: give the row another example", r.Example)
				}
				if err := base.Set(r.Name, r.def); err != nil {
					t.Fatal(err)
				}
			}
			if !r.File {
				if err := ex.Set(r.Name, r.Example); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range []*Config{&base, &ex} {
				if err := c.Validate(); err != nil {
					t.Fatalf("--%s %s: %v", r.Name, r.Get(c), err)
				}
			}
			if why, unread := Unread(&ex, faults)[r.Name]; unread {
				t.Fatalf("unread in the run: %s (give the row a fixture that turns it on)", why)
			}
			before, after := hashTrail(t, base, faults), hashTrail(t, ex, faults)
			if slices.Equal(before, after) && reflect.DeepEqual(summaryOf(t, base, faults), summaryOf(t, ex, faults)) {
				t.Errorf("--%s %s and %s: the same run, %d cycles", r.Name, r.Get(&base), r.Get(&ex), len(before))
			}
		})
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
