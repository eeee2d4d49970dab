package main

import (
	"encoding/json"
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
