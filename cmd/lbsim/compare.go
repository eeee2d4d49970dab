package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

const compareHelp = `Usage: lbsim compare [run flags] --variant VARIANT [--variant VARIANT …]

Runs the run flags' configuration once per variant and prints the summaries side
by side, one column per variant. A variant is LABEL:NAME=VALUE[,NAME=VALUE…] (or
just the NAME=VALUE list, which is then its label); NAME is a 'lbsim run' flag
without dashes: policy, queues, choices, weights, speeds, servers, min-servers,
max-servers, scale-up, scale-down, cooldown, queue-cap, the arrival settings and
the rest. A value may itself hold commas (speeds=2,1,1): a piece without '='
continues the value before it.

Variants that differ only in balancer settings see the same requests: the request
stream depends only on the seed and the arrival settings.

With --replications R (≥ 2) every variant runs with the seeds seed, seed+1, …,
seed+R−1 (the same seeds for all: paired), in parallel over --jobs, and each
metric gets its mean and 95% t-interval, and each variant its paired difference
from the first with its own interval: a difference is taken seed by seed, so the
noise both runs share cancels and that interval is far narrower than the gap
between two separate intervals suggests.

--snapshot FILE records the comparison (one run of each of at most 4 variants) for
'lbsim replay', 'lbsim share' and the page's compare view.

Examples:
  lbsim compare --seed 1 --queues per-server --speeds 2,1,1 --variant policy=round-robin \
    --variant policy=p2c --variant policy=least-connections
  lbsim compare --seed 1 --replications 20 --variant pooled:queues=pooled \
    --variant split:queues=per-server,policy=random --json compare.json

Flags (besides the run flags, 'lbsim run --help'):
`

// notWithCompare are the run flags that have no meaning for a comparison.
var notWithCompare = []string{"timeline", "log-dir", "verbose", "quiet", "status-every", "color"}

// variant is one column of a comparison (see lanes.ParseVariant).
type variant = lanes.Variant

// variantList collects --variant flags.
type variantList struct {
	list    *[]variant
	allowed func(string) bool
}

func (l variantList) String() string { return "" }

func (l variantList) Set(s string) error {
	v, err := lanes.ParseVariant(s, l.allowed)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "--variant "))
	}
	if !sweep.Printable(v.Label) {
		return fmt.Errorf("the label %s holds control characters or bytes that are not UTF-8: a label is printable text", quoteCut(v.Label))
	}
	for _, w := range *l.list {
		if w.Label == v.Label {
			return fmt.Errorf("%q: the label %q is taken by another variant", s, v.Label)
		}
	}
	*l.list = append(*l.list, v)
	return nil
}

// compareOptions is everything `lbsim compare` was asked to do.
type compareOptions struct {
	base         []string // the run flags given, in order, as --name=value (see recorded)
	variants     []variant
	replications int
	jobs         int
	jsonPath     string
	csvPath      string
	snapshotPath string
	noProgress   bool
	// probe holds the run flags as read (the seed, --config, the outputs
	// taken over above); each variant's run reads base instead.
	probe runOptions
}

// args returns variant v's run flags with the seed given.
func (o *compareOptions) args(v variant, seed uint64) []string {
	var args []string
	for _, a := range o.base {
		if !strings.HasPrefix(a, "--seed=") {
			args = append(args, a)
		}
	}
	args = append(args, "--seed="+strconv.FormatUint(seed, 10))
	for _, kv := range v.Sets {
		args = append(args, "--"+kv[0]+"="+kv[1])
	}
	return args
}

// Bounds of a comparison: the variants (columns of the table) and the runs
// it holds in memory, all variants × replications.
const (
	maxVariants    = 64
	maxCompareRuns = 100_000
)

// maxJobs bounds --jobs of compare and sweep: each job holds a model.
const maxJobs = 1024

// compareCommand is lbsim compare: its options, flags and run (compareRun).
var compareCommand = subcommand[compareOptions]{
	commandSpec: commandSpec{name: "compare", help: compareHelp, hide: notWithCompare},
	flags: func(c *cli, o *compareOptions) (*flag.FlagSet, *string) {
		o.probe = runOptions{cfg: sim.DefaultConfig(), statusEvery: -1}
		fs := c.compareFlags(o, &o.probe)
		configFlags(fs, &o.probe, false)
		return fs, &o.probe.configPath
	},
	run: (*cli).compareRun,
}

func (c *cli) compare(args []string) int { return runCommand(c, compareCommand, args) }

// compareRun is lbsim compare once its flags are read: it checks the
// comparison and every variant, runs them and writes the table and the
// outputs asked for.
func (c *cli) compareRun(o *compareOptions, cl commandLine) error {
	seen, probe := cl.seen, &o.probe
	o.jsonPath, o.noProgress, o.snapshotPath = probe.jsonPath, probe.noProgress, probe.snapshotPath
	if err := o.check(seen); err != nil {
		return usageErr("%v", err)
	}
	seed := probe.cfg.Seed
	if !seen["seed"] {
		seed = randomSeed()
	}
	outs := outputs{stdout: c.stdout} // any one output may be "-"
	if probe.configPath != "" {
		outs.addInput("--config", probe.configPath)
	}
	if err := c.checkVariants(o, seed, &outs); err != nil {
		return usageErr("%v", err)
	}
	var files compareFiles
	if err := files.want(o, &outs); err != nil {
		return usageErr("%v", err)
	}
	defer outs.abort()
	stop := c.watchInterrupts(&outs, nil)
	defer stop()
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	res, lanes, err := c.runVariants(o, seed)
	if c.interrupted() {
		return failErr(c.interruptCode(), "interrupted; no output was written")
	}
	if err != nil {
		return failErr(exitFailed, "%v\nNo output was written.", err)
	}
	if err := c.writeComparison(o, seed, res, lanes, &files, c.humanOut(&outs)); err != nil {
		return failErr(exitFailed, "%v", err)
	}
	return exited(c.commit(&outs, "compare"))
}

// compareFlags defines compare's flags: the run flags (recorded into
// o.base, as each variant's run reads them) and its own.
func (c *cli) compareFlags(o *compareOptions, probe *runOptions) *flag.FlagSet {
	fs := c.runFlags(probe, &blockList{cfg: &probe.cfg})
	runNames := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		runNames[f.Name] = true
		r := recorded{f.Value, f.Name, &o.base}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = recordedBool{r}
		} else {
			f.Value = r
		}
	})
	allowed := func(name string) bool {
		return runNames[name] && !slices.Contains(compareOwn, name) && !slices.Contains(notWithCompare, name)
	}
	fs.Var(variantList{&o.variants, allowed}, "variant", "a variant, `LABEL:NAME=VALUE[,NAME=VALUE…]` (repeatable; at least one)")
	intVar(fs, &o.replications, "replications", 1, "runs per variant with seeds seed … seed+R−1 (paired across variants); R ≥ 2 adds means, intervals and paired differences")
	intVar(fs, &o.jobs, "jobs", runtime.NumCPU(), fmt.Sprintf("runs at once (1..%d)", maxJobs))
	fs.StringVar(&o.csvPath, "csv", "", "write the table as CSV to `file` ('-' = stdout, then the table goes to stderr)")
	return fs
}

// check refuses a comparison that cannot be made (seen: the flags given),
// and drops the outputs from the variants' runs (they are the
// comparison's).
func (o *compareOptions) check(seen map[string]bool) error {
	switch {
	case len(o.variants) == 0:
		return errors.New("no --variant: give at least one, like --variant policy=p2c")
	case len(o.variants) > maxVariants:
		return fmt.Errorf("%d variants: at most %d (a table of more columns is unreadable); split the comparison", len(o.variants), maxVariants)
	case seen["replications"] && (o.replications < 2 || o.replications > 10_000):
		return fmt.Errorf("--replications %d: want 2 to 10000 (leave it out for a single run per variant)", o.replications)
	case len(o.variants)*o.replications > maxCompareRuns:
		return fmt.Errorf("%d variants × --replications %d = %d runs: at most %d, as every run's summary is kept; use fewer, or 'lbsim sweep' (which writes each run as it ends)",
			len(o.variants), o.replications, len(o.variants)*o.replications, maxCompareRuns)
	case o.jobs < 1 || o.jobs > maxJobs:
		return fmt.Errorf("--jobs %d: want 1 to %d", o.jobs, maxJobs)
	case o.snapshotPath != "" && (o.replications > 1 || len(o.variants) > snapshot.MaxLanes):
		return fmt.Errorf("--snapshot holds one run of each of at most %d variants: leave out --replications, or --snapshot", snapshot.MaxLanes)
	}
	for _, name := range notWithCompare {
		if seen[name] {
			return fmt.Errorf("--%s has no meaning for a comparison: run the variant with 'lbsim run' for it", name)
		}
	}
	o.base = slices.DeleteFunc(o.base, func(a string) bool {
		return strings.HasPrefix(a, "--json=") || strings.HasPrefix(a, "--no-progress=") || strings.HasPrefix(a, "--snapshot=")
	})
	return nil
}

// checkVariants checks every variant before anything runs: its flags, its
// changes and faults, what a snapshot of it needs, and that each flag
// given is read by some variant; the files they read join outs.
func (c *cli) checkVariants(o *compareOptions, seed uint64, outs *outputs) error {
	var first *runOptions
	var reads readTally
	for i, v := range o.variants {
		ro, err := c.checkRun(o.args(v, seed))
		if err != nil {
			return fmt.Errorf("variant %s: %v", quoteCut(v.Label), err)
		}
		reads.add(ro)
		outs.addRunInputs(ro)
		if i == 0 {
			first = ro
		}
		if o.snapshotPath == "" {
			continue
		}
		switch {
		case len(v.Label) > snapshot.MaxLabel:
			return fmt.Errorf("--snapshot: the label of variant %d is %d bytes; a snapshot holds labels of at most %d", i+1, len(v.Label), snapshot.MaxLabel)
		case ro.cfg.Cycles != first.cfg.Cycles:
			return fmt.Errorf("--snapshot: variant %s runs %s and %s %d; every run of a comparison snapshot must run the same number of cycles",
				quoteCut(v.Label), counted(ro.cfg.Cycles, "cycle"), quoteCut(o.variants[0].Label), first.cfg.Cycles)
		}
		if err := snapshot.Check(ro.cfg, ro.changes); err != nil {
			return fmt.Errorf("--snapshot: variant %s: %v", quoteCut(v.Label), err)
		}
	}
	c.noteUnread("compare", &reads, "variants")
	return reads.err()
}

// compareFiles are a comparison's output files, once opened.
type compareFiles struct{ json, csv, snapshot *atomicFile }

// want asks outs for the comparison's outputs.
func (f *compareFiles) want(o *compareOptions, outs *outputs) error {
	return outs.wantAll(planned{"--json", o.jsonPath, &f.json}, planned{"--csv", o.csvPath, &f.csv}, planned{"--snapshot", o.snapshotPath, &f.snapshot})
}

// writeComparison prints the table to human (humanOut) and writes the
// outputs asked for.
func (c *cli) writeComparison(o *compareOptions, seed uint64, res [][]sim.Summary, lanes []snapshot.Lane, files *compareFiles, human io.Writer) error {
	report := newComparison(o, seed, res)
	fmt.Fprint(human, report.table())
	if files.csv != nil {
		report.writeCSV(files.csv.w)
	}
	if files.snapshot != nil {
		data, err := snapshot.EncodeComparison(snapshot.Comparison{Lanes: lanes})
		if err != nil {
			return fmt.Errorf("--snapshot: %v", err)
		}
		files.snapshot.w.Write(data)
	}
	if o.jsonPath != "" {
		c.writeJSON(report, files.json)
	}
	return nil
}

// compareOwn are the run flags a comparison takes for itself, which a
// variant may not change: the seeds are shared, the outputs are the
// comparison's.
var compareOwn = []string{"seed", "json", "snapshot", "no-progress"}

// checkRun reads run flags as parseRun does and, when the run has changes
// (--set, --fault), builds its model, so that they are checked as 'lbsim
// run' checks them before it starts, without running it.
func (c *cli) checkRun(args []string) (*runOptions, error) {
	o, err := c.parseRun(args)
	if err != nil || len(o.changes) == 0 {
		return o, err
	}
	if _, err := newModel(o); err != nil {
		return nil, err
	}
	return o, nil
}

// replayComparison is lbsim replay of a comparison: every lane is re-run
// and checked, then shown as lbsim compare shows it. Its outputs are
// opened (outs) and the interrupts watched by replay.
func (c *cli) replayComparison(name string, cmp snapshot.Comparison, jsonPath string, out *atomicFile, outs *outputs, maxQueued int) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(c.stderr, "lbsim replay: "+format+"\n", a...)
		return code
	}
	report := &comparison{Seed: cmp.Lanes[0].Config.Seed, Version: lbsimVersion()}
	for _, l := range cmp.Lanes {
		m, err := snapshot.ReplayWith(l.Snapshot, nil, sim.WithMaxQueued(maxQueued))
		if c.interrupted() {
			return fail(c.interruptCode(), "interrupted; no output was written")
		}
		var de *snapshot.DivergenceError
		var le *sim.QueueLimitError
		switch {
		case errors.As(err, &de):
			return fail(exitFailed, "%s: lane %s: %v", name, quoteCut(l.Label), err)
		case errors.As(err, &le):
			return fail(exitFailed, "%s: lane %s: stopped at cycle %d: %d requests queued, more than --max-queued %d allows; raise --max-queued (up to %d) to replay it. No output was written.",
				name, quoteCut(l.Label), le.Cycle, le.Queued, le.Limit, sim.MaxQueuedLimit)
		case err != nil:
			return fail(exitUsage, "%s: lane %s: %v", name, quoteCut(l.Label), err)
		}
		sum := m.Summary()
		report.Variants = append(report.Variants, variantResult{Label: l.Label, Summary: &sum})
	}
	human := c.humanOut(outs)
	fmt.Fprintf(human, "lbsim replay: %s: a comparison of %s, each reproduced exactly\n", name, counted(len(cmp.Lanes), "run"))
	fmt.Fprint(human, report.table())
	if jsonPath != "" {
		c.writeJSON(report, out)
	}
	return c.commit(outs, "replay")
}

// runVariant runs o's configuration and changes to the end, as 'lbsim
// run' does (recording it when rec is not nil), and returns the model; it
// stops early when a signal asks to.
func (c *cli) runVariant(o *runOptions, rec *snapshot.Recorder) (*sim.Model, error) {
	m, err := newModel(o)
	if err != nil {
		return nil, err
	}
	for !m.Done() && !c.interrupted() {
		next := (m.Cycle() | 4095) + 1
		if rec != nil {
			next = min(next, rec.Next())
		}
		m.RunTo(next)
		if rec != nil {
			rec.Observe(m)
		}
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	if !m.Done() {
		return nil, errors.New("interrupted")
	}
	if c.ran != nil {
		c.ran(o)
	}
	return m, nil
}

// runVariants runs every variant for every replication, --jobs at a time,
// and returns the summaries by variant, then replication, and with
// --snapshot the lanes recorded in the same runs.
func (c *cli) runVariants(o *compareOptions, seed uint64) ([][]sim.Summary, []snapshot.Lane, error) {
	type task struct{ v, r int }
	res := make([][]sim.Summary, len(o.variants))
	for i := range res {
		res[i] = make([]sim.Summary, o.replications)
	}
	var lanes []snapshot.Lane
	if o.snapshotPath != "" {
		lanes = make([]snapshot.Lane, len(o.variants))
	}
	total := int64(len(o.variants) * o.replications)
	tasks := make(chan task)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := int64(0)
	bar := newProgress(c.stderr, c.stderrTTY && !o.noProgress, total)
	bar.unit = "run"
	share := c.newQueueShare(min(o.jobs, int(total)))
	for range min(o.jobs, int(total)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				v := o.variants[t.v]
				ro, err := c.parseRun(o.args(v, seed+uint64(t.r)))
				var rec *snapshot.Recorder
				var m *sim.Model
				if err == nil {
					m, err = share.run(ro.maxQueued, func(bound int) (*sim.Model, error) {
						ro.maxQueued = bound
						if lanes != nil {
							rec = snapshot.NewRecorder(ro.cfg)
						}
						return c.runVariant(ro, rec)
					})
				}
				if err == nil && rec != nil {
					var snap snapshot.Snapshot
					if snap, err = rec.Snapshot(m); err == nil {
						lanes[t.v] = snapshot.Lane{Label: v.Label, Snapshot: snap}
					}
				}
				if err != nil {
					cancel(fmt.Errorf("variant %s, seed %d: %w", quoteCut(v.Label), seed+uint64(t.r), err))
					continue
				}
				res[t.v][t.r] = m.Summary()
				mu.Lock()
				done++
				bar.update(done, nopFlusher{})
				mu.Unlock()
			}
		}()
	}
feed:
	for r := range o.replications { // replication by replication: every variant's first seed first
		for v := range o.variants {
			if c.interrupted() {
				break feed
			}
			select {
			case tasks <- task{v, r}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(tasks)
	wg.Wait()
	bar.clear()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	return res, lanes, nil
}

type nopFlusher struct{}

func (nopFlusher) Flush() error { return nil }

// metric is one row of the comparison: a name, its JSON key and how to
// read and print it.
type metric struct {
	Name, Key string
	Value     func(*sim.Summary) float64
	Whole     bool // printed without decimals
}

// metrics are the rows of the comparison table, in order.
var metrics = []metric{
	{"generated", "generated", func(s *sim.Summary) float64 { return float64(s.Generated) }, true},
	{"rejected", "rejected", func(s *sim.Summary) float64 { return float64(s.Rejected) }, true},
	{"completed", "completed", func(s *sim.Summary) float64 { return float64(s.Completed) }, true},
	{"errors", "errors", func(s *sim.Summary) float64 { return float64(s.Errors) }, true},
	{"goodput", "goodput", func(s *sim.Summary) float64 { return s.Goodput }, false},
	{"retries", "retries", func(s *sim.Summary) float64 { return float64(s.Retries) }, true},
	{"timed out", "timed_out", func(s *sim.Summary) float64 { return float64(s.TimedOut) }, true},
	{"gave up budget", "gave_up_budget", func(s *sim.Summary) float64 { return float64(s.GaveUpBudget) }, true},
	{"shed", "shed", func(s *sim.Summary) float64 { return float64(s.Shed) }, true},
	{"limited", "limited", func(s *sim.Summary) float64 { return float64(s.Limited) }, true},
	{"throttled", "throttled", func(s *sim.Summary) float64 { return float64(s.Throttled) }, true},
	{"limit at end", "limit_final", func(s *sim.Summary) float64 { return s.LimitFinal }, false},
	{"limit min", "limit_final_min", func(s *sim.Summary) float64 { return float64(s.LimitFinalMin) }, true},
	{"limit max", "limit_final_max", func(s *sim.Summary) float64 { return float64(s.LimitFinalMax) }, true},
	{"avg wait", "avg_wait", func(s *sim.Summary) float64 { return s.AvgWait }, false},
	{"avg service", "avg_service", func(s *sim.Summary) float64 { return s.AvgService }, false},
	{"wait p50", "wait_p50", func(s *sim.Summary) float64 { return float64(s.WaitP50) }, true},
	{"wait p95", "wait_p95", func(s *sim.Summary) float64 { return float64(s.WaitP95) }, true},
	{"wait p99", "wait_p99", func(s *sim.Summary) float64 { return float64(s.WaitP99) }, true},
	{"avg response", "avg_response", func(s *sim.Summary) float64 { return s.AvgResponse }, false},
	{"utilisation", "utilisation", func(s *sim.Summary) float64 { return s.Utilisation }, false},
	{"server-cycles", "server_cycles", func(s *sim.Summary) float64 { return float64(s.ServerCycles) }, true},
	{"cost", "cost", func(s *sim.Summary) float64 { return s.Cost }, false},
	{"scale-ups", "scale_ups", func(s *sim.Summary) float64 { return float64(s.ScaleUps) }, true},
	{"scale-downs", "scale_downs", func(s *sim.Summary) float64 { return float64(s.ScaleDowns) }, true},
	{"peak queue", "peak_queue", func(s *sim.Summary) float64 { return float64(s.PeakQueue) }, true},
	{"max share", "max_share", func(s *sim.Summary) float64 { return s.MaxShare }, false}, // a fleet's only
}

// comparison is the outcome of lbsim compare, as its JSON prints it.
type comparison struct {
	Seed         uint64          `json:"seed"`
	Replications int             `json:"replications,omitempty"`
	Variants     []variantResult `json:"variants"`
	Note         string          `json:"note,omitempty"`
	Version      string          `json:"lbsim_version"` // the build (lbsim version)
}

// variantResult is one variant: its label, the run flags it stands for
// (with the first seed), and its summary, or with replications every run's
// summary, each metric's mean and interval, and its paired difference from
// the first variant.
type variantResult struct {
	Label      string              `json:"label"`
	Flags      []string            `json:"flags"`
	Summary    *sim.Summary        `json:"summary,omitempty"`
	Runs       []replicationRun    `json:"runs,omitempty"`
	Metrics    map[string]interval `json:"metrics,omitempty"`
	Difference map[string]interval `json:"difference,omitempty"`
}

type replicationRun struct {
	Seed    uint64      `json:"seed"`
	Summary sim.Summary `json:"summary"`
}

const pairingNote = "differences are paired by seed: both runs of a pair see the same requests, so the noise they share cancels and a difference's interval is far narrower than the two means' intervals"

func newComparison(o *compareOptions, seed uint64, res [][]sim.Summary) *comparison {
	cmp := &comparison{Seed: seed, Version: lbsimVersion()}
	if o.replications > 1 {
		cmp.Replications, cmp.Note = o.replications, pairingNote
	}
	for vi, v := range o.variants {
		vr := variantResult{Label: v.Label, Flags: o.args(v, seed)}
		if o.replications == 1 {
			vr.Summary = &res[vi][0]
			cmp.Variants = append(cmp.Variants, vr)
			continue
		}
		vr.Metrics, vr.Difference = map[string]interval{}, map[string]interval{}
		for r := range res[vi] {
			vr.Runs = append(vr.Runs, replicationRun{Seed: seed + uint64(r), Summary: res[vi][r]})
		}
		for _, m := range metrics {
			xs, ds := make([]float64, len(res[vi])), make([]float64, len(res[vi]))
			for r := range res[vi] {
				xs[r] = m.Value(&res[vi][r])
				ds[r] = xs[r] - m.Value(&res[0][r])
			}
			vr.Metrics[m.Key] = intervalOf(xs)
			if vi > 0 {
				vr.Difference[m.Key] = intervalOf(ds)
			}
		}
		if vi == 0 {
			vr.Difference = nil
		}
		cmp.Variants = append(cmp.Variants, vr)
	}
	return cmp
}

// table prints the comparison: one column per variant, and with
// replications the means ± half-widths and the paired differences.
func (cmp *comparison) table() string {
	var b strings.Builder
	labels := make([]string, len(cmp.Variants))
	for i, v := range cmp.Variants {
		labels[i] = printable(v.Label) // a label may come from a stranger's link
	}
	format := func(m metric, x float64) string {
		if m.Whole && x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	shown := cmp.shown()
	var cells [][]string // a row per metric, a cell per column
	switch {
	case cmp.Replications <= 1:
		fmt.Fprintf(&b, "Compare: seed %d, one run per variant\n\n", cmp.Seed)
		for _, m := range shown {
			var row []string
			for _, v := range cmp.Variants {
				row = append(row, format(m, m.Value(v.Summary)))
			}
			cells = append(cells, row)
		}
	default:
		fmt.Fprintf(&b, "Compare: %s per variant, seeds %d to %d; mean ± half-width of the 95%% t-interval\n\n",
			counted(cmp.Replications, "replication"), cmp.Seed, cmp.Seed+uint64(cmp.Replications)-1)
		for _, m := range shown {
			var row []string
			for _, v := range cmp.Variants {
				iv := v.Metrics[m.Key]
				row = append(row, formatInterval(iv.Mean, (iv.High-iv.Low)/2))
			}
			cells = append(cells, row)
		}
	}
	writeTable(&b, labels, cells, shown)
	if cmp.Replications > 1 && len(cmp.Variants) > 1 {
		fmt.Fprintf(&b, "\nPaired difference from %q (variant − %s), mean [95%% interval]:\n\n", labels[0], labels[0])
		cells = cells[:0]
		for _, m := range shown {
			var row []string
			for _, v := range cmp.Variants[1:] {
				d := v.Difference[m.Key]
				row = append(row, formatRange(d.Mean, d.Low, d.High))
			}
			cells = append(cells, row)
		}
		writeTable(&b, labels[1:], cells, shown)
		fmt.Fprintf(&b, "\nThe %s.\n", pairingNote)
	}
	return b.String()
}

// readable formats x with about four significant digits and never an
// exponent: 43791, 2959, 837.1, 21.96, 0.9725.
func readable(x float64) string {
	a := math.Abs(x)
	switch {
	case a >= 1000 || x == math.Trunc(x):
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// writeTable writes the metrics' rows under the column heads, each
// column as wide as its widest cell.
func writeTable(b *strings.Builder, heads []string, cells [][]string, metrics []metric) {
	width := make([]int, len(heads))
	for i, h := range heads {
		width[i] = utf8.RuneCountInString(h)
		for _, row := range cells {
			width[i] = max(width[i], utf8.RuneCountInString(row[i]))
		}
	}
	line := func(name string, row []string) {
		fmt.Fprintf(b, "%-14s", name)
		for i, c := range row {
			fmt.Fprintf(b, "  %s%s", strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)), c)
		}
		b.WriteString("\n")
	}
	line("", heads)
	for i, m := range metrics {
		line(m.Name, cells[i])
	}
}

// interval is a mean with its 95% t-interval, as the JSON prints it.
type interval struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// intervalOf returns the mean of xs (two or more) with its 95% Student t
// interval, as lbsim aggregate computes it.
func intervalOf(xs []float64) interval {
	st := sweep.Summarize(xs, 0)
	return interval{Mean: st.Mean, Low: st.Low, High: st.High}
}
