package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunHedgeSwitchFleetAndSet runs hedging on the command line behind
// the P/S switch turned on by --set (each balancer's hedges in its own
// object, the text summary's hedging block and the timeline's columns),
// from a settings file's set list, and in a fleet; and refuses a --set
// that turns hedging on with pooled queues, naming the change.
func TestRunHedgeSwitchFleetAndSet(t *testing.T) {
	type sum struct {
		Hedges     int64 `json:"hedges"`
		Consistent bool  `json:"consistent"`
		P, S       *struct {
			Hedges int64 `json:"hedges"`
		}
	}
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(scen, []byte("switch = true\nqueues = \"per-server\"\nstream-share = 40\nset = [\"500:hedge-after=40\", \"2000:hedge-after=0\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--cycles", "3000", "--seed", "1", "--json", "-"}
	for _, tc := range []struct {
		name   string
		args   []string
		bothPS bool
	}{
		{"the switch, hedging turned on by --set", []string{"--switch", "--queues", "per-server", "--stream-share", "40", "--set", "500:hedge-after=40"}, true},
		{"a settings file's set list", []string{"--config", scen}, true},
		{"a fleet", []string{"--queues", "per-server", "--balancers", "4", "--load-info", "local", "--policy", "p2c", "--hedge-after", "40", "--hedge-budget", "0.1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, base...), tc.args...)
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
			}
			var s sum
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatalf("%v: %v in %q", args, err, stdout)
			}
			if s.Hedges == 0 || !s.Consistent {
				t.Errorf("%v: hedges %d, consistent %v: the run does not hedge", args, s.Hedges, s.Consistent)
			}
			if tc.bothPS && (s.P == nil || s.S == nil || s.P.Hedges == 0 || s.S.Hedges == 0 || s.P.Hedges+s.S.Hedges != s.Hedges) {
				t.Errorf("%v: P and S hedges %+v %+v, want both above 0 and adding up to %d", args, s.P, s.S, s.Hedges)
			}
		})
	}
	// The text summary and the timeline of a run hedged only from a
	// change: the hedging block, the attempts' line in parts, the
	// timeline's hedges and cancelled.
	set := []string{"run", "--cycles", "3000", "--seed", "1", "--switch", "--queues", "per-server", "--stream-share", "40", "--set", "500:hedge-after=40"}
	stdout, stderr, code := runCLI(t, "", set...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", set, code, stderr)
	}
	for _, want := range []string{"Fan-out and hedging", "hedges sent", "total: attempts: parts + retries + hedges"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("%v: the summary has no %q", set, want)
		}
	}
	if strings.Contains(stdout, "DOES NOT HOLD") {
		t.Errorf("%v: a line of accounting does not hold:\n%s", set, stdout)
	}
	stdout, stderr, code = runCLI(t, "", append(set, "--timeline", "-")...)
	if header, _, _ := strings.Cut(stdout, "\n"); code != 0 || !strings.HasSuffix(header, ",hedges,cancelled") {
		t.Errorf("%v --timeline -: exit %d (%q), header %q, want it to end with hedges,cancelled", set, code, stderr, header)
	}
	_, stderr, code = runCLI(t, "", "run", "--cycles", "100", "--seed", "1", "--set", "50:hedge-after=10")
	if want := "hedge-after = 10 is not allowed: hedging routes each hedge at once: use --queues per-server"; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("a pooled run with --set 50:hedge-after=10: exit %d, stderr %q, want it refused saying %q", code, stderr, want)
	}
}
