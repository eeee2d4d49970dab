//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lbsim/lbsim/render/lesson"
)

// compareState is the compare view's part of window.lbsim.state().
type compareState struct {
	state
	Replaying bool   `json:"replaying"`
	Message   string `json:"message"`
	Lanes     []struct {
		Label   string          `json:"label"`
		Summary json.RawMessage `json:"summary"`
	} `json:"lanes"`
}

func (p *page) compareState() compareState {
	p.t.Helper()
	return stateAs[compareState](p)
}

// cliVariants decodes the variants of `lbsim compare --json` or `lbsim
// replay --json` of a comparison: label → summary.
func cliVariants(t *testing.T, out []byte) ([]string, []map[string]any) {
	t.Helper()
	var v struct {
		Variants []struct {
			Label   string         `json:"label"`
			Summary map[string]any `json:"summary"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Variants) == 0 {
		t.Fatalf("not a comparison's JSON (%v): %s", err, out)
	}
	var labels []string
	var sums []map[string]any
	for _, x := range v.Variants {
		labels = append(labels, x.Label)
		sums = append(sums, x.Summary)
	}
	return labels, sums
}

// checkLanes compares the page's lanes with the CLI's variants.
func (p *page) checkLanes(what string, s compareState, out []byte) {
	p.t.Helper()
	labels, sums := cliVariants(p.t, out)
	if len(s.Lanes) != len(labels) {
		p.t.Fatalf("%s: the page shows %d lanes, the CLI %d", what, len(s.Lanes), len(labels))
	}
	for i, l := range s.Lanes {
		if got := decodeJSON(p.t, l.Summary); l.Label != labels[i] || !reflect.DeepEqual(got, sums[i]) {
			p.t.Errorf("%s: lane %d at cycle %d: page %q %s\n  cli %q %v", what, i, s.Cycle, l.Label, l.Summary, labels[i], sums[i])
		}
	}
}

// compareRun is the base run of the browser's compare test: three servers
// of speeds 2, 1, 1 with their own queues.
var compareRun = [][2]string{{"seed", "3"}, {"servers", "3"}, {"queues", "per-server"}, {"speeds", "2,1,1"},
	{"rate", "0.2"}, {"wave", "false"}, {"cycles", "2000"}}

// TestBrowserCompare opens the compare view by query parameters, paused at
// a cycle, and checks each lane against `lbsim compare --json`; shares it
// and replays the link to the same lanes; screenshots both lanes; and
// measures the frame rate of one lane and of two at the same speed (a
// measurement in the log, not an assertion).
func TestBrowserCompare(t *testing.T) {
	p := newPage(t)
	var query []string
	args := []string{"compare", "--json", "-"}
	for _, kv := range compareRun {
		query = append(query, kv[0]+"="+kv[1])
		args = append(args, "--"+kv[0]+"="+kv[1])
	}
	p.open("compare=rr:policy=round-robin;p2c:policy=p2c&" + strings.Join(query, "&") + "&speed=600&pause-at=700")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	s := p.compareState()
	if s.Cycle != 700 || len(s.Problems) != 0 {
		t.Fatalf("compare paused at %d, problems %v", s.Cycle, s.Problems)
	}
	out, err := exec.Command(p.lbsim, append(args, "--cycles=700", "--variant", "rr:policy=round-robin", "--variant", "p2c:policy=p2c")...).Output()
	if err != nil {
		t.Fatalf("lbsim compare: %v", err)
	}
	p.checkLanes("?compare=", s, out)
	colours, frac := blankness(t, p.screenshot("page-compare.png"))
	if colours < 8 || frac < 0.05 {
		t.Errorf("the compare view looks blank: %d colours, %.1f%% non-background", colours, 100*frac)
	}

	// Its share link replays both lanes to the same state.
	link, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.lbsim.share()`))
	if err != nil || !strings.Contains(link, "#r=") {
		t.Fatalf("share(): %q %v", link, err)
	}
	if err := chromedp.Do(p.ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(p.ctx, chromedp.Navigate(strings.Replace(link, "speed=600", "speed=max", 1))); err != nil {
		t.Fatal(err)
	}
	// The poll may start while the new document replaces the old one:
	// an error then means "not yet".
	deadline := time.Now().Add(120 * time.Second)
	for {
		done, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`!!(window.lbsim && window.lbsim.state().done)`))
		if err == nil && done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the share link's replay did not end: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r := p.compareState()
	if !r.Replaying || r.Cycle != 700 || !strings.Contains(r.Message, "reproduced exactly") {
		t.Errorf("the share link: replaying %v at cycle %d, %q", r.Replaying, r.Cycle, r.Message)
	}
	p.checkLanes("the share link", r, out)

	// Frame rate of one lane and of two lanes at the same speed.
	one := "queues=per-server&policy=round-robin&seed=5&cycles=100000000&speed=600"
	fps := func(q string) float64 {
		p.open(q)
		p.waitFrames(5)
		s0, t0 := p.state(), time.Now()
		time.Sleep(4 * time.Second) // a measurement window, not a wait for a state
		s1, t1 := p.state(), time.Now()
		return float64(s1.Frames-s0.Frames) / t1.Sub(t0).Seconds()
	}
	f1 := fps(one)
	f2 := fps(one + "&compare=policy=round-robin;policy=p2c")
	t.Logf("frame rate at 600 cycles/s, 10 servers per-server: one lane %.1f frames/s, two lanes %.1f frames/s (%.0f%%)", f1, f2, 100*f2/f1)
}

// TestDesktopCompare opens the compare view in the window (--compare plus
// run flags), runs it to the end at max speed and checks the lanes'
// summaries it prints against `lbsim replay --json` of the CLI's own
// comparison of the same variants.
func TestDesktopCompare(t *testing.T) {
	prefix := desktopPrefix(t)
	bin, cli := builtCommand(t, "./cmd/lbsim-desktop"), builtCommand(t, "./cmd/lbsim")
	snap := filepath.Join(t.TempDir(), "cmp.lbsnap")
	var flags []string
	for _, kv := range compareRun {
		flags = append(flags, "--"+kv[0]+"="+kv[1])
	}
	if out, err := exec.Command(cli, append([]string{"compare", "--snapshot", snap, "--variant", "rr:policy=round-robin", "--variant", "p2c:policy=p2c"}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("lbsim compare --snapshot: %v\n%s", err, out)
	}
	want, err := exec.Command(cli, "replay", snap, "--json", "-").Output()
	if err != nil {
		t.Fatalf("lbsim replay: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	shot := filepath.Join(outDir(t), "desktop-compare.png")
	args := append(append(prefix, bin, "--compare", "rr:policy=round-robin;p2c:policy=p2c"), flags...)
	args = append(args, "--speed", "max", "--exit-at-end", "--json", "-", "--screenshot", shot)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("lbsim-desktop --compare: %v\n%s", err, stderr.String())
	}
	if string(got) != string(want) {
		t.Errorf("lbsim-desktop --compare printed\n%s\nlbsim replay of the CLI's comparison printed\n%s", got, want)
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if colours, frac := blankness(t, png); colours < 8 || frac < 0.05 {
		t.Errorf("the window's compare view looks blank: %d colours, %.1f%% non-background", colours, 100*frac)
	}
}

// TestBrowserCompareInPlace: C pressed while paused, after a server was
// taken down, opens the compare view in place: at the same cycle, still
// paused, each lane with the same change, as `lbsim compare` with that
// change gives; it does not run on.
func TestBrowserCompareInPlace(t *testing.T) {
	p := newPage(t)
	var query []string
	args := []string{"compare", "--json", "-"}
	for _, kv := range compareRun {
		query = append(query, kv[0]+"="+kv[1])
		args = append(args, "--"+kv[0]+"="+kv[1])
	}
	p.open("policy=round-robin&" + strings.Join(query, "&") + "&speed=600&pause-at=300")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	p.serverAction("2", "down")             // down at the next cycle
	p.press("ArrowRight", "ArrowRight", 39) // one cycle: it takes effect
	before := p.ctl()
	if before.Cycle != 301 || len(before.Changes) != 1 {
		t.Fatalf("before C: cycle %d, changes %v; want 301 and the server taken down", before.Cycle, before.Changes)
	}
	p.press("c", "KeyC", 67)
	p.waitFor("window.lbsim.state().lanes && window.lbsim.state().lanes.length == 2", 60*time.Second)
	p.waitFrames(10)
	s := p.compareState()
	if s.Cycle != 301 || !s.Paused {
		t.Fatalf("after C: cycle %d paused %v; want the paused place, cycle 301", s.Cycle, s.Paused)
	}
	v := []string{"--variant", "round-robin:policy=round-robin", "--variant", s.Lanes[1].Label + ":policy=" + s.Lanes[1].Label}
	out, err := exec.Command(p.lbsim, append(append(append(args, "--cycles=301"), setArgs(before.Changes)...), v...)...).Output()
	if err != nil {
		t.Fatalf("lbsim compare: %v", err)
	}
	p.checkLanes("C while paused", s, out)
}

// TestBrowserCompareLessons opens each lesson that shows the compare view
// (?lesson=NAME&quiz=0: queues, speeds, fast-failing, heavy-tails, retry-storm, herding and the later ones) paused at cycle 1,500 and
// checks each lane's summary against `lbsim compare` of the lesson's
// settings and lanes at that cycle: the page's lesson is the CLI's run,
// its fault in every lane.
func TestBrowserCompareLessons(t *testing.T) {
	p := newPage(t)
	n := 0
	for _, l := range lesson.All {
		args := []string{"compare", "--json", "-", "--cycles=1500"}
		var lanes []string
		for _, kv := range l.Params() {
			switch kv[0] {
			case "compare":
				lanes = strings.Split(kv[1], ";")
			case "speed", "pause-at", "present", "theory", "cycles":
			case "set", "fault":
				// A change after cycle 1,500 (the retry storm's spike) does
				// not touch the cycles compared, and the CLI refuses it
				// past its last cycle.
				at, _, _ := strings.Cut(kv[1], ":")
				if kv[0] == "fault" {
					at = kv[1][strings.LastIndex(kv[1], "@")+1:]
				}
				if n, err := strconv.ParseInt(at, 10, 64); err == nil && n > 1500 {
					continue
				}
				args = append(args, "--"+kv[0]+"="+kv[1])
			default:
				args = append(args, "--"+kv[0]+"="+kv[1])
			}
		}
		if lanes == nil {
			continue
		}
		n++
		for _, v := range lanes {
			args = append(args, "--variant", v)
		}
		p.open("lesson=" + l.Name + "&quiz=0&pause-at=1500&speed=max") // at max speed: the pause does not wait on the frame rate; no question asked
		p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 1500", 120*time.Second)
		s := p.compareState()
		out, err := exec.Command(p.lbsim, args...).Output()
		if err != nil {
			t.Fatalf("lbsim %s: %v", strings.Join(args, " "), err)
		}
		p.checkLanes("lesson "+l.Name, s, out)
		p.screenshot("page-lesson-" + l.Name + ".png")
	}
	if n < 5 {
		t.Fatalf("%d lessons in the compare view, want the five (queues, speeds, fast-failing, heavy-tails, retry-storm)", n)
	}
}
