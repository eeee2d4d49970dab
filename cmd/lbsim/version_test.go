package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim/snapshot"
)

// TestVersion: lbsim version and --version print the build's version;
// --json gives it to tools; snapshots record it, and the JSON of size and
// aggregate carry it as lbsim_version.
func TestVersion(t *testing.T) {
	want := "lbsim " + lbsimVersion()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, want+" (") || stderr != "" {
			t.Errorf("lbsim %v: exit %d, %q %q; want %q first", args, code, stdout, stderr, want)
		}
	}
	code, stdout, _ := runArgs(t, "version", "--json", "-")
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != exitOK || v["short"] != lbsimVersion() || v["version"] == "" || v["go"] == "" {
		t.Errorf("version --json -: exit %d, %v: %s", code, err, stdout)
	}
	if code, _, stderr := runArgs(t, "version", "--bogus"); code != exitUsage || !strings.Contains(stderr, "bogus") {
		t.Errorf("version --bogus: exit %d, %s", code, stderr)
	}

	dir := t.TempDir()
	snap := filepath.Join(dir, "r.lbsnap")
	if code, _, stderr := runArgs(t, "run", "--cycles", "100", "--seed", "1", "--snapshot", snap); code != exitOK {
		t.Fatalf("run: %s", stderr)
	}
	s, err := snapshot.Decode(readFile(t, snap))
	if err != nil || s.Engine != want || snapshot.EngineVersion != want {
		t.Errorf("the snapshot records %q (EngineVersion %q), want %q (%v)", s.Engine, snapshot.EngineVersion, want, err)
	}
	if _, stdout, _ := runArgs(t, "replay", snap); !strings.Contains(stdout, "recorded by \""+want+"\"") {
		t.Errorf("replay does not say which version recorded the run:\n%.300s", stdout)
	}

	results := filepath.Join(dir, "s.jsonl")
	sweepTo(t, results)
	_, agg, _ := runArgs(t, "aggregate", results, "--json", "-")
	_, size, _ := runArgs(t, "size", "--cycles", "300", "--seed", "1", "--rate", "0.2", "--replications", "2", "--slo", "avg_wait<=50", "--json", "-")
	_, run, _ := runArgs(t, "run", "--cycles", "100", "--seed", "1", "--json", "-")
	_, replay, _ := runArgs(t, "replay", snap, "--json", "-")
	_, cmp, _ := runArgs(t, "compare", "--cycles", "100", "--seed", "1", "--variant", "policy=random", "--json", "-")
	line, _, _ := strings.Cut(string(readFile(t, results)), "\n")
	var sweepLine struct{ Summary json.RawMessage }
	json.Unmarshal([]byte(line), &sweepLine)
	for name, out := range map[string]string{"aggregate --json": agg, "size --json": size, "run --json": run, "replay --json": replay,
		"compare --json": cmp, "a sweep line's summary": string(sweepLine.Summary)} {
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil || obj["lbsim_version"] != lbsimVersion() {
			t.Errorf("%s: lbsim_version %v, want %q (%v)", name, obj["lbsim_version"], lbsimVersion(), err)
		}
	}
}

// TestMMCJSONCarriesVersion: mmc's JSON ends with lbsim_version, as run's,
// compare's, size's and aggregate's do.
func TestMMCJSONCarriesVersion(t *testing.T) {
	code, stdout, stderr := runArgs(t, "mmc", "--servers", "2", "--rate", "0.05", "--mean-service", "10", "--cycles", "20000", "--seed", "1", "--json", "-")
	if code != exitOK {
		t.Fatalf("mmc: exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("mmc --json -: %v", err)
	}
	if got["lbsim_version"] != lbsimVersion() || got["servers"] != float64(2) {
		t.Errorf("mmc's JSON: lbsim_version %v, servers %v; want %q and 2", got["lbsim_version"], got["servers"], lbsimVersion())
	}
}
