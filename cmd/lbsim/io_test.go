package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// within runs lbsim with args in-process and fails the test when it takes
// more than limit (a command that must stop at once, not after its work).
func within(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.stdout, r.stderr, r.code = runCLI(t, "", args...)
		done <- r
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		t.Fatalf("lbsim %v: still running after %v", args, limit)
		return 0, "", ""
	}
}

// TestAggregateVastImpliedGrid: a few lines can imply a vast grid (a huge
// replication, or many values of many settings); aggregate and plot count
// its missing runs and list the first, at once (they listed each, out of
// memory). A grid beyond the bound on runs is refused.
func TestAggregateVastImpliedGrid(t *testing.T) {
	line := func(point string, r int64) string {
		return fmt.Sprintf(`{"point":{%s},"replication":%d,"seed":%d,"summary":{"avg_wait":%d}}`+"\n", point, r, 7+r, r%5)
	}
	huge := writeFile(t, "huge.jsonl", line(`"rate":0.3`, 0)+line(`"rate":0.3`, 100_000_000))
	var wide strings.Builder
	for i := range 60 { // 60 lines, each a new value of all 5 settings: a 60⁵ grid
		wide.WriteString(line(fmt.Sprintf(`"a":%d,"b":%d,"c":%d,"d":%d,"e":%d`, i, i, i, i, i), 0))
	}
	widePath := writeFile(t, "wide.jsonl", wide.String())
	for _, tc := range []struct {
		file, want string
	}{
		{huge, "99999999 runs missing"},
		{widePath, fmt.Sprintf("%d runs missing", 60*60*60*60*60-60)},
	} {
		code, _, stderr := within(t, 30*time.Second, "aggregate", tc.file, "--metric", "avg_wait")
		if code != exitFailed || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "… and ") || len(stderr) > 4096 {
			t.Errorf("aggregate %s: exit %d, %d bytes of stderr:\n%s\nwant exit 1, %q and the first few", tc.file, code, len(stderr), stderr, tc.want)
		}
		out := filepath.Join(t.TempDir(), "p.svg")
		if code, _, stderr := within(t, 30*time.Second, "plot", "sweep", tc.file, "--metric", "avg_wait", "--out", out); code != exitFailed || !strings.Contains(stderr, tc.want) {
			t.Errorf("plot sweep %s: exit %d: %s", tc.file, code, stderr)
		}
	}
	vast := writeFile(t, "vast.jsonl", line(`"rate":0.3`, 0)+line(`"rate":0.5`, 1_000_000_000_000))
	if code, _, stderr := within(t, 30*time.Second, "aggregate", vast, "--metric", "avg_wait"); code != exitUsage || !strings.Contains(stderr, "not one sweep") {
		t.Errorf("a grid beyond the bound: exit %d: %s", code, stderr)
	}
}

// TestBoundsRefusedFirst: comparisons too large to hold, and --jobs beyond
// the bound, are refused at once with the bound named (they allocated
// gigabytes, or panicked).
func TestBoundsRefusedFirst(t *testing.T) {
	many := []string{"compare", "--cycles", "10", "--replications", "10000"}
	for i := range 1000 {
		many = append(many, "--variant", fmt.Sprintf("v%d:rate=0.5", i))
	}
	out := filepath.Join(t.TempDir(), "s.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{many, "at most 64"},
		{[]string{"compare", "--cycles", "10", "--replications", "10000", "--variant", "a:rate=0.5", "--variant", "b:rate=0.6",
			"--variant", "c:rate=0.7", "--variant", "d:rate=0.8", "--variant", "e:rate=0.9", "--variant", "f:rate=1", "--variant", "g:rate=1.1",
			"--variant", "h:rate=1.2", "--variant", "i:rate=1.3", "--variant", "j:rate=1.4", "--variant", "k:rate=1.5"}, "= 110000 runs: at most 100000"},
		{[]string{"compare", "--cycles", "10", "--variant", "a:rate=0.5", "--jobs", "100000000"}, "--jobs 100000000: want 1 to 1024"},
		{[]string{"sweep", "--cycles", "10", "--out", out, "--jobs", "9223372036854775807"}, "want 1 to 1024"},
		{[]string{"sweep", "--cycles", "10", "--out", out, "--jobs", "100000000"}, "--jobs 100000000: want 1 to 1024"},
	} {
		if code, _, stderr := within(t, 30*time.Second, tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lbsim %s …: exit %d, want 2 and %q: %s", tc.args[0], code, tc.want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused sweep created its --out")
	}
}

// TestSweepResumeKeepsOtherFiles: --resume of a file that is not a sweep's
// is refused and leaves it as it was (one without a final newline was cut
// to nothing as a "partial line").
func TestSweepResumeKeepsOtherFiles(t *testing.T) {
	for _, text := range []string{"my notes, no newline at the end", "line one\nline two\n", "{\"point\":{\"rate\":0.3}}\n"} {
		notes := writeFile(t, "notes.txt", text)
		code, _, stderr := runArgs(t, "sweep", "--cycles", "10", "--seed", "1", "--vary", "rate=0.3", "--resume", "--out", notes)
		if code != exitUsage || !strings.Contains(stderr, "line 1") {
			t.Errorf("%q: exit %d: %s", text, code, stderr)
		}
		if got := string(readFile(t, notes)); got != text {
			t.Errorf("%q became %q", text, got)
		}
	}
	// A line cut short by a crash is still completed.
	out := filepath.Join(t.TempDir(), "s.jsonl")
	args := []string{"sweep", "--cycles", "10", "--seed", "1", "--vary", "rate=0.3,0.4", "--no-progress", "--out", out}
	if code, _, stderr := runArgs(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	whole := readFile(t, out)
	first := strings.SplitAfter(string(whole), "\n")[0]
	os.WriteFile(out, []byte(first+`{"point":{"ra`), 0o644)
	if code, _, stderr := runArgs(t, append(args, "--resume")...); code != 0 || string(readFile(t, out)) != string(whole) {
		t.Errorf("resume of a torn line: exit %d: %s", code, stderr)
	}
}

// TestSweepResumeRefusesOtherFlags: the run flags every run shares are on
// every line, so --resume with others, or a merge of two sweeps that
// differ in them, is refused (they were silently mixed).
func TestSweepResumeRefusesOtherFlags(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	base := []string{"sweep", "--seed", "1", "--vary", "rate=0.3,0.4", "--replications", "2", "--no-progress", "--shard"}
	if code, _, stderr := runArgs(t, append(base, "0/2", "--cycles", "300", "--servers", "4", "--out", a)...); code != 0 {
		t.Fatal(stderr)
	}
	for _, other := range [][]string{{"--cycles", "400", "--servers", "4"}, {"--cycles", "300", "--servers", "5"}, {"--cycles", "300"}} {
		code, _, stderr := runArgs(t, append(append(base, "0/2", "--resume", "--out", a), other...)...)
		if code != exitUsage || !strings.Contains(stderr, "line 1 was run with the flags") {
			t.Errorf("resume with %v: exit %d: %s", other, code, stderr)
		}
	}
	// The same flags in another order resume.
	if code, _, stderr := runArgs(t, append(base, "0/2", "--servers", "4", "--cycles", "300", "--resume", "--out", a)...); code != 0 {
		t.Errorf("resume with the flags reordered: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runArgs(t, append(base, "1/2", "--cycles", "400", "--servers", "4", "--out", b)...); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runArgs(t, "aggregate", a, b); code != exitUsage || !strings.Contains(stderr, "different sweeps") {
		t.Errorf("aggregate of two configurations: exit %d: %s", code, stderr)
	}
}

// TestVariantsAndPointsCheckedFirst: a change or fault that 'lbsim run'
// refuses is refused by compare and sweep before any run (it failed in
// the middle, with exit 1); so are a label a snapshot cannot hold and
// lanes of different lengths.
func TestVariantsAndPointsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	long := []string{"--cycles", "1000000000", "--seed", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"compare", "--variant", "a:rate=0.5", "--fault", "up:1@5"}, long...), "before any down"},
		{append([]string{"compare", "--variant", "a:rate=0.5", "--variant", "b:set=5:up=1"}, long...), "--set 5:up=1"},
		{append([]string{"sweep", "--vary", "set=5:up=1,5:rate=0.5", "--out", filepath.Join(dir, "s.jsonl")}, long...), "at set=5:up=1"},
		{append([]string{"compare", "--variant", strings.Repeat("x", 201) + ":rate=0.5", "--snapshot", filepath.Join(dir, "c.lbsnap")}, long...), "label of variant 1 is 201 bytes"},
		{append([]string{"compare", "--variant", "a:rate=0.5", "--variant", "b:cycles=1000", "--snapshot", filepath.Join(dir, "c.lbsnap")}, long...), "the same number of cycles"},
		{append([]string{"compare", "--variant", "a:snapshot=" + filepath.Join(dir, "x.lbsnap")}, long...), "is not a setting a variant can change"},
		{append([]string{"compare", "--variant", "a\x1b[2J:rate=0.5"}, long...), "control characters"},
	} {
		code, _, stderr := within(t, 30*time.Second, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lbsim %v: exit %d, want 2 and %q: %s", tc.args, code, tc.want, stderr)
		}
	}
	if names := listDir(t, dir); len(names) > 0 {
		t.Errorf("refused commands wrote %v", names)
	}
}

// TestSweepChecksLargeGridsValueByValue: a grid of more than maxChecked
// points is checked value by value, says so first, and still names the
// bad value.
func TestSweepChecksLargeGridsValueByValue(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	code, _, stderr := runArgs(t, "sweep", "--cycles", "10", "--seed", "1", "--servers", "10000", "--max-servers", "10000",
		"--vary", fmt.Sprintf("min-servers=1:%d:1", maxChecked+1), "--out", out)
	if code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("checking the grid's %d values", maxChecked+1)) ||
		!strings.Contains(stderr, fmt.Sprintf("at min-servers=%d", maxChecked+1)) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestPlotRunStopsAtQueueLimit: a run stopped at --max-queued is not
// drawn as if complete (it exited 0).
func TestPlotRunStopsAtQueueLimit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.svg")
	code, stdout, stderr := runArgs(t, "plot", "run", "--servers", "1", "--rate", "50", "--cycles", "1000", "--seed", "1", "--max-queued", "100", "--out", out)
	if code != exitFailed || !strings.Contains(stderr, "more than --max-queued 100") || strings.Contains(stdout, "timeline of") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if names := listDir(t, dir); len(names) > 0 {
		t.Errorf("files %v", names)
	}
}

// TestPlotSweepHugeValues: values near the float64 limit are refused with
// a message and no file (the axis ticker looped forever).
func TestPlotSweepHugeValues(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.jsonl")
	os.WriteFile(in, []byte(`{"point":{"rate":0.3},"replication":0,"seed":1,"summary":{"avg_wait":1e308}}
{"point":{"rate":0.5},"replication":0,"seed":1,"summary":{"avg_wait":-1e308}}
`), 0o644)
	code, _, stderr := within(t, 30*time.Second, "plot", "sweep", in, "--metric", "avg_wait", "--out", filepath.Join(dir, "p.svg"))
	if code != exitFailed || !strings.Contains(stderr, "a chart draws values from") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("files %v", names)
	}
}

// TestUntrustedTextEscaped: labels of a comparison from a stranger, text
// of a results file and an unknown --metric's key list reach the terminal
// escaped and bounded.
func TestUntrustedTextEscaped(t *testing.T) {
	dir := t.TempDir()
	cfg := sim.DefaultConfig()
	cfg.Cycles, cfg.Seed = 200, 1
	s, err := snapshot.Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapshot.EncodeComparison(snapshot.Comparison{Lanes: []snapshot.Lane{{Label: "\x1b]0;owned\x07\x1b[2J", Snapshot: s}}})
	if err != nil {
		t.Fatal(err)
	}
	cmp := filepath.Join(dir, "cmp.lbsnap")
	os.WriteFile(cmp, data, 0o644)
	code, stdout, stderr := runArgs(t, "replay", cmp)
	if code != exitOK || strings.ContainsAny(stdout+stderr, "\x1b\x07") || !strings.Contains(stdout, `\x1b]0;owned`) {
		t.Errorf("replay of a hostile label: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runArgs(t, "replay", "--link", snapshot.Fragment(data))
	if code != exitOK || strings.ContainsAny(stdout+stderr, "\x1b\x07") {
		t.Errorf("replay --link of a hostile label: exit %d", code)
	}

	esc := writeFile(t, "esc.jsonl", `{"point":{"rate":"\u001b[2Jx"},"replication":0,"seed":1,"summary":{"avg_wait":1}}`+"\n")
	code, stdout, stderr = runArgs(t, "aggregate", esc)
	if code != exitUsage || strings.Contains(stdout+stderr, "\x1b") || !strings.Contains(stderr, "not printable") {
		t.Errorf("aggregate of an escape sequence: exit %d: %q %q", code, stdout, stderr)
	}

	var keys strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&keys, `"key_%05d_with_a_long_name":%d,`, i, i)
	}
	many := writeFile(t, "many.jsonl", `{"point":{"rate":0.3},"replication":0,"seed":1,"summary":{`+keys.String()+`"avg_wait":1}}`+"\n")
	code, _, stderr = runArgs(t, "aggregate", many, "--metric", "nothing")
	if code != exitUsage || len(stderr) > 8192 || !strings.Contains(stderr, "more") {
		t.Errorf("unknown --metric: exit %d, %d bytes of stderr", code, len(stderr))
	}
}

// TestReplayComparisonFlags: --timeline is refused for a comparison (it
// was ignored) and --max-queued applies to it.
func TestReplayComparisonFlags(t *testing.T) {
	dir := t.TempDir()
	cmp := filepath.Join(dir, "cmp.lbsnap")
	if code, _, stderr := runArgs(t, "compare", "--seed", "1", "--cycles", "300", "--variant", "a:policy=random", "--variant", "b:policy=round-robin", "--snapshot", cmp); code != 0 {
		t.Fatal(stderr)
	}
	tl := filepath.Join(dir, "tl.csv")
	if code, _, stderr := runArgs(t, "replay", cmp, "--timeline", tl); code != exitUsage || !strings.Contains(stderr, "--timeline") {
		t.Errorf("--timeline: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runArgs(t, "replay", cmp, "--max-queued", "1"); code != exitFailed || !strings.Contains(stderr, "more than --max-queued 1") {
		t.Errorf("--max-queued 1: exit %d: %s", code, stderr)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("files %v", names)
	}
}

// TestReplayLinkFromStdin: --link - reads the link from standard input,
// for links longer than one argument may be.
func TestReplayLinkFromStdin(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "run.lbsnap")
	recordSmall(t, snap)
	_, link, _ := runArgs(t, "share", "--base", "https://lbsim.example/", snap)
	stdout, stderr, code := runCLI(t, link, "replay", "--link", "-")
	if code != exitOK || !strings.Contains(stdout, "reproduced exactly") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, strings.Repeat("A", snapshot.MaxLink+1), "replay", "--link", "-"); code != exitUsage || !strings.Contains(stderr, "longer than") {
		t.Errorf("an endless link: exit %d: %s", code, stderr)
	}
}

// TestMessagesSayWhatHappened: messages name a fault as it was given, a
// format version 0 as damage, a write to a full device as such, and the
// service times as configured.
func TestMessagesSayWhatHappened(t *testing.T) {
	if _, _, stderr := runArgs(t, "run", "--cycles", "100", "--seed", "1", "--set", "10:up=1"); !strings.Contains(stderr, "--set 10:up=1") || strings.Contains(stderr, "--fault") {
		t.Errorf("--set 10:up=1: %s", stderr)
	}
	if _, stdout, _ := runArgs(t, "run", "--cycles", "100", "--seed", "1", "--service", "geometric", "--mean-service", "7"); !strings.Contains(stdout, "tasks geometric, mean 7 cycles") ||
		!strings.Contains(stdout, "task time           geometric, mean 7 cycles") || strings.Contains(stdout, "10..80") {
		t.Errorf("geometric service: %s", stdout)
	}
	v0 := (&snapshot.VersionError{What: "format", Got: 0, Want: snapshot.FormatComparison}).Error()
	if !strings.Contains(v0, "damaged") || strings.Contains(v0, "newer") {
		t.Errorf("format version 0: %s", v0)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, stderr := runArgs(t, "sweep", "--cycles", "10", "--seed", "1", "--vary", "rate=0.3", "--out", "/dev/full")
		if code != exitFailed || !strings.Contains(strings.ToLower(stderr), "no space left") { // "No space …" under wasm
			t.Errorf("--out /dev/full: exit %d: %s", code, stderr)
		}
	}
}

// TestHelpPrintsDefaults: compare and sweep --help list the run flags with
// their defaults (they printed panics from the recorded flags).
func TestHelpPrintsDefaults(t *testing.T) {
	for _, cmd := range []string{"run", "compare", "sweep", "size", "plot run"} {
		code, stdout, stderr := runArgs(t, append(strings.Fields(cmd), "--help")...)
		if code != exitOK || strings.Contains(stdout+stderr, "panic") || !strings.Contains(stdout, "(1..10⁹) (default 100000)") {
			t.Errorf("%s --help: exit %d:\n%s", cmd, code, stdout)
		}
	}
	if _, stdout, _ := runArgs(t, "mmc", "--help"); !strings.Contains(stdout, "1/(2m)") {
		t.Error("mmc --help does not give the clock's bias as 1/(2m)")
	}
}

// TestTraceLineBounded: a trace of one endless line is refused once the
// line passes the bound (it was read into memory until none was left).
func TestTraceLineBounded(t *testing.T) {
	long := writeFile(t, "long.csv", "cycle,src,dst,time\n"+strings.Repeat("9", maxInputLine+1)+"\n")
	inputs := []string{long}
	if _, err := os.Stat("/dev/zero"); err == nil {
		inputs = append(inputs, "/dev/zero")
	}
	for _, in := range inputs {
		for _, args := range [][]string{
			{"run", "--cycles", "10", "--seed", "1", "--trace", in},
			{"compare", "--cycles", "10", "--seed", "1", "--variant", "a:rate=0.5", "--trace", in},
			{"plot", "run", "--cycles", "10", "--seed", "1", "--trace", in, "--out", filepath.Join(t.TempDir(), "t.svg")},
		} {
			code, _, stderr := within(t, 30*time.Second, args...)
			if code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("longer than %d bytes", maxInputLine)) {
				t.Errorf("lbsim %v: exit %d: %s", args[:2], code, stderr)
			}
		}
	}
}
