package main

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
	"github.com/lbsim/lbsim/version"
)

// runOptions is everything `lbsim run` was asked to do.
type runOptions struct {
	cfg          sim.Config
	changes      []sim.Change
	setChanges   []sim.Change // the changes given with --set (the others with --fault)
	seedGiven    bool
	tracePath    string
	servicePath  string     // --service-file
	inputs       inputFiles // the files the flags name for reading
	jsonPath     string
	timelinePath string
	snapshotPath string
	logDir       string
	verbose      bool
	quiet        bool
	statusEvery  int64
	noProgress   bool
	color        colorMode
	maxQueued    int
	// lenient runs are one of many (a sweep's points, a comparison's
	// variants, a sizing's pools): a flag this run does not read is kept
	// in unread instead of refused, and refused only when no run of them
	// reads it (readTally).
	lenient bool
	unread  map[string]string
	// balancerNamed holds a message for each fault given that names a
	// balancer (P: or S:), refused without --switch.
	balancerNamed []string
	// configPath is --config's scenario file, saveConfigPath
	// --save-config's; given holds the flags given (the file's keys
	// included), which --save-config writes.
	configPath, saveConfigPath string
	given                      map[string]bool
	config                     *configured // the command line with the file read in
	savedConfig                []byte      // what --save-config writes
}

// blame spells err, saying where in the --config file the setting it
// names was given, if there.
func (o *runOptions) blame(err error) string {
	if o.config == nil {
		return err.Error()
	}
	return o.config.blame(err.Error())
}

const runHelp = `Usage: lbsim run [flags]

Runs one simulation and prints a status line every so many cycles and the
summary, ending with the two accounting lines. Without --seed a random seed
is chosen and printed, so any run can be repeated.

Example:
  lbsim run --servers 20 --cycles 100000 --seed 42
  lbsim run --trace requests.csv --block 10.0.0.0/8 --json - --timeline timeline.csv
  lbsim run --seed 7 --set 500:rate=0.9 --set 2000:scale-up=60 --verbose
  lbsim run --seed 42 --snapshot run.lbsnap     (then: lbsim replay run.lbsnap)
  lbsim run --seed 7 --servers 10 --save-config burst.toml     (then: lbsim run --config burst.toml --rate 0.6)

Flags:
`

func (c *cli) runFlags(o *runOptions, blocks *blockList) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	inputFlags(fs, o, blocks)
	// Where the results go and how they are shown: none of these changes
	// the summary.
	fs.StringVar(&o.jsonPath, "json", "", "write the JSON summary to `file` ('-' = stdout, then nothing else goes there)")
	fs.StringVar(&o.timelinePath, "timeline", "", "write one CSV row per cycle to `file` ('-' = stdout, then nothing else goes there)")
	fs.StringVar(&o.snapshotPath, "snapshot", "", "write a snapshot of the run to `file` (.lbsnap) for lbsim replay and lbsim share ('-' = stdout)")
	fs.StringVar(&o.logDir, "log-dir", "", "write summary.txt, summary.json and events.log into `dir`")
	fs.BoolVar(&o.verbose, "verbose", false, "print every event (coloured on a terminal: see --color)")
	fs.BoolVar(&o.quiet, "quiet", false, "only the summary: no header, status lines or progress bar, and no event log\n(errors are still printed; excludes --verbose)")
	fs.Var(&o.color, "color", "colour the --verbose log: `when`, auto (on a terminal, unless NO_COLOR is set or TERM=dumb;\nCLICOLOR_FORCE or FORCE_COLOR force it), always or never")
	fs.Var(int64Flag{&o.statusEvery}, "status-every", "cycles between status lines (default: cycles/10; 0 = none)")
	fs.BoolVar(&o.noProgress, "no-progress", false, "never draw the progress bar")
	return fs
}

// configFlags defines --config and, for lbsim run, --save-config.
func configFlags(fs *flag.FlagSet, o *runOptions, save bool) {
	fs.StringVar(&o.configPath, "config", "", configUsage)
	if save {
		fs.StringVar(&o.saveConfigPath, "save-config", "", "write the run's scenario `file` for --config: the settings given, the seed and the changes ('-' = stdout)")
	}
}

// inputFlags defines the run flags that decide a run's outcome: its
// settings, its trace and the changes made during it. `lbsim sweep` takes
// the same flags, and any of them may be varied with --vary.
func inputFlags(fs *flag.FlagSet, o *runOptions, blocks *blockList) {
	settingFlags(fs, &o.cfg, blocks, &o.servicePath, &o.inputs, nil)
	fs.Var(faultList{&o.changes, &o.balancerNamed}, "fault", "a fault at a cycle: `KIND:ID@CYCLE`, KIND down, up, fail (every attempt ends in error\nafter --fail-time), hang (attempts never finish), heal, or slow:IDxF@CYCLE (attempts take F\ntimes as long); with --switch name the balancer: down:S:3@500 (repeatable)")
	fs.Var(inputPath{"trace", &o.tracePath, &o.inputs}, "trace", "read requests from a CSV `file` (cycle,src,dst,time[,type])")
	intVar(fs, &o.maxQueued, "max-queued", sim.DefaultMaxQueued, fmt.Sprintf("stop the run (exit 1, no output written) when more requests than this are queued (1..%d; about 64 bytes each at the peak:\nthe default stops a pooled run near 1.3 GB)", sim.MaxQueuedLimit))
	fs.Var(changeList{&o.changes, &o.setChanges, &o.balancerNamed}, "set", "a change during the run, `CYCLE:NAME=VALUE` (repeatable); NAME is one of\n"+strings.Join(sim.SettingNames(), ", ")+"\n(block and unblock take a range: 500:block=0.0.0.0/1; slow takes IDxF: 500:slow=3x4)")
}

// runCmd is lbsim run: its options, flags and run (runRun).
var runCmd = subcommand[runOptions]{
	commandSpec: commandSpec{name: "run", help: runHelp},
	flags: func(c *cli, o *runOptions) (*flag.FlagSet, *string) {
		*o = runOptions{cfg: sim.DefaultConfig(), statusEvery: -1}
		fs := c.runFlags(o, &blockList{cfg: &o.cfg})
		configFlags(fs, o, true)
		return fs, &o.configPath
	},
	run: (*cli).runRun,
}

func (c *cli) run(args []string) int { return runCommand(c, runCmd, args) }

// runRun is lbsim run once its flags are read: it asks for the main
// settings on a terminal with no arguments, completes and checks the
// options, and runs (execute).
func (c *cli) runRun(o *runOptions, cl commandLine) error {
	if len(cl.cf.args) == 0 && c.stdinTTY && c.stdoutTTY {
		if err := c.ask(o, cl.seen); err != nil {
			return usageErrAsIs("%v", err)
		}
	}
	if err := c.complete(o, cl.seen); err != nil {
		return usageErr("%s", err)
	}
	o.config = cl.cf
	return c.execute(o)
}

// complete fills in the defaults that depend on other flags, reads the
// trace and validates everything, before any output is written.
func (c *cli) complete(o *runOptions, seen map[string]bool) error {
	cfg := &o.cfg
	o.given = seen
	o.seedGiven = seen["seed"]
	if !o.seedGiven {
		cfg.Seed = randomSeed()
	}
	cfg.FillDefaults(func(name string) bool { return seen[name] })
	if o.tracePath != "" {
		f, err := os.Open(o.tracePath)
		if err != nil {
			return fmt.Errorf("--trace: %v", openError(o.tracePath, err))
		}
		defer f.Close()
		rows, err := sim.ParseTrace(&boundedLines{r: f})
		if err != nil {
			return fmt.Errorf("--trace %s: %v", quoteCut(o.tracePath), err)
		}
		if rows == nil {
			rows = []sim.TraceRow{}
		}
		cfg.Trace = rows
		if !seen["block"] {
			cfg.Blocked = nil
		}
	}
	if err := cfg.Validate(); err != nil {
		return fieldError(err)
	}
	if !cfg.Switch && len(o.balancerNamed) > 0 {
		return errors.New(o.balancerNamed[0])
	}
	if o.lenient {
		o.unread = map[string]string{}
		for name, why := range sim.Unread(&o.cfg, o.changes) {
			if seen[name] {
				o.unread[name] = why
			}
		}
		for _, ue := range sim.UnreadChanges(&o.cfg, o.changes) {
			o.unread[ue.Flag()] = ue.Why // "--set CYCLE:NAME=VALUE"
		}
	} else if err := ignoredFlags(o, seen); err != nil {
		return err
	}
	if o.verbose && o.quiet {
		return errors.New("--verbose and --quiet exclude each other: choose one")
	}
	if o.maxQueued < 1 || o.maxQueued > sim.MaxQueuedLimit {
		return fmt.Errorf("--max-queued %d is not allowed: must be from 1 to %d", o.maxQueued, sim.MaxQueuedLimit)
	}
	if o.statusEvery < -1 {
		return fmt.Errorf("--status-every %d: want 0 (no status lines) or a number of cycles", o.statusEvery)
	}
	if o.statusEvery == -1 {
		o.statusEvery = max(cfg.Cycles/10, 1)
		if o.quiet {
			o.statusEvery = 0
		}
	}
	if o.quiet {
		o.noProgress = true
	}
	return nil
}

// policyUsage is policyHelp, made once: every check of a sweep's grid
// point defines the run flags anew.
var policyUsage = sync.OnceValue(policyHelp)

// policyHelp describes every policy in both queue modes, from the one
// table of policies.
func policyHelp() string {
	var b strings.Builder
	b.WriteString("how a server is chosen (default first-idle, round-robin with --queues per-server):")
	for _, name := range sim.PolicyNames() {
		p, _ := sim.ParsePolicy(name)
		info := p.Info()
		pooled, per := info.Pooled, info.PerServer
		if pooled == "" {
			pooled = "refused"
		}
		if per == "" {
			per = "refused"
		}
		fmt.Fprintf(&b, "\n  %-18s pooled: %s; per-server: %s", name, pooled, per)
	}
	return b.String()
}

// ignoredFlags refuses flags that the rest of the command line would make
// do nothing (sim.CheckUnused), rather than accept them silently.
func ignoredFlags(o *runOptions, seen map[string]bool) error {
	var ue *sim.UnusedError
	if err := sim.CheckUnused(&o.cfg, seen, o.changes); errors.As(err, &ue) {
		return fmt.Errorf("%s %s", ue.Flag(), ue.Why)
	}
	return nil
}

// readTally gathers, over the runs of a sweep, a comparison or a sizing,
// the flags given that no run reads: a base flag is accepted when it
// refines something at least one run has on (and is simply unread at the
// others), and refused when no run reads it, as lbsim run refuses it.
type readTally struct {
	mu     sync.Mutex
	runs   int
	unread map[string]string // unread at every run so far
	// skipped counts, for each flag given, the runs that do not read it,
	// and why names one's reason: a flag some runs read and others not is
	// accepted, and said (notes).
	skipped map[string]int
	why     map[string]string
}

// add counts one run's options (parsed leniently).
func (t *readTally) add(o *runOptions) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.skipped == nil {
		t.skipped, t.why = map[string]int{}, map[string]string{}
	}
	for name, why := range o.unread {
		t.skipped[name]++
		t.why[name] = why
	}
	if t.runs == 0 {
		t.unread = maps.Clone(o.unread)
	} else {
		maps.DeleteFunc(t.unread, func(name, _ string) bool { _, ok := o.unread[name]; return !ok })
	}
	t.runs++
}

// notes says, for each flag given that some of the runs read and others
// do not, in how many it does nothing and why (at one of them), so that a
// sweep's or a comparison's unread flags are not silent; what names the
// runs ("grid points", "variants").
func (t *readTally) notes(what string) []string {
	var out []string
	for _, k := range t.flagOrder(t.skipped) {
		n, ok := t.skipped[strings.TrimPrefix(k, "--")]
		why := t.why[strings.TrimPrefix(k, "--")]
		if !ok {
			n, why = t.skipped[k], t.why[k]
		}
		if n > 0 && n < t.runs {
			for _, advice := range []string{": give ", ": drop ", ": choose "} { // the refusal's advice
				if i := strings.Index(why, advice); i > 0 {
					why = why[:i]
				}
			}
			out = append(out, fmt.Sprintf("%s does nothing at %d of the %d %s (there %s %s); the others read it", k, n, t.runs, what, k, why))
		}
	}
	return out
}

// noteUnread prints reads' notes on stderr, one line each, for command
// name; a flag no run reads is refused by reads.err instead.
func (c *cli) noteUnread(name string, reads *readTally, what string) {
	for _, n := range reads.notes(what) {
		fmt.Fprintf(c.stderr, "lbsim %s: note: %s\n", name, n)
	}
}

// flagOrder lists the flags of m in the settings table's order, then its
// --set changes sorted.
func (t *readTally) flagOrder(m map[string]int) []string {
	var flags []string
	for _, r := range sim.Rows() {
		if _, ok := m[r.Name]; ok {
			flags = append(flags, "--"+r.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, "--") {
			flags = append(flags, k)
		}
	}
	return flags
}

// err refuses the first flag (in the settings table's order), then the
// first --set, that no run reads.
func (t *readTally) err() error {
	flags := make([]string, 0, len(t.unread))
	for _, r := range sim.Rows() {
		flags = append(flags, "--"+r.Name)
	}
	for _, k := range slices.Sorted(maps.Keys(t.unread)) {
		if strings.HasPrefix(k, "--set ") {
			flags = append(flags, k)
		}
	}
	for _, flag := range flags {
		why, ok := t.unread[strings.TrimPrefix(flag, "--")]
		if !ok {
			why, ok = t.unread[flag]
		}
		if ok {
			if t.runs > 1 {
				why += fmt.Sprintf(" (in each of the %d runs)", t.runs)
			}
			return fmt.Errorf("%s %s", flag, why)
		}
	}
	return nil
}

// fieldError spells a sim.FieldError with the flag's dashes.
func fieldError(err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s %s is not allowed: %s", fe.Field, fe.Value, fe.Allowed)
	}
	return err
}

// randomSeed picks a seed that is easy to read and type: 1..999999999.
func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())%999_999_999 + 1
	}
	return binary.LittleEndian.Uint64(b[:])%999_999_999 + 1
}

// newModel makes the run's model with its changes scheduled; an error
// names the flag at fault.
func newModel(o *runOptions, opts ...sim.Option) (*sim.Model, error) {
	m, err := sim.New(o.cfg, append([]sim.Option{sim.WithMaxQueued(o.maxQueued)}, opts...)...)
	if err != nil {
		return nil, fieldError(err)
	}
	if err := m.Schedule(o.changes...); err != nil {
		return nil, fmt.Errorf("--set/--fault: %v", err)
	}
	if err := checkFaults(o, m.Pending()); err != nil {
		return nil, err
	}
	return m, nil
}

// runFiles are the outputs of a run, opened before it starts.
type runFiles struct {
	outs                    outputs
	timeline                *timelineOut
	events, snap, json      *atomicFile
	summaryTxt, summaryJSON *atomicFile
	config                  *atomicFile // --save-config
}

// openOutputs checks every output path first (exit 2 with nothing touched
// when one is bad), then creates them all.
func (c *cli) openOutputs(o *runOptions, files *runFiles) error {
	outs := &files.outs
	outs.stdout = c.stdout // any one output may be "-"
	outs.addRunInputs(o)
	if o.configPath != "" {
		outs.addInput("--config", o.configPath)
	}
	// The log directory may not exist yet: paths in it count as new
	// files, and it is made only once every path passed.
	logDirMissing := false
	if o.logDir != "" {
		fi, err := os.Stat(o.logDir)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("--log-dir %s: not a directory", o.logDir)
		case err != nil:
			logDirMissing = true
			outs.newDir = resolve("", o.logDir).resolved
		}
		for _, f := range []struct {
			name string
			dst  **atomicFile
		}{{"events.log", &files.events}, {"summary.txt", &files.summaryTxt}, {"summary.json", &files.summaryJSON}} {
			if err := outs.want("--log-dir", filepath.Join(o.logDir, f.name), f.dst); err != nil {
				return err
			}
		}
	}
	var timeline *atomicFile
	if err := outs.wantAll(planned{"--timeline", o.timelinePath, &timeline}, planned{"--snapshot", o.snapshotPath, &files.snap}, planned{"--json", o.jsonPath, &files.json},
		planned{"--save-config", o.saveConfigPath, &files.config}); err != nil {
		return err
	}
	if logDirMissing {
		if err := os.MkdirAll(o.logDir, 0o755); err != nil {
			return fmt.Errorf("--log-dir: %v", err)
		}
	}
	if err := outs.open(); err != nil {
		return err
	}
	if timeline != nil {
		files.timeline = newTimelineOut(timeline, &o.cfg, o.changes)
	}
	return nil
}

// execute runs the simulation and writes every requested output: build the
// model, open the outputs, run, finish.
func (c *cli) execute(o *runOptions) error {
	var opts []sim.Option
	if o.verbose || o.logDir != "" {
		opts = append(opts, sim.WithEvents())
	}
	m, err := newModel(o, opts...)
	if err != nil {
		return usageErrAsIs("%s", o.blame(err))
	}
	if o.saveConfigPath != "" {
		if o.savedConfig, err = savedConfig(o, o.saveConfigPath); err != nil {
			return usageErrAsIs("%v", err)
		}
	}
	var rec *snapshot.Recorder
	if o.snapshotPath != "" {
		if err := snapshot.Check(o.cfg, o.changes); err != nil {
			return usageErrAsIs("--snapshot: %v", err)
		}
		rec = snapshot.NewRecorder(o.cfg)
	}

	var files runFiles
	defer files.outs.abort()
	stop := c.watchInterrupts(&files.outs, nil)
	defer stop()
	if err := c.openOutputs(o, &files); err != nil {
		return usageErrAsIs("%v", err)
	}

	human := c.stdout
	humanTTY := c.stdoutTTY
	if files.outs.toStdout() {
		human, humanTTY = c.stderr, c.stderrTTY
	}
	hw := bufio.NewWriterSize(human, 64<<10)
	defer hw.Flush()
	if !o.quiet {
		fmt.Fprintln(hw, runHeader(o))
	}
	if code := c.loop(o, m, rec, &files, hw, c.colored(o.color, humanTTY)); code != exitOK {
		return exited(code)
	}
	return exited(c.finish(o, m, rec, &files, hw))
}

// loop steps the model to its end, writing what each cycle asks for. It
// returns exitOK, or the exit code of a run that was interrupted or
// stopped at the bound on queued requests.
func (c *cli) loop(o *runOptions, m *sim.Model, rec *snapshot.Recorder, files *runFiles, hw *bufio.Writer, color bool) int {
	bar := newProgress(c.stderr, c.stderrTTY && !o.verbose && !o.noProgress, o.cfg.Cycles)
	cycleDone := func() {
		if rec != nil {
			rec.Observe(m)
		}
		if files.timeline != nil {
			files.timeline.write(m)
		}
		var blocked []sim.Range // the verbose log names the range that rejected a request
		if o.verbose {
			blocked = m.Config().Blocked // --set may change the block list
		}
		for _, e := range m.Events() {
			if o.verbose {
				writeEvent(hw, m, e, color, blocked)
			}
			if files.events != nil {
				writeEvent(files.events.w, m, e, false, nil)
			}
		}
		if t := m.Cycle(); !o.verbose && o.statusEvery > 0 && t > 0 && t%o.statusEvery == 0 {
			bar.clear()
			writeStatus(hw, m)
			if bar.active {
				hw.Flush()
			}
		}
	}
	cycleDone()
	// With nothing to write for every cycle, the model may jump over
	// quiet cycles; it stops at each status line, progress update and
	// snapshot hash.
	perCycle := files.timeline != nil || files.events != nil || o.verbose
	for !m.Done() && !c.interrupted() {
		if perCycle {
			m.Step()
		} else {
			next := (m.Cycle() | 4095) + 1
			if o.statusEvery > 0 {
				next = min(next, (m.Cycle()/o.statusEvery+1)*o.statusEvery)
			}
			if rec != nil {
				next = min(next, rec.Next())
			}
			m.RunTo(next)
		}
		cycleDone()
		if m.Cycle()&4095 == 0 {
			bar.update(m.Cycle(), hw)
		}
	}
	bar.clear()
	if c.interrupted() {
		hw.Flush()
		fmt.Fprintf(c.stderr, "lbsim run: interrupted at cycle %d; %s\n", m.Cycle(), files.outs.stoppedAt(m.Cycle()))
		return c.interruptCode()
	}
	var le *sim.QueueLimitError
	if errors.As(m.Err(), &le) {
		hw.Flush()
		fmt.Fprintf(c.stderr, "lbsim run: stopped at cycle %d: %d requests queued, more than --max-queued %d allows; "+
			"the arrivals outpace the servers. Lower --rate, add --servers, set --queue-cap, or raise --max-queued (up to %d). "+
			"No output was written.\n", le.Cycle, le.Queued, le.Limit, sim.MaxQueuedLimit)
		return exitFailed
	}
	return exitOK
}

// finish prints the summary and writes and commits every output.
func (c *cli) finish(o *runOptions, m *sim.Model, rec *snapshot.Recorder, files *runFiles, hw *bufio.Writer) int {
	sum := m.Summary()
	text := appendSummaryText(nil, &o.cfg, o.seedGiven, m)
	hw.Write(text)
	hw.Flush()

	js := c.writeJSON(version.Stamp(&sum), files.json)
	if rec != nil {
		snap, err := rec.Snapshot(m)
		if err == nil {
			var data []byte
			if data, err = snapshot.Encode(snap); err == nil {
				files.snap.w.Write(data)
			}
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "lbsim run: --snapshot: %v\n", err)
			return exitFailed
		}
	}
	if files.config != nil {
		files.config.w.Write(o.savedConfig)
	}
	if files.summaryTxt != nil {
		files.summaryTxt.w.Write(text)
		files.summaryJSON.w.Write(js)
	}
	if code := c.commit(&files.outs, "run"); code != exitOK {
		return code
	}
	if !sum.Consistent {
		fmt.Fprintln(c.stderr, "lbsim run: the accounting does not hold; this is a bug in lbsim")
		return exitFailed
	}
	return exitOK
}

// serviceText describes the processing times of cfg's generated requests.
func serviceText(cfg *sim.Config) string {
	switch cfg.Service {
	case sim.Uniform:
		return fmt.Sprintf("%d..%d cycles", cfg.TaskMin, cfg.TaskMax)
	case sim.Geometric:
		return "geometric, mean " + counted(cfg.MeanService, "cycle")
	case sim.Constant:
		return counted(cfg.MeanService, "cycle") + " each"
	}
	return cfg.Shape().String()
}

func runHeader(o *runOptions) string {
	cfg := &o.cfg
	seed := fmt.Sprintf("seed %d", cfg.Seed)
	if !o.seedGiven {
		seed += fmt.Sprintf(" (random; repeat with --seed %d)", cfg.Seed)
	}
	src := fmt.Sprintf("arrivals %v/cycle", cfg.Rate)
	if cfg.Wave && cfg.WaveAmplitude > 0 {
		src += fmt.Sprintf(" ±%d%% wave", cfg.WaveAmplitude)
	}
	tasks := "tasks " + serviceText(cfg)
	if cfg.Trace != nil {
		src = fmt.Sprintf("trace %s (%s)", o.tracePath, counted(len(cfg.Trace), "row"))
		tasks = "tasks from the trace"
	}
	return fmt.Sprintf("lbsim run: %s, %s, %s, %s, %s, policy %v",
		counted(cfg.Servers, "server"), counted(cfg.Cycles, "cycle"), tasks, src, seed, cfg.Policy)
}
