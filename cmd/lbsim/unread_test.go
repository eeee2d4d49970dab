package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadFlagsFollowEachRun: a base flag of sweep, compare or size is
// accepted when at least one of the runs reads it (the rest just do not),
// and refused, naming it, when none does; lbsim run refuses a flag it does
// not read, shape parameters and task ranges alike.
func TestUnreadFlagsFollowEachRun(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		args    []string
		refused string // "" = accepted
	}{
		{[]string{"sweep", "--vary", "retries=0,2", "--backoff", "5", "--timeout", "50", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("a.jsonl")}, ""},
		{[]string{"sweep", "--vary", "health-interval=5,10", "--health-fall", "2", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("b.jsonl")}, ""},
		{[]string{"sweep", "--vary", "service=lognormal,pareto", "--mean-service", "20", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("c.jsonl")}, ""},
		{[]string{"sweep", "--vary", "rate=0.3,0.5", "--backoff", "5", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("d.jsonl")}, "--backoff applies only with --retries"},
		{[]string{"compare", "--backoff", "5", "--timeout", "50", "--variant", "a:retries=0", "--variant", "b:retries=2", "--cycles", "300", "--seed", "1"}, ""},
		{[]string{"compare", "--backoff", "5", "--variant", "a:retries=0", "--variant", "b:policy=random", "--cycles", "300", "--seed", "1"}, "--backoff applies only with --retries"},
		{[]string{"compare", "--service-cv", "2", "--mean-service", "20", "--variant", "a:service=lognormal", "--variant", "b:service=geometric", "--cycles", "300", "--seed", "1"}, ""},
		{[]string{"size", "--rate", "0.5", "--service", "geometric", "--mean-service", "10", "--task-max", "30", "--cycles", "300", "--replications", "2", "--seed", "1", "--slo", "avg_wait<=50", "--no-progress"}, "--task-max applies to --service uniform or bimodal"},
		{[]string{"run", "--service", "lognormal", "--mean-service", "20", "--task-min", "3", "--cycles", "10"}, "--task-min applies to --service uniform or bimodal"},
		{[]string{"run", "--service", "empirical", "--service-file", writeFile(t, "t.txt", "5\n"), "--task-max", "30", "--cycles", "10"}, "--task-max applies to"},
		{[]string{"run", "--fail-time", "5", "--cycles", "10"}, "--fail-time applies only to a failing server"},
		{[]string{"run", "--fail-time", "5", "--fault", "fail:1@5", "--cycles", "10"}, ""},
		{[]string{"run", "--ewma-decay", "50", "--cycles", "10"}, "--ewma-decay applies to policy peak-ewma"},
		// A --set follows the same rule as the flag (it was accepted and did nothing).
		{[]string{"run", "--set", "5:retry-budget=0.1", "--cycles", "10"}, "--set 5:retry-budget=0.1 applies only with --retries"},
		{[]string{"sweep", "--vary", "rate=0.3,0.5", "--set", "5:retry-budget=0.1", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("e.jsonl")}, "--set 5:retry-budget=0.1 applies only with --retries"},
		{[]string{"sweep", "--vary", "retries=0,2", "--set", "5:retry-budget=0.1", "--cycles", "300", "--seed", "1", "--no-progress", "--out", out("f.jsonl")}, ""},
		{[]string{"compare", "--set", "5:health-fall=2", "--variant", "a:rate=0.3", "--variant", "b:rate=0.5", "--cycles", "300", "--seed", "1"}, "--set 5:health-fall=2 applies only with --health-interval"},
		{[]string{"compare", "--set", "5:health-fall=2", "--variant", "a:health-interval=0", "--variant", "b:health-interval=5", "--cycles", "300", "--seed", "1"}, ""},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(t, tt.args...)
		switch {
		case tt.refused == "" && code != exitOK:
			t.Errorf("lbsim %s: exit %d, want it accepted: %s", strings.Join(tt.args, " "), code, stderr)
		case tt.refused != "" && (code != exitUsage || !strings.Contains(stderr, tt.refused)):
			t.Errorf("lbsim %s: exit %d, want 2 with %q: %s", strings.Join(tt.args, " "), code, tt.refused, stderr)
		}
	}
}

// TestFaultAndPathMessages: a fault naming a balancer (P: or S:) without
// --switch is refused, saying so in the fault's own words (S: was refused
// with an internal encoding, P: was accepted); a missing file's path is
// echoed quoted, never with its raw control bytes.
func TestFaultAndPathMessages(t *testing.T) {
	esc := "/nonexistent/\x1b[31mred"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--cycles", "20", "--fault", "fail:P:1@5"}, "give the server id alone, like fail:1@5"},
		{[]string{"run", "--cycles", "20", "--fault", "slow:S:1x2@5"}, "give the server id alone, like slow:1x2@5"},
		{[]string{"run", "--cycles", "20", "--set", "5:down=S:1"}, "like 5:down=1"},
		{[]string{"compare", "--cycles", "20", "--fault", "hang:p:2@5", "--variant", "a:rate=0.5"}, "only a run with --switch has"},
		{[]string{"run", "--cycles", "20", "--trace", esc}, `"/nonexistent/\x1b[31mred": no such file`},
		{[]string{"run", "--cycles", "20", "--service", "empirical", "--service-file", esc}, `\x1b[31mred`},
		{[]string{"run", "--cycles", "20", "--json", esc + "/x.json"}, `directory "/nonexistent/\x1b[31mred" does not exist`},
		{[]string{"compare", "--cycles", "20", "--variant", "a:rate=0.5", "--json", esc + "/x.json"}, `\x1b[31mred`},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "\x1b") {
			t.Errorf("lbsim %q: exit %d, want 2 with %q and no raw escape: %q", tt.args, code, tt.want, stderr)
		}
	}
	if code, _, stderr := runArgs(t, "run", "--cycles", "20", "--switch", "--fault", "fail:P:1@5", "--json", "/dev/null"); code != exitOK {
		t.Errorf("a fault naming P in a switch: exit %d: %s", code, stderr)
	}
}

// TestFailTimeWithoutAFailFault: --fail-time with no fail fault is refused
// alike wherever it comes from — the flag, a scenario file, a snapshot
// (sim/snapshot's crafted file: lbsim cannot write one) — each saying
// what is wrong and what is allowed, and nothing panics.
func TestFailTimeWithoutAFailFault(t *testing.T) {
	const why = "applies only to a failing server: give a fail fault (--fault fail:ID@CYCLE or --set CYCLE:fail=ID)"
	scenario := writeFile(t, "s.toml", "cycles = 10\nfail-time = 5\n")
	snap := filepath.Join("..", "..", "sim", "snapshot", "testdata", "fail-time-no-fault.lbsnap")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--fail-time", "5", "--cycles", "10"}, "lbsim run: --fail-time " + why},
		{[]string{"run", "--config", scenario}, "lbsim run: --fail-time " + why},
		{[]string{"replay", snap}, "lbsim replay: " + snap + ": snapshot changes: fail-time: " + why},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "panic") {
			t.Errorf("lbsim %s: exit %d, want 2 with %q: %s", strings.Join(tt.args, " "), code, tt.want, stderr)
		}
	}
}
