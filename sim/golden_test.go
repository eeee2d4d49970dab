package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "<end>", "<end>"
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from line %d:\n got: %s\nwant: %s\n(if the change is intended, run go test -update)", path, i+1, g, w)
		}
	}
}

func defaultSeed1() Config {
	cfg := DefaultConfig()
	cfg.Seed = 1
	return cfg
}

// TestGoldenDefaultRun pins the default run with seed 1: its summary, and
// its timeline (every 100th row in the clear, the whole CSV by SHA-256).
// The run is checked cycle by cycle by the invariant checker and the shadow
// model, and must show what the README promises of the defaults.
func TestGoldenDefaultRun(t *testing.T) {
	h := newHarness(t, defaultSeed1())
	var full, sampled bytes.Buffer
	full.WriteString(TimelineHeader + "\n")
	sampled.WriteString(TimelineHeader + "\n")
	var line []byte
	ups, downs := 0, 0 // direction changes of the pool
	dir := 0
	for {
		last := h.m.Last()
		line = append(last.AppendCSV(line[:0]), '\n')
		full.Write(line)
		if last.Cycle%100 == 0 {
			sampled.Write(line)
		}
		if last.Scale != 0 && last.Scale != dir {
			dir = last.Scale
			if dir > 0 {
				ups++
			} else {
				downs++
			}
		}
		if !h.step() {
			break
		}
	}
	s := h.m.Summary()
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "default-seed1.summary.json", append(js, '\n'))
	golden(t, "default-seed1.timeline.sampled.csv", sampled.Bytes())
	sum := sha256.Sum256(full.Bytes())
	golden(t, "default-seed1.timeline.sha256", fmt.Appendf(nil, "%x  default-seed1.timeline.csv\n", sum))

	if rows := strings.Count(full.String(), "\n"); rows != 100_002 {
		t.Errorf("timeline has %d lines, want a header and 100001 rows", rows)
	}
	if !s.Consistent || s.Cycles != 100_000 {
		t.Errorf("summary cycles %d consistent %v", s.Cycles, s.Consistent)
	}
	// The defaults: the pool grows and shrinks repeatedly; the firewall rejects a
	// visible minority.
	if ups < 3 || downs < 3 {
		t.Errorf("the pool turned from shrinking to growing %d times and back %d times, want it to grow and shrink repeatedly", ups, downs)
	}
	if share := float64(s.Rejected) / float64(s.Generated); share < 0.03 || share > 0.2 {
		t.Errorf("the firewall rejected %.1f%% of requests, want a visible minority", 100*share)
	}
}

// hashConfigs are the runs whose event streams are pinned in
// testdata/event-hashes.json. The golden file is shared by every platform,
// so passing under GOOS=js GOARCH=wasm proves native and wasm agree.
func hashConfigs() map[string]struct {
	cfg     Config
	changes []Change
} {
	type run = struct {
		cfg     Config
		changes []Change
	}
	runs := map[string]run{}
	runs["default-seed1"] = run{cfg: defaultSeed1()}

	// A trace of 3000 cycles from a fixed PCG stream, round-robin, capped queue.
	r := rand.New(rand.NewPCG(7, 7))
	tr := traceConfig(4, 3000)
	tr.Policy, tr.QueueCap, tr.Blocked = RoundRobin, 50, append(blocked10(), Range{First: 0xC0000200, Last: 0xC00002FF})
	tr.MaxServers, tr.ScaleUp, tr.ScaleDown, tr.Cooldown = 12, 5*FactorScale, 2*FactorScale, 7
	for c := int64(0); c <= 3100; c++ {
		for range r.IntN(3) {
			tr.Trace = append(tr.Trace, TraceRow{Cycle: c, Src: r.Uint32() >> uint(r.IntN(8)), Dst: r.Uint32(),
				Time: uint32(1 + r.IntN(12)), Type: Type(r.IntN(2))})
		}
	}
	runs["trace-round-robin"] = run{cfg: tr}

	rnd := DefaultConfig()
	rnd.Seed, rnd.Cycles, rnd.Policy = 42, 20_000, Random
	runs["random-policy"] = run{cfg: rnd}

	sch := DefaultConfig()
	sch.Seed, sch.Cycles = 7, 20_000
	runs["scheduled-changes"] = run{cfg: sch, changes: []Change{
		{Cycle: 2000, Setting: SetRate, Value: 1_200_000},
		{Cycle: 5000, Setting: SetRate, Value: 100_000},
		{Cycle: 8000, Setting: SetWave, Value: 0},
		{Cycle: 8000, Setting: SetRate, Value: 2 * RateScale},
		{Cycle: 12000, Setting: SetTaskMax, Value: 200},
		{Cycle: 15000, Setting: SetPolicy, Value: int64(RoundRobin)},
		{Cycle: 16000, Setting: SetQueueCap, Value: 300},
	}}

	// A large rate, drawn as a sum of Poisson parts, on a fixed pool.
	big := DefaultConfig()
	big.Seed, big.Cycles, big.Rate, big.Servers, big.MinServers, big.MaxServers = 3, 300, 1234_567_891, 2000, 2000, 2000
	big.InitialPerServer, big.TaskMin, big.TaskMax = 1, 1, 3
	runs["large-rate"] = run{cfg: big}

	// The switch with random faults, swrr weights and explicit faults.
	sw := DefaultConfig()
	sw.Seed, sw.Cycles, sw.Switch, sw.MTBF, sw.MTTR = 5, 20_000, true, 3000, 150
	sw.Policy, sw.Weights = SWRR, []int{5, 1, 0, 2}
	runs["switch-faults-swrr"] = run{cfg: sw, changes: []Change{
		{Cycle: 100, Setting: SetDown, Value: int64(MakeServerRef(1, 18))},
		{Cycle: 900, Setting: SetUp, Value: int64(MakeServerRef(1, 18))},
	}}

	// Geometric service on a fixed pool: the deterministic log at work.
	geo := DefaultConfig()
	geo.Seed, geo.Cycles, geo.Wave, geo.Rate = 9, 50_000, false, 160_000
	geo.MinServers, geo.MaxServers, geo.Service, geo.MeanService = 20, 20, Geometric, 100
	runs["geometric-service"] = run{cfg: geo}

	// Per-server queues under every policy that routes, over servers of
	// unequal speed and weight, with scaling, a fault and a policy change.
	for _, p := range PoliciesFor(PerServer) {
		ps := DefaultConfig()
		ps.Seed, ps.Cycles, ps.Queues, ps.Policy = 11, 8_000, PerServer, p
		ps.Servers, ps.Speeds, ps.Weights, ps.Choices = 6, []Speed{200, 100, 50}, []int{3, 1, 1, 2}, 3
		runs["per-server-"+p.String()] = run{cfg: ps, changes: []Change{
			{Cycle: 1500, Setting: SetDown, Value: int64(MakeServerRef(0, 2))},
			{Cycle: 2500, Setting: SetUp, Value: int64(MakeServerRef(0, 2))},
		}}
	}
	// The client side and detection, pooled and per-server: timeouts,
	// retries with jitter and a budget, health checks, ejection, warm-up,
	// replacement, gray faults and changes of the settings mid-run.
	cl := DefaultConfig()
	cl.Seed, cl.Cycles, cl.Service, cl.MeanService = 21, 8_000, Geometric, 60
	cl.Timeout, cl.Retries, cl.Backoff, cl.Jitter, cl.RetryBudget = 400, 3, 15, true, 300_000
	cl.HealthInterval, cl.EjectAfter, cl.EjectFor, cl.ProvisionDelay, cl.ReplaceAfter = 40, 3, 300, 60, 2_000
	runs["client-pooled"] = run{cfg: cl, changes: []Change{
		{Cycle: 500, Setting: SetFail, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 900, Setting: SetDown, Value: int64(MakeServerRef(0, 5))},
		{Cycle: 1200, Setting: SetHang, Value: int64(MakeServerRef(0, 7))},
		{Cycle: 3000, Setting: SetRate, Value: 1_500_000},
		{Cycle: 4500, Setting: SetTimeout, Value: 150},
		{Cycle: 6000, Setting: SetHeal, Value: int64(MakeServerRef(0, 3))},
	}}
	cp := cl
	cp.Seed, cp.Queues, cp.Policy, cp.Switch = 22, PerServer, LeastWork, true
	runs["client-per-server-switch"] = run{cfg: cp, changes: []Change{
		{Cycle: 300, Setting: SetFail, Value: int64(MakeServerRef(1, 2))},
		{Cycle: 800, Setting: SetDown, Value: int64(MakeServerRef(0, 4))},
		{Cycle: 4000, Setting: SetPolicy, Value: int64(P2C)},
	}}

	// Fleets: local counts with the client side on (timeouts, retries,
	// health checks, a failing and a down server), a periodic board whose
	// period changes and whose policy goes round the load readers and the
	// per-balancer routers, and join-idle-queue with random faults.
	fl := cl
	fl.Seed, fl.Queues, fl.Policy, fl.Balancers, fl.LoadInfo = 31, PerServer, P2C, 7, LoadLocal
	runs["fleet-local-p2c-client"] = run{cfg: fl, changes: []Change{
		{Cycle: 400, Setting: SetFail, Value: int64(MakeServerRef(0, 2))},
		{Cycle: 1000, Setting: SetDown, Value: int64(MakeServerRef(0, 6))},
		{Cycle: 3000, Setting: SetPolicy, Value: int64(LeastConnections)},
		{Cycle: 5000, Setting: SetPolicy, Value: int64(PeakEWMA)},
	}}
	fp := DefaultConfig()
	fp.Seed, fp.Cycles, fp.Queues, fp.Policy, fp.Balancers, fp.LoadInfo = 32, 8_000, PerServer, LeastConnections, 5, 50
	fp.Speeds, fp.Weights = []Speed{200, 100, 50}, []int{3, 1, 1, 2}
	runs["fleet-periodic"] = run{cfg: fp, changes: []Change{
		{Cycle: 1000, Setting: SetLoadInfo, Value: 7},
		{Cycle: 2000, Setting: SetPolicy, Value: int64(LeastWork)},
		{Cycle: 3500, Setting: SetPolicy, Value: int64(SWRR)},
		{Cycle: 5000, Setting: SetPolicy, Value: int64(RoundRobin)},
		{Cycle: 6500, Setting: SetPolicy, Value: int64(P2C)},
	}}
	fj := DefaultConfig()
	fj.Seed, fj.Cycles, fj.Queues, fj.Policy, fj.Balancers = 33, 8_000, PerServer, JIQ, 4
	fj.MTBF, fj.MTTR, fj.Wave, fj.Rate = 4000, 200, false, 200_000
	runs["fleet-jiq-faults"] = run{cfg: fj}

	// Queue disciplines: pooled lifo that turns adaptive, with the client
	// side retrying; per-server adaptive-lifo through a spike, a fault
	// and a change to lifo and back to fifo.
	dl := cl
	dl.Seed, dl.Discipline, dl.CodelInterval = 41, Lifo, 50
	runs["discipline-pooled-client"] = run{cfg: dl, changes: []Change{
		{Cycle: 2500, Setting: SetRate, Value: 1_800_000},
		{Cycle: 3000, Setting: SetDiscipline, Value: int64(AdaptiveLifo)},
		{Cycle: 3300, Setting: SetDown, Value: int64(MakeServerRef(0, 2))},
	}}
	da := DefaultConfig()
	da.Seed, da.Cycles, da.Queues, da.Policy, da.Discipline, da.CodelInterval = 42, 8_000, PerServer, P2C, AdaptiveLifo, 30
	runs["discipline-per-server"] = run{cfg: da, changes: []Change{
		{Cycle: 1000, Setting: SetRate, Value: 2 * RateScale},
		{Cycle: 2000, Setting: SetDown, Value: int64(MakeServerRef(0, 4))},
		{Cycle: 4000, Setting: SetDiscipline, Value: int64(Lifo)},
		{Cycle: 6000, Setting: SetDiscipline, Value: int64(Fifo)},
	}}
	// Overload control: shedding and the throttle with timeouts and
	// retries, adaptive-lifo and a down server (pooled); and per-server in
	// a fleet of three, shedding's target changed mid-run.
	ol := DefaultConfig()
	ol.Seed, ol.Cycles, ol.Servers, ol.MinServers, ol.MaxServers, ol.Rate, ol.Wave = 45, 8_000, 6, 6, 6, 2*RateScale/10, false
	ol.Service, ol.MeanService, ol.InitialPerServer = Geometric, 30, 0
	ol.Discipline, ol.CodelInterval, ol.CodelTarget, ol.Throttle = AdaptiveLifo, 50, 10, 200
	ol.Timeout, ol.Retries, ol.Backoff, ol.Jitter = 150, 2, 5, true
	runs["overload-pooled"] = run{cfg: ol, changes: []Change{
		{Cycle: 2000, Setting: SetRate, Value: 4 * RateScale / 10},
		{Cycle: 3000, Setting: SetDown, Value: int64(MakeServerRef(0, 2))},
		{Cycle: 5000, Setting: SetRate, Value: 2 * RateScale / 10},
	}}
	op := ol
	op.Seed, op.Queues, op.Policy, op.Balancers, op.Discipline, op.Timeout = 46, PerServer, P2C, 3, Fifo, 0
	runs["overload-per-server-fleet"] = run{cfg: op, changes: []Change{
		{Cycle: 2000, Setting: SetRate, Value: 4 * RateScale / 10},
		{Cycle: 4000, Setting: SetCodelTarget, Value: 30},
		{Cycle: 6000, Setting: SetRate, Value: 2 * RateScale / 10},
	}}
	// Adaptive concurrency limits: pooled with timeouts, retries and a
	// latency bound through a spike and a failing server; per-server with
	// p2c, scaling (new servers start at the start value), a down server
	// whose queue is routed again, and its comeback.
	lp := DefaultConfig()
	lp.Seed, lp.Cycles, lp.Servers, lp.MinServers, lp.Timeout, lp.Retries, lp.Backoff = 45, 8_000, 10, 10, 300, 2, 20
	lp.ConcurrencyLimit, lp.LimitInitial, lp.LimitMin, lp.LimitMax, lp.LimitLatency = LimitAIMD, 30, 5, 120, 150
	runs["limit-aimd-pooled-client"] = run{cfg: lp, changes: []Change{
		{Cycle: 2000, Setting: SetRate, Value: 900_000},
		{Cycle: 3000, Setting: SetFail, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 5000, Setting: SetRate, Value: 300_000},
	}}
	lq := DefaultConfig()
	lq.Seed, lq.Cycles, lq.Queues, lq.Policy, lq.Rate, lq.MinServers = 46, 8_000, PerServer, P2C, 700_000, 20
	lq.ScaleUp, lq.ScaleDown = 4*FactorScale, 2*FactorScale
	lq.ConcurrencyLimit, lq.LimitInitial, lq.LimitMax, lq.LimitLatency = LimitAIMD, 8, 40, 200
	runs["limit-aimd-per-server"] = run{cfg: lq, changes: []Change{
		{Cycle: 2000, Setting: SetDown, Value: int64(MakeServerRef(0, 4))},
		{Cycle: 2600, Setting: SetUp, Value: int64(MakeServerRef(0, 4))},
	}}
	// Target tracking on inflight, warming servers, a tight window, and
	// its target, tolerance and window changed mid-run.
	ts := DefaultConfig()
	ts.Seed, ts.Cycles, ts.Servers, ts.MaxServers, ts.Rate, ts.WavePeriod = 34, 8_000, 4, 60, 900_000, 3_000
	ts.Autoscaler, ts.ScaleMetric, ts.ScaleTarget, ts.ScalePeriod, ts.ScaleDownWindow, ts.ProvisionDelay = TargetTracking, MetricInflight, 2*DecimalScale, 20, 121, 30
	runs["target-tracking"] = run{cfg: ts, changes: []Change{
		{Cycle: 2000, Setting: SetScaleTarget, Value: 1_500_000},
		{Cycle: 4000, Setting: SetScaleTolerance, Value: 1},  // 0
		{Cycle: 6000, Setting: SetScaleDownWindow, Value: 1}, // 0
	}}
	// Fan-out 4 over p2c on geometric times (the parts generator), with
	// timeouts, retries with jitter, random faults and a failing server
	// whose errors cancel their requests' other parts.
	fo := DefaultConfig()
	fo.Seed, fo.Cycles, fo.Servers, fo.MaxServers, fo.Queues, fo.Policy, fo.Fanout = 47, 6_000, 12, 16, PerServer, P2C, 4
	fo.Service, fo.MeanService, fo.Rate, fo.Wave, fo.InitialPerServer, fo.MinServers = Geometric, 12, 120_000, false, 1, 12
	fo.Timeout, fo.Retries, fo.Backoff, fo.Jitter, fo.FailTime = 45, 1, 4, true, 7
	fo.MTBF, fo.MTTR = 4_000, 150
	runs["fanout"] = run{cfg: fo, changes: []Change{
		{Cycle: 1500, Setting: SetFail, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 3000, Setting: SetHeal, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 4000, Setting: SetPolicy, Value: int64(RoundRobin)},
	}}
	// Fan-out 3 over p2c, hedged after 25 cycles up to twice within a 20%
	// budget (the hedge generator), with a queue cap, a failing server
	// (errors end attempts while a hedge of their part is live) and a
	// slow one (hedges escape it).
	hg := DefaultConfig()
	hg.Seed, hg.Cycles, hg.Servers, hg.MaxServers, hg.Queues, hg.Policy, hg.Fanout = 16, 6_000, 12, 16, PerServer, P2C, 3
	hg.Service, hg.MeanService, hg.Rate, hg.Wave, hg.InitialPerServer, hg.MinServers = Geometric, 12, 150_000, false, 1, 12
	hg.HedgeAfter, hg.HedgeMax, hg.HedgeBudget, hg.QueueCap, hg.FailTime = 25, 2, 200_000, 8, 7
	runs["hedge"] = run{cfg: hg, changes: []Change{
		{Cycle: 1000, Setting: SetSlow, Value: SlowValue(MakeServerRef(0, 5), 300)},
		{Cycle: 1500, Setting: SetFail, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 3000, Setting: SetHeal, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 4000, Setting: SetPolicy, Value: int64(RoundRobin)},
	}}
	// Fan-out 2 over least-connections, hedged after 20 cycles up to
	// twice within a 30% budget, with the client side: timeouts (a hedge's
	// own deadline), retries with jittered backoff and a budget, health
	// checks, outlier ejection, replacement with warm-up, random faults,
	// a failing and a hanging server.
	hc := DefaultConfig()
	hc.Seed, hc.Cycles, hc.Servers, hc.MaxServers, hc.Queues, hc.Policy, hc.Fanout = 17, 6_000, 10, 14, PerServer, LeastConnections, 2
	hc.Service, hc.MeanService, hc.Rate, hc.Wave, hc.InitialPerServer, hc.MinServers = Geometric, 12, 200_000, false, 1, 10
	hc.HedgeAfter, hc.HedgeMax, hc.HedgeBudget, hc.QueueCap, hc.FailTime = 20, 2, 300_000, 10, 5
	hc.Timeout, hc.Retries, hc.Backoff, hc.Jitter, hc.RetryBudget = 60, 2, 4, true, 200_000
	hc.HealthInterval, hc.HealthFall, hc.HealthRise, hc.EjectAfter, hc.EjectFor = 10, 2, 2, 3, 200
	hc.ReplaceAfter, hc.ProvisionDelay, hc.MTBF, hc.MTTR = 400, 50, 1500, 150
	runs["hedge-client"] = run{cfg: hc, changes: []Change{
		{Cycle: 800, Setting: SetSlow, Value: SlowValue(MakeServerRef(0, 6), 400)},
		{Cycle: 1000, Setting: SetFail, Value: int64(MakeServerRef(0, 2))},
		{Cycle: 2000, Setting: SetHang, Value: int64(MakeServerRef(0, 4))},
		{Cycle: 3500, Setting: SetHeal, Value: int64(MakeServerRef(0, 2))},
		{Cycle: 3500, Setting: SetHeal, Value: int64(MakeServerRef(0, 4))},
	}}
	// Hedging behind the P/S switch over least-connections (P's hedges,
	// then S's, each through its own balancer): off at the start, so the
	// hedging state is made at the change that turns it on at 1000; off
	// at 3000 (parts sent before keep their hedges), on again at 4000
	// with another D; a slow S server.
	hs := DefaultConfig()
	hs.Seed, hs.Cycles, hs.Servers, hs.MaxServers, hs.Queues, hs.Policy, hs.Switch = 23, 6_000, 6, 8, PerServer, LeastConnections, true
	hs.Service, hs.MeanService, hs.Rate, hs.Wave, hs.InitialPerServer, hs.MinServers, hs.StreamShare = Geometric, 10, 700_000, false, 1, 6, 40
	runs["hedge-switch"] = run{cfg: hs, changes: []Change{
		{Cycle: 500, Setting: SetSlow, Value: SlowValue(MakeServerRef(1, 2), 400)},
		{Cycle: 1000, Setting: SetHedgeAfter, Value: 20},
		{Cycle: 3000, Setting: SetHedgeAfter, Value: 0},
		{Cycle: 4000, Setting: SetHedgeAfter, Value: 12},
	}}
	// Hedging in a fleet of 4 with local counts over p2c, fan-out 2, two
	// hedges a part within a 20% budget (each hedge draws its balancer),
	// hedge-after changed at 2500; a slow server.
	hf := DefaultConfig()
	hf.Seed, hf.Cycles, hf.Servers, hf.MaxServers, hf.Queues, hf.Policy, hf.Fanout = 29, 6_000, 10, 12, PerServer, P2C, 2
	hf.Service, hf.MeanService, hf.Rate, hf.Wave, hf.InitialPerServer, hf.MinServers = Geometric, 12, 250_000, false, 1, 10
	hf.Balancers, hf.LoadInfo, hf.HedgeAfter, hf.HedgeMax, hf.HedgeBudget = 4, LoadLocal, 18, 2, 200_000
	runs["hedge-fleet"] = run{cfg: hf, changes: []Change{
		{Cycle: 1000, Setting: SetSlow, Value: SlowValue(MakeServerRef(0, 4), 300)},
		{Cycle: 2500, Setting: SetHedgeAfter, Value: 30},
	}}
	// Fan-out 3 over p2c, hedged after 20 cycles up to twice within a 30%
	// budget, beside all three overload controls: adaptive-lifo shedding,
	// the throttle and an adaptive limit with a latency bound, through a
	// spike and two failing servers (the throttle's accepts fall).
	fv := hg
	fv.Seed, fv.HedgeAfter, fv.HedgeBudget, fv.QueueCap, fv.Rate = 48, 20, 300_000, 0, 200_000
	fv.Discipline, fv.CodelInterval, fv.CodelTarget, fv.Throttle = AdaptiveLifo, 60, 15, 150
	fv.ConcurrencyLimit, fv.LimitInitial, fv.LimitMin, fv.LimitMax, fv.LimitLatency = LimitAIMD, 6, 2, 12, 60
	runs["fanout-hedge-overload"] = run{cfg: fv, changes: []Change{
		{Cycle: 1000, Setting: SetSlow, Value: SlowValue(MakeServerRef(0, 5), 300)},
		{Cycle: 1500, Setting: SetRate, Value: 320_000},
		{Cycle: 2000, Setting: SetFail, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 2000, Setting: SetFail, Value: int64(MakeServerRef(0, 7))},
		{Cycle: 3500, Setting: SetRate, Value: 200_000},
		{Cycle: 4000, Setting: SetHeal, Value: int64(MakeServerRef(0, 3))},
		{Cycle: 4500, Setting: SetCodelTarget, Value: 30},
	}}
	return runs
}

type eventHash struct {
	Events    int64  `json:"events"`
	SHA256    string `json:"sha256"`
	ModelHash string `json:"model_hash"`
}

func hashRun(t *testing.T, cfg Config, changes []Change) eventHash {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	h := sha256.New()
	var n int64
	var b []byte
	for {
		for _, e := range m.Events() {
			n++
			r := e.Request
			b = binary.LittleEndian.AppendUint64(b[:0], uint64(e.Cycle))
			b = append(b, byte(e.Kind))
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Server))
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Wait))
			b = binary.LittleEndian.AppendUint64(b, uint64(r.ID))
			b = binary.LittleEndian.AppendUint64(b, uint64(r.Arrival))
			b = binary.LittleEndian.AppendUint32(b, r.Src)
			b = binary.LittleEndian.AppendUint32(b, r.Dst)
			b = binary.LittleEndian.AppendUint32(b, r.Time)
			b = append(b, byte(r.Type))
			if cfg.Balancers > 1 {
				b = append(b, r.Member) // only in a fleet: the older hashes stay
			}
			if cfg.Fanout > 1 {
				b = append(b, r.Part) // only with fan-out: the older hashes stay
			}
			h.Write(b)
		}
		if !m.Step() {
			break
		}
	}
	b = binary.LittleEndian.AppendUint64(b[:0], m.Hash())
	h.Write(b)

	// Recording events must not change the outcome.
	plain := mustNew(t, cfg, changes...)
	plain.Run()
	if plain.Hash() != m.Hash() || !reflect.DeepEqual(plain.Summary(), m.Summary()) {
		t.Errorf("the run without events differs from the run with events")
	}
	return eventHash{Events: n, SHA256: hex.EncodeToString(h.Sum(nil)), ModelHash: fmt.Sprintf("%016x", m.Hash())}
}

// TestEventHashes pins the whole event stream of a few runs.
func TestEventHashes(t *testing.T) {
	got := map[string]eventHash{}
	for name, r := range hashConfigs() {
		got[name] = hashRun(t, r.cfg, r.changes)
	}
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "event-hashes.json", append(js, '\n'))
}
