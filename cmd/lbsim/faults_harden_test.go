package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestReplacedServerFaultsSkipped: a fault naming a server that
// --replace-after has taken out of the pool is skipped by run (counted in
// faults_skipped), as the docs say, not refused: a scripted outage whose
// server is replaced before its `up` runs (a sweep over replace-after
// makes such runs). Before, run refused it ("server 3 does not exist").
// Faults that could never happen are still refused.
func TestReplacedServerFaultsSkipped(t *testing.T) {
	pool := []string{"run", "--servers", "5", "--min-servers", "5", "--max-servers", "5", "--cycles", "3000", "--seed", "1", "--json", "-"}
	for _, later := range []string{"up:3@2000", "down:3@2000", "fail:3@2000", "slow:3x2@2000"} {
		code, stdout, stderr := runArgs(t, append(pool, "--replace-after", "500", "--fault", "down:3@100", "--fault", later)...)
		if code != exitOK {
			t.Errorf("%s after server 3 was replaced: exit %d, %s", later, code, stderr)
			continue
		}
		var sum struct {
			Replaced      int64 `json:"replaced"`
			FaultsSkipped int64 `json:"faults_skipped"`
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Replaced != 1 || sum.FaultsSkipped != 1 {
			t.Errorf("%s after server 3 was replaced: replaced %d, faults skipped %d (%v); want 1 and 1", later, sum.Replaced, sum.FaultsSkipped, err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--replace-after", "500", "--fault", "down:9@100"}, "server 9 does not exist"},
		{[]string{"--replace-after", "500", "--fault", "down:3@100", "--fault", "down:3@200"}, "already down"},
		{[]string{"--fault", "down:3@100", "--fault", "up:3@200", "--fault", "up:3@300"}, "is brought up before any down"},
		{[]string{"--replace-after", "5000", "--fault", "down:3@100", "--fault", "up:3@200", "--fault", "up:3@300"}, "is brought up before any down"},
	} {
		code, _, stderr := runArgs(t, append(pool, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestMTBFWithExplicitFaultsEverySeed: --mtbf with an explicit down and up
// is accepted whatever the seed: an explicit fault that a random one has
// made moot (the server is already down, or already back) is skipped and
// counted in faults_skipped. Before, 3 seeds of these 20 were refused
// ("server 1 is already down at cycle 300"), so size, which checks the
// first seed only, failed in the middle of its search.
func TestMTBFWithExplicitFaultsEverySeed(t *testing.T) {
	faults := []string{"--mtbf", "200", "--mttr", "100", "--fault", "down:1@300", "--fault", "up:1@600", "--cycles", "1000"}
	skipped := int64(0)
	for seed := 1; seed <= 20; seed++ {
		code, stdout, stderr := runArgs(t, append([]string{"run", "--servers", "3", "--min-servers", "3", "--max-servers", "3",
			"--seed", fmt.Sprint(seed), "--json", "-"}, faults...)...)
		if code != exitOK {
			t.Errorf("seed %d: exit %d, %s", seed, code, stderr)
			continue
		}
		var sum struct {
			FaultsSkipped int64 `json:"faults_skipped"`
		}
		json.Unmarshal([]byte(stdout), &sum)
		skipped += sum.FaultsSkipped
	}
	if skipped == 0 {
		t.Errorf("no fault was skipped in 20 seeds: the case does not test the collision")
	}
	// size runs every replication's seed through the same check.
	code, _, stderr := runArgs(t, append([]string{"size", "--slo", "avg_wait<=100000", "--max", "4", "--replications", "10", "--seed", "1"}, faults...)...)
	if code != exitOK {
		t.Errorf("size with --mtbf and explicit faults: exit %d, %s", code, stderr)
	}
}
