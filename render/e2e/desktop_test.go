//go:build !js

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDesktopWindow opens the native window (under xvfb-run when there is
// no DISPLAY), lets it draw 90 frames, has it save its last frame and close
// itself, and checks the frame is not blank and the exit is clean.
func TestDesktopWindow(t *testing.T) {
	prefix := desktopPrefix(t)
	bin := builtCommand(t, "./cmd/lbsim-desktop")
	shot := filepath.Join(outDir(t), "desktop.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(prefix, bin, "--seed", "42", "--servers", "10", "--speed", "10", "--exit-after", "90", "--screenshot", shot)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lbsim-desktop: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	colours, frac := blankness(t, data)
	if colours < 8 || frac < 0.05 {
		t.Errorf("the window's frame looks blank: %d colours, %.1f%% non-background", colours, 100*frac)
	}
	t.Logf("screenshot %s: %d colours, %.0f%% non-background", shot, colours, 100*frac)

	// Without a display: --help prints the help and exits 0, anything else
	// says how to get a display and exits 2, never the window library's
	// panic.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{{[]string{"--help"}, 0, "-lesson NAME"}, {[]string{"--seed", "3"}, 2, "xvfb-run -a"}} {
		cmd := exec.CommandContext(ctx, bin, c.args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if code := exitCode(err); code != c.code || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "panic") {
			t.Errorf("lbsim-desktop %v without a display: exit %d, want %d and %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
}

// TestDesktopReplay gives the window a snapshot written by `lbsim run
// --snapshot` with --replay, lets it replay at max speed and exit at the
// end, and checks the summary it prints is the one `lbsim replay` prints;
// a run's setting given beside the snapshot is named as ignored.
func TestDesktopReplay(t *testing.T) {
	prefix := desktopPrefix(t)
	dir := t.TempDir()
	bin, cli := builtCommand(t, "./cmd/lbsim-desktop"), builtCommand(t, "./cmd/lbsim")
	snap := filepath.Join(dir, "run.lbsnap")
	if out, err := exec.Command(cli, "run", "--seed", "9", "--servers", "8", "--cycles", "20000", "--set", "2000:rate=0.8",
		"--set", "5000:down=3", "--set", "6000:up=3", "--quiet", "--snapshot", snap).CombinedOutput(); err != nil {
		t.Fatalf("lbsim run --snapshot: %v\n%s", err, out)
	}
	want, err := exec.Command(cli, "replay", snap, "--json", "-").Output()
	if err != nil {
		t.Fatalf("lbsim replay: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	shot := filepath.Join(outDir(t), "desktop-replay.png")
	args := append(prefix, bin, "--servers", "7", "--replay", snap, "--speed", "max", "--exit-at-end", "--json", "-", "--screenshot", shot)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("lbsim-desktop --replay: %v\n%s", err, stderr.String())
	}
	t.Logf("%s", stderr.String())
	if string(got) != string(want) {
		t.Errorf("lbsim-desktop --replay printed\n%s\nlbsim replay printed\n%s", got, want)
	}
	if !strings.Contains(stderr.String(), "reproduced exactly") {
		t.Errorf("the window did not say the replay reproduced: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "ignoring --servers: a snapshot replays its own settings") {
		t.Errorf("the window did not name --servers as ignored: %s", stderr.String())
	}
	// A damaged file is refused with a message and exit status 2.
	bad := filepath.Join(dir, "bad.lbsnap")
	if err := os.WriteFile(bad, []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(prefix, bin, "--replay", bad)
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "--replay") {
		t.Errorf("a damaged snapshot: exit %d, %s", code, out)
	}
}

// desktopPrefix skips the test under -short (the desktop command is a cgo
// build) or when there is no screen to open a window on, and otherwise
// returns what to run the window under: nothing with a DISPLAY, else
// xvfb-run.
func desktopPrefix(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short: builds the desktop command with cgo")
	}
	if os.Getenv("DISPLAY") != "" {
		return nil
	}
	if _, err := exec.LookPath("xvfb-run"); err != nil {
		t.Skip("no DISPLAY and no xvfb-run: install xvfb and xauth (make deps) to run the desktop tests")
	}
	return []string{"xvfb-run", "-a"}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
