package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// compareJSON runs lbsim compare with --json - and decodes its output.
func compareJSON(t *testing.T, args ...string) comparisonJSON {
	t.Helper()
	out, errs, code := runCLI(t, "", append([]string{"compare", "--json", "-"}, args...)...)
	if code != 0 {
		t.Fatalf("compare %v: exit %d: %s", args, code, errs)
	}
	var c comparisonJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	return c
}

type comparisonJSON struct {
	Seed     uint64 `json:"seed"`
	Version  string `json:"lbsim_version"`
	Variants []struct {
		Label      string                             `json:"label"`
		Flags      []string                           `json:"flags"`
		Summary    map[string]any                     `json:"summary"`
		Runs       []struct{ Summary map[string]any } `json:"runs"`
		Metrics    map[string]interval                `json:"metrics"`
		Difference map[string]interval                `json:"difference"`
	} `json:"variants"`
}

// runJSON is what lbsim run --json - prints for args.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, code := runCLI(t, "", append([]string{"run", "--json", "-"}, args...)...)
	if code != 0 {
		t.Fatalf("run %v: exit %d: %s", args, code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompareIsTheRunsItStandsFor: each variant's summary is, key for key,
// what lbsim run with the base flags plus the variant's prints (but
// lbsim_version, which the comparison carries once, at its top), and the
// variants that differ only in balancer settings see the same requests.
func TestCompareIsTheRunsItStandsFor(t *testing.T) {
	base := []string{"--seed", "5", "--cycles", "3000", "--servers", "4", "--speeds", "2,1,0.5", "--rate", "0.2", "--set", "1000:rate=0.3"}
	c := compareJSON(t, append(base,
		"--variant", "rr:queues=per-server,policy=round-robin",
		"--variant", "queues=per-server,policy=p2c,choices=3",
		"--variant", "lw:queues=per-server,policy=least-work,speeds=1,1,3",
		"--variant", "pooled:queues=pooled,scale-up=100")...)
	if len(c.Variants) != 4 || c.Variants[1].Label != "queues=per-server,policy=p2c,choices=3" {
		t.Fatalf("variants %+v", c.Variants)
	}
	if c.Version != lbsimVersion() {
		t.Errorf("compare --json: lbsim_version %q, want %q", c.Version, lbsimVersion())
	}
	for _, v := range c.Variants {
		want := runJSON(t, v.Flags...)
		if want["lbsim_version"] != lbsimVersion() {
			t.Errorf("lbsim run --json: lbsim_version %v, want %q", want["lbsim_version"], lbsimVersion())
		}
		delete(want, "lbsim_version")
		if !reflect.DeepEqual(v.Summary, want) {
			t.Errorf("variant %s: summary\n%v\nlbsim run %v prints\n%v", v.Label, v.Summary, v.Flags, want)
		}
		for _, key := range []string{"generated", "rejected"} {
			if v.Summary[key] != c.Variants[0].Summary[key] {
				t.Errorf("variant %s: %s = %v, the first variant's %v: the requests differ", v.Label, key, v.Summary[key], c.Variants[0].Summary[key])
			}
		}
	}
	if !slices.Contains(c.Variants[2].Flags, "--speeds=1,1,3") {
		t.Errorf("the lw variant's flags %v lack its speeds", c.Variants[2].Flags)
	}
}

// TestCompareReplications: the means are the means of the separate runs
// (seeds seed … seed+R−1), and the paired difference's interval comes from
// the per-seed differences.
func TestCompareReplications(t *testing.T) {
	c := compareJSON(t, "--seed", "9", "--cycles", "2000", "--servers", "3", "--replications", "4", "--jobs", "3",
		"--variant", "a:queues=per-server,policy=random", "--variant", "b:queues=per-server,policy=least-connections")
	var a, b []float64
	for r := range 4 {
		seed := []string{"--seed", []string{"9", "10", "11", "12"}[r], "--cycles", "2000", "--servers", "3", "--queues", "per-server"}
		a = append(a, runJSON(t, append(seed, "--policy", "random")...)["avg_wait"].(float64))
		b = append(b, runJSON(t, append(seed, "--policy", "least-connections")...)["avg_wait"].(float64))
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	if got := c.Variants[0].Metrics["avg_wait"].Mean; math.Abs(got-mean(a)) > 1e-9 {
		t.Errorf("variant a: mean avg_wait %v, the runs' mean %v", got, mean(a))
	}
	d := make([]float64, 4)
	for i := range d {
		d[i] = b[i] - a[i]
	}
	// The 95% t-interval of the four differences, by hand: t(3) = 3.182446305.
	m, ss := mean(d), 0.0
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	half := 3.182446305 * math.Sqrt(ss/3) / 2
	got := c.Variants[1].Difference["avg_wait"]
	if math.Abs(got.Mean-m) > 1e-9 || math.Abs(got.Low-(m-half)) > 1e-6 || math.Abs(got.High-(m+half)) > 1e-6 {
		t.Errorf("paired difference %+v, want mean %v ± %v", got, m, half)
	}
	if c.Variants[0].Difference != nil {
		t.Errorf("the first variant has a difference from itself: %v", c.Variants[0].Difference)
	}
	if len(c.Variants[1].Runs) != 4 {
		t.Errorf("variant b holds %d runs, want 4", len(c.Variants[1].Runs))
	}
}

// TestIntervalByHand pins the t-interval on a small list.
func TestIntervalByHand(t *testing.T) {
	iv := intervalOf([]float64{1, 2, 3, 4}) // mean 2.5, s = 1.290994, se = 0.645497
	half := 3.182446305 * 0.6454972244
	if math.Abs(iv.Mean-2.5) > 1e-12 || math.Abs(iv.Low-(2.5-half)) > 1e-6 || math.Abs(iv.High-(2.5+half)) > 1e-6 {
		t.Errorf("interval of 1..4 = %+v, want 2.5 ± %v", iv, half)
	}
}

func TestCompareTables(t *testing.T) {
	out, _, code := runCLI(t, "", "compare", "--seed", "3", "--cycles", "1500", "--replications", "3",
		"--variant", "pooled:queues=pooled", "--variant", "split:queues=per-server,policy=random")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"seeds 3 to 5", "pooled", "split", "wait p95", "server-cycles", "Paired difference from \"pooled\"", "paired by seed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "no --variant"},
		{[]string{"--variant", "x:colour=blue"}, `"colour" is not a setting`},
		{[]string{"--variant", "x:seed=4"}, `"seed" is not a setting`},
		{[]string{"--variant", "x:policy=p2c", "--variant", "x:policy=random"}, "label \"x\" is taken"},
		{[]string{"--variant", "x:"}, "is not NAME=VALUE"},
		{[]string{"--variant", ":policy=p2c"}, "label before ':' is empty"},
		{[]string{"--variant", "policy=hash"}, "hash routes at arrival"},
		{[]string{"--variant", "policy=p2c", "--replications", "1"}, "--replications 1"},
		{[]string{"--variant", "policy=p2c", "--timeline", "t.csv"}, "--timeline has no meaning"},
		{[]string{"--variant", "policy=p2c", "--jobs", "0"}, "--jobs 0"},
	} {
		_, errs, code := runCLI(t, "", append([]string{"compare", "--cycles", "100"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("compare %v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestCompareSnapshotReplays: --snapshot records the comparison; lbsim
// replay re-runs every lane to the same summaries, from the file and from
// its share link; --replications cannot be recorded.
func TestCompareSnapshotReplays(t *testing.T) {
	path := t.TempDir() + "/cmp.lbsnap"
	c := compareJSON(t, "--seed", "4", "--cycles", "2500", "--snapshot", path,
		"--variant", "rr:queues=per-server,policy=round-robin", "--variant", "lc:queues=per-server,policy=least-connections")
	out, errs, code := runCLI(t, "", "replay", path, "--json", "-")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	var back comparisonJSON
	if err := json.Unmarshal([]byte(out), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Variants) != 2 {
		t.Fatalf("replayed %d lanes", len(back.Variants))
	}
	for i, v := range back.Variants {
		if v.Label != c.Variants[i].Label || !reflect.DeepEqual(v.Summary, c.Variants[i].Summary) {
			t.Errorf("lane %d: replayed %s %v, compared %s %v", i, v.Label, v.Summary, c.Variants[i].Label, c.Variants[i].Summary)
		}
	}
	link, _, code := runCLI(t, "", "share", "--base", "http://x/", path)
	if code != 0 || !strings.Contains(link, "#r=") {
		t.Fatalf("share: exit %d %q", code, link)
	}
	if _, errs, code := runCLI(t, "", "replay", "--link", strings.TrimSpace(link)); code != 0 {
		t.Errorf("replay --link: exit %d: %s", code, errs)
	}
	_, errs, code = runCLI(t, "", "compare", "--cycles", "100", "--replications", "3", "--snapshot", path, "--variant", "policy=random")
	if code != exitUsage || !strings.Contains(errs, "--snapshot holds one run") {
		t.Errorf("--snapshot with --replications: exit %d %q", code, errs)
	}
}

// TestCompareRunsEachVariantOnce: every variant runs once for each seed of
// its replications, whatever the outputs (a variant once ran twice: the
// snapshot was recorded by running it again). The base flags have a --set,
// so that the check of each variant before the runs builds its model.
func TestCompareRunsEachVariantOnce(t *testing.T) {
	base := []string{"compare", "--seed", "7", "--cycles", "600", "--queues", "per-server", "--set", "300:rate=0.6",
		"--variant", "rr:policy=round-robin", "--variant", "p2c:policy=p2c", "--variant", "random:policy=random"}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		seeds uint64
	}{
		{"alone", nil, 1},
		{"with --snapshot", []string{"--snapshot", filepath.Join(dir, "cmp.lbsnap")}, 1},
		{"with --json", []string{"--json", filepath.Join(dir, "cmp.json")}, 1},
		{"with --replications", []string{"--replications", "3", "--jobs", "2"}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			type run struct {
				policy string
				seed   uint64
			}
			var mu sync.Mutex
			runs := map[run]int{}
			var out, errb bytes.Buffer
			cl := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, noColor: true,
				ran: func(o *runOptions) {
					mu.Lock()
					runs[run{o.cfg.Policy.String(), o.cfg.Seed}]++
					mu.Unlock()
				}}
			if code := cl.main(append(slices.Clone(base), c.args...)); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			want := map[run]int{}
			for _, p := range []string{"round-robin", "p2c", "random"} {
				for s := range c.seeds {
					want[run{p, 7 + s}] = 1
				}
			}
			if !maps.Equal(runs, want) {
				t.Fatalf("runs by policy and seed %v, want each of %v once", runs, slices.Collect(maps.Keys(want)))
			}
		})
	}
}
