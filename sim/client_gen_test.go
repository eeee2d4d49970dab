package sim

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// clientLimits are the small runs the client side's property tests draw:
// few servers and cycles, so that timeouts, retries, probes and ejections
// meet often.
var clientLimits = busyLimits{servers: 6, cycles: 400, initial: 12, taskSpan: 20}

// genClientSettings draws the client side's and detection's settings
// into cfg, each often off and otherwise small: timeout 0 or 1…60,
// retries 0…3, backoff 0…8, jitter, retry budget 0 or 0.1…1, health
// interval 0 or 1…20 with fall and rise 1…4, eject-after 0 or 1…4 with
// eject-for 1…50, provision delay 0…20, replace-after 0 or 1…80; and the
// fail time of failing servers, 1…10.
func genClientSettings(t *rapid.T, cfg *Config) {
	off := func(name string) bool { return rapid.IntRange(0, 2).Draw(t, name) == 0 }
	if !off("timeoutOff") {
		cfg.Timeout = rapid.Int64Range(1, 60).Draw(t, "timeout")
	}
	cfg.Retries = rapid.IntRange(0, 3).Draw(t, "retries")
	cfg.Backoff = rapid.Int64Range(0, 8).Draw(t, "backoff")
	cfg.Jitter = rapid.Bool().Draw(t, "jitter")
	if !off("budgetOff") && !off("budgetOff2") {
		cfg.RetryBudget = Decimal(rapid.Int64Range(DecimalScale/10, DecimalScale).Draw(t, "retryBudget"))
	}
	if !off("healthOff") {
		cfg.HealthInterval = rapid.Int64Range(1, 20).Draw(t, "healthInterval")
	}
	cfg.HealthFall = rapid.IntRange(1, 4).Draw(t, "healthFall")
	cfg.HealthRise = rapid.IntRange(1, 4).Draw(t, "healthRise")
	if !off("ejectOff") {
		cfg.EjectAfter = rapid.IntRange(1, 4).Draw(t, "ejectAfter")
	}
	cfg.EjectFor = rapid.Int64Range(1, 50).Draw(t, "ejectFor")
	cfg.ProvisionDelay = rapid.Int64Range(0, 20).Draw(t, "provisionDelay")
	if !off("replaceOff") {
		cfg.ReplaceAfter = rapid.Int64Range(1, 80).Draw(t, "replaceAfter")
	}
	cfg.FailTime = rapid.Int64Range(1, 10).Draw(t, "failTime")
}

// genClientConfig draws a small busy run (genBusyConfigWithin within
// clientLimits) with the client side drawn by genClientSettings.
func genClientConfig(t *rapid.T) Config {
	cfg := genBusyConfigWithin(t, clientLimits)
	genClientSettings(t, &cfg)
	return cfg
}

// genClientChanges draws up to eight changes for a run of cfg, in cycle
// order: gray faults (slow, fail, hang, heal), down and up of servers of
// either balancer (ids up to two past the pool's start, so some are
// skipped), and changes of the client side's settings within the ranges
// genClientSettings draws from (some may be refused together, which
// Schedule reports).
func genClientChanges(t *rapid.T, cfg Config) []Change {
	var changes []Change
	bals := 1
	if cfg.Switch {
		bals = 2
	}
	ref := func() int64 {
		return int64(MakeServerRef(rapid.IntRange(0, bals-1).Draw(t, "faultBal"), rapid.IntRange(1, cfg.Servers+2).Draw(t, "faultID")))
	}
	for range rapid.IntRange(0, 8).Draw(t, "clientChanges") {
		c := Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "clientChangeCycle")}
		switch rapid.IntRange(0, 16).Draw(t, "clientChangeKind") {
		case 0, 1:
			c.Setting, c.Value = SetDown, ref()
		case 2:
			c.Setting, c.Value = SetUp, ref()
		case 3:
			c.Setting = SetSlow
			c.Value = SlowValue(ServerRef(ref()), Speed(rapid.IntRange(int(MinSpeed), 5*SpeedScale).Draw(t, "slowFactor")))
		case 4, 5:
			c.Setting, c.Value = SetFail, ref()
		case 6:
			c.Setting, c.Value = SetHang, ref()
		case 7:
			c.Setting, c.Value = SetHeal, ref()
		case 8:
			c.Setting, c.Value = SetTimeout, rapid.Int64Range(0, 60).Draw(t, "newTimeout")
		case 9:
			c.Setting, c.Value = SetRetries, int64(rapid.IntRange(0, 3).Draw(t, "newRetries"))
		case 10:
			c.Setting, c.Value = SetBackoff, rapid.Int64Range(0, 8).Draw(t, "newBackoff")
		case 11:
			c.Setting, c.Value = SetJitter, int64(rapid.IntRange(0, 1).Draw(t, "newJitter"))
		case 12:
			c.Setting, c.Value = SetRetryBudget, rapid.SampledFrom([]int64{0, DecimalScale / 10, DecimalScale / 2, DecimalScale}).Draw(t, "newRetryBudget")
		case 13:
			c.Setting, c.Value = SetHealthInterval, rapid.SampledFrom([]int64{0, 1, 3, 10}).Draw(t, "newHealthInterval")
		case 14:
			c.Setting = rapid.SampledFrom([]Setting{SetHealthFall, SetHealthRise}).Draw(t, "newHealthCount")
			c.Value = rapid.Int64Range(1, 4).Draw(t, "newHealthCountValue")
		case 15:
			c.Setting, c.Value = SetEjectAfter, rapid.Int64Range(0, 4).Draw(t, "newEjectAfter")
		case 16:
			c.Setting = rapid.SampledFrom([]Setting{SetEjectFor, SetProvisionDelay, SetReplaceAfter}).Draw(t, "newClientSetting")
			c.Value = rapid.Int64Range(1, 50).Draw(t, "newClientValue")
		}
		changes = append(changes, c)
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
	return changes
}

// clientChecks is how many random runs each of the client side's
// properties tries (a tenth with -short); a run is small, a thousand take
// well under a second.
func clientChecks() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

// newClientRun builds the model of cfg with changes, or skips a drawn
// combination the validation refuses.
func newClientRun(t *rapid.T, cfg Config, changes []Change, opts ...Option) *Model {
	m, err := New(cfg, opts...)
	if err != nil {
		t.Skip(err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Skip(err)
	}
	return m
}

// TestClientBooks: with the client side on (timeouts, retries, budgets,
// health checks, ejection, warm-up, replacement, gray and down faults,
// and changes of all of them), the three accounting lines hold after every
// cycle, for the whole model and, in a switch, for each balancer.
func TestClientBooks(t *testing.T) {
	rapidDefaults(clientChecks())
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClientConfig(t)
		changes := append(genClientChanges(t, cfg), genBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
		m := newClientRun(t, cfg, changes)
		check := func(name string, s Summary) {
			arrivals, requests, attempts := s.Books()
			if !arrivals || !requests || !attempts {
				t.Fatalf("cycle %d: %s's books do not hold (arrivals %v, requests %v, attempts %v):\n%+v\nconfig %+v\nchanges %v",
					m.Cycle(), name, arrivals, requests, attempts, s, cfg, changes)
			}
		}
		for {
			s := m.Summary()
			check("the model", s)
			if s.P != nil {
				check("P", *s.P)
				check("S", *s.S)
			}
			if !m.Step() {
				break
			}
		}
	})
}

// TestClientRequestStream: the requests generated (ids, arrival cycles,
// sources and destinations, times and types, and which the firewall
// rejects) are the same with the client side drawn on, with its changes,
// as with every client setting off and none of those changes: timeouts,
// retries, jitter and the throttle draw from none of the arrival
// generator's numbers.
func TestClientRequestStream(t *testing.T) {
	rapidDefaults(clientChecks())
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClientConfig(t)
		changes := genClientChanges(t, cfg)
		plain := cfg
		plain.Timeout, plain.Retries, plain.Backoff, plain.Jitter, plain.RetryBudget = 0, 0, 0, false, 0
		plain.HealthInterval, plain.EjectAfter, plain.ProvisionDelay, plain.ReplaceAfter = 0, 0, 0, 0
		plain.Throttle = 0
		var faults []Change
		for _, c := range changes {
			if c.IsFault() {
				faults = append(faults, c)
			}
		}
		on := newClientRun(t, cfg, changes, WithEvents())
		off := newClientRun(t, plain, faults, WithEvents())
		if !cfg.ClientSide() {
			t.Skip("the client side drawn off")
		}
		stream := func(m *Model) []string {
			var out []string
			for _, e := range m.Events() {
				r := e.Request
				switch {
				case e.Kind == Reject:
					out = append(out, fmt.Sprintf("reject %+v", r))
				case (e.Kind == Arrive || e.Kind == Discard || e.Kind == Throttled) && !r.Retry:
					// A first attempt its client throttled was generated
					// and admitted like one that arrived.
					r.Requeued = false
					if cfg.Fanout > 1 {
						// A request's parts arrive one by one, or its discard
						// names the part that found its queue full: the
						// request, once.
						r.Part, r.Time = 0, 0
						if s := fmt.Sprintf("%+v", r); len(out) > 0 && out[len(out)-1] == s {
							continue
						}
					}
					out = append(out, fmt.Sprintf("%+v", r))
				}
			}
			return out
		}
		for {
			a, b := stream(on), stream(off)
			if !slices.Equal(a, b) {
				t.Fatalf("cycle %d: the requests differ with the client side on:\n on  %v\n off %v\nconfig %+v\nchanges %v", on.Cycle(), a, b, cfg, changes)
			}
			okOn, okOff := on.Step(), off.Step()
			if okOn != okOff {
				t.Fatalf("cycle %d: one run stopped, the other did not", on.Cycle())
			}
			if !okOn {
				break
			}
		}
	})
}

// TestClientRunToMatchesStepping: with the client side on, RunTo to
// random stops leaves exactly the state, summary and last row that
// stepping does (it must take no shortcut that skips a timeout, a retry,
// a probe or an ejection's end).
func TestClientRunToMatchesStepping(t *testing.T) {
	rapidDefaults(clientChecks())
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClientConfig(t)
		changes := genClientChanges(t, cfg)
		stepped := newClientRun(t, cfg, changes)
		jumped := newClientRun(t, cfg, changes)
		for _, stop := range drawStops(t, cfg.Cycles) {
			stepAndJumpClient(t, stepped, jumped, stop, cfg, changes)
		}
	})
}

// drawStops draws up to four random stops in a run of cycles, in order,
// and the run's end last.
func drawStops(t *rapid.T, cycles int64) []int64 {
	stops := []int64{cycles}
	for range rapid.IntRange(0, 4).Draw(t, "stops") {
		stops = append(stops, rapid.Int64Range(1, cycles).Draw(t, "stop"))
	}
	slices.Sort(stops)
	return stops
}

// stepAndJumpClient is stepAndJump for a client run of cfg with changes,
// which it names when the two differ, without its invariant checker,
// which does not know the client side's state yet.
func stepAndJumpClient(t *rapid.T, stepped, jumped *Model, stop int64, cfg Config, changes []Change) {
	for stepped.Cycle() < stop && stepped.Step() {
	}
	jumped.RunTo(stop)
	if jumped.Cycle() != stepped.Cycle() || jumped.Hash() != stepped.Hash() ||
		!reflect.DeepEqual(jumped.Summary(), stepped.Summary()) || jumped.Last() != stepped.Last() {
		t.Fatalf("at cycle %d: RunTo and Step differ:\n%+v\n%+v\nlast %+v\n     %+v\nconfig %+v\nchanges %v", stop,
			jumped.Summary(), stepped.Summary(), jumped.Last(), stepped.Last(), cfg, changes)
	}
	if a, b := poolState(jumped), poolState(stepped); a != b {
		t.Fatalf("at cycle %d: RunTo and Step leave different servers and queues:\n%s\n%s", stop, a, b)
	}
	sameThrottle(t, jumped, stepped)
}
