package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// metastableArgs is the retry storm of the README: ten fixed servers,
// geometric service of mean 100, 0.08 arrivals a cycle, clients that time
// out after 1,000 cycles and retry three times, 80,000 cycles.
var metastableArgs = []string{"run", "--servers", "10", "--min-servers", "10", "--max-servers", "10",
	"--service", "geometric", "--mean-service", "100", "--rate", "0.08", "--wave=false",
	"--initial-per-server", "0", "--cycles", "80000", "--seed", "1", "--timeout", "1000", "--retries", "3"}

// spike raises the rate to 0.15 for cycles 20,000–25,000.
var spike = []string{"--set", "20000:rate=0.15", "--set", "25000:rate=0.08"}

// lastStretch runs lbsim with args and returns, from its timeline, the
// requests completed and the first attempts admitted in the last 20,000
// cycles, and its summary.
func lastStretch(t *testing.T, args ...string) (completed, admitted int64, s sim.Summary) {
	t.Helper()
	dir := t.TempDir()
	tl, js := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	_, stderr, code := runCLI(t, "", append(args, "--timeline", tl, "--json", js, "--status-every", "0")...)
	if code != 0 {
		t.Fatalf("lbsim %v: exit %d\n%s", args, code, stderr)
	}
	f, err := os.Open(tl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	n := func(row []string, name string) int64 {
		v, err := strconv.ParseInt(row[col[name]], 10, 64)
		if err != nil {
			t.Fatalf("timeline %s: %v", name, err)
		}
		return v
	}
	for _, row := range rows[1:] {
		if n(row, "cycle") > 60_000 {
			completed += n(row, "completed")
			admitted += n(row, "generated") - n(row, "rejected") - n(row, "discarded")
		}
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if !s.Consistent {
		t.Fatalf("lbsim %v: the accounting does not hold: %+v", args, s)
	}
	return completed, admitted, s
}

// TestMetastableRetryStorm checks the retry storm on the CLI's numbers:
// without the spike, the requests completed in the last 20,000 cycles
// match those admitted there; after the spike, with no retry budget, the
// system does not recover (a small share completes: the retries of timed
// out requests keep the servers busy with work nobody waits for); with a
// budget of 0.1 it recovers.
func TestMetastableRetryStorm(t *testing.T) {
	c, a, calm := lastStretch(t, metastableArgs...)
	if r := float64(c) / float64(a); r < 0.9 || r > 1.1 || calm.Retries > 100 {
		t.Errorf("no spike: %d completed of %d admitted in the last 20,000 cycles (%.3f), %d retries; want about 1 and few retries", c, a, r, calm.Retries)
	}
	c, a, storm := lastStretch(t, append(metastableArgs, spike...)...)
	if r := float64(c) / float64(a); r > 0.25 || storm.Retries < storm.Admitted {
		t.Errorf("spike, no budget: %d completed of %d admitted (%.3f), %d retries for %d admitted; want far below 1 and retries past admissions", c, a, r, storm.Retries, storm.Admitted)
	}
	c, a, budget := lastStretch(t, append(append(metastableArgs, spike...), "--retry-budget", "0.1")...)
	if r := float64(c) / float64(a); r < 0.9 || r > 1.1 || budget.GaveUpBudget == 0 {
		t.Errorf("spike, budget 0.1: %d completed of %d admitted (%.3f), %d refused by the budget; want about 1, some refused", c, a, r, budget.GaveUpBudget)
	}
}
