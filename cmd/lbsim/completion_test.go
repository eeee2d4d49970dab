package main

import (
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestCompletionScripts: every shell gets a script that asks lbsim back
// (cobra's __complete protocol); an unknown shell is refused with the
// nearest one.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range completionShells {
		for _, extra := range [][]string{nil, {"--no-descriptions"}} {
			stdout, stderr, code := runCLI(t, "", append(append([]string{"completion"}, extra...), shell)...)
			if code != exitOK || !strings.Contains(stdout, "lbsim") || !strings.Contains(stdout, "__complete") {
				t.Errorf("lbsim completion %v %s: exit %d, %.200q, %s", extra, shell, code, stdout, stderr)
			}
		}
	}
	if _, stderr, code := runCLI(t, "", "completion", "bsh"); code != exitUsage || !strings.Contains(stderr, `unknown shell "bsh": did you mean bash?`) {
		t.Errorf("lbsim completion bsh: exit %d, %q", code, stderr)
	}
	// After "--" every word is a shell named, --help too.
	for _, args := range [][]string{{"completion"}, {"completion", "bash", "zsh"}, {"completion", "--", "bash", "--help"}} {
		if _, stderr, code := runCLI(t, "", args...); code != exitUsage || !strings.Contains(stderr, "name one shell: bash, zsh, fish, powershell") {
			t.Errorf("lbsim %v: exit %d, %q", args, code, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "", "replay", "--", "x.lbsnap", "--help"); code != exitUsage || !strings.Contains(stderr, `want one snapshot FILE, got 2: "x.lbsnap --help"`) {
		t.Errorf("lbsim replay -- x.lbsnap --help: exit %d, %q", code, stderr)
	}
}

// completions returns what lbsim answers a completion script for args
// (the word being completed last), without the directive line.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	stdout, stderr, code := runCLI(t, "", append([]string{"__completeNoDesc"}, args...)...)
	if code != exitOK {
		t.Fatalf("lbsim __completeNoDesc %q: exit %d: %s", args, code, stderr)
	}
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		if !strings.HasPrefix(line, ":") {
			out = append(out, line)
		}
	}
	return out
}

// TestCompletionAnswers: completions follow the help: the subcommands,
// each subcommand's flags as its --help lists them (compare's refused
// flags left out), the choices of the settings that name one.
func TestCompletionAnswers(t *testing.T) {
	var names []string
	for _, cmd := range commands {
		names = append(names, cmd.name)
	}
	slices.Sort(names)
	if got := completions(t, ""); !slices.Equal(got, names) {
		t.Errorf("subcommands: %q, want %q", got, names)
	}
	if got := completions(t, "run", "--poli"); !slices.Equal(got, []string{"--policy"}) {
		t.Errorf("run --poli: %q", got)
	}
	if got := completions(t, "run", "--policy", ""); !slices.Equal(got, sim.PolicyNames()) {
		t.Errorf("run --policy: %q, want %q", got, sim.PolicyNames())
	}
	if got := completions(t, "sweep", "--queues", ""); !slices.Equal(got, sim.QueueModeNames()) {
		t.Errorf("sweep --queues: %q", got)
	}
	// Every settings flag that names a choice completes its names, those
	// of fan-out's, overload control's and target tracking's rows too.
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--discipline", ""}, []string{"fifo", "lifo", "adaptive-lifo"}},
		{[]string{"sweep", "--autoscaler", ""}, []string{"queue", "target"}},
		{[]string{"compare", "--scale-metric", ""}, []string{"utilization", "inflight", "queue"}},
		{[]string{"size", "--discipline", ""}, []string{"fifo", "lifo", "adaptive-lifo"}},
	} {
		if got := completions(t, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
	if got := completions(t, "run", "--save-"); !slices.Equal(got, []string{"--save-config"}) {
		t.Errorf("run --save-: %q", got)
	}
	if got := completions(t, "compare", "--time"); !slices.Equal(got, []string{"--timeout"}) {
		t.Errorf("compare --time: %q, want --timeout alone (compare refuses --timeline)", got)
	}
	if got := completions(t, "plot", ""); !slices.Equal(got, []string{"frontier", "run", "sweep"}) {
		t.Errorf("plot: %q", got)
	}
	if got := completions(t, "completion", ""); !slices.Equal(got, completionShells) {
		t.Errorf("completion: %q", got)
	}
	help, _, _ := runCLI(t, "", "size", "--help")
	want := helpFlags(help)
	want["help"] = "" // every subcommand takes it
	got := completions(t, "size", "--")
	for _, f := range got {
		if _, ok := want[strings.TrimPrefix(f, "--")]; !ok {
			t.Errorf("size completes %s, which its --help does not list", f)
		}
	}
	if len(got) != len(want) {
		t.Errorf("size completes %d flags, its --help lists %d", len(got), len(want))
	}
}

// TestOldSingleDashSpelling: -seed 7 (the first command line's spelling)
// still works, read as --seed 7 with a one-line notice; a value after a
// flag that takes one, and anything after --, is left alone.
func TestOldSingleDashSpelling(t *testing.T) {
	old, stderr, code := runCLI(t, "", "run", "-seed", "7", "-cycles=300", "-wave=false", "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if notice := "lbsim run: read -seed, -cycles, -wave as --seed, --cycles, --wave: long flags take two dashes"; !strings.Contains(stderr, notice) {
		t.Errorf("stderr lacks %q:\n%s", notice, stderr)
	}
	now, _, _ := runCLI(t, "", "run", "--seed", "7", "--cycles=300", "--wave=false", "--json", "-")
	if old != now {
		t.Errorf("-seed 7 … printed\n%s\n--seed 7 … printed\n%s", old, now)
	}
	var w strings.Builder
	got := modernize(&w, "run", []string{"--trace", "-cycles", "-seed=3", "-h", "-bogus", "--", "-servers"})
	if want := []string{"--trace", "-cycles", "--seed=3", "-h", "-bogus", "--", "-servers"}; !slices.Equal(got, want) {
		t.Errorf("modernize: %q, want %q", got, want)
	}
	if strings.Count(w.String(), "\n") != 1 {
		t.Errorf("notice: %q, want one line", w.String())
	}
	if got := modernize(&w, "run", []string{"--seed", "3"}); !slices.Equal(got, []string{"--seed", "3"}) {
		t.Errorf("modernize changed %q", got)
	}
	if help, stderr, code := runCLI(t, "", "run", "-h"); code != exitOK || !strings.Contains(help, "Usage: lbsim run") || stderr != "" {
		t.Errorf("run -h: exit %d, stderr %q", code, stderr)
	}
}

// TestPOSIXFlags: flags are read the POSIX way (spf13/pflag): a single
// dash is a shorthand, so an unknown -name is named as given, with the
// nearest long flag; "--" ends the flags; a value's own check still
// speaks.
func TestPOSIXFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-sed", "1"}, "lbsim run: unknown flag -sed: did you mean --seed?"},
		{[]string{"run", "-x"}, "lbsim run: unknown flag -x\n"},
		{[]string{"run", "--", "--seed", "1"}, `lbsim run: unexpected argument "--seed"`},
		{[]string{"run", "--servers"}, "lbsim run: flag needs an argument: --servers\n"},
		{[]string{"run", "--servers", "0"}, "--servers 0 is not allowed: must be a whole number from 1 to 100000"},
		{[]string{"run", "--verbose=maybe"}, `invalid boolean value "maybe" for --verbose`},
		{[]string{"aggregate", "--metrix", "avg_wait", "x.jsonl"}, "unknown flag --metrix: did you mean --metric?"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("lbsim %s: exit %d, %q; want exit 2 with %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
	for _, help := range []string{"-h", "--help", "-help"} {
		if stdout, _, code := runCLI(t, "", "sweep", help); code != exitOK || !strings.HasPrefix(stdout, "Usage: lbsim sweep") {
			t.Errorf("lbsim sweep %s: exit %d, %.60q", help, code, stdout)
		}
	}
}

// FuzzParseFlags: for arguments without single-dash flags, reading them
// with pflag (parseFlags) and with Go's flag package (called again after
// each positional argument, since flags may follow one) give the same
// outcome: both fail, or both succeed with the same flags given, the same
// settings and the same arguments left. A flag's value spelled as one of
// the flags (--json --seed) is refused by parseFlags alone.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"--seed\x007", "--seed=7\x00--wave=false\x00--verbose", "--wave\x00false", "--\x00--seed", "x\x00--seed\x001",
		"--servers", "--servers=0", "---seed\x001", "--=x", "--block\x0010.0.0.0/8\x00--block\x00none", "-\x00--set\x00500:rate=0.9", "--policy\x00p2c\x00--queues=per-server",
		"--fanout\x004\x00--queues=per-server", "--discipline=adaptive-lifo\x00--codel-interval\x0040\x00--codel-target=10",
		"--throttle\x0010.001", "--throttle=1.5\x00--concurrency-limit\x00aimd\x00--limit-min=2\x00--limit-max\x0030",
		"--concurrency-limit=fixed:\x00--limit-initial", "--autoscaler\x00target\x00--scale-metric=queue\x00--scale-target\x000.01",
		"--scale-period=0\x00--scale-tolerance\x001\x00--scale-down-window=-1", "--server-cost\x000.0000001\x00x",
		"--set\x0030:scale-target=0.5\x00--set=40:codel-target=5\x00--set\x0050:discipline=lifo",
		"--queues=per-server\x00--fanout\x00 3\x00--hedge-after\x0040\x00--hedge-max=2\x00--hedge-budget\x000.05",
		"--max-queued\x00 100 \x00--concurrency-limit\x00 fixed: 3\x00--fault\x00 down:2@30", "--hedge-after=1000000000\x00--hedge-budget=1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		for _, a := range args {
			if len(a) > 1 && a[0] == '-' && a[1] != '-' {
				return // a shorthand: pflag's own reading
			}
		}
		c := &cli{}
		read := func(parse func(*flag.FlagSet, []string) error) (*runOptions, *flag.FlagSet, error) {
			o := &runOptions{cfg: sim.DefaultConfig(), statusEvery: -1}
			fs := c.runFlags(o, &blockList{cfg: &o.cfg})
			return o, fs, parse(fs, args)
		}
		po, pfs, perr := read(parseFlags)
		if perr != nil && strings.Contains(perr.Error(), "needs a value, but the word after it is the flag") {
			return
		}
		so, sfs, serr := read(parseAnywhere)
		if (perr == nil) != (serr == nil) {
			t.Fatalf("%q: pflag %v, flag %v", args, perr, serr)
		}
		if perr != nil {
			return
		}
		if !reflect.DeepEqual(visited(pfs), visited(sfs)) || !slices.Equal(pfs.Args(), sfs.Args()) ||
			!reflect.DeepEqual(po.cfg, so.cfg) || !reflect.DeepEqual(po.changes, so.changes) {
			t.Fatalf("%q: pflag read %v %q, flag %v %q", args, visited(pfs), pfs.Args(), visited(sfs), sfs.Args())
		}
	})
}

// parseAnywhere reads args with Go's flag package, flags before, between
// and after the positional arguments, "--" ending the flags.
func parseAnywhere(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		used := len(args) - fs.NArg()
		ended := used > 0 && args[used-1] == "--" && !(used > 1 && strings.HasPrefix(args[used-2], "--") &&
			!strings.Contains(args[used-2], "=") && takesValue(fs, strings.TrimPrefix(args[used-2], "--")))
		if fs.NArg() == 0 || ended {
			pos = append(pos, fs.Args()...)
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
