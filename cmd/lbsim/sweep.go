package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/version"
)

const sweepHelp = `Usage: lbsim sweep [run flags] --vary NAME=VALUES … --out FILE.jsonl|- [flags]

Runs the simulation over a grid of settings and writes one JSON line per run:
  {"point": {NAME: value, …}, "replication": r, "seed": s, "flags": […], "summary": {…}}
where flags are the run flags every run shares (all but the seed and the varied
settings) and summary is exactly what 'lbsim run --json' prints for that run.

Every 'lbsim run' flag that decides the outcome is accepted and may be varied:
  --vary NAME=V1,V2,…        a list (use ';' between values holding commas: weights=3,1;1,1)
  --vary NAME=FROM:TO:STEP   a range of decimal numbers, both ends included
The grid is the product of the --vary flags. Runs come in a fixed order: grid
points in the order the --vary flags are listed (the first changes slowest,
the last fastest), each point's replications innermost. Replication r uses
seed --seed + r at every point (paired). --shard I/N runs only the runs whose
number is ≡ I mod N, so N shards together write exactly the unsharded lines.
Each line is written in one piece as its run ends; --resume completes an
interrupted sweep (and drops a partial last line a crash may leave), and refuses
a file of another sweep or other flags. A device, FIFO or pipe --out is written
through and cannot be resumed.

Example:
  lbsim sweep --queues per-server --cycles 20000 --seed 1 --vary rate=0.3:0.9:0.1 \
    --vary policy=round-robin,random,least-connections --replications 10 --out sweep.jsonl
  lbsim aggregate sweep.jsonl --metric avg_wait,wait_p99

(Per-server queues: with one pooled queue and servers of equal speed every
policy gives the same waits, as the oldest request goes to any idle server.)

Flags:
`

// sweepOptions is everything `lbsim sweep` was asked to do besides the run
// flags.
type sweepOptions struct {
	vary         []string
	replications int
	jobs         int
	out          string
	shard        string
	resume       bool
	noProgress   bool
	// base is the run flags given, in order, as --name=value (each run
	// reads them), inputs the run's input flags alone and probe the
	// options they set, configPath --config's file.
	base       []string
	inputs     *flag.FlagSet
	probe      *runOptions
	configPath string
}

// recorded is a run flag as the sweep takes it: the value is checked as
// `lbsim run` checks it and its spelling is kept, to be passed on to every
// run.
type recorded struct {
	flag.Value
	name string
	args *[]string
}

// String is the flag's value; the zero recorded (which the flag package
// makes to tell a default from none) has none.
func (r recorded) String() string {
	if r.Value == nil {
		return ""
	}
	return r.Value.String()
}

func (r recorded) Set(s string) error {
	if err := r.Value.Set(s); err != nil {
		return err
	}
	*r.args = append(*r.args, "--"+r.name+"="+s)
	return nil
}

// recordedBool is a recorded flag that may be given without a value.
type recordedBool struct{ recorded }

func (recordedBool) IsBoolFlag() bool { return true }

// recordedInputs defines the run's input flags on fs, each checked as
// `lbsim run` checks it and recorded into base as --name=value, and returns
// a flag set of the input flags alone and the options they set. sweep and
// size take the run flags through it.
func recordedInputs(fs *flag.FlagSet, base *[]string) (inputs *flag.FlagSet, probe *runOptions) {
	probe = &runOptions{cfg: sim.DefaultConfig()}
	inputs = flag.NewFlagSet("run", flag.ContinueOnError)
	inputFlags(inputs, probe, &blockList{cfg: &probe.cfg})
	fs.SetOutput(io.Discard)
	inputs.VisitAll(func(f *flag.Flag) {
		r := recorded{f.Value, f.Name, base}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			fs.Var(recordedBool{r}, f.Name, f.Usage)
		} else {
			fs.Var(r, f.Name, f.Usage)
		}
	})
	return inputs, probe
}

// sweepFlags defines the run's input flags (recording them into base) and
// the sweep's own flags; inputs is a flag set of the run's input flags alone.
func sweepFlags(so *sweepOptions, base *[]string) (fs, inputs *flag.FlagSet, probe *runOptions) {
	fs = flag.NewFlagSet("sweep", flag.ContinueOnError)
	inputs, probe = recordedInputs(fs, base)
	fs.Func("vary", "a setting to vary: `NAME=V1,V2,…` or NAME=FROM:TO:STEP (repeatable; the grid is their product)", func(s string) error {
		so.vary = append(so.vary, s)
		return nil
	})
	intVar(fs, &so.replications, "replications", 1, "runs per grid point, with seeds seed, seed+1, …")
	intVar(fs, &so.jobs, "jobs", runtime.GOMAXPROCS(0), fmt.Sprintf("runs at a time (1..%d); the default is the cores Go may use, which follows a container's CPU limit", maxJobs))
	fs.StringVar(&so.out, "out", "", "the results `file` (JSON Lines; '-' = stdout, then nothing else goes there)")
	fs.StringVar(&so.shard, "shard", "0/1", "run only part `I/N` of the runs: those whose number is ≡ I mod N")
	fs.BoolVar(&so.resume, "resume", false, "keep the runs already complete in --out and run the others")
	fs.BoolVar(&so.noProgress, "no-progress", false, "never draw the progress bar")
	return fs, inputs, probe
}

// sweepCommand is lbsim sweep: its options, flags and run (runSweep).
var sweepCommand = subcommand[sweepOptions]{
	commandSpec: commandSpec{name: "sweep", help: sweepHelp},
	flags: func(_ *cli, o *sweepOptions) (*flag.FlagSet, *string) {
		var fs *flag.FlagSet
		fs, o.inputs, o.probe = sweepFlags(o, &o.base)
		fs.StringVar(&o.configPath, "config", "", configUsage)
		return fs, &o.configPath
	},
	run: (*cli).runSweep,
}

func (c *cli) sweep(args []string) int { return runCommand(c, sweepCommand, args) }

// runSweep is lbsim sweep once its flags are read: it builds and checks
// the grid, checks the output, and runs the points not done yet, writing
// each run's line as it ends.
func (c *cli) runSweep(o *sweepOptions, cl commandLine) error {
	seen, base := cl.seen, o.base
	g, shard, err := c.sweepGrid(o, o.inputs, o.probe, seen)
	if err != nil {
		return usageErr("%v", err)
	}
	g.Flags = sharedFlags(base)
	// The output is checked before the grid (which may take a while).
	outs := outputs{stdout: c.stdout} // --out may be "-"
	outs.addArgInputs(base, g.Dims)
	if o.configPath != "" {
		outs.addInput("--config", o.configPath)
	}
	if err := outs.check("--out", o.out); err != nil {
		return usageErr("%v", err)
	}
	if err := c.checkPoints(g, base, o.jobs); err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := c.watchInterrupts(nil, cancel) // the file holds whole lines at every moment
	defer stop()
	f, done, err := openResults(o, g, shard, c.stdout)
	if err != nil {
		return usageErr("%v", err)
	}
	defer f.Close()

	todo := shard.Size(g.Runs()) - int64(len(done))
	fmt.Fprintf(c.stderr, "lbsim sweep: %s × %s = %s, seed %d; shard %d/%d: %s, %d already done; %s\n",
		counted(g.Points(), "point"), counted(g.Replications, "replication"), counted(g.Runs(), "run"), g.BaseSeed,
		shard.I, shard.N, counted(shard.Size(g.Runs()), "run"), len(done), counted(o.jobs, "job"))
	bar := newRunBar(c.stderr, c.stderrTTY && !o.noProgress, todo)
	start := time.Now()
	err = sweep.Execute(ctx, g, pending(g, shard, done), o.jobs, c.sweepRun(base, c.newQueueShare(int(min(int64(o.jobs), todo)))), f, bar.update)
	bar.clear()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case c.interrupted() && o.out == "-":
		return failErr(c.interruptCode(), "interrupted after %s, written whole to standard output; a sweep to a file (--out FILE) can be resumed", counted(bar.done, "run"))
	case c.interrupted():
		return failErr(c.interruptCode(), "interrupted after %s; %s holds whole lines only: run the same command with --resume --seed %d to complete it",
			counted(bar.done, "run"), o.out, g.BaseSeed)
	case err != nil:
		return failErr(exitFailed, "%v\n%s holds the %s before it, whole lines only.", err, outName(o.out), counted(bar.done, "run"))
	}
	el := time.Since(start)
	fmt.Fprintf(c.humanOut(&outs), "lbsim sweep: %s written to %s in %v (%.1f runs/s)\n", counted(todo, "run"), outName(o.out), el.Round(time.Millisecond), float64(todo)/max(el.Seconds(), 1e-9))
	return nil
}

// sharedFlags are the run flags every run of a sweep shares, as its lines
// record them: the flags given but --seed, in a canonical order (by name;
// a repeated flag keeps its order), so that the same sweep typed with its
// flags in another order resumes.
func sharedFlags(base []string) []string {
	flags := slices.DeleteFunc(slices.Clone(base), func(a string) bool { return strings.HasPrefix(a, "--seed=") })
	slices.SortStableFunc(flags, func(a, b string) int {
		na, _, _ := strings.Cut(a, "=")
		nb, _, _ := strings.Cut(b, "=")
		return strings.Compare(na, nb)
	})
	return flags
}

// sweepGrid checks the sweep's own flags and makes its grid.
func (c *cli) sweepGrid(so *sweepOptions, inputs *flag.FlagSet, probe *runOptions, seen map[string]bool) (*sweep.Grid, sweep.Shard, error) {
	shard, err := sweep.ParseShard(so.shard)
	if err != nil {
		return nil, shard, err
	}
	if so.out == "" {
		return nil, shard, errors.New("--out FILE is required: the results go to a file, one JSON line per run, so that an interrupted sweep can be resumed ('-' = stdout, which cannot be)")
	}
	if so.jobs < 1 || so.jobs > maxJobs {
		return nil, shard, fmt.Errorf("--jobs %d: want 1 to %d", so.jobs, maxJobs)
	}
	var dims []sweep.Dimension
	for _, v := range so.vary {
		if err := emptyVary(v); err != nil {
			return nil, shard, err
		}
		d, err := sweep.ParseVary(v)
		if err != nil {
			return nil, shard, err
		}
		switch {
		case d.Name == "seed":
			return nil, shard, errors.New("--vary seed: the seeds are --seed + replication; use --seed and --replications")
		case inputs.Lookup(d.Name) == nil:
			return nil, shard, fmt.Errorf("--vary %s: %s is not a run setting; allowed: %s", v, d.Name, strings.Join(flagNames(inputs, "seed"), ", "))
		}
		dims = append(dims, d)
	}
	seed := probe.cfg.Seed
	if !seen["seed"] {
		if shard.N > 1 || so.resume {
			return nil, shard, errors.New("--shard and --resume need --seed: every part of a sweep must use the same seeds")
		}
		seed = randomSeed()
	}
	g, err := sweep.NewGrid(dims, so.replications, seed)
	return g, shard, err
}

// flagNames lists a flag set's names but the excluded ones.
func flagNames(fs *flag.FlagSet, exclude ...string) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(exclude, f.Name) {
			names = append(names, f.Name)
		}
	})
	return names
}

// maxChecked is how many grid points are checked one by one before any run;
// beyond it each value is checked on its own.
const maxChecked = 10_000

// checkPoints checks every point's flags as `lbsim run` would (with its
// changes and faults), so that a value it refuses stops the sweep before it
// starts. A grid of more than maxChecked points is checked value by value
// instead; jobs checks run at once, and a long check says so first.
func (c *cli) checkPoints(g *sweep.Grid, base []string, jobs int) error {
	var reads readTally
	check := func(pt sweep.Point) error {
		o, err := c.checkRun(pointArgs(base, pt, g.BaseSeed))
		if err != nil && len(pt) > 0 {
			return fmt.Errorf("at %v: %v", pt, err)
		}
		if err == nil && (len(pt) > 0 || len(g.Dims) == 0) {
			reads.add(o)
		}
		return err
	}
	if err := check(nil); err != nil {
		return err
	}
	// The points to check: every grid point, or every value on its own.
	n := g.Points()
	point := g.Point
	if n > maxChecked {
		n = 0
		for _, d := range g.Dims {
			n += int64(len(d.Values))
		}
		point = func(i int64) sweep.Point {
			for _, d := range g.Dims {
				if i < int64(len(d.Values)) {
					return sweep.Point{{Name: d.Name, Value: d.Values[i]}}
				}
				i -= int64(len(d.Values))
			}
			return nil
		}
	}
	if n > maxChecked {
		fmt.Fprintf(c.stderr, "lbsim sweep: checking the grid's %s before any run…\n", counted(n, "value"))
	}
	// Checked in parallel; the error reported is the first in that order.
	var (
		next     atomic.Int64
		mu       sync.Mutex
		firstBad = n
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(int64(jobs), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
				mu.Lock()
				stop := i > firstBad
				mu.Unlock()
				if stop {
					return
				}
				if err := check(point(i)); err != nil {
					mu.Lock()
					if i < firstBad {
						firstBad, firstErr = i, err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	c.noteUnread("sweep", &reads, "grid points")
	return reads.err()
}

// pointArgs is the `lbsim run` command line of a grid point with a seed.
func pointArgs(base []string, pt sweep.Point, seed uint64) []string {
	args := slices.Clone(base)
	for _, s := range pt {
		args = append(args, "--"+s.Name+"="+s.Value)
	}
	return append(args, "--seed="+strconv.FormatUint(seed, 10))
}

// parseRun reads run flags as `lbsim run` does, defaults and checks
// included, for one run of many: a flag the run does not read is noted
// (runOptions.unread), for the caller's readTally to judge.
func (c *cli) parseRun(args []string) (*runOptions, error) {
	o := &runOptions{cfg: sim.DefaultConfig(), statusEvery: -1, lenient: true}
	fs := c.runFlags(o, &blockList{cfg: &o.cfg})
	if err := parseFlags(fs, args); err != nil {
		return nil, errors.New(flagError(fs, err))
	}
	if err := c.complete(o, visited(fs)); err != nil {
		return nil, err
	}
	return o, nil
}

// sweepRun performs one run of the sweep as `lbsim run` with the point's
// flags and seed would, and returns its JSON summary.
func (c *cli) sweepRun(base []string, share *queueShare) sweep.RunFunc {
	return func(r sweep.Run) ([]byte, error) {
		o, err := c.parseRun(pointArgs(base, r.Point, r.Seed))
		if err != nil {
			return nil, err
		}
		m, err := share.run(o.maxQueued, func(bound int) (*sim.Model, error) {
			o.maxQueued = bound
			m, err := newModel(o)
			if err != nil {
				return nil, err
			}
			if !c.runToEnd(m) && m.Err() == nil {
				return nil, errors.New("interrupted")
			}
			return m, m.Err()
		})
		if err != nil {
			return nil, err
		}
		sum := m.Summary()
		if !sum.Consistent {
			return nil, errors.New("the accounting does not hold; this is a bug in lbsim")
		}
		return json.Marshal(version.Stamp(&sum))
	}
}

// openResults opens --out for appending. Without --resume it must be new or
// empty; with --resume its runs are checked to belong to this sweep and
// shard, a partial last line is cut off, and the runs done are returned.
//
// A device, FIFO or pipe (/dev/stdout) is written through and never read:
// it cannot be resumed.
func openResults(so *sweepOptions, g *sweep.Grid, shard sweep.Shard, stdout io.Writer) (io.WriteCloser, map[int64]bool, error) {
	done := map[int64]bool{}
	if so.out == "-" {
		if so.resume {
			return nil, nil, errors.New("--out - is standard output: it cannot be read back, so --resume needs a file")
		}
		return nopCloser{stdout}, done, nil
	}
	if t := resolve("--out", so.out); t.special() {
		if so.resume {
			return nil, nil, fmt.Errorf("--out %s is not a regular file (a device, FIFO or pipe): it cannot be read back, so --resume needs a file", so.out)
		}
		f, err := openThrough(t.resolved)
		if err != nil {
			return nil, nil, fmt.Errorf("--out %s: %v", so.out, err)
		}
		return f, done, nil
	}
	f, err := os.OpenFile(so.out, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--out: %v", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--out: %v", err)
	}
	if st.Size() > 0 && !so.resume {
		f.Close()
		return nil, nil, fmt.Errorf("--out %s already holds results: add --resume to complete it, or remove it first", so.out)
	}
	same := newSameRunFlags(so.out)
	contents, err := sweep.ReadFile(f, func(n int, l sweep.Line) error {
		k, ok := g.RunOf(l)
		switch {
		case !same.equal(l.Flags, g.Flags):
			return fmt.Errorf("line %d was run with the flags [%s], this sweep with [%s]: resume with the same flags", n, quoteFlags(l.Flags), quoteFlags(g.Flags))
		case !ok || l.Seed != g.BaseSeed+uint64(l.Replication):
			return fmt.Errorf("line %d is not a run of this sweep (its point, replication or seed differ): resume with the same flags", n)
		case !shard.Has(k):
			return fmt.Errorf("line %d is run %d, which is not in shard %d/%d", n, k, shard.I, shard.N)
		case done[k]:
			return fmt.Errorf("line %d repeats run %d", n, k)
		}
		done[k] = true
		return nil
	})
	if err == nil && contents.Partial {
		err = f.Truncate(contents.Complete)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--out %s: %v", so.out, err)
	}
	return f, done, nil
}

// pending yields the shard's run numbers that are not done, in order.
func pending(g *sweep.Grid, shard sweep.Shard, done map[int64]bool) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for k := shard.I; k < g.Runs(); k += shard.N {
			if !done[k] && !yield(k) {
				return
			}
		}
	}
}

// runBar draws the sweep's progress on a terminal's stderr: runs done, the
// rate and an estimate of the time left.
type runBar struct {
	w       io.Writer
	enabled bool
	active  bool
	total   int64
	done    int64
	start   time.Time
	last    time.Time
}

func newRunBar(w io.Writer, enabled bool, total int64) *runBar {
	now := time.Now()
	return &runBar{w: w, enabled: enabled, total: max(total, 1), start: now}
}

// update records that done runs are written and redraws the bar at most
// ten times a second.
func (b *runBar) update(done int64) {
	b.done = done
	if !b.enabled {
		return
	}
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && done < b.total {
		return
	}
	b.last = now
	const width = 30
	n := int(int64(width) * done / b.total)
	el := now.Sub(b.start)
	rate := float64(done) / max(el.Seconds(), 1e-9)
	eta := time.Duration(float64(b.total-done) / max(rate, 1e-9) * float64(time.Second))
	fmt.Fprintf(b.w, "\r[%s%s] %3d%%  %d/%d runs  %.1f runs/s  eta %s ", strings.Repeat("=", n), strings.Repeat(" ", width-n),
		100*done/b.total, done, b.total, rate, eta.Round(time.Second))
	b.active = true
}

func (b *runBar) clear() {
	if b.active {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", 90))
		b.active = false
	}
}

// quoteFlags joins flags read from a results file for a message.
func quoteFlags(flags []string) string {
	q := make([]string, len(flags))
	for i, f := range flags {
		q[i] = quoteCut(f)
	}
	return strings.Join(q, " ")
}
