package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayOldBudgetSnapshot: a snapshot recorded when the retry budget
// counted first attempts only since the client side came on (sim/snapshot's
// testdata/budget-old-rule.lbsnap) replays under the rule of cycle 0, so
// lbsim replay refuses it (exit 1) naming the cycle it diverged at, without
// a panic.
func TestReplayOldBudgetSnapshot(t *testing.T) {
	snap := filepath.Join("..", "..", "sim", "snapshot", "testdata", "budget-old-rule.lbsnap")
	code, _, stderr := runArgs(t, "replay", snap)
	want := "lbsim replay: " + snap + ": replay diverged at cycle 12 (it matched up to cycle 11)"
	if code != exitFailed || !strings.Contains(stderr, want) || strings.Contains(stderr, "panic") {
		t.Errorf("lbsim replay %s: exit %d, want 1 with %q: %s", snap, code, want, stderr)
	}
}
