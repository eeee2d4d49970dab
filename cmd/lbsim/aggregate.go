package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lbsim/lbsim/internal/sweep"
)

const aggregateHelp = `Usage: lbsim aggregate FILE… [flags]

Merges the results files of a sweep (its shards, in any number) and prints,
per grid point, each metric's mean over the replications with its 95%
Student t interval. Runs missing from the grid, runs found twice and files
ending in a partial line are reported on stderr; missing runs and runs found
twice with different results make the exit code 1.

A metric is a key of the run summary (lbsim run --json), like avg_wait or
peak_queue; P.avg_wait reaches into a switch's P balancer.

Example:
  lbsim aggregate shard-*.jsonl --metric avg_wait,peak_queue --precision 0.05

Flags:
`

// aggregateOptions is everything `lbsim aggregate` was asked to do.
type aggregateOptions struct {
	metrics   string
	csv, json string // output paths, "-" = stdout
	precision float64
}

// aggregateCommand is lbsim aggregate: its options, flags and run
// (aggregateRun).
var aggregateCommand = subcommand[aggregateOptions]{
	commandSpec: commandSpec{name: "aggregate", help: aggregateHelp, positional: true},
	flags: func(_ *cli, o *aggregateOptions) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("aggregate", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(&o.metrics, "metric", "avg_wait,peak_queue,servers_peak", "summary keys to aggregate, `a,b,…`")
		fs.StringVar(&o.csv, "csv", "", "write CSV to `file` ('-' = stdout): one row per point, mean, low, high and half-width per metric")
		fs.StringVar(&o.json, "json", "", "write JSON to `file` ('-' = stdout)")
		floatVar(fs, &o.precision, "precision", 0, "flag intervals wider than this `fraction` of the mean (like 0.05), with the replications needed")
		return fs, nil
	},
	run: (*cli).aggregateRun,
}

func (c *cli) aggregate(args []string) int {
	args = oldSwitches(args, c.stderr, "aggregate", "json", "csv")
	return runCommand(c, aggregateCommand, args)
}

// aggregateRun merges the results files named (cl.args) and writes the
// table, and the CSV and JSON asked for.
func (c *cli) aggregateRun(o *aggregateOptions, cl commandLine) error {
	files := cl.args
	switch {
	case len(files) == 0:
		return usageErr("name the results files, like: lbsim aggregate sweep.jsonl")
	case o.precision < 0 || o.precision >= 1 || math.IsNaN(o.precision):
		return usageErr("--precision %v: want a fraction of the mean from 0 (none) to below 1, like 0.05", o.precision)
	}
	rep, err := aggregateFiles(files, splitList(o.metrics), o.precision)
	if err != nil {
		return usageErr("%v", err)
	}
	outs := outputs{stdout: c.stdout} // either output may be "-"
	for _, name := range files {
		outs.addInput("the results file", name)
	}
	var csvFile, jsonFile *atomicFile
	if err := outs.wantAll(planned{"--csv", o.csv, &csvFile}, planned{"--json", o.json, &jsonFile}); err != nil {
		return usageErr("%v", err)
	}
	defer outs.abort()
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	if csvFile != nil {
		writeAggregateCSV(csvFile.w, rep)
	}
	if jsonFile != nil {
		c.writeJSON(aggregateJSON(rep), jsonFile)
	}
	if !outs.toStdout() {
		writeAggregateTable(c.stdout, rep)
	}
	if code := c.commit(&outs, "aggregate"); code != exitOK {
		return exited(code)
	}
	return exited(c.reportMerge(rep))
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// aggregateFiles opens the files and aggregates them.
func aggregateFiles(files []string, metrics []string, precision float64) (*sweep.Report, error) {
	var inputs []sweep.Input
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		inputs = append(inputs, sweep.Input{Name: name, R: f})
	}
	return sweep.Aggregate(inputs, metrics, precision)
}

// reportMerge says on stderr what is wrong with the set of runs, and
// returns the exit code.
func (c *cli) reportMerge(rep *sweep.Report) int {
	list := func(what string, n int64, keys []sweep.Key) {
		if n == 0 {
			return
		}
		fmt.Fprintf(c.stderr, "lbsim aggregate: %d %s:", n, what)
		for i, k := range keys {
			if i == sweep.MaxListed {
				break
			}
			fmt.Fprintf(c.stderr, "\n  %s replication %d", k.Point, k.Replication)
		}
		if shown := int64(min(len(keys), sweep.MaxListed)); n > shown {
			fmt.Fprintf(c.stderr, "\n  … and %d more", n-shown)
		}
		fmt.Fprintln(c.stderr)
	}
	list("runs missing (no file holds them)", rep.MissingRuns, rep.Missing)
	list("runs found more than once with the same result (counted once)", rep.DuplicateRuns, rep.Duplicates)
	list("runs found more than once with different results (the first is used): these files are not one sweep", rep.ConflictRuns, rep.Conflicts)
	for _, name := range rep.Partial {
		fmt.Fprintf(c.stderr, "lbsim aggregate: %s ends in a partial line (an interrupted sweep), which is ignored: lbsim sweep --resume completes it\n", name)
	}
	if len(rep.BaseSeeds) > 1 {
		fmt.Fprintf(c.stderr, "lbsim aggregate: the files use %d different base seeds %v: runs of different sweeps are mixed\n", len(rep.BaseSeeds), rep.BaseSeeds)
	}
	if rep.Wide > 0 {
		fmt.Fprintf(c.stderr, "lbsim aggregate: %d intervals are wider than %g of their mean (marked *); the number after 'need' is about how many replications would do\n", rep.Wide, rep.Precision)
	}
	if rep.MissingRuns > 0 || rep.ConflictRuns > 0 || len(rep.BaseSeeds) > 1 {
		return exitFailed
	}
	return exitOK
}

// num formats a statistic compactly.
func num(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', 5, 64)
}

func writeAggregateTable(w io.Writer, rep *sweep.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := dimsHead(rep)
	for _, m := range rep.Metrics {
		head = append(head, m+" (mean ± 95%)")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, p := range rep.Points {
		row := pointCells(p)
		for _, st := range p.Stats {
			cell := formatInterval(st.Mean, st.HalfWidth)
			if st.Wide {
				cell += " *need " + neededText(st.Needed)
			}
			row = append(row, cell)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// dimsHead returns the first columns of a report's table: one a varied
// setting, then runs.
func dimsHead(rep *sweep.Report) []string {
	var head []string
	for _, d := range rep.Dims {
		head = append(head, d.Name)
	}
	return append(head, "runs")
}

// pointCells returns a point's first cells, under dimsHead.
func pointCells(p sweep.PointStats) []string {
	var row []string
	for _, s := range p.Point {
		row = append(row, s.Value)
	}
	return append(row, strconv.Itoa(p.Runs))
}

func neededText(n int) string {
	if n < 0 {
		return "∞"
	}
	return strconv.Itoa(n)
}

func writeAggregateCSV(w io.Writer, rep *sweep.Report) {
	cw := newCSV(w)
	head := dimsHead(rep)
	for _, m := range rep.Metrics {
		head = append(head, m+"_mean", m+"_low", m+"_high", m+"_half_width")
		if rep.Precision > 0 {
			head = append(head, m+"_needed")
		}
	}
	cw.Write(head)
	for _, p := range rep.Points {
		row := pointCells(p)
		for _, st := range p.Stats {
			for _, x := range []float64{st.Mean, st.Low, st.High, st.HalfWidth} {
				row = append(row, csvNumber(x))
			}
			if rep.Precision > 0 {
				n := ""
				if st.Wide {
					n = strconv.Itoa(st.Needed)
				}
				row = append(row, n)
			}
		}
		cw.Write(row)
	}
	cw.Flush()
}

// aggregateJSON is the --json form of a report; an interval that cannot be
// computed (one replication) is null.
func aggregateJSON(rep *sweep.Report) any {
	type stat struct {
		Mean      float64  `json:"mean"`
		Low       *float64 `json:"low"`
		High      *float64 `json:"high"`
		HalfWidth *float64 `json:"half_width"`
		N         int      `json:"n"`
		Wide      bool     `json:"wide,omitempty"`
		Needed    int      `json:"needed,omitempty"`
	}
	type point struct {
		Point   json.RawMessage `json:"point"`
		Runs    int             `json:"runs"`
		Metrics map[string]stat `json:"metrics"`
	}
	type run struct {
		Point       json.RawMessage `json:"point"`
		Replication int             `json:"replication"`
	}
	runs := func(keys []sweep.Key) []run {
		out := []run{}
		for _, k := range keys {
			out = append(out, run{json.RawMessage(k.Point), k.Replication})
		}
		return out
	}
	opt := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	var points []point
	for _, p := range rep.Points {
		pt := point{Point: p.Point.AppendJSON(nil), Runs: p.Runs, Metrics: map[string]stat{}}
		for i, st := range p.Stats {
			pt.Metrics[rep.Metrics[i]] = stat{st.Mean, opt(st.Low), opt(st.High), opt(st.HalfWidth), st.N, st.Wide, st.Needed}
		}
		points = append(points, pt)
	}
	return map[string]any{
		"lbsim_version": lbsimVersion(),
		"metrics":       rep.Metrics, "replications": rep.Replications, "runs": rep.Runs, "points": points,
		"missing_runs": rep.MissingRuns, "missing": runs(rep.Missing), "duplicate_runs": rep.DuplicateRuns, "duplicates": runs(rep.Duplicates),
		"conflict_runs": rep.ConflictRuns, "conflicts": runs(rep.Conflicts),
	}
}
