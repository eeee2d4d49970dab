package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/snaptest"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// recordSmall writes a small run's snapshot and returns its bytes.
func recordSmall(t *testing.T, path string) []byte {
	t.Helper()
	if code, _, stderr := runArgs(t, "run", "--seed", "5", "--cycles", "1000", "--snapshot", path, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	return readFile(t, path)
}

// TestReplayHostileSnapshot: a resealed snapshot whose fault names
// balancer −1 is refused (it panicked), by replay, replay --link and share;
// one that asks for an unbounded queue stops at --max-queued with exit 1
// and writes nothing.
func TestReplayHostileSnapshot(t *testing.T) {
	dir := t.TempDir()
	good := recordSmall(t, filepath.Join(dir, "good.lbsnap"))
	bad, err := snaptest.Apply(good, snaptest.Edit{Changes: []sim.Change{{Cycle: 100, Setting: sim.SetDown, Value: -1<<32 | 2}}})
	if err != nil {
		t.Fatal(err)
	}
	badPath := filepath.Join(dir, "fault.lbsnap")
	os.WriteFile(badPath, bad, 0o644)
	for _, args := range [][]string{
		{"replay", badPath},
		{"replay", "--link", "https://example.org/" + snapshot.Fragment(bad)},
		{"share", badPath},
	} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "names no server") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming the bad change", args[0], code, stdout, stderr)
		}
	}

	flood, err := snaptest.Apply(good, snaptest.Edit{Config: map[string]int64{"n": sim.MaxCycles, "r": 3 * sim.RateScale, "w": 0}, Every: sim.MaxCycles})
	if err != nil {
		t.Fatal(err)
	}
	floodPath := filepath.Join(dir, "flood.lbsnap")
	os.WriteFile(floodPath, flood, 0o644)
	out := filepath.Join(dir, "flood.json")
	for _, args := range [][]string{
		{"replay", floodPath, "--max-queued", "20000", "--json", out},
		{"replay", "--link", snapshot.Fragment(flood), "--max-queued", "20000", "--timeline", out},
	} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitFailed || stdout != "" || !strings.Contains(stderr, "stopped at cycle") || !strings.Contains(stderr, "--max-queued 20000") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 naming the cycle and --max-queued", args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: an output was written", args)
		}
	}
	if code, _, stderr := runArgs(t, "replay", floodPath, "--max-queued", "0"); code != exitUsage || !strings.Contains(stderr, "--max-queued 0") {
		t.Errorf("--max-queued 0: exit %d, %s", code, stderr)
	}
}

// TestRunQueueLimit: a run whose queue grows without bound stops at
// --max-queued, exit 1, naming the cycle and the flag, with no output
// written; mmc does the same.
func TestRunQueueLimit(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	code, stdout, stderr := runArgs(t, "run", "--rate", "3", "--wave=false", "--cycles", "1000000000", "--seed", "1", "--max-queued", "30000",
		"--json", p("s.json"), "--timeline", p("t.csv"), "--snapshot", p("s.lbsnap"), "--log-dir", p("logs"))
	if code != exitFailed || !strings.Contains(stderr, "stopped at cycle ") || !strings.Contains(stderr, "--max-queued 30000") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stdout, "Summary") {
		t.Errorf("a stopped run printed a summary:\n%s", stdout)
	}
	if names := listDir(t, dir); len(names) != 1 || len(listDir(t, p("logs"))) != 0 {
		t.Errorf("files left: %v", names)
	}
	for _, args := range [][]string{
		{"run", "--rate", "10000", "--wave=false", "--cycles", "1000000000", "--seed", "1", "--max-queued", "200000"},
		{"mmc", "--servers", "1", "--rate", "0.5", "--mean-service", "100", "--seed", "1", "--max-queued", "10000", "--json", p("m.json")},
	} {
		code, _, stderr := runArgs(t, args...)
		if code != exitFailed || !strings.Contains(stderr, "stopped at cycle ") || !strings.Contains(stderr, "--max-queued") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, stderr)
		}
	}
	if _, err := os.Stat(p("m.json")); err == nil {
		t.Error("mmc wrote its --json")
	}
	for _, v := range []string{"0", "-5", "200000001"} {
		if code, _, stderr := runArgs(t, "run", "--max-queued", v); code != exitUsage || !strings.Contains(stderr, "--max-queued") {
			t.Errorf("--max-queued %s: exit %d, %s", v, code, stderr)
		}
	}
}

// TestRunSetAfterFault: a change after the last fault is valid (the
// faults' trial run refused it).
func TestRunSetAfterFault(t *testing.T) {
	code, _, stderr := runArgs(t, "run", "--cycles", "2000", "--seed", "3", "--fault", "down:2@100", "--set", "500:rate=0.9", "--quiet")
	if code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestRunSnapshotLimitsFirst: a run that could not be saved as a snapshot
// is refused before it runs.
func TestRunSnapshotLimitsFirst(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.csv")
	os.WriteFile(trace, []byte("cycle,src,dst,time\n0,1.1.1.1,2.2.2.2,3\n9223372036854775807,1.1.1.1,2.2.2.2,3\n"), 0o644)
	code, stdout, stderr := runArgs(t, "run", "--trace", trace, "--cycles", "1000000000", "--snapshot", filepath.Join(dir, "s.lbsnap"), "--quiet")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "--snapshot") || !strings.Contains(stderr, "trace row 2") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestReplayEngineEscaped: a snapshot's engine string reaches the terminal
// quoted, its escape sequences escaped.
func TestReplayEngineEscaped(t *testing.T) {
	dir := t.TempDir()
	good := recordSmall(t, filepath.Join(dir, "good.lbsnap"))
	bad, err := snaptest.Apply(good, snaptest.Edit{Engine: "evil\x1b]0;pwned\x07\x1b[2J"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "engine.lbsnap")
	os.WriteFile(path, bad, 0o644)
	code, stdout, stderr := runArgs(t, "replay", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\x07") || !strings.Contains(stdout, `"evil\x1b]0;pwned\a\x1b[2J"`) {
		t.Errorf("the engine string reached the terminal raw or not at all:\n%q", stdout)
	}
}

// TestMessagesNameWhatWasGiven: each message names the flag and the value
// as given, and says what is allowed; flags that would be ignored are
// refused.
func TestMessagesNameWhatWasGiven(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		notWant string
	}{
		{[]string{"run", "--set", "5:wave=maybe"}, []string{"want true or false"}, "strconv"},
		{[]string{"run", "--set", "5:max-servers=0"}, []string{"change at cycle 5", "max-servers = 0"}, "min-servers 1"},
		{[]string{"run", "--set", "5:task-min=99999999999"}, []string{"task-min = 99999999999", "from 1 to 1000000"}, "2147483647"},
		{[]string{"run", "--wave", "false"}, []string{"--wave=false"}, ""},
		{[]string{"mmc", "--cycles", "0"}, []string{"--cycles 0"}, "--warmup"},
		{[]string{"mmc", "--batches", "0"}, []string{"--batches 0", "from 2 to 1000"}, ""},
		{[]string{"replay"}, []string{"name the snapshot"}, "not both"},
		{[]string{"run", "--mean-service", "5"}, []string{"--mean-service", "geometric, constant, lognormal or pareto"}, ""},
		{[]string{"run", "--weights", "1,2"}, []string{"--weights", "swrr"}, ""},
		{[]string{"run", "--block", "10.0.0.0/8", "--block", "none"}, []string{"cannot be combined"}, ""},
		{[]string{"run", "--timeline", "-", "--json", "-"}, []string{"--timeline - and --json -", "both name standard output"}, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runArgs(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if tt.notWant != "" && strings.Contains(stderr, tt.notWant) {
				t.Errorf("stderr %q has %q", stderr, tt.notWant)
			}
		})
	}
	// Weights with a --set that switches to swrr are used, so accepted.
	if code, _, stderr := runArgs(t, "run", "--cycles", "100", "--seed", "1", "--weights", "1,2", "--set", "50:policy=swrr", "--quiet"); code != exitOK {
		t.Errorf("--weights with a switch to swrr: exit %d: %s", code, stderr)
	}
	for _, cmd := range []string{"run", "mmc"} {
		_, stdout, _ := runArgs(t, cmd, "--help")
		if strings.Contains(stdout, "(default -1)") {
			t.Errorf("%s --help shows (default -1):\n%s", cmd, stdout)
		}
	}
}

// TestMMCJSONCheckedFirst: mmc checks its --json path before the run, like
// run: a directory is refused with exit 2 (it was found only after the
// run, which then exited 1).
func TestMMCJSONCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runArgs(t, "mmc", "--cycles", "20000", "--seed", "1", "--json", dir)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "is a directory") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("files left: %v", names)
	}
}

// TestReplayHugeNegativeDecimalNoPanic: replay, replay --link and share of a
// snapshot whose retry budget or cv is −2⁶³ exit 2 naming the setting;
// before, they panicked formatting the value ("strings: negative Repeat
// count").
func TestReplayHugeNegativeDecimalNoPanic(t *testing.T) {
	dir := t.TempDir()
	good := recordSmall(t, filepath.Join(dir, "good.lbsnap"))
	for name, edit := range map[string]map[string]int64{
		"retry-budget": {"rt": 1, "rb": math.MinInt64},
		"service-cv":   {"svc": int64(sim.Lognormal), "ms": 20, "cv": math.MinInt64},
	} {
		bad, err := snaptest.Apply(good, snaptest.Edit{Config: edit})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".lbsnap")
		os.WriteFile(path, bad, 0o644)
		for _, args := range [][]string{
			{"replay", path},
			{"replay", "--link", "https://example.org/" + snapshot.Fragment(bad)},
			{"share", path},
		} {
			code, stdout, stderr := runArgs(t, args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, name) {
				t.Errorf("%s: %s: exit %d, stdout %q, stderr %q; want exit 2 naming it", name, args[0], code, stdout, stderr)
			}
		}
	}
}
