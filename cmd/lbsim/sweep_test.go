package main

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// smallSweep is a quick grid: 2 rates × 2 policies × 3 replications.
var smallSweep = []string{"--servers", "3", "--cycles", "300", "--task-min", "2", "--task-max", "9", "--seed", "11",
	"--vary", "rate=0.3:0.6:0.3", "--vary", "policy=round-robin,random", "--replications", "3"}

// sweepTo runs lbsim sweep with extra flags into a new file and returns its
// lines.
func sweepTo(t *testing.T, out string, extra ...string) []string {
	t.Helper()
	args := append(append([]string{"sweep"}, smallSweep...), append([]string{"--out", out}, extra...)...)
	_, stderr, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("lbsim %v: exit %d, stderr %s", args, code, stderr)
	}
	return fileLines(t, out)
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data := readFile(t, path)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("%s ends in a partial line", path)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// parsed turns each line into a parsed object written back canonically
// (keys sorted), so lines compare as objects, not as text.
func parsed(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		js, _ := json.Marshal(v)
		out = append(out, string(js))
	}
	return out
}

func TestSweepShardsMakeTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	whole := sweepTo(t, filepath.Join(dir, "all.jsonl"), "--jobs", "2")
	if len(whole) != 12 {
		t.Fatalf("%d lines, want 12", len(whole))
	}
	if one := sweepTo(t, filepath.Join(dir, "one.jsonl"), "--jobs", "1"); !slices.Equal(one, whole) {
		t.Error("one job and two write different files")
	}
	for _, n := range []string{"2", "5", "12", "13"} {
		var union []string
		for i := range atoi(t, n) {
			out := filepath.Join(dir, "shard-"+n+"-"+itoa(i)+".jsonl")
			if atoi(t, n) > 12 && i >= 12 {
				// Shards with no run still make a valid, empty file.
				_, stderr, code := runCLI(t, "", append(append([]string{"sweep"}, smallSweep...), "--out", out, "--shard", itoa(i)+"/"+n)...)
				if code != 0 || len(readFile(t, out)) != 0 {
					t.Fatalf("empty shard %d/%s: exit %d, %s", i, n, code, stderr)
				}
				continue
			}
			union = append(union, sweepTo(t, out, "--shard", itoa(i)+"/"+n, "--jobs", "3")...)
		}
		got, want := parsed(t, union), parsed(t, whole)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s shards: the union of their lines differs from the unsharded sweep", n)
		}
	}
}

func TestSweepOrderIsTheDocumentedOrder(t *testing.T) {
	lines := sweepTo(t, filepath.Join(t.TempDir(), "s.jsonl"), "--jobs", "3")
	type key struct {
		Rate        float64 `json:"rate"`
		Policy      string  `json:"policy"`
		Replication int
		Seed        uint64
	}
	var want []key
	// The first --vary changes slowest, replications innermost, seed = 11 + r.
	for _, rate := range []float64{0.3, 0.6} {
		for _, pol := range []string{"round-robin", "random"} {
			for r := range 3 {
				want = append(want, key{rate, pol, r, uint64(11 + r)})
			}
		}
	}
	var got []key
	for _, l := range lines {
		var v struct {
			Point       key `json:"point"`
			Replication int
			Seed        uint64
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(l, `{"point":{"rate":`) {
			t.Errorf("the point's keys are not in --vary order: %s", l[:40])
		}
		got = append(got, key{v.Point.Rate, v.Point.Policy, v.Replication, v.Seed})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n got %v\nwant %v", got, want)
	}
}

func TestSweepLineIsTheRunItStandsFor(t *testing.T) {
	lines := sweepTo(t, filepath.Join(t.TempDir(), "s.jsonl"), "--jobs", "2")
	for _, l := range lines {
		var v struct {
			Point   map[string]any
			Seed    uint64
			Summary map[string]any
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--servers", "3", "--cycles", "300", "--task-min", "2", "--task-max", "9",
			"--rate", jsonText(v.Point["rate"]), "--policy", jsonText(v.Point["policy"]), "--seed", itoa(int(v.Seed)), "--json", "-"}
		stdout, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("lbsim %v: exit %d %s", args, code, stderr)
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(stdout), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v.Summary, want) {
			t.Errorf("lbsim %v:\n sweep %v\n   run %v", args, v.Summary, want)
		}
	}
}

func TestSweepResumeRefusesAnotherSweep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	sweepTo(t, out, "--shard", "0/2")
	for name, extra := range map[string][]string{
		"other seed":  {"--seed", "12"},
		"other shard": {"--shard", "1/2"},
		"other grid":  {"--vary", "servers=3"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{"sweep"}, smallSweep...), append([]string{"--out", out, "--resume", "--shard", "0/2"}, extra...)...)
			_, stderr, code := runCLI(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, "line 1") {
				t.Errorf("exit %d, stderr %s", code, stderr)
			}
		})
	}
}

func TestSweepRefusesBadGrids(t *testing.T) {
	existing := writeFile(t, "old.jsonl", "{}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "colour=red"}, "colour is not a run setting; allowed: autoscaler, backoff, balancers, block,"},
		{[]string{"--vary", "json=a.json"}, "json is not a run setting"},
		{[]string{"--vary", "rate="}, "no values"},
		{[]string{"--vary", "rate=0.9:0.3:0.1"}, "the range is empty"},
		{[]string{"--vary", "rate=0.3:0.9:0"}, "step 0 must be greater than 0"},
		{[]string{"--vary", "rate=0.3,0.3"}, "listed twice"},
		{[]string{"--vary", "rate=0.3", "--vary", "rate=0.5"}, "given twice"},
		{[]string{"--vary", "seed=1,2"}, "--vary seed"},
		{[]string{"--vary", "rate=0.3,fast"}, "at rate=fast: invalid value"},
		{[]string{"--vary", "task-min=0"}, "at task-min=0"},
		{[]string{"--vary", "policy=best"}, "policy=best"},
		{[]string{"--replications", "0"}, "--replications 0"},
		{[]string{"--jobs", "0"}, "--jobs 0"},
		{[]string{"--shard", "2/2", "--seed", "1"}, "--shard \"2/2\""},
		{[]string{"--shard", "1/2"}, "need --seed"},
		{[]string{"--resume"}, "need --seed"},
		{[]string{"--rate", "x"}, "--rate"},
		{[]string{"--out", existing, "--seed", "1"}, "already holds results"},
		{[]string{"--out", ""}, "--out FILE is required"},
		{[]string{"--out", "-", "--resume", "--seed", "1"}, "cannot be read back"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		args := append([]string{"sweep", "--cycles", "10", "--out", filepath.Join(t.TempDir(), "s.jsonl")}, tc.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lbsim %v: exit %d, want 2 and %q in\n%s", args, code, tc.want, stderr)
		}
	}
}

// TestSweepVariesEveryRunInput checks that every run flag that decides the
// outcome, and only those, may be varied: they come from the run command's
// own definitions.
func TestSweepVariesEveryRunInput(t *testing.T) {
	o := &runOptions{}
	all := (&cli{}).runFlags(o, &blockList{cfg: &o.cfg})
	var so sweepOptions
	var base []string
	_, inputs, _ := sweepFlags(&so, &base)
	outputs := []string{"json", "timeline", "snapshot", "log-dir", "verbose", "quiet", "status-every", "no-progress", "color"}
	all.VisitAll(func(f *flag.Flag) {
		if got, want := inputs.Lookup(f.Name) != nil, !slices.Contains(outputs, f.Name); got != want {
			t.Errorf("--%s: variable %v, want %v", f.Name, got, want)
		}
	})
	// A varied boolean, a list with commas inside values, and a --set.
	out := filepath.Join(t.TempDir(), "s.jsonl")
	_, stderr, code := runCLI(t, "", "sweep", "--cycles", "50", "--servers", "2", "--seed", "1", "--policy", "swrr",
		"--vary", "wave=true,false", "--vary", "weights=3,1;1,1", "--vary", "set=20:rate=2;20:rate=0.1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	lines := fileLines(t, out)
	if len(lines) != 8 || !strings.HasPrefix(lines[0], `{"point":{"wave":true,"weights":"3,1","set":"20:rate=2"}`) {
		t.Errorf("%d lines, first %s", len(lines), lines[0])
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func itoa(n int) string { js, _ := json.Marshal(n); return string(js) }

// jsonText writes a decoded JSON value back as a flag value.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	js, _ := json.Marshal(v)
	return string(js)
}

func TestAggregateCommand(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		out := filepath.Join(dir, "s"+itoa(i)+".jsonl")
		sweepTo(t, out, "--shard", itoa(i)+"/2")
		shards = append(shards, out)
	}
	stdout, stderr, code := runCLI(t, "", append([]string{"aggregate", "--metric", "avg_wait,completed"}, shards...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	rows := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(rows) != 5 || !strings.HasPrefix(rows[0], "rate  policy") || !strings.HasPrefix(rows[1], "0.3   round-robin  3") {
		t.Errorf("table:\n%s", stdout)
	}
	stdout, _, code = runCLI(t, "", "aggregate", shards[0], "--csv", shards[1], "--metric", "avg_wait", "--precision", "0.01")
	if code != 0 || !strings.HasPrefix(stdout, "rate,policy,runs,avg_wait_mean,avg_wait_low,avg_wait_high,avg_wait_half_width,avg_wait_needed\n0.3,round-robin,3,") {
		t.Errorf("csv: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "", "aggregate", "--json", shards[0], shards[1])
	var js struct {
		Points []struct {
			Point   map[string]any
			Runs    int
			Metrics map[string]struct{ Mean, Low, High float64 }
		}
		Missing []any
	}
	if err := json.Unmarshal([]byte(stdout), &js); err != nil || code != 0 || len(js.Points) != 4 || js.Points[3].Point["policy"] != "random" ||
		js.Points[3].Metrics["avg_wait"].Low > js.Points[3].Metrics["avg_wait"].High || len(js.Missing) != 0 {
		t.Errorf("json: exit %d %v\n%s", code, err, stdout)
	}
	// One shard alone: half the runs are missing, exit 1, said on stderr.
	_, stderr, code = runCLI(t, "", "aggregate", shards[0])
	if code != exitFailed || !strings.Contains(stderr, "6 runs missing") {
		t.Errorf("one shard: exit %d, %s", code, stderr)
	}
	// The same shard twice: duplicates, counted once, exit 0.
	_, stderr, code = runCLI(t, "", "aggregate", shards[0], shards[1], shards[1])
	if code != 0 || !strings.Contains(stderr, "6 runs found more than once with the same result") {
		t.Errorf("shard twice: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{
		{"aggregate"},
		{"aggregate", shards[0], "--csv", "--json"},
		{"aggregate", shards[0], "--metric", "colour"},
		{"aggregate", shards[0], "--precision", "2"},
		{"aggregate", filepath.Join(dir, "none.jsonl")},
	} {
		if _, stderr, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

func TestSweepProgressBar(t *testing.T) {
	var buf strings.Builder
	bar := newRunBar(&buf, true, 40)
	for n := int64(1); n <= 40; n++ {
		bar.update(n)
	}
	bar.clear()
	out := buf.String()
	if !strings.Contains(out, "40/40 runs") || !strings.Contains(out, "runs/s") || !strings.Contains(out, "eta") || !strings.HasSuffix(out, "\r") {
		t.Errorf("bar: %q", out)
	}
	var quiet strings.Builder
	off := newRunBar(&quiet, false, 40)
	off.update(40)
	off.clear()
	if quiet.Len() != 0 || off.done != 40 {
		t.Errorf("a disabled bar wrote %q", quiet.String())
	}
}
