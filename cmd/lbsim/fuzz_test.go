package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// hangAfter is how long a fuzzed run may take before it counts as hung:
// the defects these targets guard against were endless loops, not slow
// runs, so the bound is generous (a loaded machine running the tests under
// WebAssembly takes seconds where a quiet one takes milliseconds).
const hangAfter = 2 * time.Minute

// Fuzz targets of the command line's parsers and file readers. Each runs
// what it parsed, kept short: inputs that would make a long run (many
// cycles, a trace file) are parsed and checked but not run.

// fuzzBase are the run flags every fuzzed command starts from: short, with
// a low bound on the queue.
var fuzzBase = []string{"--cycles", "60", "--seed", "1", "--max-queued", "20000"}

// runQuiet runs lbsim in-process as runCLI does, but with its own signal
// channel: a fuzz worker's signals stay the fuzzing engine's.
func runQuiet(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, noColor: true, signals: make(chan os.Signal)}
	code = c.main(args)
	return out.String(), errb.String(), code
}

// short reports whether a run of o is cheap enough to run in a fuzz test.
func short(o *runOptions) bool {
	return o.cfg.Cycles <= 2000 && o.cfg.Servers <= 2000 && o.tracePath == ""
}

// noEscapes fails when text that reaches a terminal holds an escape or
// another control character but newline and tab.
func noEscapes(t *testing.T, what, s string) {
	t.Helper()
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
		t.Fatalf("%s holds a control character: %q", what, s)
	}
}

// FuzzCompareVariant: any --variant is refused with exit 2 or runs; a
// variant that runs is exactly the run its flags stand for.
func FuzzCompareVariant(f *testing.F) {
	for _, s := range []string{"policy=p2c", "a:policy=random,choices=3", "w:policy=swrr,weights=3,1,1", "x:queues=per-server,policy=hash",
		"speeds=2,1,1", "a:", ":rate=1", "b:set=5:rate=0.9", "c:fault=down:1@10", "d:cycles=99999999999", "\x1b:rate=1", "e:rate=1,,policy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := append(slices.Clone(fuzzBase), "--variant", s, "--json", "-")
		c := &cli{}
		v, err := lanes.ParseVariant(s, func(string) bool { return true })
		if err == nil {
			var flags []string
			for _, kv := range v.Sets {
				flags = append(flags, "--"+kv[0]+"="+kv[1])
			}
			if o, err := c.parseRun(append(slices.Clone(fuzzBase), flags...)); err == nil && !short(o) {
				return // parsed and checked, too long to run here
			}
		}
		stdout, stderr, code := runQuiet(t, append([]string{"compare"}, args...)...)
		if !ranOrRefused(t, code, stdout, stderr) {
			return
		}
		var cmp comparisonJSON
		if err := json.Unmarshal([]byte(stdout), &cmp); err != nil || len(cmp.Variants) != 1 {
			t.Fatalf("the JSON %q: %v", stdout, err)
		}
		o, err := c.parseRun(cmp.Variants[0].Flags)
		if err != nil {
			t.Fatalf("the variant's flags %v do not parse: %v", cmp.Variants[0].Flags, err)
		}
		sum, err := runOnce(c, o)
		if err != nil {
			t.Fatalf("the variant's run: %v", err)
		}
		js, _ := json.Marshal(sum)
		var want map[string]any
		json.Unmarshal(js, &want)
		if !reflect.DeepEqual(cmp.Variants[0].Summary, want) {
			t.Fatalf("variant %q: the comparison's summary differs from its run's", s)
		}
	})
}

// runOnce runs o to its end as lbsim run does.
func runOnce(c *cli, o *runOptions) (sim.Summary, error) {
	m, err := c.runVariant(o, nil)
	if err != nil {
		return sim.Summary{}, err
	}
	return m.Summary(), nil
}

// FuzzSweepVary: any --vary is refused with exit 2 or runs; a sweep that
// runs writes one whole line per value, in order.
func FuzzSweepVary(f *testing.F) {
	for _, s := range []string{"rate=0.3:0.9:0.3", "policy=round-robin,random", "weights=3,1;1,1", "servers=1:3:1", "rate=", "=1",
		"rate=0.9:0.3:0.1", "seed=1,2", "cycles=1,99999999", "rate=1e9", "task-min=0", "x=\x1b", "set=5:rate=0.5,5:up=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := sweep.ParseVary(s)
		if err == nil {
			if len(d.Values) > 4 {
				return
			}
			c := &cli{}
			for _, v := range d.Values {
				if o, err := c.parseRun(append(slices.Clone(fuzzBase), "--"+d.Name+"="+v)); err == nil && !short(o) {
					return
				}
			}
		}
		out := filepath.Join(t.TempDir(), "s.jsonl")
		_, stderr, code := runQuiet(t, append(append([]string{"sweep"}, fuzzBase...), "--vary", s, "--jobs", "1", "--no-progress", "--out", out)...)
		noEscapes(t, "stderr", stderr)
		switch code {
		case exitUsage:
			if err == nil && strings.Contains(stderr, "--vary") && !strings.Contains(stderr, d.Name) {
				t.Fatalf("the refusal does not name the setting: %s", stderr)
			}
			return
		case exitFailed:
			return // a run stopped at --max-queued
		case exitOK:
		default:
			t.Fatalf("exit %d: %s", code, stderr)
		}
		data, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if err != nil || len(lines) != len(d.Values) {
			t.Fatalf("%d lines for %d values (%v)", len(lines), len(d.Values), err)
		}
		for i, l := range lines {
			pl, err := sweep.ParseLine([]byte(l))
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			g := &sweep.Grid{Dims: []sweep.Dimension{d}, Replications: 1, BaseSeed: 1}
			if k, ok := g.RunOf(pl); !ok || k != int64(i) {
				t.Fatalf("line %d is run %d (%v)", i+1, k, ok)
			}
		}
	})
}

// FuzzResultsFile: aggregate and plot sweep read any results file and
// exit 0, 1 or 2, echoing nothing raw from it, and bounded in what they
// print.
func FuzzResultsFile(f *testing.F) {
	f.Add([]byte(`{"point":{"rate":0.3},"replication":0,"seed":7,"flags":["--cycles=9"],"summary":{"avg_wait":1}}
{"point":{"rate":0.3},"replication":1,"seed":8,"flags":["--cycles=9"],"summary":{"avg_wait":2}}
{"point":{"rate":0.6},"replication":0,"seed":7,"flags":["--cycles=9"],"summary":{"avg_wait":3}}
`))
	f.Add([]byte(`{"point":{"rate":0.3},"replication":100000000,"seed":7,"summary":{"avg_wait":1}}` + "\n"))
	f.Add([]byte(`{"point":{"rate":"\u001b[2J"},"replication":0,"seed":7,"summary":{"avg_wait":1e308}}` + "\n"))
	f.Add([]byte(`{"point":{"a":1,"b":2},"replication":0,"seed":1,"summary":{"avg_wait":-1e308}}` + "\n" + `{"point":{"a":2,"b":3},"replication":0,"seed":1,"summary":{"avg_wait":1e308}}` + "\n"))
	f.Add([]byte("notes\n"))
	f.Add([]byte(`{"point":{"rate":0.3},"replication":0,"seed":7,"summary":{"avg_wait":1}}` + "\n" + `{"point":{"ra`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "r.jsonl")
		os.WriteFile(in, data, 0o644)
		for _, args := range [][]string{
			{"aggregate", in, "--metric", "avg_wait", "--precision", "0.05"},
			{"aggregate", in, "--metric", "avg_wait", "--csv"},
			{"plot", "sweep", in, "--metric", "avg_wait", "--out", filepath.Join(dir, "p.svg"), "--size", "200x150"},
		} {
			start := time.Now()
			stdout, stderr, code := runQuiet(t, args...)
			if el := time.Since(start); el > hangAfter {
				t.Fatalf("%v took %v: it hangs on its input", args[:2], el)
			}
			if code != exitOK && code != exitFailed && code != exitUsage {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			noEscapes(t, "stdout", stdout)
			noEscapes(t, "stderr", stderr)
			if len(stderr) > 64<<10 {
				t.Fatalf("%v: %d bytes of stderr", args, len(stderr))
			}
		}
		if names := listDir(t, dir); len(names) > 2 {
			t.Fatalf("files left: %v", names)
		}
	})
}

// FuzzReplayComparison: replay reads any snapshot file (a comparison, one
// run, damage) and exits 0, 1 or 2, echoing nothing raw; a comparison it
// decodes and that is short is replayed.
func FuzzReplayComparison(f *testing.F) {
	cfg := sim.DefaultConfig()
	cfg.Cycles, cfg.Seed = 100, 1
	var lanesOf []snapshot.Lane
	for _, p := range []sim.Policy{sim.Random, sim.RoundRobin} {
		c := cfg
		c.Policy = p
		s, err := snapshot.Record(c, nil)
		if err != nil {
			f.Fatal(err)
		}
		lanesOf = append(lanesOf, snapshot.Lane{Label: p.String(), Snapshot: s})
	}
	data, err := snapshot.EncodeComparison(snapshot.Comparison{Lanes: lanesOf})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	lanesOf[0].Label = "\x1b[2Jowned"
	if data, err = snapshot.EncodeComparison(snapshot.Comparison{Lanes: lanesOf[:1]}); err == nil {
		f.Add(data)
	}
	if data, err = snapshot.Encode(lanesOf[1].Snapshot); err == nil {
		f.Add(data)
	}
	f.Add([]byte("not a snapshot"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if cmp, err := snapshot.DecodeComparison(data); err == nil {
			for _, l := range cmp.Lanes {
				if l.Config.Cycles > 5000 || l.Config.Servers > 2000 {
					return // decoded and checked, too long to replay here
				}
			}
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "in.lbsnap")
		os.WriteFile(in, data, 0o644)
		start := time.Now()
		stdout, stderr, code := runQuiet(t, "replay", in, "--max-queued", "20000", "--json", filepath.Join(dir, "out.json"))
		if el := time.Since(start); el > hangAfter {
			t.Fatalf("the replay took %v: it hangs on its input", el)
		}
		if code != exitOK && code != exitFailed && code != exitUsage {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		noEscapes(t, "stdout", stdout)
		noEscapes(t, "stderr", stderr)
		if names := listDir(t, dir); code == exitOK && len(names) != 2 || code != exitOK && len(names) != 1 {
			t.Fatalf("exit %d, files %v", code, names)
		}
	})
}

// ranOrRefused checks the outcome of fuzzed input: refused (exit 2 or 1)
// with nothing on standard output, or run (exit 0), and in both cases no
// raw control characters on standard error; it reports whether it ran.
func ranOrRefused(t *testing.T, code int, stdout, stderr string) bool {
	t.Helper()
	noEscapes(t, "stderr", stderr)
	switch code {
	case exitUsage, exitFailed:
		if stdout != "" {
			t.Fatalf("exit %d with output %q", code, stdout)
		}
		return false
	case exitOK:
		return true
	}
	t.Fatalf("exit %d: %s", code, stderr)
	return false
}
