package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestHelpCommand: `lbsim help CMD` prints the command's own help (as
// CMD --help does), `help` alone the overview; an unknown command exits 2
// with a suggestion; a mistyped root flag gets one too.
func TestHelpCommand(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{"help", "run"}, exitOK, "Usage: lbsim run", ""},
		{[]string{"help", "sweep"}, exitOK, "Usage: lbsim sweep", ""},
		{[]string{"help", "completion"}, exitOK, "Usage: lbsim completion", ""},
		{[]string{"help", "plot", "run"}, exitOK, "lbsim plot run", ""},
		{[]string{"help"}, exitOK, "Usage:\n  lbsim run", ""},
		{[]string{"help", "--help"}, exitOK, "Usage:\n  lbsim run", ""},
		{[]string{"help", "-h"}, exitOK, "Usage:\n  lbsim run", ""},
		{[]string{"help", "nosuch"}, exitUsage, "", `unknown command "nosuch"`},
		{[]string{"help", "sweeep"}, exitUsage, "", `unknown command "sweeep": did you mean sweep?`},
		{[]string{"help", "run", "extra"}, exitUsage, "", `no help topic "extra"`},
		{[]string{"--verison"}, exitUsage, "", `unknown flag "--verison": did you mean --version?`},
		{[]string{"--hepl"}, exitUsage, "", `did you mean --help?`},
	} {
		stdout, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.inErr) {
			t.Errorf("lbsim %s: exit %d (want %d)\nstdout %.200q\nstderr %.300q", strings.Join(tc.args, " "), code, tc.code, stdout, stderr)
		}
	}
	// help CMD prints exactly what CMD --help prints.
	for _, name := range []string{"run", "compare", "aggregate", "settings"} {
		viaHelp, _, _ := runCLI(t, "", "help", name)
		direct, _, _ := runCLI(t, "", name, "--help")
		if viaHelp != direct {
			t.Errorf("lbsim help %s differs from lbsim %s --help", name, name)
		}
	}
}

// TestNoArgumentsWithoutTerminal: lbsim alone in a script or a pipe prints
// the overview on standard output and exits 0.
func TestNoArgumentsWithoutTerminal(t *testing.T) {
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	if code := c.main(nil); code != exitOK || !strings.HasPrefix(out.String(), usage()) || errb.Len() != 0 {
		t.Errorf("lbsim with no arguments and no terminal: exit %d, stdout %.80q, stderr %q", code, out.String(), errb.String())
	}
}

// TestFlagsAnyPosition: a flag after a positional argument is read.
func TestFlagsAnyPosition(t *testing.T) {
	if stdout, stderr, code := runCLI(t, "", "completion", "bash", "--help"); code != exitOK || !strings.HasPrefix(stdout, "Usage: lbsim completion") {
		t.Errorf("lbsim completion bash --help: exit %d, %.80q %q", code, stdout, stderr)
	}
	if stdout, stderr, code := runCLI(t, "", "completion", "bash", "--no-descriptions"); code != exitOK || !strings.Contains(stdout, "bash completion") {
		t.Errorf("lbsim completion bash --no-descriptions: exit %d, %.80q %q", code, stdout, stderr)
	}
}

// TestHelpFalse: --help=false asks for no help; --help=true does.
func TestHelpFalse(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "run", "--help=false", "--cycles", "50", "--seed", "1")
	if code != exitOK || strings.Contains(stdout, "Usage:") || !strings.Contains(stdout, "Summary after 50 cycles") {
		t.Errorf("run --help=false: exit %d, %.120q %q", code, stdout, stderr)
	}
	if stdout, _, code := runCLI(t, "", "run", "--help=true"); code != exitOK || !strings.HasPrefix(stdout, "Usage: lbsim run") {
		t.Errorf("run --help=true: exit %d, %.80q", code, stdout)
	}
}

// TestFlagValueIsAFlag: a flag that takes a value, followed by another of
// the command's flags, is refused naming both, and writes nothing (it
// used to write a file named --cycles=100 and run 100,000 cycles).
func TestFlagValueIsAFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--json", "--cycles=100"}, []string{"--json needs a value", `"--cycles=100"`}},
		{[]string{"run", "--json", "--seed", "1"}, []string{"--json needs a value", `"--seed"`}},
		{[]string{"run", "--servers", "--help"}, []string{"--servers needs a value", `"--help"`}},
		{[]string{"compare", "--csv", "--variant", "policy=random"}, []string{"--csv needs a value", `"--variant"`}},
		{[]string{"sweep", "--out", "--vary=servers=1,2"}, []string{"--out needs a value", `"--vary=servers=1,2"`}},
	} {
		stdout, stderr, code := runCLI(t, "", tc.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("lbsim %s: exit %d, stdout %.80q; want exit 2 and nothing written", strings.Join(tc.args, " "), code, stdout)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("lbsim %s: %q does not say %s", strings.Join(tc.args, " "), stderr, w)
			}
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
	// A value that only looks like a flag of another command is a value,
	// and so is one given with '=', as asked.
	if _, stderr, code := runCLI(t, "", "run", "--cycles", "20", "--seed", "1", "--json", "-x.json"); code != exitOK {
		t.Errorf("run --json -x.json: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "run", "--cycles", "20", "--seed", "1", "--json=--cycles=100"); code != exitOK {
		t.Errorf("run --json=--cycles=100: exit %d, %q", code, stderr)
	}
}

// TestQuietIsQuiet: --quiet prints the summary only: no header, no status
// lines; errors are still printed.
func TestQuietIsQuiet(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "run", "--quiet", "--cycles", "500", "--seed", "1")
	if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "\nSummary after 500 cycles") ||
		strings.Contains(stdout, "cycle  ") || strings.Contains(stdout, "lbsim run:") {
		t.Errorf("run --quiet: exit %d, stderr %q, stdout %.200q", code, stderr, stdout)
	}
	loud, _, _ := runCLI(t, "", "run", "--cycles", "500", "--seed", "1")
	if !strings.HasSuffix(loud, stdout) || !strings.Contains(loud, "cycle        50  queue") {
		t.Errorf("run without --quiet: want the header, status lines and the same summary:\n%s", loud)
	}
	if _, stderr, code := runCLI(t, "", "run", "--quiet", "--rate", "x"); code != exitUsage || !strings.Contains(stderr, "--rate") {
		t.Errorf("run --quiet --rate x: exit %d, %q: an error is printed under --quiet", code, stderr)
	}
	if stdout, _, _ := runCLI(t, "", "run", "--quiet", "--cycles", "500", "--seed", "1", "--status-every", "100"); !strings.Contains(stdout, "cycle       100  queue") {
		t.Errorf("run --quiet --status-every 100: the status lines asked for are missing:\n%s", stdout)
	}
}

// TestColorModes: --color always and never decide; auto colours a
// terminal unless NO_COLOR or TERM=dumb, and CLICOLOR_FORCE or
// FORCE_COLOR colour a pipe (NO_COLOR wins).
func TestColorModes(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		flag                            string
		tty, noColor, force, dumb, want bool
	}{
		{"auto on a terminal", "", true, false, false, false, true},
		{"auto in a pipe", "", false, false, false, false, false},
		{"NO_COLOR", "", true, true, false, false, false},
		{"TERM=dumb", "", true, false, false, true, false},
		{"CLICOLOR_FORCE in a pipe", "", false, false, true, false, true},
		{"FORCE_COLOR and TERM=dumb", "", true, false, true, true, true},
		{"NO_COLOR beats FORCE_COLOR", "", false, true, true, false, false},
		{"always in a pipe", "always", false, true, false, true, true},
		{"never on a terminal", "never", true, false, true, false, false},
	} {
		var out bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &bytes.Buffer{}, stdoutTTY: tc.tty,
			noColor: tc.noColor, forceColor: tc.force, dumbTerm: tc.dumb}
		args := []string{"run", "--verbose", "--cycles", "5", "--seed", "1"}
		if tc.flag != "" {
			args = append(args, "--color", tc.flag)
		}
		if code := c.main(args); code != exitOK {
			t.Fatalf("%s: exit %d", tc.name, code)
		}
		if got := strings.Contains(out.String(), "\x1b["); got != tc.want {
			t.Errorf("%s: coloured %v, want %v", tc.name, got, tc.want)
		}
	}
	env := map[string]string{"NO_COLOR": "", "CLICOLOR_FORCE": "0", "FORCE_COLOR": "1", "TERM": "dumb"}
	if no, force, dumb := colorEnv(func(k string) string { return env[k] }); no || !force || !dumb {
		t.Errorf("colorEnv(%v) = %v, %v, %v", env, no, force, dumb)
	}
	if _, stderr, code := runCLI(t, "", "run", "--color", "sometimes"); code != exitUsage || !strings.Contains(stderr, "want auto, always or never") {
		t.Errorf("--color sometimes: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "compare", "--color", "always", "--variant", "policy=random"); code != exitUsage || !strings.Contains(stderr, "--color has no meaning for a comparison") {
		t.Errorf("compare --color always: exit %d, %q; a comparison has no coloured log", code, stderr)
	}
}

// TestStdoutFullExits1: a subcommand whose standard output cannot be
// written exits 1 with a message (> /dev/full), not 0.
func TestStdoutFullExits1(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "r.lbsnap")
	if code, _, stderr := runArgs(t, "run", "--cycles", "200", "--seed", "1", "--quiet", "--snapshot", snap); code != exitOK {
		t.Fatalf("run --snapshot: %s", stderr)
	}
	full := []io.Writer{fullWriter{}}
	if f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		defer f.Close()
		full = append(full, f)
	}
	for _, args := range [][]string{
		{"share", snap}, {"settings", "--markdown"}, {"settings"}, {"version"}, {"--version"},
		{"run", "--cycles", "100", "--seed", "1"}, {"replay", snap}, {"help"}, {"run", "--help"},
	} {
		for _, w := range full {
			var errb bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: w, stderr: &errb}
			if code := c.main(args); code != exitFailed || !strings.Contains(errb.String(), "writing standard output") || !strings.Contains(errb.String(), "no space left") {
				t.Errorf("lbsim %s > full: exit %d, %q; want exit 1 and the write error", strings.Join(args, " "), code, errb.String())
			}
		}
	}
}

// TestCSVCellsSafe: no cell of a CSV output starts a spreadsheet formula
// (OWASP: = + - @ tab CR get a ' before them); numbers stay numbers.
func TestCSVCellsSafe(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+cmd": "'+cmd", "-1+2": "'-1+2", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "'\tx", "\rx": "'\rx", "-1.5": "-1.5", "+2": "+2", "1e-3": "1e-3", "-": "'-", "": "", "pooled": "pooled", "inf": "inf",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
	stdout, stderr, code := runCLI(t, "", "compare", "--cycles", "100", "--seed", "1",
		"--variant", "-1+2:policy=random", "--variant", "+cmd:policy=round-robin", "--variant", "@SUM(A1):policy=first-idle", "--csv", "-")
	if code != exitOK {
		t.Fatalf("compare --csv: exit %d, %s", code, stderr)
	}
	for _, label := range []string{"'-1+2,", "'+cmd,", "'@SUM(A1),"} {
		if !strings.Contains(stdout, "\n"+label) {
			t.Errorf("compare --csv: no row starts %q:\n%.300s", label, stdout)
		}
	}
	if strings.Contains(stdout, "\n-1+2,") || strings.Contains(stdout, "\n+cmd,") || strings.Contains(stdout, "\n@SUM") {
		t.Errorf("compare --csv writes a formula raw:\n%s", stdout)
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "a.jsonl")
	if code, _, stderr := runArgs(t, "sweep", "--vary", "rate=0.4,0.5", "--cycles", "200", "--seed", "1", "--out", results); code != exitOK {
		t.Fatalf("sweep: %s", stderr)
	}
	data := strings.ReplaceAll(string(readFile(t, results)), `"rate":0.4`, `"rate":"=HYPERLINK(\"http://x\")"`)
	os.WriteFile(results, []byte(data), 0o644)
	stdout, stderr, code = runCLI(t, "", "aggregate", results, "--metric", "avg_wait", "--csv", "-")
	if code != exitOK || !strings.Contains(stdout, `"'=HYPERLINK(""http://x"")",`) || strings.Contains(stdout, `"=HYPERLINK`) {
		t.Errorf("aggregate --csv: exit %d, %q\n%s", code, stderr, stdout)
	}
}

// TestResumeSameFileAnotherSpelling: a sweep whose scenario file names a
// trace resumes when the file is spelled another way ($PWD/sub/s.toml, or
// from another directory), and is refused for a trace of other content.
func TestResumeSameFileAnotherSpelling(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("sub", 0o755)
	os.WriteFile("sub/t.csv", []byte("cycle,src,dst,time\n1,10.0.0.1,10.0.0.2,2\n"), 0o644)
	os.WriteFile("sub/s.toml", []byte("trace = \"t.csv\"\ncycles = 100\n"), 0o644)
	sweepArgs := func(config, out, servers string) []string {
		return []string{"sweep", "--config", config, "--vary", "servers=" + servers, "--seed", "1", "--out", out, "--resume", "--no-progress"}
	}
	if code, _, stderr := runArgs(t, sweepArgs("sub/s.toml", "r.jsonl", "1,2")...); code != exitOK {
		t.Fatalf("first sweep: %s", stderr)
	}
	if code, _, stderr := runArgs(t, sweepArgs(filepath.Join(dir, "sub/s.toml"), "r.jsonl", "1,2,3")...); code != exitOK || !strings.Contains(stderr, "2 already done") {
		t.Errorf("resume with $PWD/sub/s.toml: exit %d, %q", code, stderr)
	}
	t.Chdir("sub")
	if code, _, stderr := runArgs(t, sweepArgs("s.toml", "../r.jsonl", "1,2,3,4")...); code != exitOK || !strings.Contains(stderr, "3 already done") {
		t.Errorf("resume from sub/ with s.toml: exit %d, %q", code, stderr)
	}
	os.WriteFile("u.csv", []byte("cycle,src,dst,time\n1,10.0.0.1,10.0.0.2,3\n"), 0o644)
	os.WriteFile("u.toml", []byte("trace = \"u.csv\"\ncycles = 100\n"), 0o644)
	if code, _, stderr := runArgs(t, sweepArgs("u.toml", "../r.jsonl", "1,2,3,4,5")...); code != exitUsage || !strings.Contains(stderr, "resume with the same flags") {
		t.Errorf("resume with a trace of other content: exit %d, %q; want it refused", code, stderr)
	}
}

// TestVaryEmptySuggestsValuesItTakes: --vary NAME= suggests values every
// one of which NAME accepts (load-info=1,2 was suggested before).
func TestVaryEmptySuggestsValuesItTakes(t *testing.T) {
	for _, r := range sim.Rows() {
		err := emptyVary(r.Name + "=")
		if err == nil {
			t.Errorf("--vary %s=: no error", r.Name)
			continue
		}
		_, ex, _ := strings.Cut(err.Error(), "like ")
		ex, _, _ = strings.Cut(ex, " or ")
		_, list, _ := strings.Cut(ex, "=")
		sep := ","
		if strings.Contains(list, ";") {
			sep = ";"
		}
		for v := range strings.SplitSeq(list, sep) {
			if v == "" {
				continue
			}
			cfg := sim.DefaultConfig()
			if r.File {
				continue // a file's name: nothing to set without the file
			}
			if err := cfg.Set(r.Name, v); err != nil {
				t.Errorf("--vary %s= suggests %q, which %s refuses: %v", r.Name, ex, r.Name, err)
			}
		}
	}
	if err := emptyVary("load-info="); err == nil || strings.Contains(err.Error(), "=1,2") {
		t.Errorf("--vary load-info=: %v", err)
	}
}

// TestMMCNoTrailingSpaces: no line of mmc's table ends in spaces.
func TestMMCNoTrailingSpaces(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "mmc", "--seed", "1", "--cycles", "20000")
	if code != exitOK {
		t.Fatalf("mmc: exit %d, %s", code, stderr)
	}
	for i, l := range strings.Split(stdout, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("line %d ends in a space: %q", i+1, l)
		}
	}
}

// TestRunHelpGrouped: run's flags are listed in groups, the run's basics
// first and the outputs last, every flag under a heading; compare lists
// its own flags before the run's.
func TestRunHelpGrouped(t *testing.T) {
	help, _, _ := runCLI(t, "", "run", "--help")
	_, list, _ := strings.Cut(help, "\nFlags:\n")
	at := func(s string) int { return strings.Index(list, s) }
	last := -1
	for _, g := range flagGroupOrder[1:] {
		i := at("\n" + g + ":\n")
		if i < 0 || i < last {
			t.Errorf("run --help: group %q missing or out of order", g)
		}
		last = i
	}
	for _, tc := range []struct{ flag, group string }{
		{"servers", groupRun}, {"trace", groupRun}, {"policy", groupQueues}, {"weights", groupQueues},
		{"service-cv", groupShapes}, {"fault", groupFaults}, {"retries", groupClient}, {"load-info", groupFleet}, {"json", groupOutputs}, {"color", groupOutputs},
	} {
		if got := flagGroup(tc.flag); got != tc.group {
			t.Errorf("--%s is in %q, want %q", tc.flag, got, tc.group)
		}
	}
	if !strings.HasPrefix(strings.TrimLeft(list, "\n"), groupRun+":\n  --servers") {
		t.Errorf("run --help does not start with the run's basics:\n%.200s", list)
	}
	if len(helpFlags(help)) < len(sim.Rows()) {
		t.Errorf("run --help lists %d flags, fewer than the %d settings", len(helpFlags(help)), len(sim.Rows()))
	}
	compare, _, _ := runCLI(t, "", "compare", "--help")
	if i, j := strings.Index(compare, "  --variant"), strings.Index(compare, groupRun+":"); i < 0 || j < 0 || i > j {
		t.Errorf("compare --help does not list --variant before the run's flags")
	}
}

// TestOneCommandTree: the tree cobra dispatches with and the tree it
// completes from hold the same commands, those of the commands list.
func TestOneCommandTree(t *testing.T) {
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	for _, forCompletion := range []bool{false, true} {
		root := c.commandTree(new(int), forCompletion)
		var names []string
		for _, sub := range root.Commands() {
			names = append(names, sub.Name())
		}
		for _, name := range commandNames() {
			if name != "help" && !slices.Contains(names, name) {
				t.Errorf("commandTree(completion %v) lacks %s: %v", forCompletion, name, names)
			}
		}
	}
}

// FuzzRootWords: whatever word follows lbsim as a flag, or follows lbsim
// help, the answer is the help (exit 0) or a refusal (exit 2) whose quote
// of the word holds no control character, never a panic.
func FuzzRootWords(f *testing.F) {
	for _, s := range []string{"--verison", "-h", "--help=false", "--version", "-x", "run", "sweeep", "\x1b[31m", "--" + strings.Repeat("a", 300), "plot"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		for _, args := range [][]string{{"-" + w}, {"help", w}} {
			stdout, stderr, code := runCLI(t, "", args...)
			if code != exitOK && code != exitUsage {
				t.Fatalf("lbsim %q: exit %d", args, code)
			}
			if code == exitUsage && (strings.ContainsAny(stderr, "\x1b\x00") || stdout != "") {
				t.Fatalf("lbsim %q: stdout %q, stderr %q", args, stdout, stderr)
			}
		}
	})
}
