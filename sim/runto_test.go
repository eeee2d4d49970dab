package sim

import (
	"reflect"
	"testing"
)

// TestRunToEqualsStepping checks that skipping quiet cycles changes nothing:
// RunTo reaches the same state, summary and last row as Step one by one.
func TestRunToEqualsStepping(t *testing.T) {
	sparse := DefaultConfig()
	sparse.Seed, sparse.Cycles, sparse.Rate, sparse.InitialPerServer, sparse.Wave = 3, 200_000, 2_000, 1, false
	wavy := DefaultConfig()
	wavy.Seed, wavy.Cycles, wavy.Rate, wavy.Cooldown = 4, 100_000, 30_000, 37
	tr := traceConfig(3, 5000, row(0, 7), row(40, 3), row(41, 90), row(2000, 5), row(2000, 1), row(4999, 2))
	sw := DefaultConfig()
	sw.Seed, sw.Cycles, sw.Switch, sw.Rate = 5, 50_000, true, 10_000
	cases := map[string]struct {
		cfg     Config
		changes []Change
	}{
		"sparse":  {cfg: sparse, changes: []Change{{Cycle: 70_001, Setting: SetRate, Value: 50_000}, {Cycle: 150_000, Setting: SetCooldown, Value: 1000}}},
		"wave":    {cfg: wavy},
		"trace":   {cfg: tr, changes: []Change{{Cycle: 1500, Setting: SetTaskMax, Value: 500}}},
		"switch":  {cfg: sw, changes: []Change{{Cycle: 900, Setting: SetDown, Value: int64(MakeServerRef(1, 3))}}},
		"default": {cfg: defaultSeed1()},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			stepped, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			jumped, _ := New(c.cfg)
			stepped.Schedule(c.changes...)
			jumped.Schedule(c.changes...)
			for _, stop := range []int64{1, 17, 999, c.cfg.Cycles / 3, c.cfg.Cycles} {
				stepAndJump(t, stepped, jumped, stop)
			}
		})
	}
}

// stepAndJump brings stepped to cycle stop by Step and jumped by RunTo, and
// fails unless the two agree on the cycle, the state, the summary and the
// last row.
func stepAndJump(t tester, stepped, jumped *Model, stop int64) {
	t.Helper()
	for stepped.Cycle() < stop && stepped.Step() {
	}
	jumped.RunTo(stop)
	if jumped.Cycle() != stepped.Cycle() || jumped.Hash() != stepped.Hash() ||
		!reflect.DeepEqual(jumped.Summary(), stepped.Summary()) || jumped.Last() != stepped.Last() {
		t.Fatalf("at cycle %d: RunTo and Step differ:\n%+v\n%+v\nlast %+v\n     %+v", stop,
			jumped.Summary(), stepped.Summary(), jumped.Last(), stepped.Last())
	}
}
