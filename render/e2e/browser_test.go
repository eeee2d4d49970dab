//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/lbsim/lbsim/internal/pageserve"
)

// chromiumPath finds Debian's chromium (or LBSIM_CHROMIUM).
func chromiumPath() string {
	if p := os.Getenv("LBSIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

var (
	pageOnce sync.Once
	pageDir  string
	pageErr  string
	brotliOK chan error // the brotli copy is written (nil) or failed
)

// builtPage builds the page once for all the browser tests of the
// package, as make web builds it: the module (trimmed, stripped, the
// version stamped), its gzip -9 copy, index.html and wasm_exec.js. Its
// brotli -q 11 copy is written meanwhile (pageBrotli waits for it); until
// then a browser gets the gzip copy.
func builtPage(t *testing.T) string {
	t.Helper()
	pageOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lbsim-e2e-")
		if err != nil {
			pageErr = err.Error()
			return
		}
		pageErr = "the build failed"
		root := moduleRoot(t)
		wasm := filepath.Join(dir, "lbsim.wasm")
		goBuild(t, wasm, "./wasm", true, "GOOS=js", "GOARCH=wasm")
		if out, err := exec.Command("gzip", "-9", "-k", "-f", wasm).CombinedOutput(); err != nil {
			pageErr = fmt.Sprintf("gzip -9 (make deps installs it): %v %s", err, out)
			return
		}
		copyFile(t, filepath.Join(root, "index.html"), filepath.Join(dir, "index.html"))
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			pageErr = err.Error()
			return
		}
		copyFile(t, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"), filepath.Join(dir, "wasm_exec.js"))
		brotliOK = make(chan error, 1)
		go func() { brotliOK <- brotliCopy(wasm) }()
		pageDir, pageErr = dir, ""
	})
	if pageErr != "" || pageDir == "" {
		t.Fatalf("building the page: %s", pageErr)
	}
	return pageDir
}

// brotliCopy writes name.br as make web does (brotli -q 11), under
// another name first: the server sends it only once whole. It runs at
// the lowest priority (nice), so the tests beside it keep the cores: only
// the two that need the copy wait for it, and they run late.
func brotliCopy(name string) error {
	part := name + ".part"
	args := []string{"brotli", "-q", "11", "-f", "-o", part, name}
	if _, err := exec.LookPath("nice"); err == nil {
		args = append([]string{"nice", "-n", "19"}, args...)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("brotli -q 11 (make deps installs it): %v %s", err, out)
	}
	return os.Rename(part, name+".br")
}

// pageBrotli builds the page if needed and waits for its brotli copy.
func pageBrotli(t *testing.T) string {
	t.Helper()
	dir := builtPage(t)
	err := <-brotliOK
	brotliOK <- err // for the next caller
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMain ends the shared browser and removes the built page and
// commands after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if browserCancel != nil {
		browserCancel()
	}
	if pageDir != "" {
		if brotliOK != nil {
			<-brotliOK // brotli writes there until it ends
		}
		os.RemoveAll(pageDir)
	}
	if commandDir != "" {
		os.RemoveAll(commandDir)
	}
	os.Exit(code)
}

// page is the served web page and a browser tab on it.
type page struct {
	t     *testing.T
	ctx   context.Context
	url   string
	dir   string
	lbsim string // the CLI binary
}

func newPage(t *testing.T) *page {
	t.Helper()
	return newPageWith(t)
}

// newPageWith is newPage with more of Chromium's flags. Without flags the
// page is a new tab of the browser all the package's tests share (started
// once: a browser's start, its GPU process included, costs seconds); with
// flags, a browser of its own.
func newPageWith(t *testing.T, flags ...chromedp.ExecAllocatorOption) *page {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short: builds the wasm and drives headless Chromium")
	}
	chrome := chromiumPath()
	if chrome == "" {
		t.Skip("chromium is not installed: apt-get install chromium (.ci/run installs it) to run the browser test")
	}
	dir := builtPage(t)
	srv := httptest.NewServer(pageserve.Handler(dir))
	t.Cleanup(srv.Close)

	var ctx context.Context
	if len(flags) == 0 {
		tab, cancel := chromedp.NewContext(sharedBrowser(t, chrome))
		t.Cleanup(cancel) // closes the tab
		// Every tab starts at the size the browser's window has.
		if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
			t.Fatalf("a new tab: %v", err)
		}
		ctx = tab
	} else {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), append(chromeOptions(chrome, t.TempDir()), flags...)...)
		c, cancelC := chromedp.NewContext(actx)
		t.Cleanup(func() { cancelC(); cancelA() })
		ctx = c
	}
	return &page{t: t, ctx: ctx, url: srv.URL, dir: dir, lbsim: builtCommand(t, "./cmd/lbsim")}
}

// chromeOptions are the flags the tests start Chromium with, its profile
// in dir.
func chromeOptions(chrome, dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
	}
}

var (
	browserMu     sync.Mutex
	browserCtx    context.Context // the shared browser; nil until a test needs it
	browserCancel func()          // ends it and removes its profile; TestMain calls it
)

// sharedBrowser starts Chromium once for the package's tests and returns
// its context, from which each test opens a tab.
func sharedBrowser(t *testing.T, chrome string) context.Context {
	t.Helper()
	browserMu.Lock()
	defer browserMu.Unlock()
	if browserCtx != nil {
		return browserCtx
	}
	dir, err := os.MkdirTemp("", "lbsim-e2e-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromeOptions(chrome, dir)...)
	bctx, cancelB := chromedp.NewContext(actx)
	stop := func() { cancelB(); cancelA(); os.RemoveAll(dir) }
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		stop()
		t.Fatalf("starting Chromium: %v", err)
	}
	browserCtx, browserCancel = bctx, stop
	return bctx
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// state is window.lbsim.state() as the test reads it.
type state struct {
	Cycle    int64           `json:"cycle"`
	Frames   int64           `json:"frames"`
	Paused   bool            `json:"paused"`
	Done     bool            `json:"done"`
	Seed     json.RawMessage `json:"seed"`
	Speed    json.RawMessage `json:"speed"`
	Summary  json.RawMessage `json:"summary"`
	Problems []string        `json:"problems"`
}

func (p *page) open(query string) time.Duration {
	p.t.Helper()
	start := time.Now()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.url+"/index.html?"+query)); err != nil {
		p.t.Fatalf("navigate: %v", err)
	}
	p.waitFor("window.lbsim && window.lbsim.state().frames > 0", 120*time.Second)
	return time.Since(start)
}

func (p *page) state() state {
	p.t.Helper()
	return p.ctl().state
}

// waitFor polls a JavaScript condition with a generous deadline: headless
// Chromium draws only a few frames per second here.
func (p *page) waitFor(cond string, d time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, d)
	defer cancel()
	// chromedp's Poll gives up after 30 seconds of its own unless told
	// otherwise: d is the one deadline (at a load average of 20 the page
	// draws 2 frames a second, and a wait of 180 s ended at 30).
	poll := chromedp.Poll[bool](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(d))
	if _, err := chromedp.Run(ctx, poll); err != nil {
		p.t.Fatalf("waiting for %s: %v (state %+v)", cond, err, p.state())
	}
}

// waitFrames waits until n more frames have been drawn.
func (p *page) waitFrames(n int64) {
	p.t.Helper()
	f := p.state().Frames
	p.waitFor(fmt.Sprintf("window.lbsim.state().frames >= %d", f+n), 60*time.Second)
}

// press sends one key: down, two frames, up, two frames — ebiten samples
// input once per tick and misses a press and release sent back to back.
func (p *page) press(key, code string, vk int64) {
	p.t.Helper()
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		_, err := chromedp.Call(p.ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: key, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk,
		})
		if err != nil {
			p.t.Fatalf("key %s: %v", code, err)
		}
		p.waitFrames(2)
	}
}

// cliSummary runs `lbsim run` with args and returns its JSON summary.
func (p *page) cliSummary(args ...string) map[string]any {
	p.t.Helper()
	return cliJSON(p.t, p.lbsim, append([]string{"run", "--json", "-"}, args...)...)
}

func (p *page) checkSummary(s state, args ...string) {
	p.t.Helper()
	got := decodeJSON(p.t, s.Summary)
	want := p.cliSummary(append(args, "--cycles", fmt.Sprint(s.Cycle))...)
	if !reflect.DeepEqual(got, want) {
		p.t.Errorf("state().summary at cycle %d differs from lbsim run %v:\n page %s\n  cli %v", s.Cycle, args, s.Summary, want)
	}
}

func (p *page) screenshot(name string) []byte {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(outDir(p.t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
	return png
}

// TestBrowserPage loads the page in headless Chromium and checks that it
// draws, runs, pauses, steps exactly one cycle, agrees with `lbsim run`,
// stops exactly at pause-at, reports a bad parameter and fast-forwards.
func TestBrowserPage(t *testing.T) {
	p := newPage(t)

	first := p.open("seed=42&servers=10&speed=20")
	t.Logf("load to first frame: %v", first)
	// The module came as its gzip copy, and the page knew its real size.
	sizes, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`(() => {
		const e = performance.getEntriesByType("resource").find((r) => r.name.endsWith("/lbsim.wasm"));
		return e ? [e.encodedBodySize, e.decodedBodySize] : [];
	})()`))
	if err != nil || len(sizes) != 2 || sizes[0] <= 0 || sizes[0]*2 > sizes[1] {
		t.Errorf("lbsim.wasm transferred as %v bytes (encoded, decoded), want the gzip copy: %v", sizes, err)
	} else {
		t.Logf("lbsim.wasm: %.1f MB sent for %.1f MB", sizes[0]/1048576, sizes[1]/1048576)
	}
	s := p.state()
	if string(s.Seed) != "42" || len(s.Problems) != 0 {
		t.Errorf("seed %s problems %v", s.Seed, s.Problems)
	}

	// The canvas shows the scene: many colours, mostly not background.
	p.waitFrames(3)
	colours, frac := blankness(t, p.screenshot("page.png"))
	if colours < 8 || frac < 0.05 {
		t.Errorf("the page looks blank: %d colours, %.1f%% non-background", colours, 100*frac)
	}

	// The cycle advances by itself.
	c0 := p.state().Cycle
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle > %d", c0), 60*time.Second)

	// Space pauses.
	chromedp.Do(p.ctx, chromedp.MouseClickXY(640, 20)) // the HUD: focus without touching a control or a server
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	c1 := p.state().Cycle
	p.waitFrames(5)
	if c := p.state().Cycle; c != c1 {
		t.Fatalf("paused, the cycle moved from %d to %d", c1, c)
	}

	// → steps exactly one cycle, and the page agrees with the CLI.
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFrames(3)
	s = p.state()
	if s.Cycle != c1+1 || !s.Paused {
		t.Fatalf("→ from %d went to %d (paused %v)", c1, s.Cycle, s.Paused)
	}
	p.checkSummary(s, "--seed", "42", "--servers", "10")

	// Space resumes.
	p.press(" ", "Space", 32)
	p.waitFor(fmt.Sprintf("window.lbsim.state().cycle > %d", s.Cycle), 60*time.Second)

	// pause-at stops exactly there, and stays.
	p.open("seed=42&servers=10&speed=600&pause-at=777")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	p.waitFrames(3)
	s = p.state()
	if s.Cycle != 777 || !s.Paused {
		t.Fatalf("pause-at=777: cycle %d paused %v", s.Cycle, s.Paused)
	}
	p.checkSummary(s, "--seed", "42", "--servers", "10")
	p.screenshot("page-pause-at.png")

	// Changes and repeated ranges in the address mean what --set, --fault
	// and --block mean on the command line.
	p.open("seed=9&servers=6&speed=600&pause-at=400&set=100:rate=1.5&set=250:scale-up=60&fault=down:2@150&fault=up:2@300&block=10.0.0.0/8&block=64.0.0.0/2")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	s = p.state()
	if s.Cycle != 400 {
		t.Fatalf("pause-at=400 with changes: cycle %d", s.Cycle)
	}
	p.checkSummary(s, "--seed", "9", "--servers", "6", "--set", "100:rate=1.5", "--set", "250:scale-up=60",
		"--fault", "down:2@150", "--fault", "up:2@300", "--block", "10.0.0.0/8", "--block", "64.0.0.0/2")

	// Per-server queues with p2c over servers of unequal speed: the page's
	// summary, tail latency included, is the CLI's.
	p.open("seed=12&servers=5&speed=600&pause-at=600&queues=per-server&policy=p2c&choices=3&speeds=2,1,0.5&rate=0.3")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	s = p.state()
	if s.Cycle != 600 {
		t.Fatalf("pause-at=600 per-server: cycle %d", s.Cycle)
	}
	p.checkSummary(s, "--seed", "12", "--servers", "5", "--queues", "per-server", "--policy", "p2c", "--choices", "3",
		"--speeds", "2,1,0.5", "--rate", "0.3")
	p.screenshot("page-per-server.png")

	// A bad parameter: a readable message, and the page runs with defaults.
	p.open("seed=7&servers=abc&speed=30")
	s = p.state()
	if len(s.Problems) == 0 || !strings.Contains(s.Problems[0], "servers") {
		t.Errorf("servers=abc: problems %q", s.Problems)
	}
	msg, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("message")).display + "|" + document.getElementById("message-text").textContent`))
	if err != nil || !strings.HasPrefix(msg, "block|") || !strings.Contains(msg, "servers") || !strings.Contains(msg, "whole number") {
		t.Errorf("servers=abc: the page shows %q (%v)", msg, err)
	}
	p.waitFor("window.lbsim.state().cycle > 2", 60*time.Second)
	p.screenshot("page-bad-parameter.png")

	// Fast-forward: model cycles per second with the default settings,
	// over a run long enough not to end while measured.
	p.open("seed=42&speed=max&cycles=100000000")
	s0, t0 := p.state(), time.Now()
	time.Sleep(5 * time.Second)
	s1, t1 := p.state(), time.Now()
	rate := float64(s1.Cycle-s0.Cycle) / t1.Sub(t0).Seconds()
	t.Logf("fast-forward: %.0f cycles/s (default settings, seed 42), %.1f frames/s", rate, float64(s1.Frames-s0.Frames)/t1.Sub(t0).Seconds())
	// A measurement, not a timed assertion (the machine may be loaded):
	// it only has to move.
	if s1.Cycle <= s0.Cycle {
		t.Errorf("fast-forward did not advance: cycle %d, then %d five seconds later", s0.Cycle, s1.Cycle)
	}
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().paused", 30*time.Second)
	p.checkSummary(p.state(), "--seed", "42")

	// The default run (100,000 cycles) at max speed ends, and its summary
	// is the CLI's.
	start := time.Now()
	p.open("seed=42&speed=max")
	p.waitFor("window.lbsim.state().done", 120*time.Second)
	t.Logf("default run at max speed: load to end %v", time.Since(start))
	s = p.state()
	if s.Cycle != 100_000 || !s.Paused {
		t.Errorf("the default run ended at %d (paused %v)", s.Cycle, s.Paused)
	}
	p.checkSummary(s, "--seed", "42")
}
