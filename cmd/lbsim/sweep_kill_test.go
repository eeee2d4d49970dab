//go:build !js

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tests that start processes: not under WebAssembly, which cannot.

func TestSweepResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	// A longer sweep, one job, so the kill lands in the middle.
	args := []string{"sweep", "--servers", "3", "--cycles", "100000", "--seed", "5", "--vary", "rate=0.1:1:0.1",
		"--replications", "4", "--jobs", "1", "--no-progress"}
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := runCLI(t, "", append(args, "--out", whole)...); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	want := readFile(t, whole)

	out := filepath.Join(dir, "killed.jsonl")
	cmd := startSweep(t, args, out)
	if !waitForLines(out, 3) {
		cmd.Process.Kill()
		t.Fatal("the sweep wrote no 3 lines in 60 s")
	}
	cmd.Process.Kill()
	cmd.Wait()
	killed := readFile(t, out)
	if len(killed) == 0 || killed[len(killed)-1] != '\n' || !bytes.HasPrefix(want, killed) {
		t.Fatalf("after the kill the file is not whole lines of the sweep, in order (%d bytes)", len(killed))
	}
	if bytes.Equal(killed, want) {
		t.Fatal("the sweep ended before the kill: make it longer")
	}
	// A torn write (the machine died mid-line) is cut off by --resume.
	torn := append(slices.Clone(killed), `{"point":{"rate":0.`...)
	os.WriteFile(out, torn, 0o644)
	if _, stderr, code := runCLI(t, "", append(args, "--out", out, "--resume")...); code != 0 {
		t.Fatalf("--resume: exit %d %s", code, stderr)
	}
	if got := readFile(t, out); !bytes.Equal(got, want) {
		t.Errorf("after --resume the file differs from the uninterrupted sweep:\n got %d bytes\nwant %d bytes", len(got), len(want))
	}
	// Resuming a complete file runs nothing and changes nothing.
	if stdout, _, code := runCLI(t, "", append(args, "--out", out, "--resume")...); code != 0 || !strings.Contains(stdout, " 0 runs written") {
		t.Errorf("--resume of a complete file: exit %d, %s", code, stdout)
	}
	if got := readFile(t, out); !bytes.Equal(got, want) {
		t.Error("--resume of a complete file changed it")
	}
}

func TestSweepInterruptStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "--servers", "3", "--cycles", "100000", "--seed", "5", "--vary", "rate=0.1:1:0.1",
		"--replications", "4", "--jobs", "2", "--no-progress"}
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := runCLI(t, "", append(args, "--out", whole)...); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	out := filepath.Join(dir, "stopped.jsonl")
	var stderr bytes.Buffer
	cmd := startSweep(t, args, out, &stderr)
	waitForLines(out, 2) // if not, the check below that it did not end fails
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	got, want := readFile(t, out), readFile(t, whole)
	if bytes.Equal(got, want) {
		t.Fatal("the sweep ended before the interrupt reached it: make it longer")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "--resume --seed 5") {
		t.Errorf("interrupted: %v, stderr %s", err, stderr.String())
	}
	if len(got) == 0 || got[len(got)-1] != '\n' || !bytes.HasPrefix(want, got) {
		t.Errorf("after the interrupt the file is not whole lines of the sweep, in order")
	}
}

// startSweep starts this test binary as the lbsim command running args
// with --out out, its standard error into stderr when given.
func startSweep(t *testing.T, args []string, out string, stderr ...*bytes.Buffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, append(args, "--out", out)...)...)
	cmd.Env = append(os.Environ(), "LBSIM_AS_COMMAND=1")
	if len(stderr) > 0 {
		cmd.Stderr = stderr[0]
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitForLines polls the file for n complete lines, for at most 60 s, and
// reports whether they came.
func waitForLines(path string, n int) bool {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if data, _ := os.ReadFile(path); bytes.Count(data, []byte("\n")) >= n {
			return true
		}
	}
	return false
}
