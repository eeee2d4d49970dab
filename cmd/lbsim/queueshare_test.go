package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestParallelRunsShareQueueBound: compare, sweep and size with --jobs 4
// hand each run a quarter of --max-queued, so the runs under way together
// never hold more than one run may (before, each of the J runs got the
// whole bound: `size --rate 300 --jobs 8` ran out of memory). A run that
// outgrows its quarter runs again alone with the whole bound, so the
// results are exactly those of --jobs 1, and a run that outgrows the whole
// bound stops naming it.
func TestParallelRunsShareQueueBound(t *testing.T) {
	dir := t.TempDir()
	// One server for about 0.93 requests of mean time 45 a cycle: the
	// queue reaches about 1,800 in 2,000 cycles, above a quarter of 4,000.
	pool := []string{"--seed", "3", "--wave=false", "--rate", "1", "--cycles", "2000", "--max-queued", "4000"}
	fixed := append(slices.Clone(pool), "--servers", "1", "--min-servers", "1", "--max-servers", "1", "--initial-per-server", "0")
	cases := []struct {
		name string
		args func(jobs, out string) []string
	}{
		{"compare", func(jobs, out string) []string {
			return append(append([]string{"compare"}, fixed...), "--replications", "4", "--jobs", jobs,
				"--variant", "policy=first-idle", "--variant", "policy=random", "--json", out)
		}},
		{"sweep", func(jobs, out string) []string {
			return append(append([]string{"sweep"}, fixed...), "--vary", "cycles=1500,2000", "--replications", "2", "--jobs", jobs, "--out", out)
		}},
		{"size", func(jobs, out string) []string {
			return append(append([]string{"size"}, pool...), "--slo", "avg_wait<=50", "--replications", "4", "--jobs", jobs, "--max", "64", "--json", out)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var bounds []int
			peak := 0
			outputs := map[string][]byte{}
			for _, jobs := range []string{"4", "1"} {
				out := filepath.Join(dir, c.name+jobs)
				var stdout, stderr bytes.Buffer
				cl := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, noColor: true,
					runBound: func(bound, inFlight int) {
						mu.Lock()
						defer mu.Unlock()
						bounds = append(bounds, bound)
						peak = max(peak, inFlight)
					}}
				if code := cl.main(c.args(jobs, out)); code != exitOK {
					t.Fatalf("--jobs %s: exit %d: %s", jobs, code, stderr.String())
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				outputs[jobs] = b
				if jobs == "4" {
					if peak > 4000 {
						t.Errorf("--jobs 4: the runs under way held bounds adding up to %d, more than --max-queued 4000", peak)
					}
					if !slices.Contains(bounds, 1000) || !slices.Contains(bounds, 4000) {
						t.Errorf("--jobs 4: bounds handed %v, want quarters (1000) and the whole bound (4000) for runs that outgrew theirs", bounds)
					}
				}
			}
			if !bytes.Equal(outputs["4"], outputs["1"]) {
				t.Errorf("--jobs 4 and --jobs 1 wrote different results:\n%s\n%s", outputs["4"], outputs["1"])
			}
		})
	}
	// Beyond the whole bound a run stops, naming it, as with --jobs 1.
	code, _, stderr := runArgs(t, append(append([]string{"compare"}, fixed...), "--cycles", "6000", "--replications", "2", "--jobs", "4", "--variant", "policy=random")...)
	if code != exitFailed || !strings.Contains(stderr, "limit of 4000 queued") {
		t.Errorf("compare past the bound: exit %d, stderr %q; want exit 1 naming the limit of 4000", code, stderr)
	}
}
