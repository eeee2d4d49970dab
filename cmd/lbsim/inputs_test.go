package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOutputsNeverOverwriteServiceFile: no output of any subcommand may
// name the --service-file a run reads (given as a flag or in a variant);
// each is refused with exit 2 naming both, the file untouched. Before,
// compare --json, compare --snapshot, size --json, plot run --out and
// mmc --json overwrote it and exited 0 (run alone refused).
func TestOutputsNeverOverwriteServiceFile(t *testing.T) {
	dir := t.TempDir()
	svc := filepath.Join(dir, "times.svg") // .svg, so that plot takes it as its --out
	want := []byte("5\n7\n")
	shape := []string{"--service", "empirical", "--service-file", svc, "--cycles", "100", "--seed", "1"}
	for _, args := range [][]string{
		append([]string{"run", "--json", svc}, shape...),
		append([]string{"compare", "--variant", "policy=random", "--json", svc}, shape...),
		append([]string{"compare", "--variant", "policy=random", "--snapshot", svc}, shape...),
		{"compare", "--cycles", "100", "--variant", "service=empirical,service-file=" + svc, "--json", svc},
		append([]string{"size", "--slo", "avg_wait<=5", "--max", "2", "--json", svc}, shape...),
		{"size", "--cycles", "100", "--slo", "avg_wait<=5", "--max", "2", "--variant", "service=empirical,service-file=" + svc, "--json", svc},
		append([]string{"plot", "run", "--out", svc}, shape...),
		{"mmc", "--service", "empirical", "--service-file", svc, "--cycles", "1000", "--json", svc},
		append([]string{"sweep", "--vary", "rate=0.1", "--out", svc}, shape...),
		{"sweep", "--cycles", "100", "--service", "empirical", "--vary", "service-file=" + svc, "--out", svc},
	} {
		if err := os.WriteFile(svc, want, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runArgs(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "is the input --service-file") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 saying the output is the input --service-file", strings.Join(args, " "), code, stderr)
		}
		if got, _ := os.ReadFile(svc); !bytes.Equal(got, want) {
			t.Errorf("%s: the service file now holds %q", strings.Join(args, " "), got)
		}
	}
}

// TestRunInputFlagsAreRead: the file-reading run flags (runInputFlags,
// read from the flags' types) record the file each names, so the output
// checks cannot miss one; --trace and --service-file are among them.
func TestRunInputFlagsAreRead(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{"trace": filepath.Join(dir, "t.csv"), "service-file": filepath.Join(dir, "s.txt")}
	os.WriteFile(paths["trace"], []byte("cycle,src,dst,time\n0,1.2.3.4,5.6.7.8,3\n"), 0o644)
	os.WriteFile(paths["service-file"], []byte("5\n"), 0o644)
	args := []string{"--service", "empirical", "--cycles", "10"}
	if names := runInputFlags(); !slices.Contains(names, "trace") || !slices.Contains(names, "service-file") {
		t.Errorf("runInputFlags() = %v: --trace and --service-file read files", names)
	}
	for _, name := range runInputFlags() {
		p, ok := paths[name]
		if !ok {
			t.Fatalf("runInputFlags names %s, which this test does not know: give it a file", name)
		}
		args = append(args, "--"+name, p)
	}
	o, err := (&cli{}).parseRun(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range runInputFlags() {
		if got := o.inputs["--"+name]; got != paths[name] {
			t.Errorf("inputs[--%s] = %q, want %q", name, got, paths[name])
		}
	}
}
