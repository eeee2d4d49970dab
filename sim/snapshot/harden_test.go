package snapshot

import (
	"math"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// craftWire encodes a valid snapshot of cfg after edit has changed its
// wire configuration: what a hand-made file resealed with its checksum can
// hold.
func craftWire(t testing.TB, cfg sim.Config, edit func(*wireConfig)) []byte {
	t.Helper()
	return craftBody(t, cfg, func(b *body) { edit(&b.Config) })
}

// hugeNegativeDecimals are sealed snapshots each holding −2⁶³ in one
// fixed-point setting, by the setting's name.
func hugeNegativeDecimals(t testing.TB) map[string][]byte {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer = 5, 50, 3, 2
	return map[string][]byte{
		"retry-budget": craftWire(t, cfg, func(w *wireConfig) { w.set("retries", 1).set("retry-budget", math.MinInt64) }),
		"service-cv": craftWire(t, cfg, func(w *wireConfig) {
			w.set("service", int64(sim.Lognormal)).set("mean-service", 20).set("service-cv", math.MinInt64)
		}),
		"service-shape": craftWire(t, cfg, func(w *wireConfig) {
			w.set("service", int64(sim.Pareto)).set("mean-service", 20).set("service-shape", math.MinInt64)
		}),
		"long-share": craftWire(t, cfg, func(w *wireConfig) { w.set("service", int64(sim.Bimodal)).set("long-share", math.MinInt64) }),
		"rate":       craftWire(t, cfg, func(w *wireConfig) { w.set("rate", math.MinInt64) }),
		"scale-up":   craftWire(t, cfg, func(w *wireConfig) { w.set("scale-up", math.MinInt64) }),
	}
}

// set gives the setting called name the wire value v.
func (w *wireConfig) set(name string, v int64) *wireConfig {
	w.vals[wireKeys[sim.RowNamed(name).Wire.Key]].n = v
	return w
}

// TestSnapshotHugeNegativeDecimalNoPanic: a snapshot or link whose
// fixed-point settings are −2⁶³ is refused with an error naming the
// setting; before, formatting the value for that error panicked
// ("strings: negative Repeat count").
func TestSnapshotHugeNegativeDecimalNoPanic(t *testing.T) {
	for name, data := range hugeNegativeDecimals(t) {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(data)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("Decode: %v, want an error naming %s", err, name)
			}
			if _, err := ParseLink(Fragment(data)); err == nil {
				t.Errorf("ParseLink accepted it")
			}
			if _, err := DecodeComparison(data); err == nil {
				t.Errorf("DecodeComparison accepted it")
			}
		})
	}
}

// TestSnapshotExtremeConfigValuesNoPanic: every integer of a snapshot's
// configuration set to −2⁶³, −1 or 2⁶³−1 in turn is decoded without a
// panic, and where it is accepted the replay's model is built without one.
func TestSnapshotExtremeConfigValuesNoPanic(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer = 5, 50, 3, 2
	for _, r := range sim.Rows() {
		if r.Wire.Kind != sim.WireInt {
			continue
		}
		for _, v := range []int64{math.MinInt64, -1, math.MaxInt64} {
			data := craftWire(t, cfg, func(w *wireConfig) { w.set(r.Name, v) })
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s = %d: panic %v", r.Name, v, p)
					}
				}()
				s, err := Decode(data)
				ParseLink(Fragment(data))
				if err == nil {
					sim.New(s.Config)
				}
			}()
		}
	}
}
