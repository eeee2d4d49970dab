//go:build !js

package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// soakQuery is the page the soak runs: the client side and detection on
// an autoscaled, overloaded per-server pool with a retry budget (the
// settings under which the budget's window once grew without bound).
const soakQuery = "servers=40&rate=2&timeout=400&retries=2&retry-budget=0.2&queues=per-server&policy=peak-ewma" +
	"&health-interval=10&eject-after=3&seed=7&speed=max&cycles=1000000000"

// TestSoakClientSide leaves the page running for LBSIM_SOAK (make soak:
// 15m) and samples it every 30 seconds: the program's memory must be flat
// after the first minutes (at most 10% above its size at a fifth of the
// soak, which is when it is taken as warm), and the page must stay
// responsive (cycles and frames advance in every sample). It is opt-in: a
// run of minutes has no place in make test.
func TestSoakClientSide(t *testing.T) {
	env := os.Getenv("LBSIM_SOAK")
	if env == "" {
		t.Skip("a soak of minutes: make soak (LBSIM_SOAK=15m) runs it")
	}
	total, err := time.ParseDuration(env)
	if err != nil || total < time.Minute {
		t.Fatalf("LBSIM_SOAK=%q: want a duration of at least 1m, like 15m", env)
	}
	p := newPage(t)
	p.open(soakQuery)
	type sample struct {
		at            time.Duration
		cycle, frames int64
		mem           int64
	}
	var samples []sample
	start := time.Now()
	for {
		mem, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64]("window.lbsimMemoryBytes()"))
		if err != nil {
			t.Fatalf("reading the memory: %v", err)
		}
		s := p.state()
		samples = append(samples, sample{time.Since(start).Round(time.Second), s.Cycle, s.Frames, int64(mem)})
		t.Logf("%6v  cycle %10d  frames %6d  wasm memory %6.1f MB", samples[len(samples)-1].at, s.Cycle, s.Frames, mem/1e6)
		if time.Since(start) >= total {
			break
		}
		time.Sleep(30 * time.Second) // a soak samples on the clock; the checks read states, not timing
	}
	warm := samples[len(samples)/5]
	last := samples[len(samples)-1]
	if float64(last.mem) > 1.1*float64(warm.mem) {
		t.Errorf("wasm memory grew from %.1f MB at %v to %.1f MB at %v: not flat", float64(warm.mem)/1e6, warm.at, float64(last.mem)/1e6, last.at)
	}
	for i := 1; i < len(samples); i++ {
		if samples[i].cycle <= samples[i-1].cycle || samples[i].frames <= samples[i-1].frames {
			t.Errorf("the page stalled between %v and %v: cycle %d → %d, frames %d → %d", samples[i-1].at, samples[i].at,
				samples[i-1].cycle, samples[i].cycle, samples[i-1].frames, samples[i].frames)
		}
	}
	fmt.Fprintf(os.Stderr, "soak: %v, %d cycles, memory %.1f MB warm, %.1f MB at the end\n", last.at, last.cycle, float64(warm.mem)/1e6, float64(last.mem)/1e6)
}
