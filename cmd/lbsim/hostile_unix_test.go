//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

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

	// A dangling link: its target is created, the link kept.
	os.Symlink(p("new.json"), p("dangling.json"))
	if code, stderr := run("--json", p("dangling.json")); code != exitOK {
		t.Fatalf("--json dangling link: exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(p("dangling.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 || !bytes.Contains(readFile(t, p("new.json")), []byte(`"seed": 2`)) {
		t.Errorf("dangling link: replaced, or its target not written (%v)", err)
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
	got := readFIFO(fifo)
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
		{[]string{"--timeline", "-", "--snapshot", "-"}, "both name standard output"},
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
// temporary files and exits 143 (128 + SIGTERM).
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
		if code != exitTerminated || !strings.Contains(errb.String(), "interrupted at cycle") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not stop")
	}
	if n := listDir(t, dir); len(n) != 0 {
		t.Errorf("files left: %v", n)
	}
}

// readFIFO reads the FIFO at path to its end in the background (opening it
// blocks until a writer opens it) and sends what it read, nil if it could
// not open it.
func readFIFO(path string) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		var b bytes.Buffer
		b.ReadFrom(f)
		f.Close()
		got <- b.Bytes()
	}()
	return got
}

// firstWrite is standard output that closes wrote on its first write.
type firstWrite struct {
	once  sync.Once
	wrote chan struct{}
	mu    sync.Mutex
	last  byte // the last byte written
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.wrote) })
	if len(p) > 0 {
		w.mu.Lock()
		w.last = p[len(p)-1]
		w.mu.Unlock()
	}
	return len(p), nil
}

// endsLine reports whether the last byte written ends a line.
func (w *firstWrite) endsLine() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last == '\n'
}

// TestRunInterruptedThrough: a run interrupted after its --timeline -
// reached standard output does not say no output was written; it says
// standard output holds it up to the cycle reached, and that ends a line.
func TestRunInterruptedThrough(t *testing.T) {
	interruptedThrough(t, "run", "run", "--cycles", "1000000000", "--seed", "4", "--quiet", "--timeline", "-")
}

// interruptedThrough runs lbsim with args, whose timeline goes to standard
// output, sends SIGINT once the first bytes are there, and checks that the
// command (what, for messages) stops saying standard output holds its
// output up to the cycle reached, in whole lines.
func interruptedThrough(t *testing.T, what string, args ...string) {
	t.Helper()
	var errb bytes.Buffer
	out := &firstWrite{wrote: make(chan struct{})}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: &errb, noColor: true, signals: make(chan os.Signal, 1)}
	done := make(chan int)
	go func() { done <- c.main(args) }()
	select {
	case <-out.wrote:
	case <-time.After(60 * time.Second):
		t.Fatal("the timeline never reached standard output")
	}
	c.signals <- syscall.SIGINT
	select {
	case code := <-done:
		if msg := errb.String(); code != exitInterrupted || strings.Contains(msg, "no output was written") || !strings.Contains(msg, "standard output holds its output up to cycle") || !out.endsLine() {
			t.Errorf("exit %d, stderr %q", code, msg)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the %s did not stop", what)
	}
}

// TestReplayInterruptedThrough: as TestRunInterruptedThrough, for lbsim
// replay --timeline -.
func TestReplayInterruptedThrough(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "long.lbsnap")
	if code, _, stderr := runArgs(t, "run", "--cycles", "30000000", "--seed", "4", "--quiet", "--snapshot", snap); code != exitOK {
		t.Fatalf("run: %s", stderr)
	}
	interruptedThrough(t, "replay", "replay", snap, "--timeline", "-")
}

// TestMMCInterrupted: SIGINT during lbsim mmc (with and without fan-out)
// stops the simulation, removes the temporary --json file and says so,
// exit 130. Before, mmc ran on to its last cycle, ended only by the grace
// period's exit and said nothing.
func TestMMCInterrupted(t *testing.T) {
	for _, extra := range [][]string{nil, {"--fanout", "4"}} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, noColor: true, signals: make(chan os.Signal, 1)}
		args := append([]string{"mmc", "--servers", "64", "--rate", "0.5", "--cycles", "1000000000", "--seed", "4", "--json", filepath.Join(dir, "m.json")}, extra...)
		done := make(chan int)
		go func() { done <- c.main(args) }()
		deadline := time.Now().Add(30 * time.Second)
		for len(listDir(t, dir)) < 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		c.signals <- syscall.SIGINT
		select {
		case code := <-done:
			if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%v: the simulation did not stop", args)
		}
		if n := listDir(t, dir); len(n) != 0 {
			t.Errorf("%v: files left: %v", args, n)
		}
	}
}
