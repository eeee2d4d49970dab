package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestOutputTargets: outputs that are symbolic links, FIFOs, directories,
// the same file twice or an input are written through, or refused with
// nothing touched.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	short := []string{"run", "--cycles", "50", "--seed", "2", "--quiet"}
	run := func(args ...string) (int, string) {
		code, _, stderr := runArgs(t, append(append([]string{}, short...), args...)...)
		return code, stderr
	}

	// A symbolic link stays a link; its target gets the output.
	os.WriteFile(p("target.json"), []byte("old"), 0o644)
	os.Symlink(p("target.json"), p("link.json"))
	if code, stderr := run("--json", p("link.json")); code != exitOK {
		t.Fatalf("--json link: exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(p("link.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if !bytes.Contains(readFile(t, p("target.json")), []byte(`"seed": 2`)) {
		t.Error("the link's target did not get the JSON")
	}

	// A FIFO is written through, never replaced; one with no reader is
	// refused at once.
	fifo := p("fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if code, stderr := run("--json", fifo); code != exitUsage || !strings.Contains(stderr, "no reader") {
		t.Errorf("--json FIFO without a reader: exit %d, %s", code, stderr)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		var b bytes.Buffer
		b.ReadFrom(f)
		f.Close()
		got <- b.Bytes()
	}()
	var code int
	var stderr string
	deadline := time.Now().Add(20 * time.Second)
	for code, stderr = run("--json", fifo); code == exitUsage && time.Now().Before(deadline); code, stderr = run("--json", fifo) {
		time.Sleep(20 * time.Millisecond) // the reader opens the FIFO in its own time
	}
	if code != exitOK {
		t.Fatalf("--json FIFO: exit %d: %s", code, stderr)
	}
	if data := <-got; !bytes.Contains(data, []byte(`"seed": 2`)) {
		t.Errorf("the FIFO's reader got %q", data)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}

	// Refused before the run, nothing touched.
	os.WriteFile(p("keep.csv"), []byte("old"), 0o644)
	os.Mkdir(p("adir"), 0o755)
	os.Link(p("keep.csv"), p("hard.csv"))
	trace := filepath.Join(dir, "trace.csv")
	os.WriteFile(trace, []byte("cycle,src,dst,time\n0,1.1.1.1,2.2.2.2,3\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeline", p("keep.csv"), "--json", p("adir")}, "--json " + p("adir") + ": is a directory"},
		{[]string{"--timeline", p("keep.csv"), "--json", p("keep.csv")}, "name the same file"},
		{[]string{"--timeline", p("keep.csv"), "--snapshot", p("hard.csv")}, "name the same file"},
		{[]string{"--timeline", p("keep.csv"), "--json", p("./adir/../keep.csv")}, "name the same file"},
		{[]string{"--trace", trace, "--timeline", trace}, "is the input --trace"},
		{[]string{"--timeline", "-"}, "only for --json"},
		{[]string{"--log-dir", p("keep.csv")}, "not a directory"},
	} {
		before := listDir(t, dir)
		code, stderr := run(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
		if string(readFile(t, p("keep.csv"))) != "old" || !strings.HasPrefix(string(readFile(t, trace)), "cycle,") {
			t.Errorf("%v: a file was touched", c.args)
		}
		if after := listDir(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("%v: files %v, before %v", c.args, after, before)
		}
	}

	// replay: its output may not be its input.
	snap := p("in.lbsnap")
	data := recordSmall(t, snap)
	if code, _, stderr := runArgs(t, "replay", snap, "--json", snap); code != exitUsage || !strings.Contains(stderr, "would overwrite") {
		t.Errorf("replay in --json in: exit %d, %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, snap), data) {
		t.Error("replay overwrote its snapshot")
	}
}

// TestRunInterrupted: SIGINT or SIGTERM during a run removes the
// temporary files and exits 130.
func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, noColor: true, signals: make(chan os.Signal, 1)}
	done := make(chan int)
	go func() {
		done <- c.main([]string{"run", "--cycles", "1000000000", "--seed", "4", "--quiet", "--timeline", filepath.Join(dir, "tl.csv"), "--json", filepath.Join(dir, "s.json")})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(listDir(t, dir)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := listDir(t, dir); len(n) != 2 || !strings.HasPrefix(n[0], ".") {
		t.Fatalf("the run's temporary files: %v", n)
	}
	c.signals <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted at cycle") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not stop")
	}
	if n := listDir(t, dir); len(n) != 0 {
		t.Errorf("files left: %v", n)
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
		{[]string{"run", "--mean-service", "5"}, []string{"--mean-service", "geometric or constant"}, ""},
		{[]string{"run", "--weights", "1,2"}, []string{"--weights", "swrr"}, ""},
		{[]string{"run", "--block", "10.0.0.0/8", "--block", "none"}, []string{"cannot be combined"}, ""},
		{[]string{"run", "--timeline", "-"}, []string{"--timeline -", "only for --json"}, ""},
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
