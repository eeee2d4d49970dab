package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
)

const mmcHelp = `Usage: lbsim mmc [flags]

Runs the central FCFS queue as an M/M/c system: a fixed pool of c servers, Poisson
arrivals at a constant mean λ per cycle and geometric service times with mean m
cycles, and prints Erlang C's prediction beside what the simulation measured, with
95% batch-means intervals (the warm-up is discarded).

With --fanout K every request asks K servers at once (per-server queues, implied) and
completes when its last part does; the report adds the requests' measured response
(p50, p99, mean, attempts per request) beside the tail theory: at low load (a server's
load ρ ≤ 0.1, parts routed to idle servers, enough servers) P(response ≤ t) = F(t)^K, F
a part's time, so a request's p99 is a part's 0.99^(1/K)-quantile; when every request
asks every server (K = c, 2 to 32, geometric service) the fork-join mean of Flatto and
Hahn (K = 2, exact) or Nelson and Tantawi (an approximation). Where neither holds the
report says there is no closed form, and why.

With --hedge-after D (per-server queues, implied; K = 1 or any fan-out) a part not done D
cycles after it was sent gets a hedge on another server, the first to complete winning;
the low-load theory is then P(part > t) = Π (1 − F(t − j·D)), j = 0 … H, with the extra
attempts and load hedging costs.

With another --service shape the theory is M/G/c: for --queues per-server with
--policy random, c independent M/G/1 queues by Pollaczek–Khinchine (exact), and for
the pooled queue the Allen–Cunneen approximation. Both use the exact first two
moments of the whole-cycle, capped times the simulator draws.

The whole-cycle clock makes the measured Wq a little lower than Erlang C, by about
1/(2m) relative: Wq/(2m) cycles (for one server ρ/(2(1−ρ)) cycles); keep m ≥ 100
where a match within 1% is wanted. Near ρ = 0.9 the
measured Wq converges slowly: judge it by its interval.

Example:
  lbsim mmc --servers 5 --rate 0.04 --mean-service 100 --cycles 2000000 --seed 1
  lbsim mmc --servers 10 --rate 0.05 --service lognormal --service-cv 2 --mean-service 100 \
            --queues per-server --policy random --seed 1
  lbsim mmc --servers 200 --rate 0.001 --fanout 20 --policy least-connections --seed 1

Flags:
`

// mmcOptions is everything lbsim mmc was asked to do.
type mmcOptions struct {
	p                                 mmc.Params
	cfg                               sim.Config
	jsonPath, servicePath, configPath string
	in                                inputFiles
}

// mmcCommand is lbsim mmc: its options, flags and run (mmcRun).
var mmcCommand = subcommand[mmcOptions]{
	commandSpec: commandSpec{name: "mmc", help: mmcHelp, skip: func(key string) string {
		if mmcFlags(&mmc.Params{}, &sim.Config{}, new(string), new(string), nil).Lookup(key) == nil {
			return "not part of the M/M/c check"
		}
		return ""
	}},
	flags: func(_ *cli, o *mmcOptions) (*flag.FlagSet, *string) {
		o.p = mmc.Params{Servers: 5, Rate: 40_000, MeanService: 100, Cycles: 2_000_000, Warmup: -1, Batches: 20, MaxQueued: sim.DefaultMaxQueued}
		o.cfg = sim.DefaultConfig()
		fs := mmcFlags(&o.p, &o.cfg, &o.jsonPath, &o.servicePath, &o.in)
		fs.StringVar(&o.configPath, "config", "", configUsage)
		return fs, &o.configPath
	},
	run: (*cli).mmcRun,
}

func (c *cli) mmc(args []string) int { return runCommand(c, mmcCommand, args) }

// mmcFlags defines mmc's flags on a new flag set, filling p, cfg and the
// paths.
func mmcFlags(p *mmc.Params, cfg *sim.Config, jsonPath, servicePath *string, in *inputFiles) *flag.FlagSet {
	fs := flag.NewFlagSet("mmc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(setting{cfg, "servers", func() string { return "5" }}, "servers", "c, the fixed number of servers")
	fs.Var(setting{cfg, "rate", func() string { return "0.04" }}, "rate", "λ, mean arrivals per cycle")
	cfg.Service = sim.Geometric
	settingFlags(fs, cfg, nil, servicePath, in, isShape)
	fs.Var(setting{cfg, "task-min", func() string { return "10" }}, "task-min", "uniform and bimodal: the shortest time in cycles")
	fs.Var(setting{cfg, "task-max", func() string { return "80" }}, "task-max", "uniform and bimodal: the longest time in cycles")
	fs.Var(int64Flag{&p.Cycles}, "cycles", "cycles to simulate, warm-up included")
	fs.Var(int64Flag{&p.Warmup}, "warmup", "cycles discarded at the start (default: cycles/20)")
	fs.Var(setting{cfg, "seed", nil}, "seed", "random seed (default: a random one, printed)")
	intVar(fs, &p.Batches, "batches", p.Batches, "batches for the confidence intervals (2..1000)")
	fs.Var(setting{cfg, "queues", func() string { return "pooled" }}, "queues", "pooled (M/M/c, Erlang C) or per-server (requests routed at arrival by --policy)")
	fs.Var(setting{cfg, "policy", nil}, "policy", "routing with --queues per-server: random (c × M/M/1), p2c (supermarket model),\nround-robin or least-connections (bounds); default round-robin")
	fs.Var(setting{cfg, "choices", func() string { return "2" }}, "choices", "p2c: how many queues to draw (d)")
	fs.Var(setting{cfg, "fanout", func() string { return "1" }}, "fanout", "K: every request asks K servers and completes with its last part (per-server queues,\nimplied); prints the tail theory beside the requests' response")
	fs.Var(setting{cfg, "hedge-after", func() string { return "0" }}, "hedge-after", "D: a part not completed D cycles after it was first sent gets a hedge on another server\n(per-server queues, implied); prints the hedged tail theory")
	fs.Var(setting{cfg, "hedge-max", func() string { return "1" }}, "hedge-max", "H: hedges a part may get, at D, 2D … H·D")
	fs.Var(setting{cfg, "hedge-budget", func() string { return "0" }}, "hedge-budget", "F: a hedge goes only while hedges in the last 1000 cycles are fewer than F × parts (0 = none)")
	intVar(fs, &p.MaxQueued, "max-queued", p.MaxQueued, fmt.Sprintf("stop (exit 1) when more requests than this are queued: the offered load exceeds the pool (1..%d)", sim.MaxQueuedLimit))
	fs.StringVar(jsonPath, "json", "", "write the JSON report to `file` ('-' = stdout, then nothing else goes there)")
	cfg.Servers, cfg.Rate, cfg.MeanService = p.Servers, p.Rate, p.MeanService
	return fs
}

// mmcRun is lbsim mmc once its flags are read: it checks them, runs the
// check and reports it.
func (c *cli) mmcRun(o *mmcOptions, cl commandLine) error {
	cl.cf.notice(c.stderr, "mmc")
	p, cfg, seen := o.p, o.cfg, cl.seen
	seedGiven := seen["seed"]
	var ue *sim.UnusedError
	if err := sim.CheckUnused(&cfg, seen, nil); errors.As(err, &ue) {
		return usageErr("--%s %s", ue.Field, ue.Why)
	}
	shape := cfg.Shape()
	p.Shape = &shape
	p.Servers, p.Rate, p.MeanService, p.Seed = cfg.Servers, cfg.Rate, cfg.MeanService, cfg.Seed
	p.Queues, p.Policy, p.Choices = cfg.Queues, cfg.Policy, cfg.Choices
	if seen["fanout"] {
		p.Tail.Fanout = max(cfg.Fanout, 1)
	}
	if cfg.HedgeAfter > 0 {
		t := mmc.TailOf(cfg)
		p.Tail.HedgeAfter, p.Tail.HedgeMax, p.Tail.HedgeBudget = t.HedgeAfter, t.HedgeMax, t.HedgeBudget
	}
	if (seen["fanout"] || cfg.HedgeAfter > 0) && !seen["queues"] { // parts and hedges are routed at once
		p.Queues = sim.PerServer
	}
	if !seen["policy"] && p.Queues == sim.PerServer {
		p.Policy = sim.DefaultPolicy(sim.PerServer)
	}
	if !seedGiven {
		p.Seed = randomSeed()
	}
	if p.Warmup == -1 {
		p.Warmup = p.Cycles / 20
	}
	if p.Batches < 2 || p.Batches > 1000 {
		return usageErr("--batches %d is not allowed: must be from 2 to 1000", p.Batches)
	}
	if p.MaxQueued < 1 || p.MaxQueued > sim.MaxQueuedLimit {
		return usageErr("--max-queued %d is not allowed: must be from 1 to %d", p.MaxQueued, sim.MaxQueuedLimit)
	}
	if err := p.Validate(); err != nil {
		return usageErr("%v", fieldError(err))
	}
	// The output is opened before the run, so a bad path fails at once.
	outs := outputs{stdout: c.stdout} // --json may be "-"
	defer outs.abort()
	stop := c.watchInterrupts(&outs, nil)
	defer stop()
	outs.addInputs(o.in)
	if o.configPath != "" {
		outs.addInput("--config", o.configPath)
	}
	var jsonFile *atomicFile
	if err := outs.wantAll(planned{"--json", o.jsonPath, &jsonFile}); err != nil {
		return usageErr("%v", err)
	}
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	p.Stop = c.interrupted
	r, err := mmc.Run(p)
	if c.interrupted() {
		return failErr(c.interruptCode(), "interrupted; no output was written")
	}
	var le *sim.QueueLimitError
	if errors.As(err, &le) {
		return failErr(exitFailed, "stopped at cycle %d: %d requests queued, more than --max-queued %d allows; "+
			"the offered load λ·m exceeds the %d servers. Lower --rate or --mean-service, add --servers, or raise --max-queued (up to %d).",
			le.Cycle, le.Queued, le.Limit, p.Servers, sim.MaxQueuedLimit)
	}
	if err != nil {
		return usageErr("%v", fieldError(err))
	}
	if jsonFile != nil {
		c.writeJSON(mmcJSON{r, lbsimVersion()}, jsonFile)
	}
	if code := c.commit(&outs, "mmc"); code != exitOK {
		return exited(code)
	}
	if !outs.toStdout() {
		fmt.Fprint(c.stdout, mmcTable(r, seedGiven))
	}
	return nil
}

// mmcJSON is mmc's --json: the report, then the build that made it, as
// every other subcommand's JSON ends.
type mmcJSON struct {
	mmc.Report
	Version string `json:"lbsim_version"`
}

// mmcTable formats theory beside measurement.
func mmcTable(r mmc.Report, seedGiven bool) string {
	var b strings.Builder
	seed := fmt.Sprint(r.Seed)
	if !seedGiven {
		seed += fmt.Sprintf(" (random; repeat with --seed %d)", r.Seed)
	}
	fmt.Fprintf(&b, "Queueing check: c = %d servers, λ = %g arrivals/cycle, service %s (E[S] = %.6g, E[S²] = %.6g), %d cycles (warm-up %d), seed %s\n",
		r.Servers, r.Rate, r.Service, r.ServiceMean, r.ServiceSecond, r.Cycles, r.Warmup, seed)
	what := "requests"
	if r.Tail != nil {
		what = "attempts" // each part is one
	}
	fmt.Fprintf(&b, "%d %s measured in %d batches; the run realized λ = %.5g and m = %.4g.\n",
		r.Measured.Dispatched, what, r.Measured.Batches, r.Measured.Lambda, r.Measured.MeanService)
	fmt.Fprintf(&b, "Queues %s, policy %s.\n\n", r.Queues, r.Policy)
	if bd := r.Bounds; bd != nil {
		fmt.Fprintf(&b, "%s:\n  %.4g ≤ Wq ≤ %.4g (measured %.4g)\n\n", bd.Note, bd.WqLow, bd.WqHigh, r.Measured.Wq)
	}
	ms := r.Measured
	if r.Theory == nil {
		fmt.Fprintf(&b, "Theory does not apply: %s\n\n", r.TheoryError)
	} else {
		fmt.Fprintf(&b, "Theory: %s.\n", r.Theory.Model)
	}
	fmt.Fprintf(&b, "%-22s %12s %12s %12s %9s   %s\n", "", "theory", "measured", "difference", "relative", "95% interval (measured)")
	line := func(name string, th func(*mmc.Theory) float64, meas float64, ci *[2]float64) {
		iv := ""
		if ci != nil {
			iv = fmt.Sprintf("[%.4g, %.4g]", ci[0], ci[1])
		}
		if r.Theory == nil {
			fmt.Fprintf(&b, "%-22s %12s %12.4g %12s %9s   %s\n", name, "—", meas, "", "", iv)
			return
		}
		t := th(r.Theory)
		rel := "—"
		if t != 0 {
			rel = fmt.Sprintf("%+.1f%%", 100*(meas-t)/t)
		}
		if ci != nil {
			if t >= ci[0] && t <= ci[1] {
				iv += "  theory inside"
			} else {
				iv += "  theory outside"
			}
		}
		fmt.Fprintf(&b, "%-22s %12.4g %12.4g %+12.4g %9s   %s\n", name, t, meas, meas-t, rel, iv)
	}
	line("utilisation ρ", func(t *mmc.Theory) float64 { return t.Rho }, ms.Utilisation, nil)
	line("P(wait)", func(t *mmc.Theory) float64 { return t.PWait }, ms.PWait, &ms.PWaitCI)
	line("Wq (cycles)", func(t *mmc.Theory) float64 { return t.Wq }, ms.Wq, &ms.WqCI)
	line("Lq (requests)", func(t *mmc.Theory) float64 { return t.Lq }, ms.Lq, &ms.LqCI)
	line("W (cycles)", func(t *mmc.Theory) float64 { return t.W }, ms.W, nil)
	line("L (requests)", func(t *mmc.Theory) float64 { return t.L }, ms.L, nil)
	if ms.Lambda > 0 && ms.MeanService > 0 && r.Queues == sim.Pooled.String() && r.Theory != nil && r.Theory.Model == "M/M/c (Erlang C)" {
		if th, err := (queueing.MMC{Servers: r.Servers, Lambda: ms.Lambda, MeanService: ms.MeanService}).Metrics(); err == nil {
			fmt.Fprintf(&b, "\nAt the λ and m this run realized, Erlang C gives P(wait) = %.4g, Wq = %.4g, Lq = %.4g:\n"+
				"the measured Wq is %+.1f%% from it (the rest of the difference above is the inputs' sampling noise).\n",
				th.PWait, th.Wq, th.Lq, 100*(ms.Wq-th.Wq)/th.Wq)
		}
	}
	if r.Tail != nil {
		b.WriteString(tailTable(*r.Tail, r.Measured.Response))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	return trimLines(b.String())
}

// tailTable formats the tail theory beside the requests' measured
// response: the low-load model and the fork-join mean where they apply,
// "no closed form" with the reason where not.
func tailTable(tl mmc.Tail, ms *mmc.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nResponse of a request: fan-out %d", tl.Fanout)
	if tl.HedgeAfter > 0 {
		fmt.Fprintf(&b, ", hedged after %d cycles (at most %d hedges a part)", tl.HedgeAfter, tl.HedgeMax)
	}
	fmt.Fprintf(&b, "; load ρ = %.4g a server", tl.Load)
	if tl.HedgeAfter > 0 {
		b.WriteString(" (hedging's extra work included)")
	}
	b.WriteString(".\n")
	if ms == nil {
		ms = &mmc.Response{}
	}
	row := func(name, theory string, measured string) {
		fmt.Fprintf(&b, "%-34s %12s %12s\n", name, theory, measured)
	}
	num := func(x float64) string { return fmt.Sprintf("%.4g", x) }
	fmt.Fprintf(&b, "%-34s %12s %12s\n", "", "theory", "measured")
	lt := tl.LowLoad
	if lt == nil {
		row("request p50 (cycles)", "—", fmt.Sprint(ms.P50))
		row("request p99 (cycles)", "—", fmt.Sprint(ms.P99))
		row("attempts per request", "—", num(ms.AttemptsPerRequest))
	} else {
		if tl.HedgeAfter > 0 {
			// A part's own time is then one attempt's; the part ends with
			// the first of its attempts.
			row("one attempt's p50 / p99 (cycles)", fmt.Sprintf("%d / %d", lt.PartP50, lt.PartP99), "")
			row("a hedged part's p99 (cycles)", fmt.Sprint(lt.HedgedPartP99), "")
		} else {
			row("a part's p50 / p99 (cycles)", fmt.Sprintf("%d / %d", lt.PartP50, lt.PartP99), "")
		}
		row("request p50 (cycles)", fmt.Sprint(lt.RequestP50), fmt.Sprint(ms.P50))
		row("request p99 (cycles)", fmt.Sprint(lt.RequestP99), fmt.Sprint(ms.P99))
		row("avg response (cycles)", num(lt.AvgResponse), num(ms.AvgResponse))
		row("within a part's p99 (requests)", fmt.Sprintf("%.3g", lt.WithinPartP99), "")
		row("attempts per request", num(lt.AttemptsPerRequest), num(ms.AttemptsPerRequest))
		if tl.HedgeAfter > 0 {
			row("extra load from hedging", fmt.Sprintf("%.2f%%", 100*lt.ExtraLoad), "")
		}
	}
	if fj := tl.ForkJoin; fj != nil {
		row("avg response, fork-join (cycles)", num(fj.AvgResponse), num(ms.AvgResponse))
	}
	if lt != nil {
		fmt.Fprintf(&b, "Low load: %s.\n", lt.Model)
	} else {
		fmt.Fprintf(&b, "Low load: %s.\n", tl.LowLoadWhy)
	}
	if tl.ForkJoin != nil {
		fmt.Fprintf(&b, "Every server: %s.\n", tl.ForkJoin.Model)
	} else {
		fmt.Fprintf(&b, "Every server: %s.\n", tl.ForkJoinWhy)
	}
	fmt.Fprintf(&b, "Measured over the whole run: %d requests completed.\n", ms.Completed)
	for _, n := range tl.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	if len(tl.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// trimLines cuts the spaces a table's empty last columns leave at the end
// of each line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
