package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSpacesAroundValuesOneRule: spaces around a flag's value, and around
// each piece of a value made of pieces (a --set or --fault, a form like
// fixed:L), are ignored by every flag alike: the settings' rows, the
// plain numbers a subcommand takes itself (--max-queued, --jobs), faults
// and the forms of --concurrency-limit and --load-info.
func TestSpacesAroundValuesOneRule(t *testing.T) {
	run := []string{"run", "--cycles", "5", "--seed", "1", "--quiet"}
	for _, args := range [][]string{
		append(slices.Clone(run), "--fanout", " 3 ", "--queues", "per-server"),
		append(slices.Clone(run), "--throttle", " 2 "),
		append(slices.Clone(run), "--max-queued", " 100000 "),
		append(slices.Clone(run), "--fault", " down:2@3 "),
		append(slices.Clone(run), "--fault", "down: 2 @ 3"),
		append(slices.Clone(run), "--set", " 3: rate = 0.9 "),
		append(slices.Clone(run), "--concurrency-limit", " fixed: 3 "),
		append(slices.Clone(run), "--concurrency-limit", " aimd ", "--limit-max", " 30 "),
		append(slices.Clone(run), "--queues", "per-server", "--policy", "least-connections", "--balancers", "2", "--load-info", " periodic: 5 "),
		{"compare", "--cycles", "5", "--seed", "1", "--jobs", " 1 ", "--variant", "policy=p2c", "--variant", "policy=random"},
		{"mmc", "--cycles", "2000", "--seed", "1", "--batches", " 4 "},
	} {
		if _, stderr, code := runCLI(t, "", args...); code != exitOK {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}

// TestPlainFlagsSayWhatTheyWant: a subcommand's own numbers and switches
// (defined with Go's flag package) word a bad value as the settings do,
// not as "parse error".
func TestPlainFlagsSayWhatTheyWant(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max-queued", "1x"}, `invalid value "1x" for flag --max-queued: want a whole number`},
		{[]string{"run", "--quiet=maybe"}, `invalid boolean value "maybe" for --quiet: want true or false`},
		{[]string{"sweep", "--jobs", "two"}, `invalid value "two" for flag --jobs: want a whole number`},
		{[]string{"size", "--confidence", "95%"}, `invalid value "95%" for flag --confidence: want a number, like 0.95`},
		{[]string{"mmc", "--batches", "1 0"}, `invalid value "1 0" for flag --batches: want a whole number`},
		{[]string{"replay", "--max-queued", "9e9", "x.lbsnap"}, `invalid value "9e9" for flag --max-queued: want a whole number`},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "parse error") {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestLimitBoundsBlameTheGivenFlag: the adaptive limit's bounds are
// checked only when the limit is aimd (else the flag is named as doing
// nothing), and a ceiling below the default start blames the ceiling that
// was given, not the start nobody gave.
func TestLimitBoundsBlameTheGivenFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency-limit", "aimd", "--limit-max", "5"}, "--limit-max 5 is not allowed: must be from limit-initial (20, its default)"},
		{[]string{"--limit-max", "5"}, "--limit-max applies only to --concurrency-limit aimd, and the limit is off"},
		{[]string{"--concurrency-limit", "fixed:3", "--limit-max", "5"}, "--limit-max applies only to --concurrency-limit aimd, and the limit is fixed:3"},
		{[]string{"--concurrency-limit", "aimd", "--limit-initial", "10", "--limit-max", "5"}, "--limit-initial 10 is not allowed: must be from limit-min (1) to limit-max (5)"},
		{[]string{"--concurrency-limit", "aimd", "--limit-min", "30"}, "--limit-min 30 is not allowed: must be from 1 to limit-initial (20)"},
		{[]string{"--limit-min", "30"}, "--limit-min applies only to --concurrency-limit aimd"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"run", "--cycles", "5", "--seed", "1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestCompletionForms: --concurrency-limit and --load-info complete their
// forms; a prefix a number follows ("fixed:") gets no space after it, and
// once typed nothing is offered.
func TestCompletionForms(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"run", "--concurrency-limit", ""}, []string{"off", "fixed:", "aimd"}, ":4"},
		{[]string{"compare", "--concurrency-limit", "f"}, []string{"fixed:"}, ":6"},
		{[]string{"sweep", "--concurrency-limit", "fixed:1"}, nil, ":6"},
		{[]string{"size", "--concurrency-limit", "a"}, []string{"aimd"}, ":4"},
		{[]string{"run", "--load-info", ""}, []string{"exact", "local", "periodic:"}, ":4"},
		{[]string{"run", "--load-info", "per"}, []string{"periodic:"}, ":6"},
	} {
		stdout, stderr, code := runCLI(t, "", append([]string{"__completeNoDesc"}, tc.args...)...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", tc.args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		got, directive := lines[:len(lines)-1], lines[len(lines)-1]
		if !slices.Equal(got, tc.want) && (len(got) != 0 || tc.want != nil) || directive != tc.directive {
			t.Errorf("%q: %q %s, want %q %s", tc.args, got, directive, tc.want, tc.directive)
		}
	}
}

// TestPartlyReadFlagsAreNoted: a base flag that some of a sweep's grid
// points, a comparison's variants or a sizing's runs read and others do
// not is accepted with a note on stderr naming it, how many runs leave it
// unread and why; a flag every run reads gets no note.
func TestPartlyReadFlagsAreNoted(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string // "" for no note
	}{
		{[]string{"sweep", "--vary", "concurrency-limit=off,aimd", "--limit-max", "30", "--out", dir + "/a.jsonl"},
			"lbsim sweep: note: --limit-max does nothing at 1 of the 2 grid points (there --limit-max applies only to --concurrency-limit aimd, and the limit is off); the others read it\n"},
		{[]string{"sweep", "--vary", "hedge-after=0,50", "--queues", "per-server", "--hedge-max", "2", "--out", dir + "/b.jsonl"},
			"note: --hedge-max does nothing at 1 of the 2 grid points (there --hedge-max applies only with --hedge-after above 0); the others read it"},
		{[]string{"compare", "--variant", "autoscaler=queue", "--variant", "autoscaler=target", "--variant", "policy=p2c", "--cooldown", "5"},
			"lbsim compare: note: --cooldown does nothing at 1 of the 3 variants (there --cooldown applies only to the queue rule"},
		{[]string{"sweep", "--vary", "rate=0.1,0.2", "--queues", "per-server", "--hedge-after", "50", "--hedge-max", "2", "--out", dir + "/c.jsonl"}, ""},
	} {
		_, stderr, code := runCLI(t, "", append(tc.args, "--cycles", "30", "--seed", "1")...)
		if code != exitOK || tc.want == "" && strings.Contains(stderr, "note:") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 0 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSetOfAStartSetting: a --set (or a scenario file's set line) of a
// setting a run takes only at its start names it as such, not as an
// unknown setting; a name that is no setting stays unknown.
func TestSetOfAStartSetting(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"100:fanout=2", "fanout is set once, at the start (--fanout), and a change cannot set it: the settings a change sets: rate, "},
		{"100:concurrency-limit=aimd", "concurrency-limit is set once, at the start (--concurrency-limit)"},
		{"100:hedge-budget=0.1", "hedge-budget is set once, at the start (--hedge-budget)"},
		{"100:fanot=2", `unknown setting "fanot": allowed rate, `},
	} {
		_, stderr, code := runCLI(t, "", "run", "--cycles", "500", "--seed", "1", "--queues", "per-server", "--set", tc.set)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("--set %s: exit %d, %q; want exit 2 and %q", tc.set, code, stderr, tc.want)
		}
	}
}

// TestPlotOfSingleRuns: a frontier or sweep chart of one replication a
// point promises no mean or interval in its title, and counts its lines
// and points in the singular where there is one.
func TestPlotOfSingleRuns(t *testing.T) {
	dir := t.TempDir()
	res := dir + "/r.jsonl"
	if _, stderr, code := runCLI(t, "", "sweep", "--cycles", "300", "--seed", "1", "--queues", "per-server",
		"--vary", "hedge-after=0,40", "--vary", "fanout=1,2", "--out", res); code != exitOK {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args        []string
		said, title string
	}{
		{[]string{"frontier", res, "--out", dir + "/a.svg"}, "wait_p95 against cost, 4 points on 1 line, is in", "wait_p95 against cost: one run a point"},
		{[]string{"frontier", res, "--by", "fanout", "--out", dir + "/b.svg"}, "4 points on 2 lines", "one run a point"},
		{[]string{"sweep", res, "--metric", "avg_wait", "--x", "hedge-after", "--out", dir + "/c.svg"}, "", "avg_wait: one run a point"},
	} {
		stdout, stderr, code := runCLI(t, "", append([]string{"plot"}, tc.args...)...)
		if code != exitOK || !strings.Contains(stdout+stderr, tc.said) {
			t.Errorf("plot %q: exit %d, %q %q; want %q", tc.args, code, stdout, stderr, tc.said)
			continue
		}
		svg, err := os.ReadFile(tc.args[len(tc.args)-1])
		if err != nil || !strings.Contains(string(svg), tc.title) || strings.Contains(string(svg), "95% interval") {
			t.Errorf("plot %q: the chart's title is not %q (%v)", tc.args, tc.title, err)
		}
	}
}

// TestInterruptedStreamEndsWithWholeLines: a run interrupted while its
// timeline goes to standard output leaves whole lines there (what waited
// in the buffer is written), and says so only when something went
// through; with nothing written it says no output was.
func TestInterruptedStreamEndsWithWholeLines(t *testing.T) {
	var buf strings.Builder
	o := &outputs{stdout: &buf}
	af := o.createStdout()
	line := "123456789,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	for buf.Len() == 0 { // until the buffer has passed some on, mid-line
		af.w.WriteString(line)
	}
	if strings.HasSuffix(buf.String(), "\n") {
		t.Fatalf("the buffer passed on whole lines by chance; lengthen the line")
	}
	if got, want := o.stoppedAt(77), "no file was written; standard output holds its output up to cycle 77, in whole lines"; got != want {
		t.Errorf("stoppedAt: %q, want %q", got, want)
	}
	if !strings.HasSuffix(buf.String(), "\n") || len(buf.String())%len(line) != 0 {
		t.Errorf("standard output ends mid-line: …%q", buf.String()[max(0, buf.Len()-40):])
	}
	var none strings.Builder
	o2 := &outputs{stdout: &none}
	o2.createStdout()
	if got := o2.stoppedAt(5); got != "no output was written" || none.Len() != 0 {
		t.Errorf("nothing written: %q, %d bytes", got, none.Len())
	}
}

// TestOutOfRangeWordedAlike: a number below a setting's range that the
// flag refuses as it is read (0 for --fanout, where 0 stands for the
// default) is worded as one above it, refused after reading.
func TestOutOfRangeWordedAlike(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"--fanout", "0", "--fanout 0 is not allowed: must be a whole number from 1 to 64"},
		{"--fanout", "65", "--fanout 65 is not allowed: must be a whole number from 1 to 64"},
		{"--hedge-max", " 0", "--hedge-max 0 is not allowed: must be a whole number from 1 to 4"},
		{"--fanout", "x", `invalid value "x" for flag --fanout: want a whole number`},
	} {
		_, stderr, code := runCLI(t, "", "run", "--cycles", "5", tc.flag, tc.value)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s %q: exit %d, %q; want %q", tc.flag, tc.value, code, stderr, tc.want)
		}
	}
}
