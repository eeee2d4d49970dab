//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// ctlState is the part of window.lbsim.state() the control tests read.
type ctlState struct {
	state
	Hash      string         `json:"hash"`
	Replaying bool           `json:"replaying"`
	Error     string         `json:"error"`
	Message   string         `json:"message"`
	Changes   []string       `json:"changes"`
	Config    map[string]any `json:"config"`
	Focus     string         `json:"focus"`
	Present   bool           `json:"present"`
	Theory    bool           `json:"theory"`
	Controls  []ctlRect      `json:"controls"`
	Servers   []ctlRect      `json:"servers"`
}

type ctlRect struct {
	ID    string  `json:"id"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	Value string  `json:"value"`
}

func (p *page) ctl() ctlState {
	p.t.Helper()
	return stateAs[ctlState](p)
}

// stateAs reads window.lbsim.state() into the part of it a test reads.
func stateAs[T any](p *page) T {
	p.t.Helper()
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](`window.lbsim.state()`))
	if err != nil {
		p.t.Fatalf("state(): %v", err)
	}
	var s T
	if err := json.Unmarshal(raw, &s); err != nil {
		p.t.Fatalf("state(): %v: %s", err, raw)
	}
	return s
}

// rect returns a control's rectangle in CSS pixels.
func (p *page) rect(id string) ctlRect {
	p.t.Helper()
	return p.find(id, p.ctl().Controls)
}

// server returns a server box's rectangle in CSS pixels.
func (p *page) server(id string) ctlRect {
	p.t.Helper()
	return p.find(id, p.ctl().Servers)
}

func (p *page) find(id string, rs []ctlRect) ctlRect {
	p.t.Helper()
	dpr, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`window.devicePixelRatio`))
	if err != nil || dpr <= 0 {
		dpr = 1
	}
	for _, c := range rs {
		if c.ID == id {
			return ctlRect{ID: id, X: c.X / dpr, Y: c.Y / dpr, W: c.W / dpr, H: c.H / dpr, Value: c.Value}
		}
	}
	p.t.Fatalf("no control or server %q in state()", id)
	return ctlRect{}
}

// mouse sends one pointer event and waits two frames, so ebiten, which
// samples input once per tick, sees it.
func (p *page) mouse(typ input.DispatchMouseEventType, x, y float64, down bool) {
	p.t.Helper()
	var buttons int64
	if down {
		buttons = 1
	}
	_, err := chromedp.Call(p.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: buttons, ClickCount: 1,
	})
	if err != nil {
		p.t.Fatalf("mouse %s: %v", typ, err)
	}
	p.waitFrames(2)
}

func (p *page) click(x, y float64) {
	p.mouse(input.DispatchMouseEventTypeMousePressed, x, y, true)
	p.mouse(input.DispatchMouseEventTypeMouseReleased, x, y, false)
}

// serverAction clicks server id's box, which opens its menu, and then the
// menu's entry action (down, up, slow, fail, hang, heal).
func (p *page) serverAction(id, action string) {
	p.t.Helper()
	sv := p.server(id)
	p.click(sv.X+sv.W/2, sv.Y+sv.H/2)
	p.waitFor("window.lbsim.state().controls.some(c => c.id == 'server:"+action+"')", 30*time.Second)
	r := p.rect("server:" + action)
	p.click(r.X+r.W/2, r.Y+r.H/2)
	p.waitFor("!window.lbsim.state().controls.some(c => c.id.startsWith('server:'))", 30*time.Second)
}

// TestBrowserServerFail clicks a server of a paused run, picks "fail" in
// its menu, runs on and pauses: the page's summary, errors counted, is
// `lbsim run` with the same --set changes; the server reads failing.
func TestBrowserServerFail(t *testing.T) {
	p := newPage(t)
	const run = "seed=5&servers=6&min-servers=6&max-servers=6&wave=false&rate=0.2&initial-per-server=0"
	p.open(run + "&speed=600&pause-at=200")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 200", 120*time.Second)
	p.serverAction("3", "fail")
	p.press("ArrowRight", "ArrowRight", 39) // one cycle: it takes effect
	p.waitFor("window.lbsim.state().servers.find(s => s.id == '3').value.endsWith(',failing')", 30*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().cycle > 400", 60*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	s := p.ctl()
	if len(s.Changes) != 1 || s.Changes[0] != "201:fail=3" {
		t.Fatalf("after picking fail on server 3 at cycle 200: changes %v, want [201:fail=3]", s.Changes)
	}
	var args []string
	for _, kv := range strings.Split(run, "&") {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--"+k+"="+v)
	}
	p.checkCtl(s, args...)
	if got := decodeJSON(t, s.Summary); got["errors"] == nil || got["errors"].(float64) < 1 {
		t.Errorf("a failing server for %d cycles: errors %v", s.Cycle-201, got["errors"])
	}
	p.screenshot("page-server-fail.png")
}

// typeDigits types decimal digits with real key events.
func (p *page) typeDigits(s string) {
	for _, r := range s {
		p.press(string(r), "Digit"+string(r), int64(r))
	}
}

// setArgs turns state().changes into `lbsim run --set` flags.
func setArgs(changes []string) []string {
	var a []string
	for _, c := range changes {
		a = append(a, "--set", c)
	}
	return a
}

func (p *page) checkCtl(s ctlState, args ...string) {
	p.t.Helper()
	p.checkSummary(s.state, append(args, setArgs(s.Changes)...)...)
}

// TestBrowserControls drives the page with real input in headless
// Chromium: a slider dragged with the mouse and moved with the keyboard
// changes the model's setting and then its counters, exactly as `lbsim run
// --set` does; typing a seed and Enter restarts with it; save then load
// reproduces the state hash; the page's share link replays in the CLI; a
// share link made by the CLI replays in a fresh page to the same summary as
// `lbsim replay`; a corrupted link shows a message and the page goes on.
func TestBrowserControls(t *testing.T) {
	p := newPage(t)
	p.open("seed=42&servers=10&speed=20")
	p.waitFor("window.lbsim.state().cycle > 5", 60*time.Second)

	// Drag the arrival-rate slider to three quarters of its track.
	r := p.rect("rate")
	y := r.Y + r.H - 8
	x0, x1 := r.X+8+(r.W-16)*0.5, r.X+8+(r.W-16)*0.75
	p.mouse(input.DispatchMouseEventTypeMousePressed, x0, y, true)
	p.mouse(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, true)
	p.mouse(input.DispatchMouseEventTypeMouseMoved, x1, y, true)
	p.mouse(input.DispatchMouseEventTypeMouseReleased, x1, y, false)
	p.waitFor("window.lbsim.state().changes.length == 1", 30*time.Second)
	s := p.ctl()
	if !strings.Contains(s.Changes[0], ":rate=") || s.Config["rate"] == "0.45" {
		t.Fatalf("after the drag: changes %v, rate %v", s.Changes, s.Config["rate"])
	}
	var at int64
	var val string
	fmt.Sscanf(strings.Replace(s.Changes[0], ":rate=", " ", 1), "%d %s", &at, &val)
	if s.Config["rate"] != val || s.Cycle < at {
		t.Fatalf("change %s took effect at %d, the model's rate is %v", s.Changes[0], s.Cycle, s.Config["rate"])
	}
	t.Logf("dragged the rate slider: %s (value %s)", s.Changes[0], val)
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle > %d", at+40), 180*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	s = p.ctl()
	p.checkCtl(s, "--seed", "42", "--servers", "10")
	// ... and the counters moved away from the run without the change.
	got := decodeJSON(t, s.Summary)
	without := p.cliSummary("--seed", "42", "--servers", "10", "--cycles", fmt.Sprint(s.Cycle))
	if reflect.DeepEqual(got["generated"], without["generated"]) {
		t.Errorf("the rate change did not change the generated count (%v)", got["generated"])
	}
	p.screenshot("page-controls.png")

	// The keyboard: the slider keeps the focus; → is one step up at the
	// next cycle; Esc leaves the focus, then → steps one cycle.
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor("window.lbsim.state().controls.find(c => c.id == 'rate').value != '"+val+"'", 30*time.Second)
	p.press("Escape", "Escape", 27)
	c1 := p.ctl().Cycle
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle == %d && window.lbsim.state().changes.length == 2", c1+1), 30*time.Second)
	s = p.ctl()
	p.checkCtl(s, "--seed", "42", "--servers", "10")
	t.Logf("keyboard: changes %v, rate now %v", s.Changes, s.Config["rate"])

	// Seed field: click it, type, Enter.
	sf := p.rect("seed")
	p.click(sf.X+sf.W*0.6, sf.Y+sf.H/2)
	p.typeDigits("12345")
	p.press("Enter", "Enter", 13)
	p.waitFor("window.lbsim.state().seed == 12345 && window.lbsim.state().changes.length == 0", 30*time.Second)
	p.waitFor("window.lbsim.state().cycle > 20", 60*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	p.checkCtl(p.ctl(), "--seed", "12345", "--servers", "10")

	// Click server 2, "take down": down at the next cycle; → steps; click
	// it again, "bring up": up.
	p.serverAction("2", "down")
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor("window.lbsim.state().servers.find(s => s.id == '2').value == 'down'", 30*time.Second)
	s = p.ctl()
	if len(s.Changes) != 1 || !strings.HasSuffix(s.Changes[0], ":down=2") {
		t.Fatalf("click on server 2: changes %v", s.Changes)
	}
	p.checkCtl(s, "--seed", "12345", "--servers", "10")
	p.serverAction("2", "up")
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor("window.lbsim.state().servers.find(s => s.id == '2').value != 'down'", 30*time.Second)
	s = p.ctl()
	p.checkCtl(s, "--seed", "12345", "--servers", "10")
	t.Logf("server clicks: %v", s.Changes)

	// Save, then load: the same state hash at the same cycle.
	p.open("seed=42&servers=10&speed=3000&pause-at=400")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 400", 120*time.Second)
	p.press("Tab", "Tab", 9) // focus: the rate slider
	p.press("End", "End", 35)
	p.press("Escape", "Escape", 27)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().cycle > 900", 60*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	saved := p.ctl()
	if len(saved.Changes) != 1 || saved.Changes[0] != "401:rate=3" {
		t.Fatalf("changes before saving: %v", saved.Changes)
	}
	data, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](`Array.from(window.lbsim.saveBytes())`))
	if err != nil {
		t.Fatalf("saveBytes: %v", err)
	}
	var bytes []byte
	var nums []int
	if err := json.Unmarshal(data, &nums); err != nil || len(nums) == 0 {
		t.Fatalf("saveBytes: %v %s", err, data)
	}
	for _, n := range nums {
		bytes = append(bytes, byte(n))
	}
	file := filepath.Join(t.TempDir(), "saved.lbsnap")
	if err := os.WriteFile(file, bytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, page := cliJSON(t, p.lbsim, "replay", file, "--json", "-"), decodeJSON(t, saved.Summary); !reflect.DeepEqual(rep, page) {
		t.Errorf("lbsim replay of the saved snapshot:\n %v\npage %v", rep, page)
	}
	msg, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf(`window.lbsim.load(new Uint8Array(%s))`, data)))
	if err != nil || msg != "" {
		t.Fatalf("load: %q %v", msg, err)
	}
	p.waitFor("window.lbsim.state().replaying && window.lbsim.state().done", 120*time.Second)
	s = p.ctl()
	if s.Hash != saved.Hash || s.Cycle != saved.Cycle {
		t.Errorf("loaded: cycle %d hash %s, saved at cycle %d hash %s", s.Cycle, s.Hash, saved.Cycle, saved.Hash)
	}
	t.Logf("save→load: cycle %d hash %s, %d bytes; %s", s.Cycle, s.Hash, len(bytes), s.Message)
	p.screenshot("page-replay.png")
	loaded := s

	// The scrub bar seeks back (re-simulating), and a slider moved during
	// the replay forks a new run from there, keeping the changes so far.
	sc := p.rect("scrub")
	p.click(sc.X+8+(sc.W-16)*0.5, sc.Y+sc.H-8)
	p.waitFor(fmt.Sprintf("window.lbsim.state().replaying && window.lbsim.state().paused && window.lbsim.state().cycle < %d", loaded.Cycle), 30*time.Second)
	s = p.ctl()
	p.checkCtl(s, "--seed", "42", "--servers", "10")
	p.press("Tab", "Tab", 9) // from the scrub bar (the last control) to the rate slider
	p.press("ArrowLeft", "ArrowLeft", 37)
	p.waitFor("!window.lbsim.state().replaying", 30*time.Second)
	p.press("Escape", "Escape", 27)
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle == %d && window.lbsim.state().changes.length == 2", s.Cycle+1), 30*time.Second)
	forked := p.ctl()
	if forked.Config["cycles"] != float64(100000) || forked.Changes[0] != "401:rate=3" {
		t.Errorf("fork at %d: cycles %v changes %v", s.Cycle, forked.Config["cycles"], forked.Changes)
	}
	p.checkCtl(forked, "--seed", "42", "--servers", "10")
	t.Logf("scrubbed to %d, forked: changes %v", s.Cycle, forked.Changes)
	// The replay is still what the share link below is made of: load it again.
	if msg, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf(`window.lbsim.load(new Uint8Array(%s))`, data))); err != nil || msg != "" {
		t.Fatalf("load again: %q %v", msg, err)
	}
	p.waitFor("window.lbsim.state().replaying && window.lbsim.state().done", 120*time.Second)
	s = p.ctl()

	// The page's share link replays in the CLI to the page's summary. It
	// also goes to the clipboard, which the page may write and, here, read.
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.Call(p.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted,
		}); err != nil {
			t.Fatalf("permission %s: %v", name, err)
		}
	}
	link, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.lbsim.share()`))
	if err != nil || !strings.Contains(link, "#r=") {
		t.Fatalf("share(): %q %v", link, err)
	}
	clip, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	if err != nil || clip != link {
		t.Errorf("the clipboard holds %q (%v), want the share link %q", clip, err, link)
	}
	hash, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.hash`))
	if !strings.HasPrefix(hash, "#r=") || !strings.HasSuffix(link, hash) {
		t.Errorf("location.hash %q, link %q", hash, link)
	}
	if rep, page := cliJSON(t, p.lbsim, "replay", "--link", link, "--json", "-"), decodeJSON(t, s.Summary); !reflect.DeepEqual(rep, page) {
		t.Errorf("lbsim replay --link of the page's link:\n %v\npage %v", rep, page)
	}

	// A share link from the CLI, opened in a fresh page, replays to the
	// same summary as lbsim replay.
	snap := filepath.Join(t.TempDir(), "cli.lbsnap")
	if out, err := exec.Command(p.lbsim, "run", "--seed", "7", "--servers", "10", "--cycles", "3000",
		"--set", "300:rate=0.9", "--set", "900:scale-up=60", "--set", "900:scale-down=30", "--snapshot", snap, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("lbsim run --snapshot: %v\n%s", err, out)
	}
	linkOut, err := exec.Command(p.lbsim, "share", "--base", p.url+"/index.html?speed=max", snap).Output()
	if err != nil {
		t.Fatalf("lbsim share: %v", err)
	}
	fresh, cancel := chromedp.NewContext(p.ctx) // a new tab
	defer cancel()
	tab := &page{t: t, ctx: fresh, url: p.url, dir: p.dir, lbsim: p.lbsim}
	if _, err := chromedp.Run(fresh, chromedp.Navigate(strings.TrimSpace(string(linkOut)))); err != nil {
		t.Fatalf("open the share link: %v", err)
	}
	tab.waitFor("window.lbsim && window.lbsim.state().replaying && window.lbsim.state().done", 120*time.Second)
	s = tab.ctl()
	if rep, page := cliJSON(t, p.lbsim, "replay", snap, "--json", "-"), decodeJSON(t, s.Summary); !reflect.DeepEqual(rep, page) || s.Cycle != 3000 {
		t.Errorf("share link at cycle %d:\n page %v\n  cli %v", s.Cycle, page, rep)
	}
	if !strings.Contains(s.Message, "reproduced exactly") {
		t.Errorf("the replay's end says %q", s.Message)
	}
	// The same link with pause-at stops there, with the summary of lbsim
	// run and the changes up to that cycle.
	frag := strings.TrimSpace(string(linkOut))
	frag = frag[strings.Index(frag, "#r="):]
	if _, err := chromedp.Run(fresh, chromedp.Navigate(p.url+"/index.html?speed=3000&pause-at=1000"+frag)); err != nil {
		t.Fatal(err)
	}
	tab.waitFor("window.lbsim && window.lbsim.state().replaying && window.lbsim.state().paused && window.lbsim.state().cycle == 1000", 120*time.Second)
	s = tab.ctl()
	tab.checkCtl(s, "--seed", "7", "--servers", "10")
	if len(s.Changes) != 3 {
		t.Errorf("changes at 1000: %v", s.Changes)
	}
	cancel()

	// A corrupted link: a message, and the page runs its own settings.
	bad := frag[:len(frag)-7] + "AAAAAAA"
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(p.url+"/index.html?seed=42&servers=10&speed=20"+bad)); err != nil {
		t.Fatal(err)
	}
	p.waitFor("window.lbsim && window.lbsim.state().frames > 0", 120*time.Second)
	s = p.ctl()
	if s.Error == "" || s.Replaying || !strings.Contains(s.Error, "share link") {
		t.Errorf("corrupted link: error %q replaying %v", s.Error, s.Replaying)
	}
	shown, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("message")).display + "|" + document.getElementById("message-text").textContent`))
	if !strings.HasPrefix(shown, "block|") || !strings.Contains(shown, "share link") {
		t.Errorf("corrupted link: the page shows %q", shown)
	}
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle > %d", s.Cycle+3), 60*time.Second)
	t.Logf("corrupted link: %s", s.Error)
	p.screenshot("page-bad-link.png")

	// Load through the page's file picker (the input the L key opens).
	if _, err := chromedp.Run(p.ctx, chromedp.SetUploadFiles(chromedp.ID("file"), []string{snap})); err != nil {
		t.Fatalf("file picker: %v", err)
	}
	p.waitFor("window.lbsim.state().replaying && window.lbsim.state().config.cycles == 3000 && window.lbsim.state().error == ''", 30*time.Second)

	// A lesson opened ready to project: ?lesson=erlang (an M/M/c run whose
	// preset opens the theory panel) with present=1; its summary is the
	// CLI's with the lesson's settings. T turns the panel off and on again;
	// K opens the share dialog and Esc closes it.
	p.open("lesson=erlang&present=1&pause-at=300")
	p.waitFor("window.lbsim.state().paused", 60*time.Second)
	ls := p.ctl()
	if !ls.Present || !ls.Theory || ls.Cycle != 300 {
		t.Errorf("lesson=erlang&present=1: present %v theory %v cycle %d", ls.Present, ls.Theory, ls.Cycle)
	}
	p.checkSummary(ls.state, "--seed", "42", "--servers", "10", "--min-servers", "10", "--max-servers", "10", "--wave=false",
		"--service", "geometric", "--mean-service", "20", "--rate", "0.4", "--block", "none", "--scale-down", "0", "--initial-per-server", "0")
	p.screenshot("page-present-theory.png")
	p.press("t", "KeyT", 84)
	p.waitFor("!window.lbsim.state().theory", 30*time.Second)
	p.press("t", "KeyT", 84)
	p.waitFor("window.lbsim.state().theory", 30*time.Second)
	p.press("k", "KeyK", 75)
	p.waitFor("window.lbsim.state().focus == 'share-make'", 30*time.Second)
	p.screenshot("page-share.png")
	p.press("Escape", "Escape", 27)
	p.waitFor("window.lbsim.state().focus == ''", 30*time.Second)
	p.press("h", "KeyH", 72)
	p.waitFrames(2)
	p.screenshot("page-help.png")
	p.press("Escape", "Escape", 27)

	// The dice (D) restarts with a random seed.
	p.press("d", "KeyD", 68)
	p.waitFor("window.lbsim.state().seed != 42 && window.lbsim.state().error == ''", 30*time.Second)
	diced := p.ctl()
	t.Logf("dice: seed %s at cycle %d", diced.Seed, diced.Cycle)

	// S downloads the run: the file the browser saves replays in the CLI
	// to the page's summary.
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	downloads := t.TempDir()
	if _, err := chromedp.Call(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads,
	}); err != nil {
		t.Fatalf("download behaviour: %v", err)
	}
	paused := p.ctl()
	p.press("s", "KeyS", 83)
	downloaded := waitForFile(t, downloads, 60*time.Second)
	if fromFile, page := cliJSON(t, p.lbsim, "replay", downloaded, "--json", "-"), decodeJSON(t, paused.Summary); !reflect.DeepEqual(fromFile, page) {
		t.Errorf("lbsim replay of the downloaded snapshot:\n %v\npage %v", fromFile, page)
	}
	t.Logf("download: %s replays to the page's summary at cycle %d", filepath.Base(downloaded), paused.Cycle)

	// Dropping a snapshot file on the page replays it.
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([new Uint8Array(%s)], "dropped.lbsnap"));
		window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, cancelable: true }));
	})()`, data))); err != nil {
		t.Fatalf("drop: %v", err)
	}
	// The dropped snapshot is the run saved above, cut at its cycle.
	p.waitFor(fmt.Sprintf("window.lbsim.state().replaying && window.lbsim.state().seed == 42 && window.lbsim.state().config.cycles == %d", saved.Cycle), 60*time.Second)
	t.Logf("drop: replaying the run saved at cycle %d", saved.Cycle)
}

// waitForFile waits for a finished download in dir (Chromium writes a
// .crdownload file first) and returns its path.
func waitForFile(t *testing.T, dir string, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".crdownload") {
				if info, err := e.Info(); err == nil && info.Size() > 0 {
					return filepath.Join(dir, e.Name())
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no download in %s after %v", dir, d)
	return ""
}
