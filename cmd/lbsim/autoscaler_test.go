package main

import (
	"strings"
	"testing"
)

// TestAutoscalerRefusals: the queue rule's settings are refused with
// target tracking and target tracking's with the queue rule, as flags and
// as --set; a utilization target above 1 and a missing target for inflight
// are refused; size refuses target tracking; a run with it and its --set
// changes exits 0.
func TestAutoscalerRefusals(t *testing.T) {
	base := []string{"run", "--cycles", "120", "--seed", "1", "--servers", "3"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--autoscaler", "target", "--cooldown", "5"}, 2, "--cooldown"},
		{[]string{"--autoscaler", "target", "--scale-up", "90"}, 2, "--scale-up"},
		// The queue rule's thresholds are not checked against each other
		// under target tracking: the refusal names the flag given.
		{[]string{"--autoscaler", "target", "--scale-up", "5"}, 2, "--scale-up applies only to the queue rule"},
		{[]string{"--autoscaler", "target", "--scale-down", "90"}, 2, "--scale-down applies only to the queue rule"},
		{[]string{"--autoscaler", "target", "--set", "30:scale-down=1"}, 2, "--set 30:scale-down"},
		{[]string{"--scale-period", "5"}, 2, "--scale-period"},
		{[]string{"--scale-metric", "queue", "--scale-target", "3"}, 2, "--scale-metric"},
		{[]string{"--set", "30:scale-tolerance=0"}, 2, "--set 30:scale-tolerance"},
		{[]string{"--autoscaler", "target", "--scale-target", "1.5"}, 2, "at most 1"},
		{[]string{"--autoscaler", "target", "--scale-metric", "inflight"}, 2, "needs --scale-target"},
		{[]string{"--autoscaler", "target", "--scale-tolerance", "1.1"}, 2, "--scale-tolerance"},
		// A utilization target lies in (0, 1]; inflight and queue targets
		// from 0.01 on.
		{[]string{"--autoscaler", "target", "--scale-target", "0.005"}, 0, ""},
		{[]string{"--autoscaler", "target", "--scale-target", "0.000001", "--set", "60:scale-target=0.002"}, 0, ""},
		{[]string{"--autoscaler", "target", "--scale-target", "0"}, 2, "--scale-target"},
		{[]string{"--autoscaler", "target", "--scale-metric", "queue", "--scale-target", "0.005"}, 2, "from 0.01"},
		{[]string{"--autoscaler", "target", "--scale-metric", "inflight", "--scale-target", "2", "--set", "60:scale-target=0.005"}, 2, "from 0.01"},
		{[]string{"--autoscaler", "target", "--scale-period", "5", "--scale-down-window", "0",
			"--set", "30:scale-target=0.3", "--set", "60:scale-tolerance=0", "--set", "90:scale-down-window=20"}, 0, ""},
	} {
		args := append(append([]string{}, base...), c.args...)
		_, stderr, code := runQuiet(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("lbsim %s: exit %d, want %d naming %q:\n%s", strings.Join(args, " "), code, c.code, c.want, stderr)
		}
	}
	for _, args := range [][]string{
		{"compare", "--cycles", "100", "--variant", "a:autoscaler=target,scale-up=5"},
		{"sweep", "--cycles", "100", "--autoscaler", "target", "--scale-up", "5", "--vary", "rate=1,2", "--out", "-"},
	} {
		_, stderr, code := runQuiet(t, args...)
		if code != 2 || !strings.Contains(stderr, "--scale-up applies only to the queue rule") {
			t.Errorf("lbsim %s: exit %d, want 2 naming --scale-up as unread:\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	_, stderr, code := runQuiet(t, "size", "--cycles", "200", "--slo", "wait_p95<=100", "--autoscaler", "target")
	if code != 2 || !strings.Contains(stderr, "--autoscaler target") {
		t.Errorf("size --autoscaler target: exit %d, want 2 naming it:\n%s", code, stderr)
	}
}
