package sim

import (
	"cmp"
	"flag"
	"os"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// propertyChecks is how many random runs TestProperties tries unless
// -rapid.checks or RAPID_CHECKS says otherwise.
const propertyChecks = 5000

// userFlags returns the flags the command line set.
var userFlags = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
})

// rapidDefaults makes rapid deterministic (seed 1) and thorough unless the
// command line or the environment chose a seed or a number of checks.
// Each test gets its own number of checks: the flags the command line set
// are read once, before any test sets them.
func rapidDefaults(checks int) {
	set := userFlags()
	if _, env := os.LookupEnv("RAPID_SEED"); !set["rapid.seed"] && !env {
		flag.Set("rapid.seed", "1")
	}
	if _, env := os.LookupEnv("RAPID_CHECKS"); !set["rapid.checks"] && !env {
		flag.Set("rapid.checks", strconv.Itoa(checks))
	}
}

// genConfig draws a small configuration: a few servers and cycles, any
// policy, queue capacity and block list, a trace or the generator.
func genConfig(t *rapid.T) Config {
	servers := rapid.IntRange(1, 6).Draw(t, "servers")
	tmin := rapid.IntRange(1, 6).Draw(t, "taskMin")
	up := rapid.Int64Range(1, 6000).Draw(t, "scaleUp")
	cfg := Config{
		Servers:          servers,
		Cycles:           rapid.Int64Range(1, 60).Draw(t, "cycles"),
		TaskMin:          tmin,
		TaskMax:          tmin + rapid.IntRange(0, 8).Draw(t, "taskSpan"),
		Seed:             rapid.Uint64().Draw(t, "seed"),
		InitialPerServer: rapid.IntRange(0, 4).Draw(t, "initialPerServer"),
		Rate:             Rate(rapid.Int64Range(0, 3*RateScale).Draw(t, "rate")),
		Wave:             rapid.Bool().Draw(t, "wave"),
		WaveAmplitude:    rapid.IntRange(0, 100).Draw(t, "waveAmplitude"),
		WavePeriod:       rapid.Int64Range(1, 300).Draw(t, "wavePeriod"),
		StreamShare:      rapid.IntRange(0, 100).Draw(t, "streamShare"),
		ScaleUp:          Factor(up),
		ScaleDown:        Factor(rapid.Int64Range(0, up-1).Draw(t, "scaleDown")),
		Cooldown:         rapid.Int64Range(1, 5).Draw(t, "cooldown"),
		MinServers:       rapid.IntRange(1, servers).Draw(t, "minServers"),
		MaxServers:       rapid.IntRange(servers, servers+5).Draw(t, "maxServers"),
	}
	if rapid.Bool().Draw(t, "perServer") {
		cfg.Queues = PerServer
	}
	cfg.Policy = rapid.SampledFrom(PoliciesFor(cfg.Queues)).Draw(t, "policy")
	for range rapid.IntRange(0, 3).Draw(t, "speeds") {
		cfg.Speeds = append(cfg.Speeds, Speed(rapid.SampledFrom([]int{25, 50, 100, 150, 200, 300}).Draw(t, "speed")))
	}
	for range rapid.IntRange(0, 3).Draw(t, "weights") {
		cfg.Weights = append(cfg.Weights, rapid.IntRange(0, 3).Draw(t, "weight"))
	}
	cfg.Choices = rapid.IntRange(0, 4).Draw(t, "choices")
	if rapid.IntRange(0, 3).Draw(t, "faulty") == 0 {
		cfg.MTBF, cfg.MTTR = rapid.Int64Range(1, 40).Draw(t, "mtbf"), rapid.Int64Range(1, 8).Draw(t, "mttr")
	}
	if rapid.Bool().Draw(t, "capped") {
		cfg.QueueCap = rapid.IntRange(1, 12).Draw(t, "queueCap")
	}
	trace := rapid.Bool().Draw(t, "trace")
	// A trace draws its sources from 0.0.0.0-0.0.0.31, the generator from
	// the whole space; the block list is drawn to match.
	for i := range rapid.IntRange(0, 3).Draw(t, "blockedRanges") {
		var first, size uint32
		if trace {
			first = rapid.Uint32Range(0, 31).Draw(t, "blockFirst"+strconv.Itoa(i))
			size = rapid.Uint32Range(0, 8).Draw(t, "blockSize"+strconv.Itoa(i))
		} else {
			first = rapid.Uint32().Draw(t, "blockFirst"+strconv.Itoa(i))
			size = rapid.Uint32Range(0, 1<<31).Draw(t, "blockSize"+strconv.Itoa(i))
		}
		last := first + size
		if last < first {
			last = ^uint32(0)
		}
		cfg.Blocked = append(cfg.Blocked, Range{First: first, Last: last})
	}
	if trace {
		cfg.Trace = []TraceRow{}
		c := int64(0)
		for range rapid.IntRange(0, 80).Draw(t, "rows") {
			c += rapid.Int64Range(0, 2).Draw(t, "gap")
			cfg.Trace = append(cfg.Trace, TraceRow{
				Cycle: c,
				Src:   rapid.Uint32Range(0, 31).Draw(t, "src"),
				Dst:   rapid.Uint32().Draw(t, "dst"),
				Time:  rapid.Uint32Range(1, 14).Draw(t, "time"),
				Type:  Type(rapid.IntRange(0, 1).Draw(t, "type")),
			})
		}
	}
	genClient(t, &cfg)
	genLimit(t, &cfg, 8)
	genRest(t, &cfg, shaped)
	return cfg
}

// shaped are the rows genConfig and genClient draw in a shape of their own
// (ranges that depend on each other, settings often off); every other row
// of the table is drawn by genRest.
var shaped = map[string]bool{
	"servers": true, "cycles": true, "task-min": true, "task-max": true, "initial-per-server": true, "rate": true,
	"wave": true, "wave-amplitude": true, "wave-period": true, "stream-share": true, "scale-up": true, "scale-down": true,
	"cooldown": true, "min-servers": true, "max-servers": true, "queues": true, "policy": true, "choices": true,
	"mtbf": true, "mttr": true, "queue-cap": true, "timeout": true, "retries": true, "backoff": true, "jitter": true,
	"retry-budget": true, "health-interval": true, "health-fall": true, "health-rise": true, "eject-after": true,
	"eject-for": true, "provision-delay": true, "replace-after": true,
	// The harness checks one balancer's timeline: the switch and fleets
	// are drawn by genBusyConfigWithin and the fleet's reference test.
	"switch": true, "balancers": true,
	// Shedding gates the shortcuts off, the throttle some of them:
	// genOverload draws them on only part of the time.
	"codel-target": true, "throttle": true,
	"concurrency-limit": true,
}

// genRest draws every scalar row of the table that skip does not name from
// its small values (Row.small), in two passes so that a setting another
// needs (a shape's mean) may come first: a value that makes the
// configuration drawn so far invalid is taken back. A new setting is thus
// drawn at the start of runs without a word in the generators.
func genRest(t *rapid.T, cfg *Config, skip map[string]bool) {
	for range 2 {
		for i := range settingRows {
			r := &settingRows[i]
			if !r.hasSmall || skip[r.Name] {
				continue
			}
			old := r.load(cfg)
			r.store(cfg, rapid.Int64Range(r.smallLo, r.smallHi).Draw(t, r.Name))
			if cfg.Validate() != nil {
				r.store(cfg, old)
			}
		}
	}
}

// genClient draws, half the time, settings of the client side and
// detection: small timeouts, a few retries, backoff, jitter, a budget,
// health checks, ejection, warm-up and replacement, each often off.
func genClient(t *rapid.T, cfg *Config) {
	cfg.HealthFall, cfg.HealthRise, cfg.EjectFor = DefaultHealthFall, DefaultHealthRise, DefaultEjectFor
	if !rapid.Bool().Draw(t, "client") {
		return
	}
	some := func(name string, lo, hi int64) int64 {
		if rapid.Bool().Draw(t, name+"On") {
			return rapid.Int64Range(lo, hi).Draw(t, name)
		}
		return 0
	}
	cfg.Timeout = some("timeout", 1, 40)
	cfg.Retries = int(some("retries", 1, 3))
	cfg.Backoff = some("backoff", 1, 6)
	cfg.Jitter = rapid.Bool().Draw(t, "jitter")
	cfg.RetryBudget = Decimal(some("retryBudget", 1, DecimalScale))
	cfg.HealthInterval = some("healthInterval", 1, 8)
	cfg.HealthFall = rapid.IntRange(1, 4).Draw(t, "healthFall")
	cfg.HealthRise = rapid.IntRange(1, 4).Draw(t, "healthRise")
	cfg.EjectAfter = int(some("ejectAfter", 1, 4))
	cfg.EjectFor = rapid.Int64Range(1, 30).Draw(t, "ejectFor")
	cfg.ProvisionDelay = some("provisionDelay", 1, 10)
	cfg.ReplaceAfter = some("replaceAfter", 1, 30)
}

// TestSmallValuesCoverTheTable: every scalar row of the table says what
// the generators draw for it (Row.small), so a new setting is drawn at the
// start of runs and in changes without a word here.
func TestSmallValuesCoverTheTable(t *testing.T) {
	for _, r := range Rows() {
		if _, scalar := r.Load(&Config{}); scalar && !r.hasSmall {
			t.Errorf("setting %s: no small values: give its row .small(lo, hi)", r.Name)
		}
	}
}

// genChanges draws changes at cycles after..n, valid or not: a changeable
// setting of the table (its small values) or an action (faults name
// server ids of balancer 0, live or not).
func genChanges(t *rapid.T, after, n int64) []Change {
	var cs []Change
	for range rapid.IntRange(0, 4).Draw(t, "changes") {
		s := Setting(rapid.IntRange(0, int(numSettings)-1).Draw(t, "setting"))
		var lo, hi int64
		if r := ChangeRow(s); r != nil {
			lo, hi = r.smallLo, r.smallHi
		} else if actionOf(s).fault {
			lo, hi = 1, 8
		}
		cs = append(cs, Change{
			Cycle:   rapid.Int64Range(after, n+1).Draw(t, "cycle"),
			Setting: s,
			Value:   rapid.Int64Range(lo, hi).Draw(t, "value"),
		})
	}
	return cs
}

// call is one Schedule call made when the model had reached cycle at.
type call struct {
	at      int64
	changes []Change
}

// TestProperties runs thousands of random small configurations with
// random changes: the invariants and the shadow model's rules hold after
// every cycle, a refused Schedule changes nothing, and stopping a run of N
// cycles at cycle k gives exactly the run configured with k cycles.
func TestProperties(t *testing.T) {
	rapidDefaults(propertyChecks)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		n := cfg.Cycles
		k := rapid.Int64Range(1, n).Draw(t, "stopAt")
		var calls []call
		calls = append(calls, call{0, genChanges(t, 0, n)})
		for range rapid.IntRange(0, 2).Draw(t, "laterCalls") {
			at := rapid.Int64Range(1, n).Draw(t, "callAt")
			calls = append(calls, call{at, genChanges(t, at, n)})
		}
		slices.SortStableFunc(calls, func(a, b call) int { return cmp.Compare(a.at, b.at) })

		// The long run: N cycles, checked throughout, observed at k.
		a := newHarness(t, cfg)
		accepted := make([]bool, len(calls))
		var atK Summary
		var hashK uint64
		var logK []string
		schedule := func(h *harness, changes []Change) error {
			before := h.m.Pending()
			err := h.m.Schedule(changes...)
			if err != nil && !slices.Equal(h.m.Pending(), before) {
				t.Fatalf("refused Schedule(%v) changed Pending from %v to %v", changes, before, h.m.Pending())
			}
			return err
		}
		ci := 0
		for {
			for ci < len(calls) && calls[ci].at == a.m.Cycle() {
				accepted[ci] = schedule(a, calls[ci].changes) == nil
				ci++
			}
			if a.m.Cycle() == k {
				atK, hashK, logK = a.m.Summary(), a.m.Hash(), slices.Clone(a.log)
			}
			if !a.step() {
				break
			}
		}
		if a.m.Cycle() != n {
			t.Fatalf("run stopped at %d, want %d", a.m.Cycle(), n)
		}

		// The short run: k cycles, the same calls restricted to cycles ≤ k.
		short := cfg
		short.Cycles = k
		b := newHarness(t, short)
		for {
			for i, c := range calls {
				if c.at != b.m.Cycle() || !accepted[i] || c.at >= k {
					continue
				}
				var keep []Change
				for _, ch := range c.changes {
					if ch.Cycle <= k {
						keep = append(keep, ch)
					}
				}
				if err := schedule(b, keep); err != nil {
					t.Fatalf("cycle %d: Schedule(%v) refused in the short run (%v) but accepted in the long run", c.at, keep, err)
				}
			}
			if !b.step() {
				break
			}
		}
		if got := b.m.Summary(); !reflect.DeepEqual(got, atK) {
			t.Fatalf("run of %d cycles:\n%+v\nrun of %d stopped at %d:\n%+v", k, got, n, k, atK)
		}
		if got := b.m.Hash(); got != hashK {
			t.Fatalf("Hash() of the %d-cycle run = %x, of the %d-cycle run at %d = %x", k, got, n, k, hashK)
		}
		if !slices.Equal(b.log, logK) {
			t.Fatalf("event logs of the %d-cycle run and of the %d-cycle run up to %d differ", k, n, k)
		}
	})
}
