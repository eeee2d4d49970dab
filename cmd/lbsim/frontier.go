package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/internal/chart"
	"github.com/lbsim/lbsim/internal/sweep"
)

// plotFrontierOptions is everything lbsim plot frontier was asked to do:
// the two metrics, the setting whose values make the lines, the title
// and the chart's output.
type plotFrontierOptions struct {
	x, y, by, title string
	out             plotOutput
}

// plotFrontierCommand is lbsim plot frontier: its options, flags and run
// (plotFrontier).
var plotFrontierCommand = subcommand[plotFrontierOptions]{
	commandSpec: commandSpec{name: "plot", help: plotHelp, positional: true},
	flags: func(_ *cli, o *plotFrontierOptions) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("plot frontier", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(&o.x, "x", "cost", "the summary key along the x axis, like cost or server_cycles")
		fs.StringVar(&o.y, "y", "wait_p95", "the summary key along the y axis, like wait_p95")
		fs.StringVar(&o.by, "by", "", "the varied `setting` whose values make the lines (default: one line through every point)")
		fs.StringVar(&o.title, "title", "", "the chart's title (default: the metrics and the runs they come from)")
		o.out.define(fs)
		return fs, nil
	},
	run: (*cli).plotFrontier,
}

// plotFrontier draws one metric of sweep results (the files cl.args
// names) against another, a point per grid point.
func (c *cli) plotFrontier(o *plotFrontierOptions, cl commandLine) error {
	files := cl.args
	if len(files) == 0 {
		return usageErrAsIs("name the sweep's results files, like: lbsim plot frontier sweep.jsonl --out frontier.svg")
	}
	if o.x == o.y {
		return usageErrAsIs("--x and --y are both %s: a frontier draws one metric against another", o.x)
	}
	if err := o.out.check(); err != nil {
		return usageErrAsIs("%v", err)
	}
	return c.drawResults(files, &o.out, o.title, []string{o.x, o.y},
		func(err error) error {
			// The aggregate names the metrics as its own flag does.
			msg := strings.Replace(err.Error(), "--metric "+o.x+":", "--x "+o.x+":", 1)
			return usageErrAsIs("%s", strings.Replace(msg, "--metric "+o.y+":", "--y "+o.y+":", 1))
		},
		func(rep *sweep.Report) (*chart.Sweep, error) { return frontierChart(rep, o.by) },
		func(ch *chart.Sweep) string {
			points := 0
			for _, sr := range ch.Series {
				points += len(sr.X)
			}
			return fmt.Sprintf("%s against %s, %s on %s", o.y, o.x, counted(points, "point"), counted(len(ch.Series), "line"))
		})
}

// frontierChart lays out an aggregate of two metrics as a chart: each grid
// point at the means of the first (x) and the second (y, with its
// interval), one series per value of the dimension by (all points in one
// when by is ""), each series in the order of x.
func frontierChart(rep *sweep.Report, by string) (*chart.Sweep, error) {
	bi := -1
	var names []string
	for i, d := range rep.Dims {
		names = append(names, d.Name)
		if d.Name == by {
			bi = i
		}
	}
	if by != "" && bi < 0 {
		return nil, fmt.Errorf("--by %s: the sweep varies %s", by, strings.Join(names, ", "))
	}
	mx, my := rep.Metrics[0], rep.Metrics[1]
	ch := &chart.Sweep{
		Title:  fmt.Sprintf("%s against %s: means of %s, %s with its 95%% interval", my, mx, counted(rep.Replications, "replication"), my),
		XLabel: mx,
		YLabel: my,
	}
	if rep.Replications < 2 { // no mean, no interval
		ch.Title = fmt.Sprintf("%s against %s: one run a point", my, mx)
	}
	index := map[string]int{}
	for _, p := range rep.Points {
		key := "every point"
		if bi >= 0 {
			key = by + "=" + p.Point[bi].Value
		}
		i, ok := index[key]
		if !ok {
			i = len(ch.Series)
			index[key] = i
			ch.Series = append(ch.Series, chart.Series{Label: key})
		}
		x, y := p.Stats[0], p.Stats[1]
		sr := &ch.Series[i]
		sr.X, sr.Mean = append(sr.X, x.Mean), append(sr.Mean, y.Mean)
		sr.Low, sr.High = append(sr.Low, y.Low), append(sr.High, y.High)
	}
	for i := range ch.Series {
		sortByX(&ch.Series[i])
	}
	return ch, nil
}

// sortByX orders a series' points by x (ties keep their order).
func sortByX(sr *chart.Series) {
	order := make([]int, len(sr.X))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case sr.X[a] < sr.X[b]:
			return -1
		case sr.X[a] > sr.X[b]:
			return 1
		}
		return 0
	})
	pick := func(vs []float64) []float64 {
		out := make([]float64, len(vs))
		for i, j := range order {
			out[i] = vs[j]
		}
		return out
	}
	sr.X, sr.Mean, sr.Low, sr.High = pick(sr.X), pick(sr.Mean), pick(sr.Low), pick(sr.High)
}
