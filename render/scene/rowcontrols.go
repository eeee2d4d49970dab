package scene

import (
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The "more" panel: a control for every setting --set may change that no
// hand-placed control of the bar or the clients and health panels covers,
// each made from its row of the settings table (its range, its values as
// the row writes them, its help as the label). A new changeable row gets
// its control here with no edit to the page. Like every setting's control,
// each schedules a change of its `--set` name at the next cycle, recorded,
// replayed and carried by share links.

// Ids of the "more" panel's button and dialog.
const (
	WMore      = "more"
	dialogMore = dialogQuiz + 1
)

// ladderAbove is the most steps a row's slider moves through one by one;
// a wider range (servers, queue capacity, cycles) moves on a 1-2-5 ladder.
const ladderAbove = 200

// moreWidgets are the "more" panel's controls, in the table's order (the
// autoscaler's choice before target tracking's settings), then its close
// button.
var moreWidgets = func() []widget {
	ws := rowControls(slices.Concat(widgets, clientWidgets, healthWidgets))
	// The autoscaler's choice stands just before target tracking's
	// settings (the first control of a row that needs it).
	i := slices.IndexFunc(ws, func(w widget) bool { return w.unused != nil })
	if i < 0 {
		i = len(ws)
	}
	ws = slices.Insert(ws, i, autoscalerWidget)
	return append(ws, widget{id: WPanelClose, kind: kButton, label: "close (Esc)", row: rowPanel, width: 160, intent: CloseDialog})
}()

// WAutoscaler is the id of the "more" panel's choice of autoscaler.
const WAutoscaler = "autoscaler"

// autoscalerWidget chooses the rule that sizes the pool: the queue rule
// (U, D and K on the bar) or target tracking (scale-target and the rest
// below it). A run cannot change its autoscaler, so a choice restarts it
// with the other (as the queues choice does).
var autoscalerWidget = func() widget {
	w := startChoice(WAutoscaler, "autoscaler: queue rule or target tracking (restarts the run)", 0, sim.AutoscalerNames,
		func(c sim.Config) int64 { return int64(c.Autoscaler) }, func(c *sim.Config, v int64) {
			c.Autoscaler = sim.Autoscaler(v)
			if c.Autoscaler == sim.TargetTracking && c.ScaleMetric == sim.MetricUtilization && c.ScaleTarget == 0 {
				c.ScaleTarget = sim.DefaultScaleUtil // said, so that its slider shows the target in force
			}
		})
	w.row, w.short = rowPanel, WAutoscaler
	return w
}()

// rowUnused says why the focused lane's autoscaler leaves row r, a
// setting of the other autoscaler, unread ("unused: needs autoscaler
// target"), or "". Other rows say nothing: what they need may come with a
// change not yet applied (a fault scheduled from the server menu).
func rowUnused(r sim.Row) func(sim.Config) string {
	if len(r.Needs) != 2 || r.Needs[0] != "--autoscaler" {
		return nil
	}
	return func(c sim.Config) string {
		if _, unread := sim.Unread(&c, nil)[r.Name]; !unread {
			return ""
		}
		return "unused: needs autoscaler " + r.Needs[1]
	}
}

// rowControls returns a panel control for each changeable row that none of
// placed has: a choice of false and true for a switch, a choice of its
// names for a row of names (the discipline), a slider for a number. A row
// of none of these kinds (a list) gets none, and
// TestEveryChangeableRowHasAControl says so.
func rowControls(placed []widget) []widget {
	var ws []widget
	for _, r := range sim.Rows() {
		if !r.Changeable || slices.ContainsFunc(placed, func(w widget) bool { return w.id == r.Name }) {
			continue
		}
		if w, ok := rowControl(r); ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// rowControl returns the panel control of changeable row r, and false for
// a row that is not a number or a switch.
func rowControl(r sim.Row) (widget, bool) {
	lo, hi, ok := r.Bounds()
	if !ok {
		return widget{}, false
	}
	if r.Change == sim.SetScaleTarget {
		// A utilization target may lie anywhere above 0; the slider starts
		// where every metric's target may (0.01).
		lo = max(lo, int64(sim.MinScaleTarget))
	}
	read := func(c sim.Config) int64 { return rowValue(r, c) }
	label := r.Name + ": " + r.Help
	if r.IsBool() {
		w := settingChoice(r.Name, label, 0, func() []string { return []string{"false", "true"} }, read, nil)
		w.row, w.short, w.unused = rowPanel, r.Name, rowUnused(r)
		return w, true
	}
	if len(r.Choices()) > 0 && int64(len(r.Choices())) == hi-lo+1 { // its value is the index of its name
		w := settingChoice(r.Name, label, 0, r.Choices, read, nil)
		w.row, w.short, w.unused = rowPanel, r.Name, rowUnused(r)
		return w, true
	}
	format := func(v int64) string { return sim.Change{Setting: r.Change, Value: v}.ValueString() }
	w := settingSlider(r.Name, label, lo, hi, 1, read, format)
	w.row, w.short, w.unused = rowPanel, r.Name, rowUnused(r)
	if hi-lo > ladderAbove {
		w.ladder = ladderOf(lo, hi)
		if r.PlusOne() { // stored one above the values written: stop at round ones
			w.ladder = ladderOf(lo-1, hi-1)
			for i := range w.ladder {
				w.ladder[i]++
			}
		}
	}
	return w, true
}

// rowValue is row r's value in c in its own unit, its default where 0
// stands for it (as Row.Get writes it).
func rowValue(r sim.Row, c sim.Config) int64 {
	if ch, err := sim.NewChange(0, r.Name, r.Get(&c)); err == nil {
		return ch.Value
	}
	v, _ := r.Load(&c)
	return v
}

// ladderOf returns the values a slider over lo … hi stops at: lo, 0 when
// lo is below it, 1, 2, 5, 10, 20, 50 … and hi.
func ladderOf(lo, hi int64) []int64 {
	vs := []int64{lo}
	if lo < 0 && hi > 0 {
		vs = append(vs, 0)
	}
	for m := int64(1); m < hi; m *= 10 {
		for _, d := range []int64{1, 2, 5} {
			if x := d * m; x > vs[len(vs)-1] && x < hi {
				vs = append(vs, x)
			}
		}
	}
	return append(vs, hi)
}

// ladderIndex returns the index of the ladder's value nearest v from
// below (0 below the first).
func ladderIndex(ladder []int64, v int64) int {
	i, found := slices.BinarySearch(ladder, v)
	if !found && i > 0 {
		i--
	}
	return i
}

// ladderKey returns the value after key k on a ladder slider at v.
func ladderKey(ladder []int64, v int64, k Key) (int64, bool) {
	i, on := slices.BinarySearch(ladder, v)
	last := len(ladder) - 1
	switch k {
	case KeyLeft, KeyDown:
		i--
	case KeyRight, KeyUp:
		if on {
			i++
		}
	case KeyPageDown:
		i -= 3
	case KeyPageUp:
		i += 3
	case KeyHome:
		i = 0
	case KeyEnd:
		i = last
	default:
		return v, false
	}
	return ladder[min(max(i, 0), last)], true
}
