package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestRunOverloadTimelineAndReplay: shedding turned on by --set. One
// server of 10-cycle requests arriving at 0, 1, 2, 4 and 6; at 10 the
// queue (non-empty since the end of cycle 1) is standing with N = 9, so
// the limit is M = 7 and #2 and #3 (waited 9 and 8) are shed, #4 served.
// The timeline gains the overload columns (the change turns shedding on),
// row 10 counts the two sheds among its errors, and a replay of the
// snapshot writes the same timeline.
func TestRunOverloadTimelineAndReplay(t *testing.T) {
	trace := writeFile(t, "trace.csv", `cycle,src,dst,time,type
0,1.1.1.1,2.2.2.2,10,P
1,1.1.1.2,2.2.2.2,10,P
2,1.1.1.3,2.2.2.2,10,P
4,1.1.1.4,2.2.2.2,10,P
6,1.1.1.5,2.2.2.2,10,P
`)
	dir := t.TempDir()
	timeline, snap, again := filepath.Join(dir, "t.csv"), filepath.Join(dir, "run.lbsnap"), filepath.Join(dir, "again.csv")
	stdout, stderr, code := runCLI(t, "", "run", "--trace", trace, "--servers", "1", "--max-servers", "1", "--cycles", "12",
		"--codel-interval", "9", "--set", "10:codel-target=7", "--seed", "3", "--json", "-", "--timeline", timeline, "--snapshot", snap)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var s sim.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Shed != 2 || s.Errors != 2 || s.Throttled != 0 || s.Limited != 0 || !s.Consistent {
		t.Errorf("shed %d errors %d throttled %d limited %d consistent %v, want 2, 2, 0, 0, true", s.Shed, s.Errors, s.Throttled, s.Limited, s.Consistent)
	}
	data, err := os.ReadFile(timeline)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if want := sim.TimelineHeader + ",shed,limited,throttled"; lines[0] != want {
		t.Fatalf("header %q, want %q", lines[0], want)
	}
	// Cycle 10: #5 queued (#4 is served), one busy server, a completion
	// and a dispatch, errors 2, shed 2.
	if want := "10,1,1,1,0,0,0,0,1,1,0,2,0,0,2,0,0"; lines[11] != want {
		t.Errorf("row of cycle 10 %q, want %q", lines[11], want)
	}
	if _, stderr, code := runCLI(t, "", "replay", snap, "--timeline", again); code != 0 {
		t.Fatalf("replay: exit %d, %s", code, stderr)
	}
	if replayed, _ := os.ReadFile(again); string(replayed) != string(data) {
		t.Errorf("the replay's timeline differs:\n%s\nwant\n%s", replayed, data)
	}
}

// TestRunOverloadRefusals: the new flags' bad values are refused with exit
// 2 and a message naming what is allowed.
func TestRunOverloadRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--codel-target", "150"}, "at most codel-interval (100)"},
		{[]string{"--codel-interval", "3", "--codel-target", "5"}, "at most codel-interval (3)"},
		{[]string{"--set", "10:codel-target=200"}, "at most codel-interval"},
		{[]string{"--throttle", "0.5"}, "from 1 to 10"},
		{[]string{"--throttle", "10.5"}, "from 1 to 10"},
		{[]string{"--throttle", "2.001"}, "decimal"},
		{[]string{"--set", "10:throttle=2"}, "throttle is set once, at the start (--throttle), and a change cannot set it"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"run", "--cycles", "20", "--seed", "1"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
