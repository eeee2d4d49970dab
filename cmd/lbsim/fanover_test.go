package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestRunFanoutBesideOverload: fan-out hedged beside shedding, the
// throttle and an adaptive limit runs (once refused): every mechanism
// acts, the books balance, the timeline carries both column groups, and
// a replay of its snapshot writes the same timeline.
func TestRunFanoutBesideOverload(t *testing.T) {
	dir := t.TempDir()
	timeline, snap, again := filepath.Join(dir, "t.csv"), filepath.Join(dir, "run.lbsnap"), filepath.Join(dir, "again.csv")
	stdout, stderr, code := runCLI(t, "", "run", "--seed", "49", "--cycles", "4000", "--queues", "per-server", "--policy", "p2c",
		"--fanout", "3", "--min-servers", "12", "--initial-per-server", "0", "--rate", "0.44", "--wave=false",
		"--service", "geometric", "--mean-service", "12", "--hedge-after", "20", "--hedge-max", "2", "--hedge-budget", "0.3",
		"--codel-target", "15", "--throttle", "2", "--concurrency-limit", "aimd", "--limit-initial", "6", "--limit-max", "12",
		"--limit-latency", "60", "--fail-time", "5", "--set", "500:fail=3", "--set", "1500:codel-target=30", "--set", "2500:heal=3",
		"--json", "-", "--timeline", timeline, "--snapshot", snap)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var s sim.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Shed == 0 || s.Limited == 0 || s.Throttled == 0 || s.Hedges == 0 || s.Cancelled == 0 || s.Parts != 3*s.Admitted || !s.Consistent {
		t.Errorf("shed %d limited %d throttled %d hedges %d cancelled %d parts %d (admitted %d) consistent %v: want every mechanism acting and the books balanced",
			s.Shed, s.Limited, s.Throttled, s.Hedges, s.Cancelled, s.Parts, s.Admitted, s.Consistent)
	}
	data, err := os.ReadFile(timeline)
	if err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(string(data), "\n"); head != sim.TimelineHeader+",hedges,cancelled,shed,limited,throttled" {
		t.Errorf("timeline header %q", head)
	}
	if _, stderr, code := runCLI(t, "", "replay", snap, "--timeline", again); code != 0 {
		t.Fatalf("replay: exit %d, %s", code, stderr)
	}
	if replayed, _ := os.ReadFile(again); string(replayed) != string(data) {
		t.Errorf("the replay's timeline differs from the run's")
	}
}
