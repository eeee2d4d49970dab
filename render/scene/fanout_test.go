package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
)

// fanoutConfig is a fan-out of k over 40 per-server queues at low load
// (the "tail at scale" lesson's run), with extra settings kvs.
func fanoutConfig(t *testing.T, k string, kvs ...string) sim.Config {
	t.Helper()
	base := []string{"queues", "per-server", "policy", "round-robin", "servers", "40", "min-servers", "40", "max-servers", "40",
		"initial-per-server", "0", "service", "geometric", "mean-service", "20", "rate", "0.005", "wave", "false", "fanout", k}
	return configWith(t, append(base, kvs...)...)
}

// hudTexts returns the texts drawn inside the HUD of frame f.
func hudTexts(f *Frame) []string {
	var out []string
	for _, x := range f.Layers[SceneLayer].Texts {
		if f.Layout.HUD.Contains(textBox(x)) {
			out = append(out, x.S)
		}
	}
	return out
}

// TestHUDCountsParts: with fan-out on, the HUD counts the parts and the
// attempts cancelled, and reads a part's p99 (theory, at low load)
// against a request's (measured); with it off, none of these.
func TestHUDCountsParts(t *testing.T) {
	cfg := fanoutConfig(t, "20")
	s := running(t, cfg)
	s.step(20000, false)
	sum := s.m.Summary()
	tl, err := mmc.PredictTail(cfg, mmc.TailOf(cfg))
	if err != nil || tl.LowLoad == nil {
		t.Fatalf("the lesson's run has no low-load theory: %v %s", err, tl.LowLoadWhy)
	}
	hud := hudTexts(s.Draw(BaseW, BaseH))
	for _, want := range []string{
		"parts " + Commas(sum.Parts),
		"cancelled " + Commas(sum.Cancelled),
		"p99: part " + Commas(int64(tl.LowLoad.PartP99)) + " (theory) · request " + Commas(sum.ResponseP99),
	} {
		if !slices.Contains(hud, want) {
			t.Errorf("the HUD does not show %q: %q", want, hud)
		}
	}
	if sum.Parts != 20*sum.Admitted || sum.Parts == 0 || sum.ResponseP99 <= int64(tl.LowLoad.PartP99) {
		t.Errorf("parts %d of %d admitted; request p99 %d, a part's %d", sum.Parts, sum.Admitted, sum.ResponseP99, tl.LowLoad.PartP99)
	}

	// Above low load the part has no closed form, and the readout says so.
	s = running(t, fanoutConfig(t, "20", "rate", "0.5"))
	s.step(300, false)
	hud = hudTexts(s.Draw(BaseW, BaseH))
	want := "p99: request " + Commas(s.m.Summary().ResponseP99) + " · part: no closed form"
	if !slices.Contains(hud, want) {
		t.Errorf("at load 0.5 the HUD does not show %q: %q", want, hud)
	}

	// Without fan-out: no parts, no readout.
	s = running(t, configWith(t, "queues", "per-server", "policy", "round-robin"))
	s.step(300, false)
	for _, x := range hudTexts(s.Draw(BaseW, BaseH)) {
		if strings.HasPrefix(x, "parts ") || strings.HasPrefix(x, "cancelled ") || strings.HasPrefix(x, "p99: ") {
			t.Errorf("without fan-out the HUD shows %q", x)
		}
	}
}

// TestHUDCountsCancelled: a fan-out whose server fails ends requests in
// error and cancels their siblings; the HUD's count is the run's, with
// the client side's line.
func TestHUDCountsCancelled(t *testing.T) {
	cfg := fanoutConfig(t, "5", "rate", "0.3")
	s := running(t, cfg, mustChanges(t, "50:fail=2")...)
	s.step(400, false)
	sum := s.m.Summary()
	hud := hudTexts(s.Draw(BaseW, BaseH))
	want := "cancelled " + Commas(sum.Cancelled)
	if sum.Cancelled == 0 || !slices.Contains(hud, want) {
		t.Errorf("%d cancelled: the HUD does not show %q: %q", sum.Cancelled, want, hud)
	}
}
