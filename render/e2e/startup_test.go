//go:build !js

package e2e

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/lbsim/lbsim/internal/docfigures"
	"github.com/lbsim/lbsim/internal/pageserve"
)

var updateFigures = flag.Bool("update-figures", false, "write the page's sizes and start-up times into the docs (make docs-figures)")

// TestDocsPageFigures: the page's sizes the docs quote (README,
// docs/render.md, internal/pageserve) are those of the page these tests
// built the way make web builds it, exactly as the docs write them (one
// decimal of a megabyte): never a dist/ an earlier command left behind.
// With -update-figures it writes them (make docs-figures).
func TestDocsPageFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds the page")
	}
	dir, root := pageBrotli(t), moduleRoot(t)
	m := docfigures.Measures{PageDir: dir}
	if *updateFigures {
		changed, err := docfigures.Update(root, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range changed {
			if f.Kind == docfigures.Page {
				t.Logf("wrote %s: %s: %s → %s", f.File, f.Figure, f.Quoted, f.Measured)
			}
		}
	}
	findings, err := docfigures.Check(root, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		switch {
		case f.Kind != docfigures.Page:
		case f.Off:
			t.Error(f)
		default:
			t.Log(f)
		}
	}
}

// TestBrowserStartup measures how long a cold page takes to its first
// simulated frame (from navigation to window.lbsim.state().frames > 0;
// the loading placeholder does not count), the better of two loads each:
// on localhost as make serve serves it, and at 20 Mbit/s (20 ms latency,
// Chromium's network throttling) over HTTPS, as from a static host, which
// sends the brotli copy (checked). The HTTP cache is off, so every load is
// cold. It logs the
// times (a measurement, not an assertion: the machine may be loaded);
// with -update-figures it writes them into docs/render.md. It also checks
// that the page carries the version the CLI built from the same tree says.
func TestBrowserStartup(t *testing.T) {
	p := newPageWith(t, chromedp.Flag("ignore-certificate-errors", true))
	dir := pageBrotli(t)
	tlsSrv := httptest.NewTLSServer(pageserve.Handler(dir))
	t.Cleanup(tlsSrv.Close)
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("network: %v", err)
	}
	if _, err := chromedp.Call(p.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatalf("cache off: %v", err)
	}
	const query = "/index.html?seed=42&servers=10&speed=20"

	// The first page a fresh browser opens also starts its GPU process
	// (here software WebGL): a visitor's browser is already running, so
	// that load is a warm-up, logged, not the figure.
	warm, _ := p.firstFrame(p.url + query)
	t.Logf("first simulated frame in a browser just started (not the figure): %.2f s", warm)
	local, sent := p.bestFirstFrame(p.url + query)
	t.Logf("first simulated frame, localhost, cold: %.2f s, the better of two (lbsim.wasm: %.2f MB sent)", local, sent/1e6)
	p.samePageVersion()

	throttle := func(bytesPerSecond float64, latency float64) {
		_, err := chromedp.Call(p.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Latency: latency, DownloadThroughput: bytesPerSecond, UploadThroughput: bytesPerSecond}},
		})
		if err != nil {
			t.Fatalf("network throttling: %v", err)
		}
	}
	throttle(20e6/8, 20)
	slow, sent := p.bestFirstFrame(tlsSrv.URL + query)
	throttle(-1, 0)
	br, err := os.Stat(filepath.Join(dir, "lbsim.wasm.br"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first simulated frame at 20 Mbit/s (20 ms latency, HTTPS), cold: %.2f s, the better of two (lbsim.wasm: %.2f MB sent; the brotli copy is %.2f MB)", slow, sent/1e6, float64(br.Size())/1e6)
	if sent != float64(br.Size()) {
		t.Errorf("over HTTPS lbsim.wasm came as %.0f bytes, want the brotli copy's %d", sent, br.Size())
	}
	load := loadAverage()
	t.Logf("load average while measured: %.1f on %d cores", load, runtime.NumCPU())
	if *updateFigures {
		changed, err := docfigures.Update(moduleRoot(t), docfigures.Measures{Times: map[string]float64{
			docfigures.StartLocal: local, docfigures.StartThrottled: slow, docfigures.StartLoad: load,
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range changed {
			if f.Kind == docfigures.Timed {
				t.Logf("wrote %s: %s: %s → %s", f.File, f.Figure, f.Quoted, f.Measured)
			}
		}
	}
}

// loadAverage is the one-minute load average (Linux), or -1.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f, err := strconv.ParseFloat(strings.Fields(string(b) + " x")[0], 64)
	if err != nil {
		return -1
	}
	return f
}

// bestFirstFrame is firstFrame's better of two loads: on a shared machine
// the slower one measures the other work more than the page.
func (p *page) bestFirstFrame(url string) (seconds, sent float64) {
	p.t.Helper()
	a, sent := p.firstFrame(url)
	b, _ := p.firstFrame(url)
	return min(a, b), sent
}

// firstFrame opens url and returns the seconds from navigation to the
// first simulated frame, and the bytes lbsim.wasm took on the wire.
func (p *page) firstFrame(url string) (seconds, sent float64) {
	p.t.Helper()
	// The tab lives as long as the context of its first action: navigate
	// on the page's own, then wait on one with a deadline.
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		p.t.Fatalf("navigate: %v", err)
	}
	ctx, cancel := context.WithTimeout(p.ctx, 180*time.Second)
	defer cancel()
	// performance.now() counts from the navigation's start.
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise((resolve) => {
		const f = () => (window.lbsim && window.lbsim.state().frames > 0) ? resolve(performance.now()) : setTimeout(f, 5);
		f();
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("waiting for the first frame of %s: %v", url, err)
	}
	if inst, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(performance.getEntriesByName("lbsim-instantiated")[0] || {startTime: 0}).startTime`)); err == nil {
		p.t.Logf("%s: downloaded and compiled at %.2f s, first frame at %.2f s", url, inst/1000, ms/1000)
	}
	size, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => {
		const e = performance.getEntriesByType("resource").find((r) => r.name.endsWith("/lbsim.wasm"));
		return e ? e.encodedBodySize : 0;
	})()`))
	if err != nil || size <= 0 {
		p.t.Fatalf("lbsim.wasm's transfer size: %v, %v", size, err)
	}
	return ms / 1000, size
}

// samePageVersion checks that the page's summary names the version of the
// CLI built from the same tree (make web and make build stamp both; so do
// these tests' builds): a revision, when the tree is in git.
func (p *page) samePageVersion() {
	p.t.Helper()
	page := decodeJSON(p.t, p.state().Summary)["lbsim_version"]
	cli := p.cliSummary("--seed", "42", "--cycles", "1")["lbsim_version"]
	if page != cli {
		p.t.Errorf("the page says lbsim_version %v, the CLI built from the same tree %v", page, cli)
	}
	if versionX() != "" && !strings.Contains(fmt.Sprint(page), "+") {
		p.t.Errorf("the page's lbsim_version %v names no revision, though the tree is in git", page)
	}
}
