//go:build !js

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestDesktopWindow opens the native window (under xvfb-run when there is
// no DISPLAY), lets it draw 90 frames, has it save its last frame and close
// itself, and checks the frame is not blank and the exit is clean.
func TestDesktopWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds the desktop command with cgo")
	}
	var prefix []string
	if os.Getenv("DISPLAY") == "" {
		if _, err := exec.LookPath("xvfb-run"); err != nil {
			t.Skip("no DISPLAY and no xvfb-run: install xvfb and xauth (make deps) to run the desktop smoke test")
		}
		prefix = []string{"xvfb-run", "-a"}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lbsim-desktop")
	goBuild(t, bin, "./cmd/lbsim-desktop")
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
}
