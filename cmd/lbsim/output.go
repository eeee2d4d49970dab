package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lbsim/lbsim/sim"
)

// ANSI colours of the verbose log, by event kind.
var eventColors = map[sim.EventKind]string{
	sim.Arrive:    "\x1b[2m",    // dim
	sim.Reject:    "\x1b[31m",   // red
	sim.Discard:   "\x1b[35m",   // magenta
	sim.Dispatch:  "\x1b[36m",   // cyan
	sim.Complete:  "\x1b[32m",   // green
	sim.ScaleUp:   "\x1b[1;33m", // bold yellow
	sim.ScaleDown: "\x1b[1;34m", // bold blue
	sim.Retire:    "\x1b[34m",   // blue
	sim.Leave:     "\x1b[34m",   // blue
	sim.Down:      "\x1b[1;31m", // bold red
	sim.Up:        "\x1b[1;32m", // bold green
	sim.Requeue:   "\x1b[33m",   // yellow
}

// writeEvent writes one event's log line. With blocked (the verbose log),
// a rejection names the blocked range that matched its source.
func writeEvent(w io.StringWriter, m *sim.Model, e sim.Event, color bool, blocked []sim.Range) {
	if color {
		w.WriteString(eventColors[e.Kind])
	}
	if bs := m.Balancers(); len(bs) > 1 {
		w.WriteString("[" + bs[e.Balancer].Name() + "] ")
	}
	w.WriteString(e.String())
	if e.Kind == sim.Reject && blocked != nil {
		for _, r := range blocked {
			if r.Contains(e.Request.Src) {
				w.WriteString(" (blocked by " + r.String() + ")")
				break
			}
		}
	}
	if color {
		w.WriteString("\x1b[0m")
	}
	w.WriteString("\n")
}

// timelineOut writes the timeline CSV of a run or a replay: one row per
// cycle, or in a switch one row per balancer with a balancer column. It is
// the one timeline writer, so run and replay write the same file.
type timelineOut struct {
	af   *atomicFile
	cols sim.Columns
	line []byte
}

// newTimelineOut writes the header for a run of cfg with the changes
// scheduled (its optional column groups follow them).
func newTimelineOut(af *atomicFile, cfg *sim.Config, changes []sim.Change) *timelineOut {
	t := &timelineOut{af: af, cols: sim.TimelineColumns(cfg, changes)}
	header := t.cols.Header()
	if cfg.Switch {
		h, rest, _ := strings.Cut(header, ",")
		header = h + ",balancer," + rest
	}
	af.w.WriteString(header + "\n")
	return t
}

// write appends the last cycle's row (or rows).
func (t *timelineOut) write(m *sim.Model) {
	t.line = appendTimeline(t.line[:0], m, t.cols)
	t.af.w.Write(t.line)
}

// appendTimeline appends the last cycle's timeline row (one per balancer
// in a switch), each ending in a newline.
func appendTimeline(b []byte, m *sim.Model, cols sim.Columns) []byte {
	bs := m.Balancers()
	if len(bs) == 1 {
		return append(m.Last().AppendRow(b, cols), '\n')
	}
	for _, bal := range bs {
		start := len(b)
		b = bal.Last().AppendRow(b, cols)
		row := string(b[start:])
		cycle, rest, _ := strings.Cut(row, ",")
		b = append(b[:start], cycle...)
		b = append(b, ","+bal.Name()+","...)
		b = append(b, rest...)
		b = append(b, '\n')
	}
	return b
}

func writeStatus(w io.Writer, m *sim.Model) {
	p, t := m.Pool(), m.Totals()
	fmt.Fprintf(w, "cycle %9d  queue %7d  servers %4d (busy %d, idle %d, retiring %d)  completed %d  rejected %d  discarded %d  scale +%d/-%d\n",
		m.Cycle(), m.QueueLen(), p.Live, p.Busy, p.Idle, p.Retiring, t.Completed, t.Rejected, t.Discarded, t.ScaleUps, t.ScaleDowns)
}

func pct(part, whole int64) string {
	if whole == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

func holds(ok bool) string {
	if ok {
		return "holds"
	}
	return "DOES NOT HOLD"
}

// appendSummaryText writes the readable summary (docs/cli.md), ending with
// the two accounting lines. A switch gets a column per balancer and a total.
func appendSummaryText(b []byte, cfg *sim.Config, seedGiven bool, m *sim.Model) []byte {
	s := m.Summary()
	cols := []sim.Summary{s}
	heads := []string{""}
	if s.P != nil {
		cols = []sim.Summary{*s.P, *s.S, s}
		heads = []string{"P", "S", "total"}
	}
	var w strings.Builder
	seedNote := ""
	if !seedGiven {
		seedNote = " (chosen at random)"
	}
	fmt.Fprintf(&w, "\nSummary after %d cycles\n", s.Cycles)
	fmt.Fprintf(&w, "  seed                %d%s\n", s.Seed, seedNote)
	if cfg.Trace == nil {
		fmt.Fprintf(&w, "  task time           %s\n", serviceText(cfg))
	}
	fmt.Fprintf(&w, "  queues, policy      %v, %v\n", cfg.Queues, cfg.Policy)
	if s.Balancers > 1 || cfg.LoadInfo != sim.LoadExact {
		fmt.Fprintf(&w, "  balancers           %d, load information %s, the largest share of one balancer's picks on one server %.1f%%\n",
			s.Balancers, s.LoadInfo, 100*s.MaxShare)
	}
	if len(cfg.Speeds) > 0 {
		vs := make([]string, len(cfg.Speeds))
		for i, v := range cfg.Speeds {
			vs[i] = v.String()
		}
		fmt.Fprintf(&w, "  server speeds       %s (others 1)\n", strings.Join(vs, ","))
	}
	// The rows are gathered first and written by writeColumns, so each
	// column is as wide as its widest cell and cells never run together.
	var lines [][]string // a heading is a line of one cell
	row := func(label string, f func(sim.Summary) string) {
		line := []string{label}
		for _, c := range cols {
			line = append(line, f(c))
		}
		lines = append(lines, line)
	}
	heading := func(s string) { lines = append(lines, []string{s}) }
	num := func(get func(sim.Summary) int64) func(sim.Summary) string {
		return func(c sim.Summary) string { return fmt.Sprint(get(c)) }
	}
	if len(heads) > 1 {
		lines = append(lines, append([]string{"balancer"}, heads...))
	}
	heading("Requests")
	row("generated", num(func(c sim.Summary) int64 { return c.Generated }))
	row("rejected (firewall)", func(c sim.Summary) string { return fmt.Sprintf("%d %s", c.Rejected, pct(c.Rejected, c.Generated)) })
	row("discarded (full)", num(func(c sim.Summary) int64 { return c.Discarded }))
	row("admitted", num(func(c sim.Summary) int64 { return c.Admitted }))
	row("completed", num(func(c sim.Summary) int64 { return c.Completed }))
	row("in service", num(func(c sim.Summary) int64 { return c.InService }))
	row("queue initial", num(func(c sim.Summary) int64 { return c.InitialQueue }))
	row("queue final", num(func(c sim.Summary) int64 { return c.FinalQueue }))
	row("queue peak", num(func(c sim.Summary) int64 { return c.PeakQueue }))
	row("dispatched", num(func(c sim.Summary) int64 { return c.Dispatched }))
	row("total wait", num(func(c sim.Summary) int64 { return c.TotalWait }))
	row("average wait", func(c sim.Summary) string { return fmt.Sprintf("%.2f", c.AvgWait) })
	row("average service", func(c sim.Summary) string { return fmt.Sprintf("%.2f", c.AvgService) })
	quantiles := func(p50, p95, p99, mx func(sim.Summary) int64) func(sim.Summary) string {
		return func(c sim.Summary) string { return fmt.Sprintf("%d/%d/%d/%d", p50(c), p95(c), p99(c), mx(c)) }
	}
	row("wait p50/95/99/max", quantiles(func(c sim.Summary) int64 { return c.WaitP50 }, func(c sim.Summary) int64 { return c.WaitP95 },
		func(c sim.Summary) int64 { return c.WaitP99 }, func(c sim.Summary) int64 { return c.WaitMax }))
	row("average response", func(c sim.Summary) string { return fmt.Sprintf("%.2f", c.AvgResponse) })
	row("response p50/95/99/max", quantiles(func(c sim.Summary) int64 { return c.ResponseP50 }, func(c sim.Summary) int64 { return c.ResponseP95 },
		func(c sim.Summary) int64 { return c.ResponseP99 }, func(c sim.Summary) int64 { return c.ResponseMax }))
	if cfg.Queues == sim.PerServer {
		row("longest server queue", num(func(c sim.Summary) int64 { return c.ServerQueueMax }))
		row("lobby", num(func(c sim.Summary) int64 { return c.Lobby }))
	}
	heading("Servers")
	row("live at the end", num(func(c sim.Summary) int64 { return c.ServersFinal }))
	row("  busy", num(func(c sim.Summary) int64 { return c.ServersBusy }))
	row("  idle", num(func(c sim.Summary) int64 { return c.ServersIdle }))
	row("  retiring", num(func(c sim.Summary) int64 { return c.ServersRetiring }))
	row("pool min", num(func(c sim.Summary) int64 { return c.ServersMin }))
	row("pool peak", num(func(c sim.Summary) int64 { return c.ServersPeak }))
	row("server-cycles", num(func(c sim.Summary) int64 { return c.ServerCycles }))
	row("utilisation", func(c sim.Summary) string { return fmt.Sprintf("%.3f", c.Utilisation) })
	if cfg.ServerCost > 0 {
		row("cost", func(c sim.Summary) string { return formatCost(c.Cost) })
	}
	row("scale-ups", num(func(c sim.Summary) int64 { return c.ScaleUps }))
	row("scale-downs", num(func(c sim.Summary) int64 { return c.ScaleDowns }))
	if s.Down+s.Up+s.Requeued+s.FaultsSkipped > 0 || cfg.MTBF > 0 {
		heading("Faults")
		row("servers down (end)", num(func(c sim.Summary) int64 { return c.ServersDown }))
		row("failures", num(func(c sim.Summary) int64 { return c.Down }))
		row("comebacks", num(func(c sim.Summary) int64 { return c.Up }))
		row("requests requeued", num(func(c sim.Summary) int64 { return c.Requeued }))
		row("faults skipped", num(func(c sim.Summary) int64 { return c.FaultsSkipped }))
	}
	if s.Errors > 0 {
		heading("Gray failures")
		row("attempts in error", num(func(c sim.Summary) int64 { return c.Errors }))
	}
	if s.Shed+s.Limited+s.Throttled > 0 || cfg.ConcurrencyLimit != 0 {
		heading("Overload control (the waits above count only the attempts served)")
		row("attempts shed", num(func(c sim.Summary) int64 { return c.Shed }))
		row("attempts limited", num(func(c sim.Summary) int64 { return c.Limited }))
		row("attempts throttled", num(func(c sim.Summary) int64 { return c.Throttled }))
		if cfg.ConcurrencyLimit != 0 {
			row("limit at the end", func(c sim.Summary) string {
				if c.LimitFinalMin == c.LimitFinalMax {
					return fmt.Sprint(c.LimitFinalMax)
				}
				return fmt.Sprintf("%.1f (%d..%d)", c.LimitFinal, c.LimitFinalMin, c.LimitFinalMax)
			})
		}
	}
	// Fan-out and hedging count attempts by parts: their block, and the
	// attempts' accounting line in parts below.
	hedged := hedgingOn(cfg, m.Changes())
	fanout := s.Fanout > 1 || hedged
	if fanout {
		heading("Fan-out and hedging")
		row("parts a request", num(func(c sim.Summary) int64 { return c.Fanout }))
		row("parts", num(func(c sim.Summary) int64 { return c.Parts }))
		if hedged {
			row("hedges sent", num(func(c sim.Summary) int64 { return c.Hedges }))
			row("hedges won", num(func(c sim.Summary) int64 { return c.HedgesWon }))
			row("hedges denied", num(func(c sim.Summary) int64 { return c.HedgesDenied }))
		}
		row("attempts completed", num(func(c sim.Summary) int64 { return c.AttemptsCompleted }))
		row("attempts cancelled", num(func(c sim.Summary) int64 { return c.Cancelled }))
		row("requests in flight", num(func(c sim.Summary) int64 { return c.InFlight }))
	}
	client := s.ClientActed()
	if client {
		heading("Clients and detection")
		row("attempts", num(func(c sim.Summary) int64 { return c.Attempts }))
		row("retries", num(func(c sim.Summary) int64 { return c.Retries }))
		row("retries discarded", num(func(c sim.Summary) int64 { return c.RetriesDiscarded }))
		row("timed out queued", num(func(c sim.Summary) int64 { return c.TimedOutQueued }))
		row("timed out in service", num(func(c sim.Summary) int64 { return c.TimedOutInService }))
		row("requests failed", num(func(c sim.Summary) int64 { return c.Failed }))
		row("requests timed out", num(func(c sim.Summary) int64 { return c.TimedOut }))
		row("gave up (budget)", num(func(c sim.Summary) int64 { return c.GaveUpBudget }))
		row("in flight", num(func(c sim.Summary) int64 { return c.InFlight }))
		row("wasted cycles", num(func(c sim.Summary) int64 { return c.WastedCycles }))
		row("ejections", num(func(c sim.Summary) int64 { return c.Ejections }))
		row("servers replaced", num(func(c sim.Summary) int64 { return c.Replaced }))
		row("goodput (per cycle)", func(c sim.Summary) string { return fmt.Sprintf("%.4f", c.Goodput) })
	}
	writeColumns(&w, lines)
	w.WriteString("Accounting\n")
	for i, c := range cols {
		prefix := ""
		if len(heads) > 1 {
			prefix = heads[i] + ": "
		}
		ok1, ok2, ok3 := c.Books()
		fmt.Fprintf(&w, "  %sgenerated = rejected + discarded + admitted:  %d = %d + %d + %d  %s\n", prefix, c.Generated, c.Rejected, c.Discarded, c.Admitted, holds(ok1))
		switch {
		case fanout:
			fmt.Fprintf(&w, "  %srequests: admitted = completed + failed + timed out + gave up + in flight:  %d = %d + %d + %d + %d + %d  %s\n", prefix, c.Admitted, c.Completed, c.Failed, c.TimedOut, c.GaveUpBudget, c.InFlight, holds(ok2))
			fmt.Fprintf(&w, "  %sattempts: parts + retries + hedges − discarded = completed + cancelled + errors + timed out queued + in service + queued + in service:  %d + %d + %d − %d = %d + %d + %d + %d + %d + %d + %d  %s\n", prefix, c.Parts, c.Retries, c.Hedges, c.RetriesDiscarded, c.AttemptsCompleted, c.Cancelled, c.Errors, c.TimedOutQueued, c.TimedOutInService, c.FinalQueue, c.InService, holds(ok3))
		case client:
			fmt.Fprintf(&w, "  %srequests: admitted = completed + failed + timed out + gave up + in flight:  %d = %d + %d + %d + %d + %d  %s\n", prefix, c.Admitted, c.Completed, c.Failed, c.TimedOut, c.GaveUpBudget, c.InFlight, holds(ok2))
			fmt.Fprintf(&w, "  %sattempts: admitted + retries − discarded = completed + errors + timed out queued + in service + queued + in service:  %d + %d − %d = %d + %d + %d + %d + %d + %d  %s\n", prefix, c.Admitted, c.Retries, c.RetriesDiscarded, c.Completed, c.Errors, c.TimedOutQueued, c.TimedOutInService, c.FinalQueue, c.InService, holds(ok3))
		case c.Errors > 0:
			fmt.Fprintf(&w, "  %sadmitted = completed + errors + queued + in service:   %d = %d + %d + %d + %d  %s\n", prefix, c.Admitted, c.Completed, c.Errors, c.FinalQueue, c.InService, holds(ok2 && ok3))
		default:
			fmt.Fprintf(&w, "  %sadmitted = completed + queued + in service:   %d = %d + %d + %d  %s\n", prefix, c.Admitted, c.Completed, c.FinalQueue, c.InService, holds(ok2 && ok3))
		}
	}
	return append(b, w.String()...)
}

// hedgingOn reports whether hedging is on in a run of cfg at the start or
// after one of its changes (a --set hedge-after above 0).
func hedgingOn(cfg *sim.Config, changes []sim.Change) bool {
	return cfg.HedgeAfter > 0 || slices.ContainsFunc(changes, func(c sim.Change) bool { return c.Setting == sim.SetHedgeAfter && c.Value > 0 })
}

// progress draws a bar on a terminal's stderr once a run has taken more
// than a second; it never writes anywhere else.
type progress struct {
	w       io.Writer
	enabled bool
	active  bool
	total   int64
	start   time.Time
	last    time.Time
	unit    string // what is counted: "cycle" unless set
}

func newProgress(w io.Writer, enabled bool, total int64) *progress {
	now := time.Now()
	return &progress{w: w, enabled: enabled, total: total, start: now, last: now, unit: "cycle"}
}

// update redraws the bar at most ten times a second; flush is flushed first
// so that status lines and the bar do not interleave.
func (p *progress) update(done int64, flush interface{ Flush() error }) {
	if !p.enabled {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	flush.Flush()
	const width = 40
	n := int(int64(width) * done / p.total)
	elapsed := now.Sub(p.start)
	eta := time.Duration(float64(elapsed) * float64(p.total-done) / float64(max(done, 1)))
	fmt.Fprintf(p.w, "\r[%s%s] %3d%%  %s %d/%d  eta %s ", strings.Repeat("=", n), strings.Repeat(" ", width-n),
		100*done/p.total, p.unit, done, p.total, eta.Round(time.Second))
	p.active = true
}

func (p *progress) clear() {
	if p.active {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 100))
		p.active = false
	}
}

// writeColumns writes the summary's rows: a label column at least 20
// wide, then each value column right-aligned, at least 12 wide and as
// wide as its widest cell, two spaces apart. A line of one cell is a
// heading, written flush left.
func writeColumns(w *strings.Builder, lines [][]string) {
	var width []int
	for _, l := range lines {
		if len(l) == 1 {
			continue
		}
		for i, c := range l {
			if i == len(width) {
				width = append(width, 12)
				if i == 0 {
					width[0] = 20
				}
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, l := range lines {
		if len(l) == 1 {
			w.WriteString(l[0] + "\n")
			continue
		}
		w.WriteString("  " + l[0] + strings.Repeat(" ", width[0]-utf8.RuneCountInString(l[0])))
		for i, c := range l[1:] {
			w.WriteString("  " + strings.Repeat(" ", width[i+1]-utf8.RuneCountInString(c)) + c)
		}
		w.WriteString("\n")
	}
}

// formatCost writes a cost (server-cycles × server-cost) with at most 6
// decimals and no trailing zeros.
func formatCost(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
