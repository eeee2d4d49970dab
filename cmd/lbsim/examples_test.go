//go:build !js

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every example a user is shown runs here, as written, through sh with
// this test binary standing in for the lbsim command (commandDir): the
// examples of every subcommand's --help and the lbsim commands of
// README.md's code blocks. Long ones run with fewer cycles and
// replications (shorten); that is all that is changed.
//
// Skipped, and why:
//   - the `make` lines of README.md (make serve, desktop, test, run): they
//     build binaries, a browser page or a window; the Makefile's own
//     lbsim lines for the README's pictures and tables are checked by
//     TestREADMEChartsAreMadeByMake and TestREADMESizeIsMadeByMake;
//   - docs/scale-out.md's blocks: TestScaleOutParallelRecipe,
//     TestScaleOutKubernetesJob and TestScaleOutSlurmArray run them as
//     written, with parallel, srun and the Job's shell;
//   - docs/cli.md and docs/render.md hold no lbsim command block.

// exampleSetup makes the files a subcommand's examples read, as a user
// would have them from an earlier step.
var exampleSetup = map[string]string{
	"run":       "printf 'cycle,src,dst,time,type\\n0,1.1.1.1,2.2.2.2,5,P\\n3,10.0.0.1,2.2.2.2,4,S\\n' > requests.csv",
	"aggregate": "lbsim sweep --cycles 2000 --seed 1 --vary rate=0.3,0.6 --replications 3 --no-progress --shard 0/2 --out shard-0.jsonl && lbsim sweep --cycles 2000 --seed 1 --vary rate=0.3,0.6 --replications 3 --no-progress --shard 1/2 --out shard-1.jsonl",
	"plot":      "lbsim sweep --cycles 2000 --seed 1 --vary rate=0.3,0.6 --replications 2 --no-progress --out sweep.jsonl",
	"readme":    "mkdir docs",
}

var (
	cyclesFlag       = regexp.MustCompile(`--cycles[ =][0-9]+`)
	replicationsFlag = regexp.MustCompile(`--replications[ =][0-9]+`)
	simulating       = regexp.MustCompile(`^lbsim (run|compare|sweep|size|mmc|plot run)\b`)
	changeCycle      = regexp.MustCompile(`--set[ =]([0-9]+):|--fault[ =]\S*@([0-9]+)`)
)

// shorten makes an example's simulation short: 5,000 cycles, or 1,000
// past the last cycle a --set or --fault names, and 2 replications.
func shorten(cmd string) string {
	m := simulating.FindString(cmd)
	if m == "" {
		return cmd
	}
	cycles := 5000
	for _, at := range changeCycle.FindAllStringSubmatch(cmd, -1) {
		n, _ := strconv.Atoi(at[1] + at[2])
		cycles = max(cycles, n+1000)
	}
	short := "--cycles " + strconv.Itoa(cycles)
	if cyclesFlag.MatchString(cmd) {
		cmd = cyclesFlag.ReplaceAllString(cmd, short)
	} else {
		cmd = m + " " + short + cmd[len(m):]
	}
	return replicationsFlag.ReplaceAllString(cmd, "--replications 2")
}

// helpExamples returns the command lines under a help text's "Example"
// headings, continuation lines joined, a note in parentheses after two
// spaces left out; "(then: CMD)" after a line is a command of its own.
func helpExamples(help string) []string {
	help = regexp.MustCompile(`\\\n\s*`).ReplaceAllString(help, " ")
	var out []string
	in := false
	for line := range strings.SplitSeq(help, "\n") {
		switch {
		case strings.HasPrefix(line, "Example"):
			in = true
		case strings.TrimSpace(line) == "" || !strings.HasPrefix(line, "  "):
			in = false
		case in:
			line, note, _ := strings.Cut(strings.TrimSpace(line), "  (") // a note after the command
			if strings.HasPrefix(line, "lbsim ") {
				out = append(out, strings.TrimSpace(line))
			}
			if then, ok := strings.CutPrefix(strings.TrimSpace(note), "then: "); ok {
				out = append(out, strings.TrimSuffix(then, ")"))
			}
		}
	}
	return out
}

// runExamples runs cmds in order in a new directory after setup, each
// with sh, and reports every one that fails.
func runExamples(t *testing.T, bin, setup string, cmds []string) {
	t.Helper()
	dir := t.TempDir()
	run := func(script string) (string, error) { return runShell(bin, "sh", script, dir, "NO_COLOR=1") }
	if setup != "" {
		if out, err := run(setup); err != nil {
			t.Fatalf("setup %q: %v\n%s", setup, err, out)
		}
	}
	for _, c := range cmds {
		short := shorten(c)
		if out, err := run(short); err != nil {
			if len(out) > 2000 {
				out = out[:1000] + "\n…\n" + out[len(out)-1000:]
			}
			t.Errorf("%s\n  (run as: %s): %v\n%s", c, short, err, out)
		}
	}
}

// exampleBin is commandDir, with a stand-in for jq where it is missing
// (settings' example pipes into it).
func exampleBin(t *testing.T) string {
	bin := commandDir(t)
	if _, err := exec.LookPath("jq"); err != nil {
		if err := os.WriteFile(filepath.Join(bin, "jq"), []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestHelpExamplesRun: every example of every subcommand's --help runs
// and exits 0.
func TestHelpExamplesRun(t *testing.T) {
	bin := exampleBin(t)
	for _, cmd := range commands {
		if cmd.run == nil {
			continue
		}
		help, _, code := runCLI(t, "", cmd.name, "--help")
		if code != exitOK {
			t.Errorf("lbsim %s --help: exit %d", cmd.name, code)
			continue
		}
		examples := helpExamples(help)
		if len(examples) == 0 && cmd.name != "wrr" { // wrr's example is a session on standard input
			t.Errorf("lbsim %s --help shows no example", cmd.name)
		}
		t.Run(cmd.name, func(t *testing.T) {
			runExamples(t, bin, exampleSetup[cmd.name], examples)
		})
	}
}

// docCommands returns the lbsim commands of a Markdown text's code
// blocks: the lines of ```sh blocks that start with "lbsim " and the
// lines of any block that start with "$ lbsim " or "$ printf … | lbsim",
// continuation lines joined.
func docCommands(doc string) []string {
	var out []string
	for i, block := range strings.Split(doc, "```") {
		if i%2 == 0 {
			continue
		}
		lang, body, _ := strings.Cut(block, "\n")
		body = regexp.MustCompile(`\\\n\s*`).ReplaceAllString(body, " ")
		for line := range strings.SplitSeq(body, "\n") {
			line, _, _ = strings.Cut(line, "   #")
			line = strings.TrimSpace(line)
			if c, ok := strings.CutPrefix(line, "$ "); ok && strings.Contains(c, "lbsim ") {
				out = append(out, c)
			} else if lang == "sh" && strings.HasPrefix(line, "lbsim ") {
				out = append(out, line)
			}
		}
	}
	return out
}

// TestREADMECommandsRun: every lbsim command in README.md's code blocks
// runs as written (shortened) and exits 0.
func TestREADMECommandsRun(t *testing.T) {
	cmds := docCommands(string(readFile(t, "../../README.md")))
	if len(cmds) < 10 {
		t.Fatalf("found %d lbsim commands in README.md, want the dozen it shows: %q", len(cmds), cmds)
	}
	runExamples(t, exampleBin(t), exampleSetup["readme"], cmds)
}

// helpFlags returns the flags a --help lists, with the text after each.
func helpFlags(help string) map[string]string {
	flags := map[string]string{}
	_, list, _ := strings.Cut(help, "\nFlags")
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)[^\n]*\n((?:    \t[^\n]*\n)*)`).FindAllStringSubmatch(list, -1) {
		flags[m[1]] = m[2]
	}
	return flags
}

// TestHelpListsWhatIsAccepted: each subcommand's --help lists its flags
// as the docs spell them (--name), only those it accepts, with its own
// defaults.
func TestHelpListsWhatIsAccepted(t *testing.T) {
	for _, cmd := range commands {
		if cmd.run == nil {
			continue
		}
		help, _, _ := runCLI(t, "", cmd.name, "--help")
		if m := regexp.MustCompile(`(?m)^  -[a-z]`).FindString(help); m != "" {
			t.Errorf("lbsim %s --help lists a flag with one dash (%q): the docs spell them --name", cmd.name, m)
		}
		if len(helpFlags(help)) == 0 {
			t.Errorf("lbsim %s --help lists no flags", cmd.name)
		}
	}
	compare, _, _ := runCLI(t, "", "compare", "--help")
	for name := range helpFlags(compare) {
		if slices.Contains(notWithCompare, name) {
			t.Errorf("compare --help lists --%s, which compare refuses", name)
		}
	}
	size, _, _ := runCLI(t, "", "size", "--help")
	sf := helpFlags(size)
	for name := range sf {
		if slices.Contains(fixedPool, name) {
			t.Errorf("size --help lists --%s, which size refuses", name)
		}
	}
	if !strings.Contains(sf["initial-per-server"], "(default 0)") {
		t.Errorf("size --help shows --initial-per-server as %q, want size's default 0", sf["initial-per-server"])
	}
	run, _, _ := runCLI(t, "", "run", "--help")
	if q := helpFlags(run)["quiet"]; !strings.Contains(q, "no event log") {
		t.Errorf("run --help says of --quiet %q: it does not say what --quiet does (no event log)", q)
	}
}

// TestUnknownFlagSuggests: every subcommand answers a mistyped flag with
// exit 2, the flag as given, the nearest flag it takes (edit distance)
// and where its help is; a name near none gets no suggestion; a mistyped
// subcommand gets the nearest one.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, cmd := range commands {
		if cmd.run == nil {
			continue
		}
		prefix := []string{cmd.name}
		if cmd.name == "plot" {
			prefix = append(prefix, "run")
		}
		help, _, _ := runCLI(t, "", append(prefix, "--help")...)
		var flag string
		for name := range helpFlags(help) {
			if len(name) >= 6 && (flag == "" || name < flag) {
				flag = name
			}
		}
		if flag == "" {
			for name := range helpFlags(help) {
				flag = name
			}
		}
		typo := flag[:2] + flag[3:] // one letter dropped
		_, stderr, code := runCLI(t, "", append(prefix, "--"+typo, "1")...)
		if code != exitUsage || !strings.Contains(stderr, "unknown flag --"+typo+": did you mean --") || !strings.Contains(stderr, "--help") && !strings.Contains(stderr, "usage:") {
			t.Errorf("lbsim %s --%s (for --%s): exit %d, %q; want exit 2, a suggestion and the help", strings.Join(prefix, " "), typo, flag, code, stderr)
		}
		_, stderr, _ = runCLI(t, "", append(prefix, "--zzzzzzzzzz")...)
		if strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "unknown flag --zzzzzzzzzz") {
			t.Errorf("lbsim %s --zzzzzzzzzz: %q; want no suggestion", cmd.name, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "", "sweeep"); code != exitUsage || !strings.Contains(stderr, `unknown command "sweeep": did you mean sweep?`) {
		t.Errorf("lbsim sweeep: exit %d, %q", code, stderr)
	}
	if _, stderr, _ := runCLI(t, "", "run", "--sed", "1"); !strings.Contains(stderr, "did you mean --seed?") {
		t.Errorf("lbsim run --sed: %q", stderr)
	}
}
