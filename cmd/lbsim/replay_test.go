package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim/snapshot"
	"github.com/lbsim/lbsim/version"
)

// runArgs runs lbsim in-process with the given arguments and no stdin.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	stdout, stderr, code = runCLI(t, "", args...)
	return code, stdout, stderr
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// summaryBlock returns the text summary, from "Summary after" to the
// accounting lines.
func summaryBlock(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, "Summary after")
	j := strings.LastIndex(s, "holds\n")
	if i < 0 || j < i {
		t.Fatalf("no summary in\n%s", s)
	}
	return s[i : j+len("holds\n")]
}

const trace = `cycle,src,dst,time,type
0,1.2.3.4,5.6.7.8,5,P
0,10.0.0.1,5.6.7.8,3,S
1,8.8.8.8,5.6.7.8,7,S
3,9.9.9.9,5.6.7.8,2,
3,9.9.9.10,5.6.7.8,9,P
40,9.9.9.11,5.6.7.8,1,P
`

// TestRunSnapshotReplay: run --snapshot, then replay gives the same
// summary (text and JSON) and timeline.
func TestRunSnapshotReplay(t *testing.T) {
	dir := t.TempDir()
	tracePath := filepath.Join(t.TempDir(), "trace.csv") // not beside the outputs: trace.csv is one
	os.WriteFile(tracePath, []byte(trace), 0o644)
	tests := []struct {
		name string
		args []string
	}{
		{"plain", []string{"--seed", "42", "--cycles", "20000"}},
		{"set", []string{"--seed", "7", "--cycles", "20000", "--set", "500:rate=0.9", "--set", "2000:scale-down=20", "--set", "2000:scale-up=40", "--set", "3000:policy=random"}},
		{"round-robin", []string{"--seed", "8", "--cycles", "5000", "--policy", "round-robin"}},
		{"random", []string{"--seed", "9", "--cycles", "5000", "--policy", "random", "--queue-cap", "500"}},
		{"trace", []string{"--seed", "1", "--cycles", "60", "--trace", tracePath}},
		{"switch", []string{"--seed", "3", "--cycles", "3000", "--switch"}}, // a row per balancer, as run writes
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := func(n string) string { return filepath.Join(dir, tt.name+"."+n) }
			args := append([]string{"run", "--quiet", "--snapshot", p("lbsnap"), "--json", p("json"), "--timeline", p("csv")}, tt.args...)
			code, runOut, stderr := runArgs(t, args...)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			code, out, stderr := runArgs(t, "replay", p("lbsnap"), "--json", "-", "--timeline", p("replay.csv"))
			if code != 0 {
				t.Fatalf("replay: exit %d: %s", code, stderr)
			}
			if out != string(readFile(t, p("json"))) {
				t.Errorf("replay --json - gives\n%s\nrun --json gave\n%s", out, readFile(t, p("json")))
			}
			if !bytes.Equal(readFile(t, p("replay.csv")), readFile(t, p("csv"))) {
				t.Error("replay --timeline differs from run --timeline")
			}
			if !strings.Contains(stderr, "reproduced exactly") {
				t.Errorf("replay --json -: the text summary should go to stderr, got %q", stderr)
			}
			code, text, stderr := runArgs(t, "replay", p("lbsnap"))
			if code != 0 || stderr != "" {
				t.Fatalf("replay: exit %d: %s", code, stderr)
			}
			if got, want := summaryBlock(t, text), summaryBlock(t, runOut); got != want {
				t.Errorf("replay's summary\n%s\nrun's summary\n%s", got, want)
			}
		})
	}
}

func TestShareAndReplayLink(t *testing.T) {
	dir := t.TempDir()
	snap, js := filepath.Join(dir, "run.lbsnap"), filepath.Join(dir, "run.json")
	if code, _, stderr := runArgs(t, "run", "--seed", "42", "--snapshot", snap, "--json", js, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, frag, stderr := runArgs(t, "share", snap)
	frag = strings.TrimSpace(frag)
	if code != 0 || !strings.HasPrefix(frag, "#r=") {
		t.Fatalf("share: exit %d, %q, %s", code, frag, stderr)
	}
	if len(frag) > 1000 {
		t.Errorf("the default run's fragment has %d characters, want ≤ 1000", len(frag))
	}
	code, link, _ := runArgs(t, "share", "--base", "https://lbsim.example/page/#old", snap)
	link = strings.TrimSpace(link)
	if code != 0 || link != "https://lbsim.example/page/"+frag {
		t.Fatalf("share --base: exit %d, %q", code, link)
	}
	for _, l := range []string{frag, link} {
		code, out, stderr := runArgs(t, "replay", "--link", l, "--json", "-")
		if code != 0 {
			t.Fatalf("replay --link: exit %d: %s", code, stderr)
		}
		if out != string(readFile(t, js)) {
			t.Errorf("replay --link --json - gives\n%s", out)
		}
	}
	if code, _, stderr := runArgs(t, "replay", "--link", frag[:len(frag)-4]); code != 2 {
		t.Errorf("replay of a cut link: exit %d, want 2 (%s)", code, stderr)
	}
}

func TestReplayDivergence(t *testing.T) {
	dir := t.TempDir()
	path, out := filepath.Join(dir, "run.lbsnap"), filepath.Join(dir, "out.json")
	if code, _, stderr := runArgs(t, "run", "--seed", "5", "--cycles", "10000", "--snapshot", path, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	s, err := snapshot.Decode(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	s.Hashes[6] ^= 0x100 // the hash after cycle 3500; Encode re-checksums
	data, err := snapshot.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, data, 0o644)
	code, _, stderr := runArgs(t, "replay", path, "--json", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !strings.Contains(stderr, "diverged at cycle 3500") {
		t.Errorf("stderr %q does not name cycle 3500", stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a replay that diverged wrote --json")
	}
}

func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.lbsnap")
	if code, _, stderr := runArgs(t, "run", "--seed", "5", "--cycles", "1000", "--snapshot", path, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	good := readFile(t, path)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	files := map[string][]byte{
		"truncated": good[:len(good)-7],
		"flipped":   flipped,
		"empty":     nil,
		"text":      []byte("cycle,queue\n0,1\n"),
	}
	for name, data := range files {
		p := filepath.Join(dir, name+".lbsnap")
		os.WriteFile(p, data, 0o644)
		code, stdout, stderr := runArgs(t, "replay", p, "--json", filepath.Join(dir, name+".json"))
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "lbsim replay: "+p+": ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and an error naming the file", name, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".json")); err == nil {
			t.Errorf("%s: --json written", name)
		}
		if code, _, _ := runArgs(t, "share", p); code != 2 {
			t.Errorf("share %s: exit %d, want 2", name, code)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(stderr))
	}
	for _, args := range [][]string{
		{"replay"},
		{"replay", path, path},
		{"replay", path, "--link", "#r=AAAA"},
		{"replay", filepath.Join(dir, "missing.lbsnap")},
		{"replay", "--bogus", path},
		{"share"},
		{"share", filepath.Join(dir, "missing.lbsnap")},
	} {
		if code, _, stderr := runArgs(t, args...); code != 2 || stderr == "" {
			t.Errorf("%q: exit %d, want 2 and an error", args, code)
		}
	}
}

func TestReplayShareHelp(t *testing.T) {
	for _, cmd := range []string{"replay", "share"} {
		code, out, _ := runArgs(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Example:") || !strings.Contains(out, "lbsim "+cmd) {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
	_, out, _ := runArgs(t, "help")
	if !strings.Contains(out, "lbsim replay") || !strings.Contains(out, "lbsim share") {
		t.Errorf("usage does not list replay and share:\n%s", out)
	}
}

// TestRunSnapshotJSON checks the snapshot's summary is the run's.
func TestRunSnapshotJSON(t *testing.T) {
	dir := t.TempDir()
	path, js := filepath.Join(dir, "run.lbsnap"), filepath.Join(dir, "run.json")
	if code, _, stderr := runArgs(t, "run", "--seed", "3", "--cycles", "3000", "--snapshot", path, "--json", js, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	s, err := snapshot.Decode(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(version.Stamp(&s.Summary), "", "  ")
	if string(got)+"\n" != string(readFile(t, js)) {
		t.Errorf("snapshot summary\n%s\nrun --json\n%s", got, readFile(t, js))
	}
}
