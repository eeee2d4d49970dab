package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
)

const sizeHelp = `Usage: lbsim size [run flags] --slo KEY<=VALUE [--slo …] [--variant VARIANT …] [flags]

Finds, for each variant, the fewest servers that meet every service-level
objective: the smallest fixed pool c (servers = min-servers = max-servers = c)
at which, for every --slo KEY<=VALUE, the upper end of the one-sided
--confidence t-interval of KEY's mean over --replications runs is at most VALUE.
KEY is a number of the run's JSON summary (avg_wait, wait_p99, response_p95,
utilisation, …; P.KEY or S.KEY with --switch).

Variants are those of 'lbsim compare' (LABEL:NAME=VALUE[,NAME=VALUE…]; none means
the run flags alone). Replication r runs with seed --seed + r for every variant
and every c, so all of them see the same requests. The pool is size's to choose:
--servers, --min-servers and --max-servers are refused (so is a --set of
min-servers or max-servers, which would let the pool scale), and so is an initial
queue (--initial-per-server other than 0, its default here), which would grow
with c.

The search tries c = 1, 2, 4, … until the objectives hold (up to --max; if they
never do it says "not met up to N" and exits 1), then bisects between the last
c that failed and the first that held, evaluating each c once. It prints the
answer with each objective's mean and upper bound at c and at c − 1 (where it
does not hold), and the runs it took. An objective that holds at a c but fails
at a larger c the search tried is reported as non-monotone: the answer then
rests on noise or on a policy that gets worse with more servers.

Beside a pooled variant with geometric service, a constant rate and nothing
else that breaks the M/M/c model, it prints the textbook answers: Erlang C's
fewest servers for an avg_wait (or wait_pNN) objective, and the square-root
staffing estimate c ≈ a + β√a (Halfin–Whitt, β from Erlang C's chance of
waiting at its answer). The whole-cycle clock waits a little less than Erlang C,
so the simulation may need one server fewer.

Example (the README's, 720 runs):
  lbsim size --rate 2 --service geometric --mean-service 100 --wave=false \
    --block none --cycles 100000 --seed 1 --slo 'wait_p99<=200' \
    --variant pooled:queues=pooled \
    --variant rr:queues=per-server,policy=round-robin \
    --variant p2c:queues=per-server,policy=p2c \
    --variant lc:queues=per-server,policy=least-connections

Flags (the run flags, but --servers, --min-servers and --max-servers, and size's own):
`

// Bounds of lbsim size.
const (
	maxObjectives   = 16
	maxSizeVariants = 16
	maxSizePool     = sim.MaxServersLimit // the largest pool the simulator runs
	maxObjectiveKey = 64
)

// fixedPool are the run flags that set the pool, which size chooses.
var fixedPool = []string{"servers", "min-servers", "max-servers"}

// fixedPoolChange refuses a change (--set, given or in a variant) of a
// setting of fixedPool, as the flags are refused: the pool would not stay
// the fixed pool of c servers size judges.
func fixedPoolChange(changes []sim.Change) error {
	for _, ch := range changes {
		if name := ch.Setting.String(); slices.Contains(fixedPool, name) {
			return fmt.Errorf("--set %v: size chooses the pool itself (servers = min-servers = max-servers = c for every c it tries, for the whole run); a change of --%s would let the pool scale; leave it out", ch, name)
		}
	}
	return nil
}

// objective is one --slo KEY<=VALUE.
type objective struct {
	Key   string
	Value float64
}

func (o objective) String() string { return o.Key + " ≤ " + readable(o.Value) }

// parseObjective reads KEY<=VALUE: KEY letters, digits, '_' and '.', VALUE
// a finite decimal number.
func parseObjective(s string) (objective, error) {
	key, value, ok := strings.Cut(s, "<=")
	if !ok {
		return objective{}, fmt.Errorf("--slo %s: want KEY<=VALUE, like wait_p99<=200", quoteCut(s))
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	valid := key != "" && len(key) <= maxObjectiveKey && !strings.HasPrefix(key, ".") && !strings.HasSuffix(key, ".") && !strings.Contains(key, "..")
	for _, r := range key {
		valid = valid && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.')
	}
	if !valid {
		return objective{}, fmt.Errorf("--slo %s: the key %s is not a summary key: want letters, digits and '_' (P.KEY or S.KEY with --switch), at most %d bytes, like avg_wait or wait_p99",
			quoteCut(s), quoteCut(key), maxObjectiveKey)
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(value, "xXpP_") {
		return objective{}, fmt.Errorf("--slo %s: the value %s is not a number: want a finite decimal number, like 200 or 0.5", quoteCut(s), quoteCut(value))
	}
	return objective{Key: key, Value: v}, nil
}

// sizeOptions is everything lbsim size was asked to do besides the run flags.
type sizeOptions struct {
	objectives   []objective
	variants     []variant
	replications int
	jobs         int
	confidence   float64
	max          int
	jsonPath     string
	csvPath      string
	noProgress   bool
	// base is the run flags given, in order, as --name=value (each run
	// reads them), probe the run flags as read (the seed) and configPath
	// --config's file.
	base       []string
	probe      *runOptions
	configPath string
}

// sizeCommand is lbsim size: its options, flags and run (sizeRun).
var sizeCommand = subcommand[sizeOptions]{
	commandSpec: commandSpec{name: "size", help: sizeHelp, hide: fixedPool, skip: func(key string) string {
		switch {
		case slices.Contains(fixedPool, key):
			return "size chooses the pool"
		case key == "initial-per-server":
			return "size starts every pool empty"
		}
		return ""
	}},
	flags: func(c *cli, o *sizeOptions) (*flag.FlagSet, *string) {
		var fs *flag.FlagSet
		fs, o.probe = c.sizeFlags(o, &o.base)
		fs.StringVar(&o.configPath, "config", "", configUsage)
		return fs, &o.configPath
	},
	run: (*cli).sizeRun,
}

func (c *cli) size(args []string) int { return runCommand(c, sizeCommand, args) }

// sizeRun is lbsim size once its flags are read: it checks the sizing and
// every variant, searches each variant's fewest servers and writes the
// table and the outputs asked for; a variant no pool up to --max sizes
// exits 1.
func (c *cli) sizeRun(o *sizeOptions, cl commandLine) error {
	cl.cf.notice(c.stderr, "size")
	seen, probe, base := cl.seen, o.probe, o.base
	if err := o.check(seen, probe); err != nil {
		return usageErr("%v", err)
	}
	base = slices.DeleteFunc(base, func(a string) bool { return strings.HasPrefix(a, "--seed=") }) // each run's own
	base = append(base, "--initial-per-server=0")
	if len(o.variants) == 0 {
		o.variants = []variant{{Label: "base"}}
	}
	seed := probe.cfg.Seed
	if !seen["seed"] {
		seed = randomSeed()
	}
	if seed > math.MaxUint64-uint64(o.replications) {
		return usageErr("--seed %d: seeds run up to seed+replications−1, which must fit in 64 bits", seed)
	}
	outs := outputs{stdout: c.stdout} // either output may be "-"
	if o.configPath != "" {
		outs.addInput("--config", o.configPath)
	}
	if err := c.checkSizeVariants(o, base, seed, &outs); err != nil {
		return usageErr("%v", err)
	}
	var out, csvFile *atomicFile
	if err := outs.wantAll(planned{"--json", o.jsonPath, &out}, planned{"--csv", o.csvPath, &csvFile}); err != nil {
		return usageErr("%v", err)
	}
	defer outs.abort()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := c.watchInterrupts(&outs, cancel)
	defer stop()
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	report, code := c.sizeAll(ctx, o, base, seed)
	if report == nil {
		return exited(code)
	}
	human := c.humanOut(&outs)
	fmt.Fprint(human, report.table())
	if csvFile != nil {
		report.writeCSV(csvFile.w)
	}
	if o.jsonPath != "" {
		c.writeJSON(report, out)
	}
	if code := c.commit(&outs, "size"); code != exitOK {
		return exited(code)
	}
	for _, v := range report.Variants {
		if v.Servers == 0 {
			return exited(exitFailed) // the table says which
		}
	}
	return nil
}

// sizeFlags defines size's flags: the run flags but the pool's (recorded
// into base, as each run reads them) and its own.
func (c *cli) sizeFlags(o *sizeOptions, base *[]string) (*flag.FlagSet, *runOptions) {
	fs := flag.NewFlagSet("size", flag.ContinueOnError)
	inputs, probe := recordedInputs(fs, base)
	fs.Lookup("initial-per-server").DefValue = "0" // size's own: every pool starts empty
	allowed := func(name string) bool {
		return inputs.Lookup(name) != nil && name != "seed" && name != "initial-per-server" && !slices.Contains(fixedPool, name)
	}
	fs.Func("slo", "an objective, `KEY<=VALUE` (repeatable; at least one): KEY a number of the run's summary", func(s string) error {
		ob, err := parseObjective(s)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "--slo "))
		}
		o.objectives = append(o.objectives, ob)
		return nil
	})
	fs.Var(variantList{&o.variants, allowed}, "variant", "a variant, `LABEL:NAME=VALUE[,NAME=VALUE…]` as for lbsim compare (repeatable; none = the run flags)")
	intVar(fs, &o.replications, "replications", 10, "runs per variant and pool, seeds seed … seed+R−1 (2..1000)")
	intVar(fs, &o.jobs, "jobs", runtime.GOMAXPROCS(0), fmt.Sprintf("runs at a time (1..%d)", maxJobs))
	floatVar(fs, &o.confidence, "confidence", 0.95, "the one-sided confidence of each upper bound (0.5..0.9999)")
	intVar(fs, &o.max, "max", 10_000, fmt.Sprintf("the largest pool to try (1..%d, the simulator's largest pool)", maxSizePool))
	fs.StringVar(&o.jsonPath, "json", "", "write the result as JSON to `file` ('-' = stdout, then the table goes to stderr)")
	fs.StringVar(&o.csvPath, "csv", "", "write the table as CSV to `file` ('-' = stdout, then the table goes to stderr)")
	fs.BoolVar(&o.noProgress, "no-progress", false, "never show progress")
	return fs, probe
}

// check refuses a sizing that cannot be made (seen: the flags given).
func (o *sizeOptions) check(seen map[string]bool, probe *runOptions) error {
	for _, name := range fixedPool {
		if seen[name] {
			return fmt.Errorf("--%s: size chooses the pool itself (servers = min-servers = max-servers = c for every c it tries); leave --%s out and bound the search with --max", name, name)
		}
	}
	switch {
	case len(o.objectives) == 0:
		return errors.New("no --slo: give at least one objective, like --slo wait_p99<=200")
	case len(o.objectives) > maxObjectives:
		return fmt.Errorf("%d objectives: at most %d", len(o.objectives), maxObjectives)
	case len(o.variants) > maxSizeVariants:
		return fmt.Errorf("%d variants: at most %d", len(o.variants), maxSizeVariants)
	case o.replications < 2 || o.replications > 1000:
		return fmt.Errorf("--replications %d: want 2 to 1000 (an upper bound needs at least two runs)", o.replications)
	case o.jobs < 1 || o.jobs > maxJobs:
		return fmt.Errorf("--jobs %d: want 1 to %d", o.jobs, maxJobs)
	case !(o.confidence >= 0.5 && o.confidence <= 0.9999):
		return fmt.Errorf("--confidence %g: want 0.5 to 0.9999", o.confidence)
	case o.max < 1 || o.max > maxSizePool:
		return fmt.Errorf("--max %d: want 1 to %d (the simulator's largest pool)", o.max, maxSizePool)
	case seen["initial-per-server"] && probe.cfg.InitialPerServer != 0:
		return fmt.Errorf("--initial-per-server %d: size starts every run with an empty queue; an initial queue of servers × initial-per-server would grow with c, so pools would not see the same requests", probe.cfg.InitialPerServer)
	}
	return nil
}

// checkSizeVariants checks every variant before any run: a --set of the
// pool's bounds, its flags at the smallest and largest pool, the
// objectives' keys against its summary, and that each flag given is read
// by some run; the files they read join outs.
func (c *cli) checkSizeVariants(o *sizeOptions, base []string, seed uint64, outs *outputs) error {
	var reads readTally
	for _, v := range o.variants {
		vb := variantBase(base, v)
		// A change of the pool's bounds first, read before any model is
		// built (a model refuses some of them with a message about the
		// bounds, not about size).
		if ro, err := c.parseRun(poolArgs(vb, 1, seed)); err == nil {
			if err := fixedPoolChange(ro.changes); err != nil {
				return fmt.Errorf("variant %s: %v", quoteCut(v.Label), err)
			}
		}
		for _, pool := range []int{o.max, 1} {
			ro, err := c.checkRun(poolArgs(vb, pool, seed))
			switch {
			case err != nil && pool == 1: // fine at the largest pool
				return fmt.Errorf("variant %s, 1 server: %v\nsize tries pools from one server up: a --fault or --set must name a server every pool has (server 1)", quoteCut(v.Label), err)
			case err != nil:
				return fmt.Errorf("variant %s, %d servers: %v", quoteCut(v.Label), pool, err)
			case ro.cfg.Autoscaler == sim.TargetTracking:
				return fmt.Errorf("variant %s: --autoscaler target: size judges fixed pools (servers = min-servers = max-servers = c), and target tracking resizes a pool; leave it out", quoteCut(v.Label))
			}
			reads.add(ro)
			outs.addRunInputs(ro)
		}
		if err := c.checkKeys(vb, seed, o.objectives); err != nil {
			return fmt.Errorf("variant %s: %v", quoteCut(v.Label), err)
		}
	}
	c.noteUnread("size", &reads, "runs (each variant at the smallest and the largest pool)")
	return reads.err()
}

// sizeAll sizes every variant in turn; it returns nil and the exit code
// when a run fails or an interrupt stops it (having said so).
func (c *cli) sizeAll(ctx context.Context, o *sizeOptions, base []string, seed uint64) (*sizing, int) {
	report := &sizing{Version: lbsimVersion(), Seed: seed, Replications: o.replications, Confidence: o.confidence, Max: o.max, Objectives: o.objectives}
	for _, v := range o.variants {
		res, err := c.sizeVariant(ctx, o, variantBase(base, v), v, seed)
		if c.interrupted() {
			fmt.Fprintln(c.stderr, "lbsim size: interrupted; no output was written")
			return nil, c.interruptCode()
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "lbsim size: variant %s: %v\nNo output was written.\n", quoteCut(v.Label), err)
			return nil, exitFailed
		}
		report.Variants = append(report.Variants, res)
	}
	return report, exitOK
}

// variantBase is the run flags of variant v: the base flags, then its own.
func variantBase(base []string, v variant) []string {
	args := slices.Clone(base)
	for _, kv := range v.Sets {
		args = append(args, "--"+kv[0]+"="+kv[1])
	}
	return args
}

// poolArgs are the run flags of a fixed pool of c servers with a seed.
func poolArgs(vb []string, c int, seed uint64) []string {
	return pointArgs(vb, poolPoint(c), seed)
}

// poolPoint is the fixed pool of c servers as run settings.
func poolPoint(c int) sweep.Point {
	n := strconv.Itoa(c)
	return sweep.Point{{Name: "servers", Value: n}, {Name: "min-servers", Value: n}, {Name: "max-servers", Value: n}}
}

// checkKeys refuses an objective whose key is not a number of the
// variant's summary, read from a model built (not run) with one server.
func (c *cli) checkKeys(vb []string, seed uint64, obs []objective) error {
	ro, err := c.parseRun(poolArgs(vb, 1, seed))
	if err != nil {
		return err
	}
	m, err := newModel(ro)
	if err != nil {
		return err
	}
	sum, err := json.Marshal(m.Summary())
	if err != nil {
		return err
	}
	for _, ob := range obs {
		if _, err := sweep.MetricValues(sum, []string{ob.Key}); err != nil {
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(sum))
			d.UseNumber()
			d.Decode(&obj)
			keys := sweep.NumericKeys(obj, "")
			return fmt.Errorf("--slo %s<=%s: %s is not a number of the run's summary; allowed: %s", ob.Key, readable(ob.Value), ob.Key, strings.Join(keys, ", "))
		}
	}
	return nil
}

// evaluation is what the runs at one pool size gave.
type evaluation struct {
	Servers    int
	Objectives []bound // one per objective, in order
	Overloaded bool    // a run queued more than --max-queued: the pool is far too small
	Runs       int
}

// bound is an objective's mean and one-sided upper bound at a pool size.
type bound struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	Mean  float64 `json:"mean"`
	Upper float64 `json:"upper"`
	Holds bool    `json:"holds"`
}

// MarshalJSON writes an overloaded pool's mean and bound (+Inf) as null,
// which JSON can hold.
func (b bound) MarshalJSON() ([]byte, error) {
	type plain bound
	if math.IsInf(b.Mean, 0) || math.IsInf(b.Upper, 0) {
		return json.Marshal(struct {
			plain
			Mean       *float64 `json:"mean"`
			Upper      *float64 `json:"upper"`
			Overloaded bool     `json:"overloaded"`
		}{plain: plain(b), Overloaded: true})
	}
	return json.Marshal(plain(b))
}

// upperBound returns the mean of xs (two or more) and the upper end of its
// one-sided Student t interval at confidence p.
func upperBound(xs []float64, p float64) (mean, upper float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(p)
	return mean, mean + t*sd/math.Sqrt(n)
}

// evaluate runs the variant (its flags vb) at a fixed pool of c servers,
// R replications on sweep's parallel runner, and judges the objectives.
func (c *cli) evaluate(ctx context.Context, o *sizeOptions, vb []string, pool int, seed uint64) (evaluation, error) {
	ev := evaluation{Servers: pool}
	var dims []sweep.Dimension
	for _, st := range poolPoint(pool) {
		dims = append(dims, sweep.Dimension{Name: st.Name, Values: []string{st.Value}})
	}
	g, err := sweep.NewGrid(dims, o.replications, seed)
	if err != nil {
		return ev, err
	}
	keys := make([]string, len(o.objectives))
	for i, ob := range o.objectives {
		keys[i] = ob.Key
	}
	values := make([][]float64, len(keys)) // by objective, then replication
	collect := lineFunc(func(line []byte) error {
		l, err := sweep.ParseLine(line)
		if err != nil {
			return err
		}
		xs, err := sweep.MetricValues(l.Summary, keys)
		for i, x := range xs {
			values[i] = append(values[i], x)
		}
		return err
	})
	var runs atomic.Int64
	run := c.sweepRun(vb, c.newQueueShare(min(o.jobs, o.replications))) // the pool and the seed are the run's
	err = sweep.Execute(ctx, g, func(yield func(int64) bool) {
		for k := range g.Runs() {
			if !yield(k) {
				return
			}
		}
	}, o.jobs, func(r sweep.Run) ([]byte, error) {
		runs.Add(1)
		return run(r)
	}, collect, nil)
	ev.Runs = int(runs.Load())
	var le *sim.QueueLimitError
	switch {
	case errors.As(err, &le):
		ev.Overloaded = true
		for _, ob := range o.objectives {
			ev.Objectives = append(ev.Objectives, bound{Key: ob.Key, Value: ob.Value, Mean: math.Inf(1), Upper: math.Inf(1)})
		}
		return ev, nil
	case err != nil:
		return ev, err
	}
	for i, ob := range o.objectives {
		mean, upper := upperBound(values[i], o.confidence)
		ev.Objectives = append(ev.Objectives, bound{Key: ob.Key, Value: ob.Value, Mean: mean, Upper: upper, Holds: upper <= ob.Value})
	}
	return ev, nil
}

// lineFunc is an io.Writer that hands each line sweep.Execute writes to a
// function, so that only the objectives' values are kept.
type lineFunc func(line []byte) error

func (f lineFunc) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// searchResult is the outcome of searchPool.
type searchResult struct {
	Servers     int   // the fewest servers found; 0 when not met up to the maximum
	Order       []int // the pools evaluated, in order
	NonMonotone []int // pools where an objective held while a larger pool tried failed it
}

// searchPool finds the fewest c in 1 … maxPool for which every objective
// holds: c = 1, 2, 4, … (and maxPool itself) until they hold, then
// bisection between the last c that failed and the first that held. Each c
// is evaluated once (eval returns whether each objective holds there), so
// it takes about 2·log₂ c evaluations.
func searchPool(maxPool int, eval func(c int) ([]bool, error)) (searchResult, error) {
	var res searchResult
	seen := map[int][]bool{}
	all := func(c int) (bool, error) {
		hs, err := eval(c)
		if err != nil {
			return false, err
		}
		seen[c] = hs
		res.Order = append(res.Order, c)
		for _, h := range hs {
			if !h {
				return false, nil
			}
		}
		return true, nil
	}
	lo, hi := 0, 1 // all fails at lo (0: none tried), holds at hi once found
	for {
		ok, err := all(hi)
		if err != nil {
			return res, err
		}
		if ok {
			break
		}
		if hi == maxPool {
			res.nonMonotone(seen)
			return res, nil
		}
		lo, hi = hi, min(2*hi, maxPool)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := all(mid)
		if err != nil {
			return res, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	res.Servers = hi
	res.nonMonotone(seen)
	return res, nil
}

// nonMonotone lists the pools where some objective held while a larger
// pool evaluated failed it.
func (res *searchResult) nonMonotone(seen map[int][]bool) {
	res.NonMonotone = []int{}
	for _, c := range slices.Sorted(maps.Keys(seen)) {
		for i, h := range seen[c] {
			if !h {
				continue
			}
			if slices.ContainsFunc(res.Order, func(d int) bool { return d > c && !seen[d][i] }) {
				res.NonMonotone = append(res.NonMonotone, c)
				break
			}
		}
	}
}

// sizeVariant searches variant v's fewest servers.
func (c *cli) sizeVariant(ctx context.Context, o *sizeOptions, vb []string, v variant, seed uint64) (sizedVariant, error) {
	sv := sizedVariant{Label: v.Label, Flags: vb}
	evals := map[int]evaluation{}
	eval := func(pool int) ([]bool, error) {
		if c.stderrTTY && !o.noProgress {
			fmt.Fprintf(c.stderr, "\rlbsim size: %s: trying %s (%s so far)…%s", printable(v.Label), counted(pool, "server"), counted(sv.Runs, "run"), strings.Repeat(" ", 10))
		}
		ev, err := c.evaluate(ctx, o, vb, pool, seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", counted(pool, "server"), err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sv.Runs += ev.Runs
		evals[pool] = ev
		hs := make([]bool, len(ev.Objectives))
		for i, b := range ev.Objectives {
			hs[i] = b.Holds
		}
		return hs, nil
	}
	res, err := searchPool(o.max, eval)
	if c.stderrTTY && !o.noProgress {
		fmt.Fprintf(c.stderr, "\r%s\r", strings.Repeat(" ", 90))
	}
	if err != nil {
		return sv, err
	}
	sv.Servers, sv.NonMonotone, sv.Tried = res.Servers, res.NonMonotone, res.Order
	if sv.Servers == 0 {
		sv.NotMetUpTo = o.max
		return sv, nil
	}
	sv.At = evals[sv.Servers].Objectives
	if sv.Servers > 1 {
		sv.Below = evals[sv.Servers-1].Objectives // bisection always ends beside a failing c
	}
	ro, err := c.parseRun(poolArgs(vb, sv.Servers, seed))
	if err != nil {
		return sv, err
	}
	sv.Theory = theoryFor(ro.cfg, ro.changes, sv.Servers, o.objectives)
	return sv, nil
}

// sizing is the outcome of lbsim size, as its JSON prints it.
type sizing struct {
	Version      string         `json:"lbsim_version"` // the build (lbsim version)
	Seed         uint64         `json:"seed"`
	Replications int            `json:"replications"`
	Confidence   float64        `json:"confidence"`
	Max          int            `json:"max"`
	Objectives   []objective    `json:"-"`
	Variants     []sizedVariant `json:"variants"`
}

// sizedVariant is one variant's answer.
type sizedVariant struct {
	Label       string   `json:"label"`
	Flags       []string `json:"flags"`
	Servers     int      `json:"servers"`                 // 0: not met up to NotMetUpTo
	NotMetUpTo  int      `json:"not_met_up_to,omitempty"` // the --max, when not met
	At          []bound  `json:"at"`
	Below       []bound  `json:"below"`
	Runs        int      `json:"runs"`
	Tried       []int    `json:"tried"`
	NonMonotone []int    `json:"non_monotone"`
	Theory      *theory  `json:"theory,omitempty"`
}

// theory is the textbook answer beside a pooled M/M/c variant.
type theory struct {
	Load        float64 `json:"offered_load"`          // a = λ·m
	ErlangC     int     `json:"erlang_c"`              // fewest servers by Erlang C for the wait objectives
	PWait       float64 `json:"p_wait"`                // Erlang C's P(wait) at that answer
	Beta        float64 `json:"beta"`                  // Halfin–Whitt β for that P(wait)
	SquareRoot  float64 `json:"square_root"`           // a + β√a
	Objectives  string  `json:"objectives"`            // the objectives it answers
	Unanswered  string  `json:"unanswered,omitempty"`  // objectives theory has no formula for
	Explanation string  `json:"explanation,omitempty"` // why there is none, when ErlangC is 0
}

// waitQuantiles maps the summary's wait percentile keys to their p.
var waitQuantiles = map[string]float64{"wait_p50": 0.5, "wait_p90": 0.9, "wait_p95": 0.95, "wait_p99": 0.99}

// theoryFor returns Erlang C's answer for the wait objectives (avg_wait and
// wait_pNN) and the square-root staffing estimate when cfg with its
// changes (--set, --fault) at c servers is an M/M/c queue, else nil.
func theoryFor(cfg sim.Config, changes []sim.Change, c int, obs []objective) *theory {
	in := mmc.FitInput(cfg, changes...)
	// The fit is asked of a stable pool: the simulation's answer may sit
	// at or below the load (a short run has no time to fill its queue).
	in.Servers = max(c, int(in.Lambda*in.MeanService)+1)
	if cfg.Service != sim.Geometric || !queueing.CheckFit(in).Applies || in.PerServer {
		return nil
	}
	th := &theory{Load: in.Lambda * in.MeanService}
	var answered, unanswered []string
	for _, ob := range obs {
		var n int
		var err error
		switch p, ok := waitQuantiles[ob.Key]; {
		case ob.Key == "avg_wait":
			n, err = queueing.MinServersForWait(in.Lambda, in.MeanService, ob.Value)
		case ok:
			n, err = queueing.MinServersForWaitQuantile(in.Lambda, in.MeanService, p, ob.Value)
		default:
			unanswered = append(unanswered, ob.String())
			continue
		}
		if err != nil {
			th.Explanation = err.Error()
			return th
		}
		answered = append(answered, ob.String())
		th.ErlangC = max(th.ErlangC, n)
	}
	th.Objectives, th.Unanswered = strings.Join(answered, ", "), strings.Join(unanswered, ", ")
	if th.ErlangC == 0 {
		return nil
	}
	pw, err := queueing.ErlangC(th.ErlangC, th.Load)
	if err != nil {
		return th
	}
	th.PWait = pw
	if beta, err := queueing.HalfinWhittBeta(pw); err == nil {
		th.Beta, th.SquareRoot = beta, queueing.SquareRootStaffing(th.Load, beta)
	}
	return th
}

// table prints the answers: per variant the servers and the runs, then
// each objective's mean and upper bound at c and at c − 1.
func (s *sizing) table() string {
	var b strings.Builder
	obs := make([]string, len(s.Objectives))
	for i, ob := range s.Objectives {
		obs[i] = ob.String()
	}
	fmt.Fprintf(&b, "Size: the fewest servers for %s; %s per pool (seeds %d to %d, the same for every variant and pool);\nan objective holds when the upper end of its one-sided %s%% t-interval is at most its value.\n\n",
		strings.Join(obs, " and "), counted(s.Replications, "replication"), s.Seed, s.Seed+uint64(s.Replications)-1, readable(100*s.Confidence))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tservers\tobjective\tmean at c\tupper at c\tmean at c−1\tupper at c−1\truns\t")
	cell := func(x float64) string {
		if math.IsInf(x, 1) {
			return "overloaded"
		}
		return readable(x)
	}
	total := 0
	for _, v := range s.Variants {
		total += v.Runs
		servers := strconv.Itoa(v.Servers)
		if v.Servers == 0 {
			servers = fmt.Sprintf("not met up to %d", v.NotMetUpTo)
		}
		for i, ob := range s.Objectives {
			label, srv, runs := printable(v.Label), servers, strconv.Itoa(v.Runs)
			if i > 0 {
				label, srv, runs = "", "", ""
			}
			at, below := []string{"—", "—"}, []string{"—", "—"}
			if i < len(v.At) {
				at = []string{cell(v.At[i].Mean), cell(v.At[i].Upper)}
			}
			if i < len(v.Below) {
				below = []string{cell(v.Below[i].Mean), cell(v.Below[i].Upper)}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label, srv, ob.String(), at[0], at[1], below[0], below[1], runs)
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s in all.\n", counted(total, "run"))
	for _, v := range s.Variants {
		if len(v.NonMonotone) > 0 {
			fmt.Fprintf(&b, "%s: non-monotone: an objective held at %s servers but failed at a larger pool tried; the answer rests on noise or on a policy that worsens with more servers (try more --replications).\n",
				printable(v.Label), joinInts(v.NonMonotone))
		}
		if th := v.Theory; th != nil {
			fmt.Fprintf(&b, "%s: M/M/c theory (offered load a = %s erlangs): Erlang C needs %s for %s", printable(v.Label), readable(th.Load), counted(th.ErlangC, "server"), th.Objectives)
			if th.SquareRoot > 0 {
				fmt.Fprintf(&b, "; square-root staffing: P(wait) = %s there gives β = %s, c ≈ a + β√a = %s", readable(th.PWait), readable(th.Beta), readable(th.SquareRoot))
			}
			b.WriteString(".\n")
			if th.Unanswered != "" {
				fmt.Fprintf(&b, "  (theory has no formula here for %s)\n", th.Unanswered)
			}
		}
	}
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
