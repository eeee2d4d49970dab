//go:build !js

package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDesktopSaveAndShareKeys types S and K into the native window, on a
// display of its own (Xvfb) with real key events (xdotool through XTEST):
// the file S saves replays in the CLI to the summary of the same run cut at
// the file's cycle, and the link K prints replays to the same.
func TestDesktopSaveAndShareKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds the desktop command with cgo")
	}
	for _, tool := range []string{"Xvfb", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: install xvfb and xdotool (make deps) to type keys into the window", tool)
		}
	}
	dir := t.TempDir()
	bin, cli := builtCommand(t, "./cmd/lbsim-desktop"), builtCommand(t, "./cmd/lbsim")
	display := startXvfb(t)
	env := append(os.Environ(), "DISPLAY="+display)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	saves := filepath.Join(dir, "saves")
	if err := os.Mkdir(saves, 0o755); err != nil {
		t.Fatal(err)
	}
	app := exec.CommandContext(ctx, bin, "--seed", "42", "--servers", "10", "--speed", "200", "--save-dir", saves)
	app.Env = env
	var stderr syncBuffer
	app.Stderr = &stderr
	if err := app.Start(); err != nil {
		t.Fatalf("lbsim-desktop: %v", err)
	}
	defer func() { app.Process.Kill(); app.Wait() }()
	xdo := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, "xdotool", args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("xdotool %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	win := strings.Fields(xdo("search", "--sync", "--name", "lbsim"))[0]
	xdo("windowfocus", "--sync", win)

	// Keys typed before the window's first frame are not seen: type again
	// until the window answers, within a generous deadline.
	until := func(key string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("the window did not answer %s; its output:\n%s", key, stderr.String())
			}
			xdo("key", key)
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && !done(); {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	var saved string
	until("s", func() bool {
		files, _ := filepath.Glob(filepath.Join(saves, "*.lbsnap"))
		if len(files) > 0 {
			saved = files[0]
		}
		return saved != ""
	})
	m := regexp.MustCompile(`cycle(\d+)\.lbsnap$`).FindStringSubmatch(saved)
	if m == nil {
		t.Fatalf("saved file %s: want a name ending cycleN.lbsnap", saved)
	}
	want := cliJSON(t, cli, "run", "--seed", "42", "--servers", "10", "--cycles", m[1], "--json", "-")
	if got := cliJSON(t, cli, "replay", saved, "--json", "-"); !reflect.DeepEqual(got, want) {
		t.Errorf("the file S saved replays to\n%v\nwant the run cut at cycle %s:\n%v", got, m[1], want)
	}

	// K opens the share dialog, K again makes the link (the whole run, by
	// default): a whole link to the page make serve serves.
	var link string
	until("k", func() bool {
		link = regexp.MustCompile(`share link: (http://127\.0\.0\.1:8080/#r=\S+)`).FindString(stderr.String())
		return link != ""
	})
	link = link[strings.Index(link, "#r="):]
	if !filepath.IsAbs(saved) || !strings.Contains(stderr.String(), "saved "+saved) {
		t.Errorf("the window did not print the saved file's full path %s:\n%s", saved, stderr.String())
	}

	sum := cliJSON(t, cli, "replay", "--link", "http://localhost/"+link, "--json", "-")
	cycles, _ := sum["cycles"].(float64)
	if again := cliJSON(t, cli, "run", "--seed", "42", "--servers", "10", "--cycles", strconv.FormatFloat(cycles, 'f', 0, 64), "--json", "-"); !reflect.DeepEqual(sum, again) {
		t.Errorf("the link K printed replays to\n%v\nwant the run cut at cycle %.0f:\n%v", sum, cycles, again)
	}
	t.Logf("S saved %s; K printed a link of %d characters", filepath.Base(saved), len(link))
}

// startXvfb starts an X server on a free display, stopped when the test
// ends, and returns the display's name.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x720x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// syncBuffer collects a command's output for the test to read while the
// command still writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
