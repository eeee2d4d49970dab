package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// runCLI runs lbsim in-process with the given stdin and returns what it
// wrote and its exit code. Nothing is a terminal.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, noColor: true}
	code = c.main(args)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinyTrace is worked by hand in TestRunTraceJSON.
const tinyTrace = `cycle,src,dst,time,type
0,1.1.1.1,2.2.2.2,2,P
0,10.0.0.1,2.2.2.2,1,P
0,1.1.1.2,2.2.2.2,3,P
1,1.1.1.3,2.2.2.2,1,P
3,1.1.1.4,2.2.2.2,1,S
9,1.1.1.5,2.2.2.2,1,P
`

func TestRunTraceJSON(t *testing.T) {
	// Cycle 0: #1 admitted, #2 rejected (10/8), #3 admitted; initial queue 2;
	// #1 → server 1 until cycle 2. Cycle 1: #4 queued. Cycle 2: #1 completes,
	// #3 dispatched (wait 2) until 5. Cycle 3: #5 queued. Cycle 4: the end;
	// the row of cycle 9 lies beyond N and is ignored.
	trace := writeFile(t, "trace.csv", tinyTrace)
	timeline := filepath.Join(t.TempDir(), "timeline.csv")
	stdout, stderr, code := runCLI(t, "", "run", "--trace", trace, "--servers", "1", "--max-servers", "1",
		"--cycles", "4", "--block", "10.0.0.0/8", "--seed", "9", "--json", "-", "--timeline", timeline)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not only JSON: %v\n%s", err, stdout)
	}
	want := map[string]any{
		"seed": 9.0, "cycles": 4.0, "initial_queue": 2.0, "final_queue": 2.0, "generated": 5.0, "rejected": 1.0,
		"discarded": 0.0, "admitted": 4.0, "completed": 1.0, "in_service": 1.0, "dispatched": 2.0, "total_wait": 2.0,
		"avg_wait": 1.0, "peak_queue": 2.0, "scale_ups": 0.0, "scale_downs": 0.0, "servers_final": 1.0,
		"servers_busy": 1.0, "servers_idle": 0.0, "servers_retiring": 0.0, "servers_min": 1.0, "servers_peak": 1.0,
		"requeued": 0.0, "consistent": true,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	data, err := os.ReadFile(timeline)
	if err != nil {
		t.Fatal(err)
	}
	wantTimeline := sim.TimelineHeader + `
0,1,1,1,0,3,1,0,0,1,0,0,0,0
1,2,1,1,0,1,0,0,0,0,0,0,0,0
2,1,1,1,0,0,0,0,1,1,0,0,0,0
3,2,1,1,0,1,0,0,0,0,0,0,0,0
4,2,1,1,0,0,0,0,0,0,0,0,0,0
`
	if string(data) != wantTimeline {
		t.Errorf("timeline:\n%s\nwant:\n%s", data, wantTimeline)
	}
}

func TestRunJSONKeysInSpecOrder(t *testing.T) {
	stdout, _, code := runCLI(t, "", "run", "--cycles", "50", "--seed", "1", "--json", "-")
	if code != 0 {
		t.Fatal(code)
	}
	keys := []string{"seed", "cycles", "initial_queue", "final_queue", "generated", "rejected", "discarded",
		"admitted", "completed", "in_service", "dispatched", "total_wait", "avg_wait", "peak_queue", "scale_ups",
		"scale_downs", "servers_final", "servers_busy", "servers_idle", "servers_retiring", "servers_min",
		"servers_peak", "requeued", "consistent"}
	last := -1
	for _, k := range keys {
		i := strings.Index(stdout, `"`+k+`":`)
		if i < 0 || i < last {
			t.Fatalf("key %q missing or out of order in\n%s", k, stdout)
		}
		last = i
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	badTrace := writeFile(t, "bad.csv", "cycle,src,dst,time\n0,1.1.1.1,2.2.2.2,3\n1,1.1.1.1,2.2.2.2,0\n")
	tests := []struct {
		args []string
		want string // must appear in stderr
	}{
		{[]string{"--servers", "0"}, "--servers 0"},
		{[]string{"--servers", "x"}, "--servers: want a whole number"},
		{[]string{"--cycles", "0"}, "--cycles 0"},
		{[]string{"--task-min", "0"}, "--task-min 0"},
		{[]string{"--task-min", "5", "--task-max", "4"}, "--task-max 4"},
		{[]string{"--rate", "-1"}, "--rate"},
		{[]string{"--rate", "abc"}, "--rate"},
		{[]string{"--scale-down", "90"}, "--scale-down 90"},
		{[]string{"--cooldown", "0"}, "--cooldown 0"},
		{[]string{"--min-servers", "0"}, "--min-servers 0"},
		{[]string{"--min-servers", "30"}, "--min-servers 30"},
		{[]string{"--max-servers", "10"}, "--max-servers 10"},
		{[]string{"--queue-cap", "-1"}, "--queue-cap -1"},
		{[]string{"--policy", "fastest"}, "first-idle, round-robin, random, swrr"},
		{[]string{"--block", "1.2.3"}, "--block"},
		{[]string{"--block", "10.0.0.9-10.0.0.1"}, "start is after end"},
		{[]string{"--weights", "1,-1"}, "--weights -1"},
		{[]string{"--mtbf", "10"}, "--mttr"},
		{[]string{"--set", "0:rate=1"}, "--set"},
		{[]string{"--set", "5:nope=1"}, "unknown setting"},
		{[]string{"--set", "5:rate=x"}, "rate"},
		{[]string{"--set", "5:task-min=100"}, "task-max"},
		{[]string{"--set", "200000:rate=1"}, "cycle must be from 1 to 100000"},
		{[]string{"--fault", "up:1@5"}, "before any down"},
		{[]string{"--fault", "down:999@5"}, "does not exist"},
		{[]string{"--fault", "sideways:1@5"}, "want KIND:ID@CYCLE, KIND one of down, up, slow, fail, hang, heal"},
		{[]string{"--trace", "/nonexistent/trace.csv"}, "--trace"},
		{[]string{"--trace", badTrace}, "line 3"},
		{[]string{"--verbose", "--quiet"}, "exclude each other"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", append([]string{"run", "--cycles", "100000"}, tt.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

func TestRunLeavesNoPartialFiles(t *testing.T) {
	dir := t.TempDir()
	timeline := filepath.Join(dir, "timeline.csv")
	_, _, code := runCLI(t, "", "run", "--cycles", "100", "--timeline", timeline, "--json", filepath.Join(dir, "s.json"),
		"--set", "50:task-min=100")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
	_, stderr, code := runCLI(t, "", "run", "--cycles", "100", "--timeline", filepath.Join(dir, "missing", "t.csv"))
	if code != exitUsage || !strings.Contains(stderr, "--timeline") {
		t.Errorf("timeline in a missing directory: exit %d, stderr %s", code, stderr)
	}
}

func TestRunLogDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	// As make run does: the other outputs go into the directory --log-dir makes.
	stdout, stderr, code := runCLI(t, "", "run", "--cycles", "300", "--seed", "5", "--log-dir", dir,
		"--timeline", filepath.Join(dir, "timeline.csv"), "--json", filepath.Join(dir, "run.json"))
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, name := range []string{"summary.txt", "summary.json", "events.log", "timeline.csv", "run.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v (%d bytes)", name, err, len(data))
		}
		if name == "summary.txt" && !strings.Contains(stdout, string(data)) {
			t.Error("summary.txt differs from the summary printed")
		}
		if name == "events.log" && (!strings.Contains(string(data), "dispatch") || strings.Contains(string(data), "\x1b[")) {
			t.Error("events.log lacks dispatches or has colour codes")
		}
	}
}

func TestRunTextOutput(t *testing.T) {
	stdout, _, code := runCLI(t, "", "run", "--cycles", "2000")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"(random; repeat with --seed", "cycle       200  queue", "generated = rejected + discarded + admitted:",
		"admitted = completed + queued + in service:", "holds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "DOES NOT HOLD") {
		t.Error(stdout)
	}
}

func TestVerboseColour(t *testing.T) {
	tests := []struct {
		tty, noColor bool
		want         bool
	}{{true, false, true}, {true, true, false}, {false, false, false}}
	for _, tt := range tests {
		var out bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &bytes.Buffer{}, stdoutTTY: tt.tty, noColor: tt.noColor}
		if code := c.main([]string{"run", "--cycles", "20", "--verbose", "--seed", "1"}); code != 0 {
			t.Fatal(code)
		}
		if got := strings.Contains(out.String(), "\x1b["); got != tt.want {
			t.Errorf("tty %v NO_COLOR %v: colour %v, want %v", tt.tty, tt.noColor, got, tt.want)
		}
		if !strings.Contains(out.String(), "dispatch") {
			t.Error("verbose output has no dispatch events")
		}
	}
}

func TestInteractivePrompts(t *testing.T) {
	var out bytes.Buffer
	// servers 5, cycles 300, task min default, task max "x" (refused) then 40, seed 42, mode q
	in := "5\n300\n\nx\n40\n42\nq\n"
	c := &cli{stdin: strings.NewReader(in), stdout: &out, stderr: &bytes.Buffer{}, stdinTTY: true, stdoutTTY: true, noColor: true}
	if code := c.main(nil); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var sw bytes.Buffer
	c = &cli{stdin: strings.NewReader("\n300\n\n\n1\nswitch\n"), stdout: &sw, stderr: &bytes.Buffer{}, stdinTTY: true, stdoutTTY: true, noColor: true}
	if code := c.main([]string{"run"}); code != 0 || !strings.Contains(sw.String(), "balancer") {
		t.Errorf("switch mode from the prompt: exit %d\n%s", code, sw.String())
	}
	s := out.String()
	for _, want := range []string{"Servers at the start [20]:", "want a whole number from 10", "5 servers, 300 cycles, tasks 10..40 cycles", "seed 42", "Summary after 300 cycles"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestRunSwitchJSONAndTimeline(t *testing.T) {
	timeline := filepath.Join(t.TempDir(), "t.csv")
	stdout, stderr, code := runCLI(t, "", "run", "--switch", "--cycles", "500", "--seed", "3", "--json", "-", "--timeline", timeline)
	if code != 0 {
		t.Fatal(stderr)
	}
	var s sim.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.P == nil || s.S == nil {
		t.Fatalf("switch JSON lacks P and S: %v\n%s", err, stdout)
	}
	if s.Generated != s.P.Generated+s.S.Generated || s.Completed != s.P.Completed+s.S.Completed || !s.P.Consistent || !s.S.Consistent {
		t.Errorf("totals are not the sum of P and S: %+v", s)
	}
	data, _ := os.ReadFile(timeline)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "cycle,balancer,queue,servers,busy,retiring,generated,rejected,discarded,completed,dispatched,scale,errors,timed_out,retries" || len(lines) != 1+2*501 {
		t.Errorf("switch timeline: header %q, %d lines", lines[0], len(lines))
	}
	if !strings.HasPrefix(lines[1], "0,P,") || !strings.HasPrefix(lines[2], "0,S,") {
		t.Errorf("rows %q %q", lines[1], lines[2])
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"run", "wrr", "sweep", "aggregate", "plot"} {
		stdout, _, code := runCLI(t, "", cmd, "--help")
		if code != 0 || !strings.Contains(stdout, "Example") {
			t.Errorf("%s --help: exit %d, no example:\n%s", cmd, code, stdout)
		}
	}
	if _, stderr, code := runCLI(t, "", "frobnicate"); code != exitUsage || !strings.Contains(stderr, "unknown command") {
		t.Errorf("unknown command: exit %d %s", code, stderr)
	}
}

func TestMMCCommand(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "mmc", "--servers", "2", "--rate", "0.01", "--mean-service", "100",
		"--cycles", "200000", "--seed", "3", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Theory   map[string]any `json:"theory"`
		Measured map[string]any `json:"measured"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if r.Theory["model"] != "M/M/c (Erlang C)" {
		t.Errorf("theory model = %v, want M/M/c (Erlang C)", r.Theory["model"])
	}
	for _, k := range []string{"rho", "p_wait", "wq", "lq", "w"} {
		if _, ok := r.Theory[k]; !ok {
			t.Errorf("theory lacks %q", k)
		}
		if _, ok := r.Measured[k]; !ok {
			t.Errorf("measured lacks %q", k)
		}
	}
	if ci, ok := r.Measured["wq_ci"].([]any); !ok || len(ci) != 2 {
		t.Errorf("measured.wq_ci = %v, want [low, high]", r.Measured["wq_ci"])
	}
	if rho, _ := r.Theory["rho"].(float64); math.Abs(rho-0.5) > 1e-12 {
		t.Errorf("theory rho = %v, want 0.5", r.Theory["rho"])
	}
	text, _, code := runCLI(t, "", "mmc", "--servers", "2", "--rate", "0.01", "--cycles", "100000", "--seed", "3")
	if code != 0 || !strings.Contains(text, "Wq (cycles)") || !strings.Contains(text, "theory inside") && !strings.Contains(text, "theory outside") {
		t.Errorf("text table:\n%s", text)
	}
	unstable, _, code := runCLI(t, "", "mmc", "--servers", "1", "--rate", "0.02", "--cycles", "20000", "--seed", "3")
	if code != 0 || !strings.Contains(unstable, "Theory does not apply") {
		t.Errorf("ρ = 2: exit %d\n%s", code, unstable)
	}
	if _, stderr, code := runCLI(t, "", "mmc", "--warmup", "-3"); code != exitUsage || !strings.Contains(stderr, "--warmup") {
		t.Errorf("bad warmup: exit %d %s", code, stderr)
	}
}

// TestVerboseNamesTheBlockingRange checks that every rejection in the
// verbose log names a blocked range that holds its source, and that the
// events log keeps its plain lines.
func TestVerboseNamesTheBlockingRange(t *testing.T) {
	var out bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &bytes.Buffer{}}
	if code := c.main([]string{"run", "--cycles", "30", "--servers", "2", "--verbose", "--seed", "1", "--block", "10.0.0.0/8", "--block", "240.0.0.0/4"}); code != 0 {
		t.Fatal(code)
	}
	n := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.Contains(line, " reject ") {
			continue
		}
		n++
		src := strings.Fields(line)[3]
		src, _, _ = strings.Cut(src, "→")
		a, err := sim.ParseIPv4(src)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		_, rng, ok := strings.Cut(line, "(blocked by ")
		r, err := sim.ParseRange(strings.TrimSuffix(rng, ")"))
		if !ok || err != nil || !r.Contains(a) {
			t.Errorf("%q does not name a range holding %s", line, src)
		}
	}
	if n == 0 {
		t.Fatal("no rejections in 30 cycles")
	}
}
