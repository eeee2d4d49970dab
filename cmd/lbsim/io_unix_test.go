//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ioCommand is a subcommand as the output contract sees it: a short run
// writing out (and out2, a second output, when it has one) from its input
// file, and a long one for the signal test.
type ioCommand struct {
	name   string
	input  string // the kind of input file it reads (see ioInputs), "" for none
	second bool   // it takes a second output
	args   func(in, out, out2 string) []string
	long   func(in, out string) []string
	// hold keeps the long command busy: its input is a FIFO nobody writes.
	hold bool
}

// ioCommands are every subcommand that writes files. aggregate, share and
// wrr write only to standard output.
var ioCommands = []ioCommand{
	{name: "run", input: "trace", second: true,
		args: func(in, out, out2 string) []string {
			a := []string{"run", "--cycles", "200", "--seed", "1", "--quiet", "--trace", in, "--json", out}
			if out2 != "" {
				a = append(a, "--timeline", out2)
			}
			return a
		},
		long: func(_, out string) []string {
			return []string{"run", "--cycles", "1000000000", "--seed", "1", "--quiet", "--json", out}
		}},
	{name: "compare", input: "trace", second: true,
		args: func(in, out, out2 string) []string {
			a := []string{"compare", "--cycles", "200", "--seed", "1", "--trace", in, "--variant", "a:policy=random", "--variant", "b:policy=round-robin", "--json", out}
			if out2 != "" {
				a = append(a, "--snapshot", out2)
			}
			return a
		},
		long: func(_, out string) []string {
			return []string{"compare", "--cycles", "1000000000", "--seed", "1", "--variant", "a:policy=random", "--json", out}
		}},
	{name: "replay", input: "snapshot", second: true,
		args: func(in, out, out2 string) []string {
			a := []string{"replay", in, "--json", out}
			if out2 != "" {
				a = append(a, "--timeline", out2)
			}
			return a
		},
		long: func(in, out string) []string { return []string{"replay", in, "--json", out} }},
	{name: "replay-comparison", input: "comparison",
		args: func(in, out, _ string) []string { return []string{"replay", in, "--json", out} },
		long: func(in, out string) []string { return []string{"replay", in, "--json", out} }},
	{name: "mmc",
		args: func(_, out, _ string) []string {
			return []string{"mmc", "--cycles", "20000", "--seed", "1", "--json", out}
		},
		long: func(_, out string) []string {
			return []string{"mmc", "--cycles", "1000000000", "--seed", "1", "--json", out}
		}},
	{name: "sweep", input: "trace",
		args: func(in, out, _ string) []string {
			return []string{"sweep", "--cycles", "200", "--seed", "1", "--trace", in, "--vary", "policy=random,round-robin", "--no-progress", "--out", out}
		},
		long: func(_, out string) []string {
			return []string{"sweep", "--cycles", "1000000000", "--seed", "1", "--vary", "policy=random", "--jobs", "1", "--no-progress", "--out", out}
		}},
	{name: "size", input: "trace",
		args: func(in, out, _ string) []string {
			return []string{"size", "--cycles", "200", "--seed", "1", "--trace", in, "--slo", "avg_wait<=1000", "--replications", "2", "--no-progress", "--json", out}
		},
		long: func(_, out string) []string {
			return []string{"size", "--cycles", "1000000000", "--seed", "1", "--slo", "avg_wait<=1", "--jobs", "1", "--no-progress", "--json", out}
		}},
	{name: "plot-run", input: "trace",
		args: func(in, out, _ string) []string {
			return []string{"plot", "run", "--cycles", "200", "--seed", "1", "--trace", in, "--out", out}
		},
		long: func(_, out string) []string {
			return []string{"plot", "run", "--cycles", "1000000000", "--seed", "1", "--out", out}
		}},
	{name: "plot-sweep", input: "results", hold: true,
		args: func(in, out, _ string) []string {
			return []string{"plot", "sweep", in, "--metric", "avg_wait", "--out", out}
		},
		long: func(in, out string) []string {
			return []string{"plot", "sweep", in, "--metric", "avg_wait", "--out", out}
		}},
}

// ioInputs writes one input file of each kind into dir; long ones too when
// long is set (snapshots that take a while to replay).
func ioInputs(t *testing.T, dir string, long bool) map[string]string {
	t.Helper()
	in := map[string]string{
		// Named as charts, so that plot takes them as its --out.
		"trace": filepath.Join(dir, "trace.svg"), "snapshot": filepath.Join(dir, "run.svg"),
		"comparison": filepath.Join(dir, "cmp.svg"), "results": filepath.Join(dir, "results.svg"),
	}
	os.WriteFile(in["trace"], []byte(tinyTrace), 0o644)
	cycles := "300"
	if long {
		cycles = "5000000"
	}
	for _, args := range [][]string{
		{"run", "--cycles", cycles, "--seed", "3", "--quiet", "--status-every", "0", "--snapshot", in["snapshot"]},
		{"compare", "--cycles", cycles, "--seed", "3", "--variant", "a:policy=random", "--snapshot", in["comparison"]},
		{"sweep", "--cycles", "200", "--seed", "3", "--vary", "rate=0.2,0.4", "--replications", "2", "--no-progress", "--out", in["results"]},
	} {
		if code, _, stderr := runArgs(t, args...); code != exitOK {
			t.Fatalf("lbsim %v: exit %d: %s", args, code, stderr)
		}
	}
	return in
}

// TestOutputContract runs every subcommand that writes files with its
// output a directory, in a missing directory, a symbolic link, a FIFO
// (read, and not), its own input, or another of its outputs: the bad ones
// are refused with exit 2 before any work and nothing touched, the others
// written through.
func TestOutputContract(t *testing.T) {
	inputs := ioInputs(t, t.TempDir(), false)
	type outcome struct {
		code int
		want string // in stderr
	}
	cases := []struct {
		name string
		// prepare makes the case in dir and returns out and out2 (the
		// second output, "" to leave it out).
		prepare func(t *testing.T, dir, in string, cmd ioCommand) (out, out2 string)
		applies func(cmd ioCommand) bool
		want    outcome
		check   func(t *testing.T, dir, out string) // after a success
	}{
		{name: "directory", want: outcome{exitUsage, "is a directory"},
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				out := filepath.Join(dir, "out.svg")
				os.Mkdir(out, 0o755)
				return out, ""
			}},
		{name: "missing directory", want: outcome{exitUsage, "does not exist"},
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				return filepath.Join(dir, "nowhere", "out.svg"), ""
			}},
		{name: "file as directory", want: outcome{exitUsage, "is not a directory"},
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
				return filepath.Join(dir, "file", "out.svg"), ""
			}},
		{name: "symbolic link", want: outcome{exitOK, ""},
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				os.WriteFile(filepath.Join(dir, "target.svg"), nil, 0o644)
				os.Symlink(filepath.Join(dir, "target.svg"), filepath.Join(dir, "link.svg"))
				return filepath.Join(dir, "link.svg"), ""
			},
			check: func(t *testing.T, dir, out string) {
				if fi, err := os.Lstat(out); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link was replaced (%v)", err)
				}
				if len(readFile(t, filepath.Join(dir, "target.svg"))) == 0 {
					t.Error("the link's target got nothing")
				}
			}},
		{name: "FIFO with no reader", want: outcome{exitUsage, "no reader"},
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				out := filepath.Join(dir, "fifo.svg")
				if err := syscall.Mkfifo(out, 0o644); err != nil {
					t.Fatal(err)
				}
				return out, ""
			}},
		{name: "same as the input", want: outcome{exitUsage, "would overwrite it"},
			applies: func(cmd ioCommand) bool { return cmd.input != "" },
			prepare: func(t *testing.T, dir, in string, _ ioCommand) (string, string) { return in, "" }},
		{name: "same as another output", want: outcome{exitUsage, "name the same file"},
			applies: func(cmd ioCommand) bool { return cmd.second },
			prepare: func(t *testing.T, dir, _ string, _ ioCommand) (string, string) {
				out := filepath.Join(dir, "out.svg")
				return out, filepath.Join(dir, ".", "out.svg")
			}},
	}
	for _, cmd := range ioCommands {
		for _, tc := range cases {
			if tc.applies != nil && !tc.applies(cmd) {
				continue
			}
			t.Run(cmd.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				in := inputs[cmd.input]
				var inData []byte
				if in != "" {
					inData = readFile(t, in)
				}
				out, out2 := tc.prepare(t, dir, in, cmd)
				before := listDir(t, dir)
				code, _, stderr := runArgs(t, cmd.args(in, out, out2)...)
				if code != tc.want.code || !strings.Contains(stderr, tc.want.want) {
					t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.want.code, tc.want.want)
				}
				if in != "" && !bytes.Equal(readFile(t, in), inData) {
					t.Error("the input was changed")
				}
				if tc.want.code != exitOK {
					if after := listDir(t, dir); !slices.Equal(after, before) {
						t.Errorf("files %v, before %v: a refused command touched them", after, before)
					}
					return
				}
				tc.check(t, dir, out)
			})
		}
		t.Run(cmd.name+"/FIFO with a reader", func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo.svg")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			got := readFIFO(fifo)
			var code int
			var stderr string
			// The reader opens the FIFO in its own time: until then the
			// command is refused with "no reader".
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				code, _, stderr = runArgs(t, cmd.args(inputs[cmd.input], fifo, "")...)
				if code != exitUsage || !strings.Contains(stderr, "no reader") || time.Now().After(deadline) {
					break
				}
			}
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if data := <-got; len(data) == 0 {
				t.Error("the FIFO's reader got nothing")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced (%v)", err)
			}
			if names := listDir(t, dir); !slices.Equal(names, []string{"fifo.svg"}) {
				t.Errorf("files %v", names)
			}
		})
	}
}

// TestOutputContractSIGTERM sends SIGTERM to every subcommand that writes
// files, as a process, while it works: it exits 143 and leaves no
// temporary file and no output (a sweep's results file, whole lines).
func TestOutputContractSIGTERM(t *testing.T) {
	inputs := ioInputs(t, t.TempDir(), true)
	for _, cmd := range ioCommands {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in := inputs[cmd.input]
			if cmd.hold { // a FIFO held open by the test and never written
				in = filepath.Join(dir, "in.fifo")
				if err := syscall.Mkfifo(in, 0o644); err != nil {
					t.Fatal(err)
				}
				w, err := os.OpenFile(in, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
			}
			out := filepath.Join(dir, "out.svg")
			proc := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, cmd.long(in, out)...)...)
			proc.Env = append(os.Environ(), "LBSIM_AS_COMMAND=1")
			var stderr bytes.Buffer
			proc.Stderr = &stderr
			if err := proc.Start(); err != nil {
				t.Fatal(err)
			}
			// Mid-run: once its output is open (a temporary file, or the
			// sweep's results file).
			working := func() bool {
				for _, n := range listDir(t, dir) {
					if strings.HasPrefix(n, ".out.svg.tmp-") || n == "out.svg" {
						return true
					}
				}
				return false
			}
			for deadline := time.Now().Add(60 * time.Second); !working() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			}
			if !working() {
				proc.Process.Kill()
				t.Fatalf("no output opened in 60 s: %s", stderr.String())
			}
			proc.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- proc.Wait() }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				proc.Process.Kill()
				t.Fatal("it did not stop")
			}
			if code := proc.ProcessState.ExitCode(); code != exitTerminated {
				t.Errorf("exit %d, want %d: %s", code, exitTerminated, stderr.String())
			}
			var left []string
			for _, n := range listDir(t, dir) {
				if n != "in.fifo" && (cmd.name != "sweep" || n != "out.svg") {
					left = append(left, n)
				}
			}
			if len(left) > 0 {
				t.Errorf("files left: %v", left)
			}
			if cmd.name == "sweep" {
				if data := readFile(t, out); len(data) > 0 && data[len(data)-1] != '\n' || !strings.Contains(stderr.String(), "--resume") {
					t.Errorf("the results file does not hold whole lines, or no word of --resume: %s", stderr.String())
				}
			}
		})
	}
}

// TestSweepToAPipe: --out /dev/stdout into a pipe is written through, never
// read (the sweep hung reading it for a resume).
func TestSweepToAPipe(t *testing.T) {
	proc := exec.Command(os.Args[0], "-test.run=^$", "--", "sweep", "--cycles", "50", "--seed", "1", "--vary", "rate=0.3,0.5",
		"--no-progress", "--out", "/dev/stdout")
	proc.Env = append(os.Environ(), "LBSIM_AS_COMMAND=1")
	var stdout, stderr bytes.Buffer
	proc.Stdout, proc.Stderr = &stdout, &stderr // a pipe each
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- proc.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		proc.Process.Kill()
		t.Fatal("the sweep into a pipe did not end")
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], `{"point":{"rate":0.3}`) || !strings.HasPrefix(lines[1], `{"point":{"rate":0.5}`) {
		t.Errorf("the pipe got %q", stdout.String())
	}
}
