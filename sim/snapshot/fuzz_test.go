package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// seeds returns the golden snapshots and a small one, to seed the fuzzers.
func seeds(f *testing.F) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.lbsnap"))
	var out [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return append(append(out, smallSnapshot(f)), newKeySnapshots(f)...)
}

// newKeySnapshots are sealed snapshots carrying every wire key of fan-out,
// overload control (discipline, shedding, throttle, concurrency limits),
// target tracking and server cost, with their --set changes, so that the
// fuzzers start from those keys as well as from the golden files (which,
// with every feature off, carry none of them).
func newKeySnapshots(t testing.TB) [][]byte {
	t.Helper()
	base := sim.DefaultConfig()
	base.Seed, base.Cycles, base.Servers, base.InitialPerServer = 11, 150, 3, 2
	overload := base
	overload.Discipline, overload.CodelInterval, overload.CodelTarget = sim.AdaptiveLifo, 40, 10
	overload.Throttle = 150
	overload.ConcurrencyLimit, overload.LimitInitial, overload.LimitMin, overload.LimitMax, overload.LimitLatency = sim.LimitAIMD, 8, 2, 30, 25
	overload.Autoscaler, overload.ScaleMetric, overload.ScaleTarget = sim.TargetTracking, sim.MetricInflight, 2_500_000
	overload.ScalePeriod, overload.ScaleTolerance, overload.ScaleDownWindow = 5, 50_001, 21 // stored plus one: 0.05, 20
	overload.ServerCost = 12_345
	fixed := base
	fixed.Queues, fixed.ConcurrencyLimit, fixed.Discipline, fixed.Policy = sim.PerServer, 4, sim.Lifo, sim.RoundRobin
	fanout := base
	fanout.Queues, fanout.Fanout, fanout.Policy = sim.PerServer, 3, sim.RoundRobin
	changes := []sim.Change{
		{Cycle: 30, Setting: sim.SetScaleTarget, Value: 1_000_000},
		{Cycle: 40, Setting: sim.SetScaleTolerance, Value: 1},  // plus one: 0
		{Cycle: 50, Setting: sim.SetScaleDownWindow, Value: 4}, // plus one: 3
		{Cycle: 60, Setting: sim.SetCodelTarget, Value: 40},
		{Cycle: 70, Setting: sim.SetDiscipline, Value: int64(sim.Fifo)},
	}
	_, data := mustRecord(t, overload, changes) // its hashes follow the changes: it replays
	return append([][]byte{
		data,
		craft(t, overload, []sim.Change{
			{Cycle: 30, Setting: sim.SetScaleTarget, Value: 1_000_000},
			{Cycle: 40, Setting: sim.SetScaleTolerance, Value: 1},  // plus one: 0
			{Cycle: 50, Setting: sim.SetScaleDownWindow, Value: 4}, // plus one: 3
			{Cycle: 60, Setting: sim.SetCodelTarget, Value: 40},
			{Cycle: 70, Setting: sim.SetDiscipline, Value: int64(sim.Fifo)},
		}),
		craft(t, fixed, nil),
		craft(t, fanout, nil),
	}, hedgedSnapshots(t, base)...)
}

// hedgedSnapshots are recorded snapshots (they replay) of hedging: fan-out
// 3 hedged twice with a budget, one part hedged alone (K = 1), and fan-out
// hedged beside shedding, the throttle and an adaptive limit.
func hedgedSnapshots(t testing.TB, base sim.Config) [][]byte {
	t.Helper()
	hedged := base
	hedged.Servers, hedged.MinServers, hedged.Rate = 6, 6, 50_000 // 0.05 a cycle: a hedge finds a server its request holds none of
	hedged.Queues, hedged.Policy, hedged.Fanout = sim.PerServer, sim.LeastConnections, 3
	hedged.HedgeAfter, hedged.HedgeMax, hedged.HedgeBudget = 20, 2, 50_000 // 0.05
	single := hedged
	single.Fanout, single.HedgeMax, single.HedgeBudget = 1, 4, 0
	beside := hedged
	beside.Discipline, beside.CodelTarget, beside.Throttle = sim.AdaptiveLifo, 15, 150
	beside.ConcurrencyLimit, beside.LimitInitial, beside.LimitMax, beside.LimitLatency = sim.LimitAIMD, 4, 12, 30
	var out [][]byte
	for _, cfg := range []sim.Config{hedged, single, beside} {
		_, data := mustRecord(t, cfg, []sim.Change{{Cycle: 60, Setting: sim.SetCodelTarget, Value: 5}})
		out = append(out, data)
	}
	return out
}

// roundTrip checks that a decoded snapshot encodes, and that the encoding
// decodes to the same snapshot and encodes to the same bytes again.
func roundTrip(t *testing.T, s Snapshot) {
	b1, err := Encode(s)
	if err != nil {
		t.Fatalf("a decoded snapshot does not encode: %v", err)
	}
	s2, err := Decode(b1)
	if err != nil {
		t.Fatalf("a re-encoded snapshot does not decode: %v", err)
	}
	if !reflect.DeepEqual(s, s2) {
		t.Fatalf("decode → encode → decode changed the snapshot:\n%+v\n%+v", s, s2)
	}
	b2, err := Encode(s2)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		s, err := Decode(data)
		if err != nil {
			return
		}
		roundTrip(t, s)
	})
}

// addPayloads adds the payloads of the snapshots to f's corpus.
func addPayloads(f *testing.F, snaps [][]byte) {
	for _, s := range snaps {
		var env envelope
		if _, err := env.UnmarshalMsg(s); err != nil {
			f.Fatal(err)
		}
		f.Add(env.Payload)
	}
}

// decodeSealed seals payload (at most 64 KiB) with a correct checksum and
// decodes it, so that mutations reach the field decoders; it reports
// whether the snapshot decoded.
func decodeSealed(t *testing.T, payload []byte) (Snapshot, bool) {
	t.Helper()
	if len(payload) > 1<<16 {
		return Snapshot{}, false
	}
	data, err := seal(FormatVersion, payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	return s, err == nil
}

// FuzzPayload fuzzes what lies behind the checksum: the payload is sealed
// with a correct checksum, so mutations reach the field decoders.
func FuzzPayload(f *testing.F) {
	addPayloads(f, seeds(f))
	f.Fuzz(func(t *testing.T, payload []byte) {
		if s, ok := decodeSealed(t, payload); ok {
			roundTrip(t, s)
		}
	})
}

func FuzzParseLink(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(Fragment(s))
		f.Add("https://lbsim.example/?speed=max" + Fragment(s))
	}
	f.Add("#speed=1&r=g6ZsYnNuYXAB")
	f.Add("#r=")
	f.Fuzz(func(t *testing.T, link string) {
		if len(link) > 1<<17 {
			return
		}
		s, err := ParseLink(link)
		if err != nil {
			return
		}
		roundTrip(t, s)
		data, _ := Encode(s)
		s2, err := ParseLink(Fragment(data))
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("Fragment → ParseLink: %v", err)
		}
	})
}

// TestHedgedSeedsReplay: the hedged seeds the fuzzers start from carry
// hedging's keys and replay exactly, so mutations of them start from runs
// that hedge.
func TestHedgedSeedsReplay(t *testing.T) {
	base := sim.DefaultConfig()
	base.Seed, base.Cycles, base.Servers, base.InitialPerServer = 11, 150, 3, 2
	for i, data := range hedgedSnapshots(t, base) {
		s, err := Decode(data)
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		if s.Config.HedgeAfter != 20 || s.Config.Queues != sim.PerServer {
			t.Errorf("seed %d: hedge-after %d, queues %v", i, s.Config.HedgeAfter, s.Config.Queues)
		}
		m, err := ReplayWith(s, nil)
		if err != nil {
			t.Fatalf("seed %d does not replay: %v", i, err)
		}
		if h := m.Summary().Hedges; h == 0 {
			t.Errorf("seed %d sent no hedge", i)
		}
	}
}
