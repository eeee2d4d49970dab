package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/internal/chart"
	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/sim"
)

const plotHelp = `Usage:
  lbsim plot run [run flags] --out FILE.svg|.png [--size WxH]
  lbsim plot sweep FILE… --metric NAME [--x SETTING] --out FILE.svg|.png [--size WxH]
  lbsim plot frontier FILE… [--x cost] [--y wait_p95] [--by SETTING] --out FILE.svg|.png [--size WxH]

'plot run' runs the simulation (as 'lbsim run' with the same flags would) and
draws its timeline: above, the queue with the scaling thresholds U·S and D·S
(S = active servers; the pool grows when the queue is above U·S and shrinks
when it is below D·S); below, the live servers with each scale-up and
scale-down marked. Long runs are drawn in buckets of cycles (the queue's
peak in each, one mark per kind of scale event), so memory stays small.

'plot sweep' draws a metric of sweep results against one varied setting (--x,
by default the first whose values are numbers), one line per value of the
other varied settings, each with its 95% interval as a band.

'plot frontier' draws one metric of sweep results against another (--y against
--x, by default wait_p95 against cost), a point per grid point at the means of
its replications, with --y's 95% interval as a band: the price of each latency.
Points are joined in the order of --x, one line per value of the varied
setting --by (by default, one line through every point).

The format follows the extension of --out: .svg or .png.

Example:
  lbsim plot run --servers 10 --cycles 3000 --rate 0.5 --seed 3 --out timeline.svg
  lbsim plot sweep sweep.jsonl --metric avg_wait --x rate --out sweep.png
  lbsim plot frontier sweep.jsonl --x server_cycles --y wait_p99 --out frontier.svg

Flags:
`

// plotOutput is the chart's file and size, common to both kinds.
type plotOutput struct {
	out, size string
	format    string
	w, h      int
}

func (po *plotOutput) define(fs *flag.FlagSet) {
	fs.StringVar(&po.out, "out", "", "the chart `file`: .svg or .png ('-' = stdout, SVG unless --format png; then nothing else goes there)")
	fs.StringVar(&po.size, "size", "900x560", "the chart's size, `WxH` in pixels (PNG) or points (SVG)")
	fs.StringVar(&po.format, "format", "", "the chart's `format`, svg or png (default: --out's extension; svg for '-')")
}

func (po *plotOutput) check() error {
	if po.out == "" {
		return errors.New("--out FILE.svg or FILE.png is required ('-' = stdout)")
	}
	var err error
	switch {
	case po.format != "":
		if po.format, err = chart.Format("." + po.format); err != nil {
			return errors.New("--format: want svg or png")
		}
	case po.out == "-":
		po.format = "svg"
	default:
		if po.format, err = chart.Format(po.out); err != nil {
			return fmt.Errorf("--out %v", err)
		}
	}
	po.w, po.h, err = chart.ParseSize(po.size)
	return err
}

// open checks --out against the inputs (which it may not overwrite), then
// creates it, before any work; the caller defers outs.abort and watches
// the interrupts with outs.
func (po *plotOutput) open(outs *outputs, inputFlag string, inputs ...string) (*atomicFile, error) {
	for _, in := range inputs {
		outs.addInput(inputFlag, in)
	}
	var f *atomicFile
	if err := outs.want("--out", po.out, &f); err != nil {
		return nil, err
	}
	return f, outs.open()
}

// plotKinds are the charts lbsim plot draws, in the order its help,
// errors and completion list them.
var plotKinds = []string{"run", "sweep", "frontier"}

func (c *cli) plot(args []string) int {
	fail := c.usageFail("plot", nil)
	if len(args) == 0 {
		return fail("say what to plot: 'lbsim plot run [run flags]', 'lbsim plot sweep FILE…' or 'lbsim plot frontier FILE…'")
	}
	switch args[0] {
	case "run":
		return runCommand(c, plotRunCommand, args[1:])
	case "sweep":
		return runCommand(c, plotSweepCommand, args[1:])
	case "frontier":
		return runCommand(c, plotFrontierCommand, args[1:])
	case "help", "-h", "-help", "--help":
		fs := flag.NewFlagSet("plot", flag.ContinueOnError)
		(&plotOutput{}).define(fs)
		c.printedHelp(fs, flag.ErrHelp, plotHelp)
		return exitOK
	default:
		return fail("unknown chart %q: allowed %s", args[0], strings.Join(plotKinds, ", "))
	}
}

// plotRunOptions is everything lbsim plot run was asked to do: the run
// and the chart's output.
type plotRunOptions struct {
	run runOptions
	out plotOutput
}

// plotRunCommand is lbsim plot run: its options, flags and run (plotRun).
var plotRunCommand = subcommand[plotRunOptions]{
	commandSpec: commandSpec{name: "plot", help: plotHelp},
	flags: func(_ *cli, opts *plotRunOptions) (*flag.FlagSet, *string) {
		o := &opts.run
		*o = runOptions{cfg: sim.DefaultConfig(), statusEvery: -1}
		fs := flag.NewFlagSet("plot run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		inputFlags(fs, o, &blockList{cfg: &o.cfg})
		opts.out.define(fs)
		configFlags(fs, o, false)
		return fs, &o.configPath
	},
	run: (*cli).plotRun,
}

// plotRun runs the simulation and draws its timeline.
func (c *cli) plotRun(opts *plotRunOptions, cl commandLine) error {
	cf, o, po := cl.cf, &opts.run, &opts.out
	if err := po.check(); err != nil {
		return usageErrAsIs("%v", err)
	}
	if err := c.complete(o, cl.seen); err != nil {
		return usageErrAsIs("%s", cf.blame(err.Error()))
	}
	o.config = cf
	if o.cfg.Switch {
		return usageErrAsIs("--switch: the timeline chart draws one balancer; run without --switch")
	}
	m, err := newModel(o)
	if err != nil {
		return usageErrAsIs("%s", o.blame(err))
	}
	outs := outputs{stdout: c.stdout} // --out may be "-"
	defer outs.abort()
	outs.addRunInputs(o)
	if o.configPath != "" {
		outs.addInput("--config", o.configPath)
	}
	stop := c.watchInterrupts(&outs, nil)
	defer stop()
	f, err := po.open(&outs, "")
	if err != nil {
		return usageErrAsIs("%v", err)
	}
	tl := chart.NewTimeline(fmt.Sprintf("%s, rate %v, policy %v, seed %d", counted(o.cfg.Servers, "server"), o.cfg.Rate, o.cfg.Policy, o.cfg.Seed), o.cfg.Cycles)
	observe := func() {
		cfg, p := m.Config(), m.Pool()
		tl.Add(chart.Cycle{Cycle: m.Cycle(), Queue: m.QueueLen(), Live: p.Live, Scale: m.Last().Scale,
			Up: cfg.ScaleUp.Float() * float64(p.Active), Down: cfg.ScaleDown.Float() * float64(p.Active)})
	}
	observe()
	for !m.Done() && !c.interrupted() {
		m.Step()
		observe()
	}
	var le *sim.QueueLimitError
	switch {
	case c.interrupted():
		return failErr(c.interruptCode(), "interrupted at cycle %d; no chart was written", m.Cycle())
	case errors.As(m.Err(), &le):
		return failErr(exitFailed, "stopped at cycle %d: %d requests queued, more than --max-queued %d allows; "+
			"the arrivals outpace the servers. Lower --rate, add --servers, set --queue-cap, or raise --max-queued (up to %d). No chart was written",
			le.Cycle, le.Queued, le.Limit, sim.MaxQueuedLimit)
	case m.Err() != nil:
		return failErr(exitFailed, "%v", m.Err())
	}
	if err := tl.Write(f.w, po.format, po.w, po.h); err != nil {
		return failErr(exitFailed, "%v", err)
	}
	if code := c.commit(&outs, "plot"); code != exitOK {
		return exited(code)
	}
	fmt.Fprintf(c.humanOut(&outs), "lbsim plot: the timeline of %s is in %s\n", counted(o.cfg.Cycles, "cycle"), outName(po.out))
	return nil
}

// plotSweepOptions is everything lbsim plot sweep was asked to do.
type plotSweepOptions struct {
	metric, xName, title string
	out                  plotOutput
}

// plotSweepCommand is lbsim plot sweep: its options, flags and run
// (plotSweep).
var plotSweepCommand = subcommand[plotSweepOptions]{
	commandSpec: commandSpec{name: "plot", help: plotHelp, positional: true},
	flags: func(_ *cli, o *plotSweepOptions) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("plot sweep", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(&o.metric, "metric", "avg_wait", "the summary key to draw, like avg_wait")
		fs.StringVar(&o.xName, "x", "", "the varied `setting` along the x axis (default: the first whose values are numbers)")
		fs.StringVar(&o.title, "title", "", "the chart's title (default: the metric and the runs it comes from)")
		o.out.define(fs)
		return fs, nil
	},
	run: (*cli).plotSweep,
}

// plotSweep draws a metric of sweep results (the files cl.args names)
// against one varied setting.
func (c *cli) plotSweep(o *plotSweepOptions, cl commandLine) error {
	files := cl.args
	if len(files) == 0 {
		return usageErrAsIs("name the sweep's results files, like: lbsim plot sweep sweep.jsonl --out sweep.svg")
	}
	if err := o.out.check(); err != nil {
		return usageErrAsIs("%v", err)
	}
	return c.drawResults(files, &o.out, o.title, []string{o.metric}, nil,
		func(rep *sweep.Report) (*chart.Sweep, error) { return sweepChart(rep, o.xName) },
		func(ch *chart.Sweep) string {
			return fmt.Sprintf("%s against %s, %s", o.metric, ch.XLabel, counted(len(ch.Series), "line"))
		})
}

// drawResults is the shared run of lbsim plot sweep and plot frontier: it
// aggregates the metrics of the sweep's results files (an aggregate's
// error passed through aggErr when it is not nil), lays them out with
// layout, titles the chart (title, if given), writes it to out, and says
// what was drawn (said's words) and where.
func (c *cli) drawResults(files []string, out *plotOutput, title string, metrics []string,
	aggErr func(error) error, layout func(*sweep.Report) (*chart.Sweep, error), said func(*chart.Sweep) string) error {
	outs := outputs{stdout: c.stdout} // --out may be "-"
	defer outs.abort()
	stop := c.watchInterrupts(&outs, nil)
	defer stop()
	f, err := out.open(&outs, "the results file", files...)
	if err != nil {
		return usageErrAsIs("%v", err)
	}
	rep, err := aggregateFiles(files, metrics, 0)
	if err != nil {
		if aggErr != nil {
			return aggErr(err)
		}
		return usageErrAsIs("%v", err)
	}
	ch, err := layout(rep)
	if err != nil {
		return usageErrAsIs("%v", err)
	}
	if title != "" {
		ch.Title = title
	}
	if err := ch.Write(f.w, out.format, out.w, out.h); err != nil {
		return failErr(exitFailed, "%v", err)
	}
	if code := c.commit(&outs, "plot"); code != exitOK {
		return exited(code)
	}
	if code := c.reportMerge(rep); code != exitOK {
		return exited(code)
	}
	fmt.Fprintf(c.humanOut(&outs), "lbsim plot: %s, is in %s\n", said(ch), outName(out.out))
	return nil
}

// sweepChart lays out an aggregate as a chart: the x dimension along the
// axis, one series per combination of the other dimensions.
func sweepChart(rep *sweep.Report, xName string) (*chart.Sweep, error) {
	xi := -1
	var names []string
	for i, d := range rep.Dims {
		names = append(names, d.Name)
		if (xName == "" && xi < 0 && numeric(d.Values)) || d.Name == xName {
			xi = i
		}
	}
	switch {
	case xi < 0 && xName != "":
		return nil, fmt.Errorf("--x %s: the sweep varies %s", xName, strings.Join(names, ", "))
	case xi < 0:
		return nil, fmt.Errorf("the sweep varies no setting with numeric values (%s): nothing to put along the x axis", strings.Join(names, ", "))
	case !numeric(rep.Dims[xi].Values):
		return nil, fmt.Errorf("--x %s: its values (%s) are not numbers", xName, strings.Join(rep.Dims[xi].Values, ", "))
	}
	metric := rep.Metrics[0]
	ch := &chart.Sweep{
		Title:  fmt.Sprintf("%s: mean of %s with 95%% interval", metric, counted(rep.Replications, "replication")),
		XLabel: rep.Dims[xi].Name,
		YLabel: metric,
	}
	if rep.Replications < 2 { // no mean, no interval
		ch.Title = metric + ": one run a point"
	}
	index := map[string]int{}
	for _, p := range rep.Points {
		var label []string
		var x float64
		for i, s := range p.Point {
			if i == xi {
				x, _ = strconv.ParseFloat(s.Value, 64)
			} else {
				label = append(label, s.Name+"="+s.Value)
			}
		}
		key := strings.Join(label, ", ")
		if key == "" {
			key = metric
		}
		i, ok := index[key]
		if !ok {
			i = len(ch.Series)
			index[key] = i
			ch.Series = append(ch.Series, chart.Series{Label: key})
		}
		st := p.Stats[0]
		sr := &ch.Series[i]
		sr.X, sr.Mean = append(sr.X, x), append(sr.Mean, st.Mean)
		sr.Low, sr.High = append(sr.Low, st.Low), append(sr.High, st.High)
	}
	return ch, nil
}

// numeric reports whether every value is a finite number.
func numeric(values []string) bool {
	for _, v := range values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
	}
	return len(values) > 0
}
