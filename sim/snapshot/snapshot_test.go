package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/tinylib/msgp/msgp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// smallTrace is a deterministic trace of a few hundred rows.
func smallTrace() []sim.TraceRow {
	r := rand.New(rand.NewPCG(1, 2))
	var rows []sim.TraceRow
	for c := int64(0); c <= 300; c += int64(r.IntN(3)) {
		rows = append(rows, sim.TraceRow{Cycle: c, Src: r.Uint32(), Dst: r.Uint32(), Time: uint32(1 + r.IntN(40)), Type: sim.Type(r.IntN(2))})
		if len(rows) > 400 {
			break
		}
	}
	return rows
}

func mustChanges(t testing.TB, ss ...string) []sim.Change {
	t.Helper()
	var cs []sim.Change
	for _, s := range ss {
		c, err := sim.ParseChange(s)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

type runCase struct {
	name    string
	cfg     func() sim.Config
	changes []string
}

// cases are the runs of the round-trip and golden tests: a plain run,
// every policy, changes of every setting, the switch and a trace.
func cases() []runCase {
	base := func(seed uint64, cycles int64) func() sim.Config {
		return func() sim.Config {
			c := sim.DefaultConfig()
			c.Seed, c.Cycles = seed, cycles
			return c
		}
	}
	with := func(f func() sim.Config, mod func(*sim.Config)) func() sim.Config {
		return func() sim.Config { c := f(); mod(&c); return c }
	}
	cs := []runCase{
		{name: "default", cfg: base(42, 100_000)},
		{name: "changes", cfg: base(7, 20_000), changes: []string{
			"500:rate=0.9", "500:wave=false", "2000:scale-up=40", "2000:scale-down=20", "3000:policy=random",
			"3001:cooldown=25", "5000:task-max=120", "6000:task-min=5", "8000:wave=true", "9000:queue-cap=500",
			"12000:min-servers=3", "15000:max-servers=40", "19999:policy=round-robin"}},
		{name: "switch", cfg: with(base(3, 20_000), func(c *sim.Config) { c.Switch = true; c.Policy = sim.Random }),
			changes: []string{"4000:rate=0.8", "9000:policy=first-idle"}},
		{name: "trace", cfg: with(base(5, 400), func(c *sim.Config) {
			c.Trace = smallTrace()
			c.Blocked = []sim.Range{{First: 0, Last: 1 << 30}}
			c.Cooldown = 5
			c.ScaleUp, c.ScaleDown = 3*sim.FactorScale, 1*sim.FactorScale
		})},
	}
	for _, pol := range sim.PoliciesFor(sim.Pooled) {
		p := pol.String()
		cs = append(cs, runCase{name: "policy-" + p, cfg: with(base(11, 5_000), func(c *sim.Config) { c.Policy = pol })})
		cs = append(cs, runCase{name: "switch-" + p, cfg: with(base(12, 5_000), func(c *sim.Config) { c.Policy = pol; c.Switch = true })})
	}
	for _, pol := range sim.PoliciesFor(sim.PerServer) {
		p := pol.String()
		cs = append(cs, runCase{name: "per-server-" + p, cfg: with(base(14, 5_000), func(c *sim.Config) {
			c.Queues, c.Policy, c.Speeds, c.Weights, c.Choices = sim.PerServer, pol, []sim.Speed{200, 50, 125}, []int{2, 1, 0}, 3
		})})
		cs = append(cs, runCase{name: "per-server-switch-faults-" + p, cfg: with(base(15, 5_000), func(c *sim.Config) {
			c.Queues, c.Policy, c.Switch, c.MTBF, c.MTTR, c.QueueCap = sim.PerServer, pol, true, 700, 40, 30
		})})
	}
	// Fan-out: its parts, cancellations and requests in flight travel in
	// the summary's counts; a fleet, timeouts, retries and a failing
	// server make them move.
	cs = append(cs, runCase{name: "fanout", cfg: with(base(47, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Fanout, c.Balancers, c.MinServers = sim.PerServer, sim.P2C, 4, 3, 20
		c.InitialPerServer, c.Rate, c.Wave, c.Timeout, c.Retries, c.FailTime = 0, 150_000, false, 60, 1, 5
	}), changes: []string{"500:fail=3", "2500:heal=3"}})
	// Hedging (its three settings on the wire, the hedge generator) with
	// fan-out 2, a queue cap and a failing server.
	cs = append(cs, runCase{name: "hedge", cfg: with(base(48, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Fanout, c.MinServers, c.QueueCap = sim.PerServer, sim.LeastConnections, 2, 20, 6
		c.InitialPerServer, c.Rate, c.Wave, c.FailTime = 0, 200_000, false, 5
		c.HedgeAfter, c.HedgeMax, c.HedgeBudget = 15, 3, 100_000
	}), changes: []string{"500:fail=3", "2500:heal=3"}})
	// Hedging with one part and the client side: timeouts (a hedge's own
	// deadline, changed mid-run), retries with a budget, health checks,
	// random faults.
	cs = append(cs, runCase{name: "hedge-client", cfg: with(base(49, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Servers, c.MinServers, c.Rate, c.Wave = sim.PerServer, sim.RoundRobin, 6, 6, 300_000, false
		c.Service, c.MeanService, c.HedgeAfter, c.HedgeMax = sim.Geometric, 10, 12, 2
		c.Timeout, c.Retries, c.Backoff, c.RetryBudget, c.HealthInterval, c.MTBF, c.MTTR = 30, 2, 3, 300_000, 5, 600, 60
	}), changes: []string{"700:hang=2", "1500:timeout=45", "2200:heal=2"}})
	// Fan-out and hedging beside shedding, the throttle and an adaptive
	// limit (parts noted at arrival, hedges refused, shed parts ending
	// their requests): 370 shed, 206 limited, 7 throttled.
	cs = append(cs, runCase{name: "fanout-hedge-overload", cfg: with(base(49, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Fanout, c.MinServers = sim.PerServer, sim.P2C, 3, 12
		c.InitialPerServer, c.Rate, c.Wave, c.FailTime = 0, 440_000, false, 5
		c.Service, c.MeanService = sim.Geometric, 12
		c.HedgeAfter, c.HedgeMax, c.HedgeBudget = 20, 2, 300_000
		c.CodelTarget, c.Throttle = 15, 200
		c.ConcurrencyLimit, c.LimitInitial, c.LimitMax, c.LimitLatency = sim.LimitAIMD, 6, 12, 60
	}), changes: []string{"500:fail=3", "1500:codel-target=30", "2500:heal=3"}})
	// Hedging behind the switch, turned on by a change (its state made
	// then), changed and turned off: the changes of hedge-after on the
	// wire; and hedging in a fleet whose hedges draw their balancers.
	cs = append(cs, runCase{name: "hedge-switch-set", cfg: with(base(49, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Switch, c.MinServers, c.StreamShare = sim.PerServer, sim.LeastConnections, true, 20, 40
		c.InitialPerServer, c.Rate, c.Wave = 0, 300_000, false
	}), changes: []string{"400:hedge-after=20", "1500:hedge-after=8", "3000:hedge-after=0"}})
	cs = append(cs, runCase{name: "hedge-fleet", cfg: with(base(50, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Balancers, c.LoadInfo, c.MinServers = sim.PerServer, sim.P2C, 3, sim.LoadLocal, 20
		c.InitialPerServer, c.Rate, c.Wave, c.HedgeAfter, c.HedgeBudget = 0, 250_000, false, 15, 150_000
	}), changes: []string{"2000:hedge-after=25"}})
	cs = append(cs, runCase{name: "empty-trace", cfg: with(base(1, 50), func(c *sim.Config) { c.Trace = []sim.TraceRow{} })})
	cs = append(cs, runCase{name: "one-cycle", cfg: base(9, 1)})
	cs = append(cs, runCase{name: "faults-swrr-geometric", cfg: with(base(13, 8_000), func(c *sim.Config) {
		c.MTBF, c.MTTR, c.Policy, c.Weights = 500, 30, sim.SWRR, []int{4, 0, 2}
		c.Service, c.MeanService = sim.Geometric, 40
	}), changes: []string{"100:down=3", "400:up=3", "600:down=1"}})
	cs = append(cs, runCase{name: "switch-faults", cfg: with(base(14, 3_000), func(c *sim.Config) { c.Switch = true; c.Service, c.MeanService = sim.Constant, 30 }),
		changes: []string{"50:down=S:2", "70:up=S:2"}})
	// The service shapes: their parameters and the empirical values
	// travel in the snapshot.
	cs = append(cs, runCase{name: "shape-lognormal", cfg: with(base(16, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy = sim.PerServer, sim.LeastWork
		c.Service, c.MeanService, c.ServiceCV, c.ServiceMax = sim.Lognormal, 30, 2_500_000, 900
	})})
	cs = append(cs, runCase{name: "shape-pareto", cfg: with(base(17, 4_000), func(c *sim.Config) {
		c.Service, c.MeanService, c.ServiceShape = sim.Pareto, 30, 1_250_000
	})})
	cs = append(cs, runCase{name: "shape-bimodal", cfg: with(base(18, 4_000), func(c *sim.Config) {
		c.Service, c.TaskMin, c.TaskMax, c.LongShare = sim.Bimodal, 5, 400, 0
	}), changes: []string{"2000:task-max=600"}})
	cs = append(cs, runCase{name: "shape-empirical", cfg: with(base(19, 4_000), func(c *sim.Config) {
		c.Service, c.ServiceValues = sim.Empirical, []int32{1, 3, 3, 9, 250, 1_000_000}
	})})
	// The client side and detection: their settings and changes travel in
	// the snapshot, and jitter's draws replay.
	cs = append(cs, runCase{name: "client-pooled", cfg: with(base(20, 6_000), func(c *sim.Config) {
		c.Timeout, c.Retries, c.Backoff, c.Jitter, c.RetryBudget = 300, 3, 20, true, 200_000
		c.HealthInterval, c.HealthFall, c.HealthRise, c.EjectAfter, c.EjectFor = 50, 2, 3, 3, 200
		c.ProvisionDelay, c.ReplaceAfter, c.FailTime = 40, 900, 5
	}), changes: []string{"300:fail=2", "500:down=1", "900:hang=3", "1500:heal=2", "2000:up=1", "2500:timeout=150",
		"3000:retries=1", "3500:health-interval=0", "4000:eject-after=0", "4500:retry-budget=0"}})
	cs = append(cs, runCase{name: "client-per-server-switch", cfg: with(base(21, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Switch, c.QueueCap = sim.PerServer, sim.LeastWork, true, 20
		c.Timeout, c.Retries, c.Jitter, c.Backoff, c.HealthInterval, c.EjectAfter = 200, 2, true, 10, 30, 2
	}), changes: []string{"200:fail=S:1", "400:down=2", "800:up=2", "1000:hang=1", "2000:heal=1"}})
	// Fleets: the balancers, the load information and its period's
	// change travel in the snapshot, and so does each balancer's tally.
	cs = append(cs, runCase{name: "fleet-periodic", cfg: with(base(22, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Balancers, c.LoadInfo = sim.PerServer, sim.LeastConnections, 6, 40
	}), changes: []string{"1000:load-info=periodic:9", "2000:policy=peak-ewma", "3000:policy=jiq"}})
	cs = append(cs, runCase{name: "fleet-local-client", cfg: with(base(23, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Balancers, c.LoadInfo = sim.PerServer, sim.P2C, 12, sim.LoadLocal
		c.Timeout, c.Retries, c.Backoff = 200, 2, 10
	}), changes: []string{"500:down=2", "900:up=2"}})
	// Concurrency limits: the settings travel, and so do the final
	// limits (sum, count, least, most) of the summary a replay checks.
	cs = append(cs, runCase{name: "limit-aimd-per-server", cfg: with(base(24, 4_000), func(c *sim.Config) {
		c.Queues, c.Policy, c.Rate = sim.PerServer, sim.P2C, 900_000
		c.ConcurrencyLimit, c.LimitInitial, c.LimitMin, c.LimitMax, c.LimitLatency = sim.LimitAIMD, 6, 2, 40, 120
		c.Timeout, c.Retries, c.Backoff = 300, 1, 10
	}), changes: []string{"1000:down=3", "1500:up=3"}})
	cs = append(cs, runCase{name: "limit-fixed-switch", cfg: with(base(25, 3_000), func(c *sim.Config) {
		c.Switch, c.ConcurrencyLimit = true, 4
	})})
	return cs
}

// observed is what a run shows cycle by cycle.
type observed struct {
	timeline []byte
	hashes   []uint64
	summary  sim.Summary
	changes  []sim.Change
}

func (o *observed) see(m *sim.Model) {
	o.timeline = m.Last().AppendCSV(o.timeline)
	o.timeline = append(o.timeline, '\n')
	o.hashes = append(o.hashes, m.Hash())
}

func direct(t testing.TB, cfg sim.Config, changes []sim.Change) observed {
	t.Helper()
	m, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	var o observed
	o.see(m)
	for m.Step() {
		o.see(m)
	}
	o.summary, o.changes = m.Summary(), m.Changes()
	return o
}

// mustRecord records cfg with changes and encodes the snapshot, failing t
// where either is refused.
func mustRecord(t testing.TB, cfg sim.Config, changes []sim.Change) (Snapshot, []byte) {
	t.Helper()
	s, err := Record(cfg, changes)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, data
}

func TestRoundTrip(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			cfg, changes := c.cfg(), mustChanges(t, c.changes...)
			want := direct(t, cfg, changes)
			s, data := mustRecord(t, cfg, changes)
			d, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, s) {
				t.Fatalf("decoded snapshot differs:\n got %+v\nwant %+v", d, s)
			}
			var got observed
			m, err := Replay(d, got.see)
			if err != nil {
				t.Fatal(err)
			}
			got.summary, got.changes = m.Summary(), m.Changes()
			if !bytes.Equal(got.timeline, want.timeline) {
				t.Error("replayed timeline differs")
			}
			if !reflect.DeepEqual(got.hashes, want.hashes) {
				t.Error("replayed hashes differ")
			}
			if !reflect.DeepEqual(got.summary, want.summary) || !reflect.DeepEqual(d.Summary, want.summary) {
				t.Errorf("summary differs:\nreplayed %+v\nrecorded %+v\n  direct %+v", got.summary, d.Summary, want.summary)
			}
			if !reflect.DeepEqual(got.changes, want.changes) || len(want.changes) != len(changes) {
				t.Errorf("changes: replayed %v, direct %v, scheduled %v", got.changes, want.changes, changes)
			}
			if (cfg.Trace != nil) != (d.Config.Trace != nil) {
				t.Error("trace mode lost")
			}
		})
	}
}

// TestSizes pins the size targets of the issue.
func TestSizes(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 123456789
	_, data := mustRecord(t, cfg, nil)
	link := "https://lbsim.example/" + Fragment(data)
	t.Logf("default run: %d bytes, link %d characters", len(data), len(link))
	if len(data) > 512 {
		t.Errorf("default snapshot: %d bytes, want ≤ 512", len(data))
	}
	if len(link) > 1000 {
		t.Errorf("default link: %d characters, want ≤ 1000", len(link))
	}
	changes := thousandChanges(cfg.Cycles)
	_, data = mustRecord(t, cfg, changes)
	t.Logf("1,000 changes: %d bytes", len(data))
	if len(data) > 8<<10 {
		t.Errorf("snapshot with 1,000 changes: %d bytes, want ≤ 8 KiB", len(data))
	}
}

// thousandChanges returns 1,000 valid changes with values as awkward as a
// slider makes them (rates with six decimals).
func thousandChanges(cycles int64) []sim.Change {
	r := rand.New(rand.NewPCG(6, 6))
	cs := make([]sim.Change, 0, 1000)
	for i := range 1000 {
		cycle := 1 + int64(i)*(cycles-1)/1000 + r.Int64N(cycles/1000)
		var c sim.Change
		switch r.IntN(5) {
		case 0, 1:
			c = sim.Change{Cycle: cycle, Setting: sim.SetRate, Value: r.Int64N(2 * sim.RateScale)}
		case 2:
			c = sim.Change{Cycle: cycle, Setting: sim.SetCooldown, Value: 1 + r.Int64N(50)}
		case 3:
			c = sim.Change{Cycle: cycle, Setting: sim.SetTaskMax, Value: 10 + r.Int64N(200)}
		case 4:
			pooled := sim.PoliciesFor(sim.Pooled)
			c = sim.Change{Cycle: cycle, Setting: sim.SetPolicy, Value: int64(pooled[r.IntN(len(pooled))])}
		}
		cs = append(cs, c)
	}
	return cs
}

// golden is the expected outcome of replaying a golden snapshot, kept in
// testdata/NAME.json.
type golden struct {
	Final    string      `json:"final_hash"`
	Timeline string      `json:"timeline_sha256"`
	Summary  sim.Summary `json:"summary"`
}

// goldenCases are the runs kept as files; they are replayed under
// GOOS=js GOARCH=wasm too, which checks that a snapshot written natively
// replays identically there, and re-recorded, which checks that a snapshot
// written there is byte for byte the one written natively.
var goldenCases = []string{"default", "changes", "switch", "trace"}

func TestGolden(t *testing.T) {
	byName := map[string]runCase{}
	for _, c := range cases() {
		byName[c.name] = c
	}
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			snapPath := filepath.Join("testdata", name+".lbsnap")
			jsonPath := filepath.Join("testdata", name+".json")
			if *update {
				c := byName[name]
				s, err := Record(c.cfg(), mustChanges(t, c.changes...))
				if err != nil {
					t.Fatal(err)
				}
				s.Engine = "lbsim golden"
				data, err := Encode(s)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, snapPath, data)
			}
			data, err := os.ReadFile(snapPath)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Decode(data)
			if err != nil {
				t.Fatalf("the golden snapshot no longer decodes: %v", err)
			}
			var o observed
			m, err := Replay(s, o.see)
			if err != nil {
				t.Fatalf("the golden snapshot no longer replays: %v (if the model changed on purpose, bump ModelVersion and run go test -update)", err)
			}
			sum := sha256.Sum256(o.timeline)
			got := golden{Final: fmt.Sprintf("%016x", m.Hash()), Timeline: hex.EncodeToString(sum[:]), Summary: m.Summary()}
			js, _ := json.MarshalIndent(got, "", "  ")
			js = append(js, '\n')
			if *update {
				writeFile(t, jsonPath, js)
			}
			want, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(js, want) {
				t.Errorf("replay of %s gives\n%s\nwant\n%s", snapPath, js, want)
			}

			// Recording the same run again, on whatever platform this
			// is, writes the same bytes.
			again, err := Record(s.Config, s.Changes)
			if err != nil {
				t.Fatal(err)
			}
			again.Engine = s.Engine
			b, err := Encode(again)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, data) {
				t.Errorf("re-recording %s gives other bytes (%d, want %d)", snapPath, len(b), len(data))
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func smallSnapshot(t testing.TB) []byte {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer = 3, 60, 2, 5
	cfg.Blocked = cfg.Blocked[:2]
	_, data := mustRecord(t, cfg, mustChanges(t, "10:rate=0.9", "30:policy=random"))
	return data
}

// TestCorruption flips every byte of a small snapshot in several ways and
// truncates it at every length: each must be refused with an error.
func TestCorruption(t *testing.T) {
	data := smallSnapshot(t)
	t.Logf("small snapshot: %d bytes", len(data))
	if _, err := Decode(data); err != nil {
		t.Fatal(err)
	}
	msgs := map[string]int{}
	for i := range data {
		for _, x := range []byte{0x01, 0x02, 0x10, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			_, err := Decode(bad)
			if err == nil {
				t.Fatalf("byte %d xor %#x accepted", i, x)
			}
			msgs[firstWords(err)]++
		}
	}
	for n := range len(data) {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncation to %d bytes accepted", n)
		} else {
			msgs[firstWords(err)]++
		}
	}
	if _, err := Decode(append(bytes.Clone(data), 0)); err == nil {
		t.Fatal("a trailing byte was accepted")
	}
	t.Logf("errors: %v", msgs)
}

func firstWords(err error) string {
	f := strings.Fields(err.Error())
	return strings.Join(f[:min(3, len(f))], " ")
}

// TestHostile feeds inputs that claim huge lengths or nest deeply.
func TestHostile(t *testing.T) {
	head := msgp.AppendUint32(msgp.AppendString(msgp.AppendMapHeader(nil, 3), "lbsnap"), 1)
	deep := msgp.AppendString(bytes.Clone(head), "x")
	for range 200_000 {
		deep = msgp.AppendArrayHeader(deep, 1)
	}
	deep = msgp.AppendNil(deep)
	inputs := map[string][]byte{
		"empty":         nil,
		"png":           []byte("\x89PNG\r\n\x1a\n"),
		"not a map":     msgp.AppendString(nil, "lbsnap"),
		"huge bin":      append(msgp.AppendString(bytes.Clone(head), "p"), 0xc6, 0x7f, 0xff, 0xff, 0xff),
		"huge map":      append(msgp.AppendString(bytes.Clone(head), "x"), 0xdf, 0xff, 0xff, 0xff, 0xff),
		"huge array":    append(msgp.AppendString(bytes.Clone(head), "x"), 0xdd, 0xff, 0xff, 0xff, 0xff),
		"huge map head": append([]byte{0xdf, 0xff, 0xff, 0xff, 0xff}, head[1:]...),
		"deep":          deep,
		"too big":       make([]byte, MaxSize+1),
	}
	for name, in := range inputs {
		if _, err := Decode(in); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// payloadOf returns the payload of an encoded snapshot.
func payloadOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var env envelope
	if _, err := env.UnmarshalMsg(data); err != nil {
		t.Fatal(err)
	}
	return env.Payload
}

// TestModelVersion1 replays a snapshot recorded by model version 1 (before
// routing had a generator of its own): it is refused, naming both versions.
func TestModelVersion1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "model-v1.lbsnap"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decode(data)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Got != 1 || ve.Want != ModelVersion {
		t.Fatalf("Decode(model-v1.lbsnap) = %v, want a model VersionError 1 vs %d", err, ModelVersion)
	}
	if msg := err.Error(); !strings.Contains(msg, "model version 1") || !strings.Contains(msg, fmt.Sprintf("model version %d", ModelVersion)) {
		t.Errorf("%q does not name both versions", msg)
	}
}

func TestVersions(t *testing.T) {
	data := smallSnapshot(t)
	payload := payloadOf(t, data)

	newer, _ := seal(FormatComparison+1, payload)
	_, err := Decode(newer)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.What != "format" {
		t.Fatalf("newer format: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprint("format version ", FormatComparison+1)) || !strings.Contains(msg, fmt.Sprint(FormatComparison)) {
		t.Errorf("newer format: %q does not name both versions", msg)
	}

	var b body
	if _, err := b.UnmarshalMsg(payload); err != nil {
		t.Fatal(err)
	}
	b.Model = ModelVersion + 1
	p2, _ := b.MarshalMsg(nil)
	other, _ := seal(FormatVersion, p2)
	_, err = Decode(other)
	if !errors.As(err, &ve) || ve.What != "model" {
		t.Fatalf("other model: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprint("model version ", ModelVersion+1)) || !strings.Contains(msg, fmt.Sprint("model version ", ModelVersion)) {
		t.Errorf("other model: %q does not name both versions", msg)
	}
	t.Log(err)

	// An unknown setting number, as a newer lbsim could write.
	b.Model = ModelVersion
	b.Changes = appendChanges(nil, []sim.Change{{Cycle: 5, Setting: sim.Setting(len(sim.SettingNames()) + 3), Value: 1}})
	p3, _ := b.MarshalMsg(nil)
	unknown, _ := seal(FormatVersion, p3)
	if _, err := Decode(unknown); err == nil || !strings.Contains(err.Error(), "unknown setting number") {
		t.Errorf("unknown setting: %v", err)
	} else {
		t.Log(err)
	}
}

// TestFutureFields adds keys an older reader does not know, to the payload
// and to the envelope: they are skipped.
func TestFutureFields(t *testing.T) {
	data := smallSnapshot(t)
	want, _ := Decode(data)
	payload := payloadOf(t, data)
	sz, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		t.Fatal(err)
	}
	future := msgp.AppendMapHeader(nil, sz+1)
	future = append(future, rest...)
	future = msgp.AppendString(future, "weights")
	future = msgp.AppendMapHeader(future, 2)
	future = msgp.AppendString(msgp.AppendString(future, "list"), "3,1,1")
	future = msgp.AppendString(future, "nested")
	future = msgp.AppendArrayHeader(future, 2)
	future = msgp.AppendInt64(msgp.AppendFloat64(future, 1.5), -7)
	sealed, _ := seal(FormatVersion, future)
	// And a key in the envelope, after the magic.
	esz, erest, _ := msgp.ReadMapHeaderBytes(sealed)
	withEnv := msgp.AppendMapHeader(nil, esz+1)
	withEnv = append(withEnv, erest...)
	withEnv = msgp.AppendInt(msgp.AppendString(withEnv, "z"), 9)
	got, err := Decode(withEnv)
	if err != nil {
		t.Fatalf("a snapshot with unknown fields: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("unknown fields changed what was decoded")
	}
	if _, err := Verify(got); err != nil {
		t.Error(err)
	}
}

func TestDivergence(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles = 5, 10_000
	s, err := Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Every != 500 || len(s.Hashes) != 19 {
		t.Fatalf("every %d with %d hashes, want 500 and 19", s.Every, len(s.Hashes))
	}
	tests := []struct {
		name  string
		mod   func(*Snapshot)
		cycle int64
	}{
		{"hash", func(s *Snapshot) { s.Hashes[6] ^= 1 }, 3500},
		{"first hash", func(s *Snapshot) { s.Hashes[0]++ }, 500},
		{"final", func(s *Snapshot) { s.Final ^= 1 << 60 }, 10_000},
		{"summary", func(s *Snapshot) { s.Summary.Completed++ }, 10_000},
		{"seed", func(s *Snapshot) { s.Config.Seed++ }, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := s
			bad.Hashes = append([]uint32(nil), s.Hashes...)
			tt.mod(&bad)
			data, err := Encode(bad)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Verify(d)
			var de *DivergenceError
			if !errors.As(err, &de) || de.Cycle != tt.cycle {
				t.Fatalf("got %v, want a divergence at cycle %d", err, tt.cycle)
			}
			if !strings.Contains(err.Error(), fmt.Sprint("cycle ", tt.cycle)) {
				t.Errorf("%q does not name the cycle", err)
			}
			t.Log(err)
		})
	}
}

func TestLinks(t *testing.T) {
	data := smallSnapshot(t)
	frag := Fragment(data)
	if !strings.HasPrefix(frag, "#r=") || strings.ContainsAny(frag[3:], "+/=") {
		t.Fatalf("fragment %q", frag)
	}
	want, _ := Decode(data)
	for _, in := range []string{
		frag,
		frag[1:],
		frag[3:],
		"https://lbsim.example/index.html?speed=max&pause-at=40" + frag,
		Link("http://localhost:8080/#old", data),
		"https://x.example/#speed=2&r=" + frag[3:] + "&q=1",
		"  " + frag + "\n",
	} {
		s, err := ParseLink(in)
		if err != nil {
			t.Errorf("%.60q…: %v", in, err)
			continue
		}
		if !reflect.DeepEqual(s, want) {
			t.Errorf("%.60q…: decoded another snapshot", in)
		}
	}
	for _, in := range []string{"", "#", "#r=", "#x=abc", "https://x.example/#speed=1", "#r=" + frag[3:] + "=", "#r=ab+c", frag[:len(frag)-5], "#r=" + strings.Repeat("A", MaxLink)} {
		if _, err := ParseLink(in); err == nil {
			t.Errorf("%.60q accepted", in)
		} else {
			t.Logf("%.40q: %v", in, err)
		}
	}
}

func TestHashEvery(t *testing.T) {
	for _, tt := range []struct{ n, every int64 }{{1, 1}, {33, 1}, {34, 2}, {100_000, 5000}, {1_000_000_000, 50_000_000}} {
		if got := HashEvery(tt.n); got != tt.every {
			t.Errorf("HashEvery(%d) = %d, want %d", tt.n, got, tt.every)
		}
		if c := checkpoints(tt.n, HashEvery(tt.n)); c > HashTarget {
			t.Errorf("%d cycles: %d hashes", tt.n, c)
		}
	}
}

func TestRecorderMissedCycle(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles = 1, 1000
	m, _ := sim.New(cfg)
	r := NewRecorder(cfg)
	for m.Step() {
		if m.Cycle() != 50 {
			r.Observe(m)
		}
	}
	if _, err := r.Snapshot(m); err == nil {
		t.Error("a recorder that missed a checkpoint made a snapshot")
	}
}
