package sim_test

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// refChecks is how many random runs each differential test tries by
// default (a tenth with -short); -rapid.checks or RAPID_CHECKS overrides
// it, as `make test-long` does.
const refChecks = 200

func refCheckCount() int {
	if testing.Short() {
		return refChecks / 10
	}
	return refChecks
}

// TestReferenceMatchesModel runs random busy configurations (every policy,
// both queue modes, speeds, weights with zeros, choices, caps, random
// faults, switches, pools that hunt) with random changes (settings, policy
// switches, explicit faults) through the real model, stepped with events and
// by RunTo to random stops, and through the plain reference: every cycle's
// events and timeline row, and the summary at every stop, must agree.
func TestReferenceMatchesModel(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 60, 30))
		genFocus(t, &cfg)
		diffRun(t, cfg, sim.GenBusyChanges(t, cfg))
	})
}

// genFocus sometimes steers a busy configuration to what it seldom
// reaches by chance: the lobby (per-server swrr or least-connections with
// every starting server weighing 0, or servers failing often), small caps
// with steady arrivals, and frequent random faults.
func genFocus(t *rapid.T, cfg *sim.Config) {
	switch rapid.IntRange(0, 4).Draw(t, "focus") {
	case 1: // the lobby, by weights
		cfg.Queues = sim.PerServer
		cfg.Policy = rapid.SampledFrom([]sim.Policy{sim.SWRR, sim.LeastConnections}).Draw(t, "focusPolicy")
		cfg.Weights = make([]int, cfg.Servers+rapid.IntRange(0, 2).Draw(t, "focusZeros"))
	case 2: // small caps
		cfg.QueueCap = rapid.IntRange(1, 5).Draw(t, "focusCap")
		cfg.Rate = sim.Rate(rapid.Int64Range(sim.RateScale/2, 4*sim.RateScale).Draw(t, "focusRate"))
	case 3: // faults, the lobby when every server is down
		cfg.MTBF = rapid.Int64Range(1, 60).Draw(t, "focusMTBF")
		cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "focusMTTR")
	case 4: // fan-out
		genFanout(t, cfg)
	}
}

// TestReferenceMatchesModelSmall runs the small configurations of the
// property tests (traces, block lists, stream shares, waves, tiny caps and
// pools) with their changes, valid ones only, the same way.
func TestReferenceMatchesModelSmall(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenConfig(t)
		diffRun(t, cfg, sim.GenChanges(t, 1, cfg.Cycles))
	})
}

// TestReferenceMatchesModelClient runs small busy configurations with the
// client side drawn on (timeouts, retries with backoff, jitter and
// budgets, health checks, outlier ejection, warm-up, replacement), gray
// and down/up faults so that errors, hangs and refusals happen, and
// changes of those settings and of the others mid-run, the same way.
func TestReferenceMatchesModelClient(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenClientConfig(t)
		changes := append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}

// TestReferenceMatchesModelClientBusy is TestReferenceMatchesModel's busy
// configurations (up to 10 servers and 1,500 cycles, steered by genFocus)
// with the client side drawn on, and its changes and faults.
func TestReferenceMatchesModelClientBusy(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 60, 30))
		genFocus(t, &cfg)
		sim.GenClientSettings(t, &cfg)
		changes := append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}

// genFanout turns fan-out on in cfg: per-server queues, any policy, one
// balancer or a fleet, reading the true loads, local counts or a board.
func genFanout(t *rapid.T, cfg *sim.Config) {
	cfg.Queues, cfg.Switch = sim.PerServer, false
	cfg.Balancers = rapid.IntRange(1, 3).Draw(t, "fanoutBalancers")
	cfg.LoadInfo = rapid.SampledFrom([]sim.LoadInfo{sim.LoadExact, sim.LoadLocal, 1, 7}).Draw(t, "fanoutLoadInfo")
	cfg.Fanout = rapid.IntRange(2, 5).Draw(t, "fanout")
	cfg.Policy = rapid.SampledFrom(sim.FanoutPolicies()).Draw(t, "fanoutPolicy")
}

// genHedging draws hedging over cfg, with fan-out or one part, in cfg's
// fleet if it has one.
func genHedging(t *rapid.T, cfg *sim.Config) {
	cfg.HedgeAfter = int64(rapid.IntRange(1, 40).Draw(t, "hedgeAfter"))
	cfg.HedgeMax = rapid.IntRange(0, sim.MaxHedges).Draw(t, "hedgeMax")
	if rapid.Bool().Draw(t, "hedgeBudget") {
		cfg.HedgeBudget = sim.Decimal(rapid.Int64Range(1, sim.DecimalScale).Draw(t, "hedgeBudgetF"))
	}
	if rapid.Bool().Draw(t, "hedgeOnePart") {
		cfg.Fanout = 1
	}
}

// genFanOverload draws, over a fan-out or hedging configuration, the
// overload controls often: shedding (with a discipline), the throttle and
// a concurrency limit (fixed, small, or adaptive with its bounds and a
// latency bound), each on in about half the runs, so that parts and
// hedges are shed, throttled and refused, alone and together.
func genFanOverload(t *rapid.T, cfg *sim.Config) {
	cfg.CodelTarget, cfg.Throttle, cfg.ConcurrencyLimit = 0, 0, 0
	cfg.LimitInitial, cfg.LimitMin, cfg.LimitMax, cfg.LimitLatency = 0, 0, 0, 0
	if rapid.Bool().Draw(t, "fanShed") {
		cfg.CodelInterval = rapid.Int64Range(1, 40).Draw(t, "fanCodelInterval")
		cfg.CodelTarget = rapid.Int64Range(1, cfg.CodelInterval).Draw(t, "fanCodelTarget")
		cfg.Discipline = rapid.SampledFrom([]sim.Discipline{sim.Fifo, sim.Lifo, sim.AdaptiveLifo}).Draw(t, "fanDiscipline")
	}
	if rapid.Bool().Draw(t, "fanThrottle") {
		cfg.Throttle = sim.Hundredths(rapid.Int64Range(int64(sim.MinThrottle), int64(sim.MaxThrottle)).Draw(t, "fanThrottleK"))
	}
	switch rapid.IntRange(0, 3).Draw(t, "fanLimit") {
	case 1:
		cfg.ConcurrencyLimit = rapid.IntRange(1, 6).Draw(t, "fanFixedLimit")
	case 2:
		cfg.ConcurrencyLimit = sim.LimitAIMD
		cfg.LimitMin = rapid.IntRange(1, 4).Draw(t, "fanLimitMin")
		cfg.LimitMax = rapid.IntRange(cfg.LimitMin, 12).Draw(t, "fanLimitMax")
		cfg.LimitInitial = rapid.IntRange(cfg.LimitMin, cfg.LimitMax).Draw(t, "fanLimitInitial")
		cfg.LimitLatency = rapid.Int64Range(0, 60).Draw(t, "fanLimitLatency")
	}
}

// TestReferenceMatchesModelFanout runs busy configurations with fan-out
// and the client side drawn on (timeouts, retries, backoff, jitter and
// budgets, health checks and their refusals, outlier ejection, warm-up, replacement), gray and down/up faults and their changes, hedging
// (with K = 1 too), and shedding, the throttle and concurrency limits (fixed and adaptive), the same way:
// the request stream, each part's routing, its completion, its errors and
// timeouts ending the request, its throttling and refusals noted at
// arrival, its shedding, and the cancellation of its siblings, event by
// event.
func TestReferenceMatchesModelFanout(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		if rapid.Bool().Draw(t, "client") {
			sim.GenClientSettings(t, &cfg)
		}
		genFanout(t, &cfg)
		if rapid.Bool().Draw(t, "hedging") {
			genHedging(t, &cfg)
		}
		genFanOverload(t, &cfg)
		var changes []sim.Change
		for _, c := range append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...) {
			if c.Setting != sim.SetPolicy && c.Setting != sim.SetLoadInfo {
				changes = append(changes, c)
			}
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}

// TestReferencePolicies: every policy the model knows has a plain version
// for each queue mode that runs it.
func TestReferencePolicies(t *testing.T) {
	for _, q := range []sim.QueueMode{sim.Pooled, sim.PerServer} {
		for _, p := range sim.PoliciesFor(q) {
			rp, ok := refPolicies[p]
			if !ok || (q == sim.Pooled && rp.Pooled == nil) || (q == sim.PerServer && rp.Route == nil) {
				t.Errorf("policy %v runs %v but the reference model has no plain version of it there (registerRefPolicy)", p, q)
			}
		}
	}
}

// diffRun runs cfg with changes through the real model and the reference
// and fails at the first difference. A configuration or change list the
// model refuses is discarded.
func diffRun(t *rapid.T, cfg sim.Config, changes []sim.Change) {
	stepped, err := sim.New(cfg, sim.WithEvents())
	if err != nil {
		t.Skip(err) // a drawn combination the validation refuses
	}
	if err := stepped.Schedule(changes...); err != nil {
		t.Skip(err)
	}
	changes = stepped.Pending()
	jumped, _ := sim.New(cfg)
	if err := jumped.Schedule(changes...); err != nil {
		t.Fatalf("the second model refused changes the first took: %v", err)
	}
	ref, err := newRef(cfg, changes)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	stops := []int64{cfg.Cycles}
	for range rapid.IntRange(0, 3).Draw(t, "stops") {
		stops = append(stops, rapid.Int64Range(1, cfg.Cycles).Draw(t, "stop"))
	}
	if rapid.IntRange(0, 2).Draw(t, "strideStops") == 0 {
		// Stops at scaling evaluations (at most 40 of them), where a
		// shortcut's last cycle meets a stepped one that may scale.
		every := cfg.Cooldown
		if cfg.Autoscaler == sim.TargetTracking {
			every, _, _, _ = refTargetValues(&cfg)
		}
		stride := max(every, cfg.Cycles/40/every*every)
		for c := stride; c < cfg.Cycles; c += stride {
			stops = append(stops, c)
		}
	}
	slices.Sort(stops)
	stops = slices.Compact(stops)

	where := func() string {
		return fmt.Sprintf("config %+v\nchanges %v", cfg, changes)
	}
	for {
		c := stepped.Cycle()
		if cfg.Balancers > 1 || cfg.Fanout > 1 || cfg.HedgeAfter > 0 {
			sim.CheckInvariants(t, stepped) // the local counts, or parts' queues and books, every cycle
		}
		if got, want := normalEvents(stepped.Events()), normalEvents(ref.events); !slices.Equal(got, want) {
			t.Fatalf("cycle %d: the model's events differ from the reference's:\n%s\n%s", c, eventDiff(got, want), where())
		}
		if got, want := stepped.Last(), ref.Last(); got != want {
			t.Fatalf("cycle %d: timeline row\n model     %+v\n reference %+v\n%s", c, got, want, where())
		}
		if len(stops) > 0 && stops[0] == c {
			stops = stops[1:]
			want := ref.Summary()
			if d := summaryDiff(stepped.Summary(), want); d != "" {
				t.Fatalf("cycle %d: stepped summary differs from the reference's: %s\n%s", c, d, where())
			}
			jumped.RunTo(c)
			if jumped.Cycle() != c {
				t.Fatalf("RunTo(%d) stopped at %d", c, jumped.Cycle())
			}
			if d := summaryDiff(jumped.Summary(), want); d != "" {
				t.Fatalf("cycle %d: RunTo's summary differs from the reference's: %s\n%s", c, d, where())
			}
			if got := jumped.Last(); got != ref.Last() {
				t.Fatalf("cycle %d: RunTo's timeline row\n model     %+v\n reference %+v\n%s", c, got, ref.Last(), where())
			}
			sim.CheckInvariants(t, jumped) // the model's own books after RunTo
		}
		if !stepped.Step() {
			break
		}
		ref.step()
	}
	if stepped.Cycle() != cfg.Cycles || stepped.Err() != nil {
		t.Fatalf("the model stopped at cycle %d of %d: %v", stepped.Cycle(), cfg.Cycles, stepped.Err())
	}
}

// refEvents formats the reference's events for comparison.
func refEvents(es []sim.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = eventKey(e)
	}
	return out
}

// normalEvents formats events for comparison, with the events of step a
// in balancer and server order: the model ends the attempts due in a
// cycle in the order its timing wheel holds the servers, which nothing
// else depends on; the reference ends them by id. A run of completions,
// errors and what follows them on the spot (the server leaving or
// ejected, the request giving up) is cut into pieces, each starting at a
// completion, an error, or a leave or ejection of another server, and the
// pieces are sorted stably by balancer and server. Both sides are
// normalised alike.
func normalEvents(es []sim.Event) []string {
	es = slices.Clone(es)
	inRun := func(k sim.EventKind) bool {
		switch k {
		case sim.Complete, sim.Leave, sim.Error, sim.GiveUp, sim.Eject:
			return true
		}
		return false
	}
	for i := 0; i < len(es); {
		if !inRun(es[i].Kind) {
			i++
			continue
		}
		j := i
		for j < len(es) && inRun(es[j].Kind) {
			j++
		}
		var pieces [][]sim.Event
		for k := i; k < j; k++ {
			e := es[k]
			if k == i || e.Kind == sim.Complete || e.Kind == sim.Error ||
				(e.Kind != sim.GiveUp && (e.Balancer != pieces[len(pieces)-1][0].Balancer || e.Server != pieces[len(pieces)-1][0].Server)) {
				pieces = append(pieces, nil)
			}
			pieces[len(pieces)-1] = append(pieces[len(pieces)-1], es[k])
		}
		slices.SortStableFunc(pieces, func(a, b []sim.Event) int {
			return cmp.Or(cmp.Compare(a[0].Balancer, b[0].Balancer), cmp.Compare(a[0].Server, b[0].Server))
		})
		copy(es[i:j], slices.Concat(pieces...))
		i = j
	}
	return refEvents(es)
}

// eventKey writes what an event says: for the request events the whole
// request; for the server events (scaling, leaving, faults) the server.
func eventKey(e sim.Event) string {
	switch e.Kind {
	case sim.Arrive, sim.Reject, sim.Discard, sim.Dispatch, sim.Complete, sim.Requeue,
		sim.Error, sim.TimedOut, sim.Retry, sim.GiveUp:
		r := e.Request
		return fmt.Sprintf("%d %v b%d s%d w%d #%d@%d %08x→%08x t%d %v req=%v retry=%v",
			e.Cycle, e.Kind, e.Balancer, e.Server, e.Wait, r.ID, r.Arrival, r.Src, r.Dst, r.Time, r.Type, r.Requeued, r.Retry)
	}
	return fmt.Sprintf("%d %v b%d s%d", e.Cycle, e.Kind, e.Balancer, e.Server)
}

// eventDiff shows two event lists from their first difference.
func eventDiff(got, want []string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at event %d of %d (model) / %d (reference)\n", i, len(got), len(want))
	show := func(name string, es []string) {
		fmt.Fprintf(&b, "%s:\n", name)
		for j := max(i-3, 0); j < min(i+8, len(es)); j++ {
			mark := "  "
			if j == i {
				mark = "> "
			}
			fmt.Fprintf(&b, "%s%s\n", mark, es[j])
		}
	}
	show("model", got)
	show("reference", want)
	return b.String()
}

// summaryDiff names the fields in which two summaries differ ("" when
// none), the switch's P and S included.
func summaryDiff(got, want sim.Summary) string {
	var diffs []string
	var walk func(prefix string, a, b reflect.Value)
	walk = func(prefix string, a, b reflect.Value) {
		for i := range a.NumField() {
			name := prefix + a.Type().Field(i).Name
			x, y := a.Field(i), b.Field(i)
			if x.Kind() == reflect.Pointer {
				switch {
				case x.IsNil() != y.IsNil():
					diffs = append(diffs, fmt.Sprintf("%s: model %v, reference %v", name, x.Interface(), y.Interface()))
				case !x.IsNil():
					walk(name+".", x.Elem(), y.Elem())
				}
				continue
			}
			if !reflect.DeepEqual(x.Interface(), y.Interface()) {
				diffs = append(diffs, fmt.Sprintf("%s: model %v, reference %v", name, x.Interface(), y.Interface()))
			}
		}
	}
	walk("", reflect.ValueOf(got), reflect.ValueOf(want))
	return strings.Join(diffs, "; ")
}

// TestReferenceMatchesModelFleet runs busy per-server configurations with a
// fleet (1 to 6 balancers, exact, local or periodic load information,
// join-idle-queue among the policies), sometimes with the client side on,
// with their changes, the same way: the fleet draw, each balancer's view,
// the board's refreshes and the I-queues must give the reference's events;
// swrr's scores and peak-ewma's costs are each balancer's own.
func TestReferenceMatchesModelFleet(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 60, 30))
		cfg.Queues, cfg.Switch = sim.PerServer, false
		cfg.Balancers = rapid.IntRange(1, 6).Draw(t, "balancers")
		switch rapid.IntRange(0, 2).Draw(t, "loadInfo") {
		case 1:
			cfg.LoadInfo = sim.LoadLocal
		case 2:
			cfg.LoadInfo = sim.LoadInfo(rapid.Int64Range(1, 40).Draw(t, "period"))
		}
		cfg.Policy = rapid.SampledFrom(sim.PoliciesFor(sim.PerServer)).Draw(t, "fleetPolicy")
		if cfg.Policy == sim.JIQ {
			cfg.Weights, cfg.Choices = nil, 0
		}
		if rapid.Bool().Draw(t, "client") {
			sim.GenClientSettings(t, &cfg)
		}
		changes := sim.GenBusyChanges(t, cfg)
		if _, ok := cfg.LoadInfo.Periodic(); ok && rapid.Bool().Draw(t, "newPeriod") {
			changes = append(changes, sim.Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "periodAt"), Setting: sim.SetLoadInfo, Value: rapid.Int64Range(1, 40).Draw(t, "newPeriodValue")})
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
