package scene

import (
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// The clients and health panels: dialogs of sliders for the client side
// (timeout, retries, budget, backoff, jitter) and for detection (health
// checks, outlier ejection, warm-up, replacement). Each slider is a
// setting's slider like those of the control bar: it schedules a change
// of its `--set` name at the next cycle through Set, recorded, replayed and
// carried by share links like any change.

// Widget ids of the panels' buttons; each slider's id is its setting's
// `--set` name.
const (
	WClients     = "clients"
	WHealth      = "health"
	WPanelClose  = "panel-close"
	WJitter      = "jitter"
	panelSliderH = 40 // a panel's row, in design pixels
)

// offWhenZero shows 0 as "off" (and other values as numbers) for a
// setting whose 0 turns it off.
func offWhenZero(v int64) string {
	if v == 0 {
		return "off"
	}
	return strconv.FormatInt(v, 10)
}

// panelSlider is a setting's slider in a panel: shown as show writes it
// (nil: its value).
func panelSlider(name, label string, lo, hi, step int64, read func(sim.Config) int64, format, show func(int64) string) widget {
	w := settingSlider(name, label, lo, hi, step, read, format)
	w.row, w.show = rowPanel, show
	return w
}

// orDefault reads a setting whose 0 stands for its default.
func orDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// clientWidgets are the clients panel's controls, in Tab order.
var clientWidgets = []widget{
	panelSlider("timeout", "timeout: a client gives up on an attempt after (cycles)", 0, 5_000, 10,
		func(c sim.Config) int64 { return c.Timeout }, nil, offWhenZero),
	panelSlider("retries", "retries: at most this many retries of a request", 0, sim.MaxRetries, 1,
		func(c sim.Config) int64 { return int64(c.Retries) }, nil, offWhenZero),
	panelSlider("retry-budget", "retry budget: retries at most this share of requests (1,000 cycles)", 0, sim.DecimalScale, sim.DecimalScale/100,
		func(c sim.Config) int64 { return int64(c.RetryBudget) }, func(v int64) string { return sim.Decimal(v).String() },
		func(v int64) string {
			if v == 0 {
				return "none"
			}
			return sim.Decimal(v).String()
		}),
	panelSlider("backoff", "backoff: retry k waits backoff · 2^(k−1) cycles", 0, 1_000, 5,
		func(c sim.Config) int64 { return c.Backoff }, nil, nil),
	func() widget {
		w := settingChoice(WJitter, "jitter: each wait drawn from 0 to it", 0, func() []string { return []string{"false", "true"} },
			func(c sim.Config) int64 {
				if c.Jitter {
					return 1
				}
				return 0
			}, nil)
		w.row = rowPanel
		return w
	}(),
	{id: WPanelClose, kind: kButton, label: "close (Esc)", row: rowPanel, width: 160, intent: CloseDialog},
}

// healthWidgets are the health panel's controls, in Tab order.
var healthWidgets = []widget{
	panelSlider("health-interval", "health checks: probe every server every (cycles)", 0, 1_000, 5,
		func(c sim.Config) int64 { return c.HealthInterval }, nil, offWhenZero),
	panelSlider("health-fall", "fall: eject after this many failed probes in a row", 1, 20, 1,
		func(c sim.Config) int64 { return orDefault(int64(c.HealthFall), sim.DefaultHealthFall) }, nil, nil),
	panelSlider("health-rise", "rise: restore after this many passed probes in a row", 1, 20, 1,
		func(c sim.Config) int64 { return orDefault(int64(c.HealthRise), sim.DefaultHealthRise) }, nil, nil),
	panelSlider("eject-after", "outlier ejection: eject after this many errors in a row", 0, 20, 1,
		func(c sim.Config) int64 { return int64(c.EjectAfter) }, nil, offWhenZero),
	panelSlider("eject-for", "ejected for (cycles; doubles each time until a success)", 100, 20_000, 100,
		func(c sim.Config) int64 { return orDefault(c.EjectFor, sim.DefaultEjectFor) }, nil, nil),
	panelSlider("provision-delay", "warm-up: a new server takes work after (cycles)", 0, 5_000, 50,
		func(c sim.Config) int64 { return c.ProvisionDelay }, nil, offWhenZero),
	panelSlider("replace-after", "replace a server down or ejected this long (cycles)", 0, 20_000, 500,
		func(c sim.Config) int64 { return c.ReplaceAfter }, nil, offWhenZero),
	{id: WPanelClose, kind: kButton, label: "close (Esc)", row: rowPanel, width: 160, intent: CloseDialog},
}

// panelDialog is the rectangle of a panel of n controls (its close button
// included).
func panelDialog(l Layout, n int) Rect { return panelGeom(l, n).d }

// panelGeom places a panel of n controls in the stage: its sliders one a
// row, panelSliderH design pixels apart, or in two columns across the
// stage when one does not fit (the health panel under a caption in
// presentation mode), three when two do not, closer together only when
// even that does not.
func panelGeom(l Layout, n int) listLayout {
	u := l.T
	st := l.Stage()
	rows := max(n-1, 1)
	lg := listLayout{cols: 1, rows: rows, pitch: panelSliderH * u}
	w := float32(720) * u
	// Two columns across the stage when one does not fit, three when two
	// do not (the "more" panel's many settings under a compare view's
	// lanes in presentation mode).
	for cols := 2; cols <= 3 && float32(lg.rows)*lg.pitch+108*u > st.H; cols++ {
		lg.cols, lg.rows, w = cols, (rows+cols-1)/cols, st.W
		lg.pitch = min(panelSliderH*u, max((st.H-108*u)/float32(lg.rows), 30*u))
	}
	lg.d = l.centred(w, float32(lg.rows)*lg.pitch+108*u)
	return lg
}

// panelRects places a panel's controls: the sliders and the choice one a
// row under the title (in one or two columns), the close button at the
// bottom.
func panelRects(l Layout, ws []widget, rs []Rect) {
	u := l.T
	lg := panelGeom(l, countRow(ws, rowPanel))
	d := lg.d
	colW := (d.W - 32*u - 16*u*float32(lg.cols-1)) / float32(lg.cols)
	k := 0
	for i, w := range ws {
		if w.row != rowPanel {
			continue
		}
		if w.kind == kButton {
			rs[i] = Rect{d.X + 16*u, d.Y + d.H - 48*u, w.width * u, 36 * u}
			continue
		}
		col, row := k/lg.rows, k%lg.rows
		rs[i] = Rect{d.X + 16*u + float32(col)*(colW+16*u), d.Y + 44*u + float32(row)*lg.pitch, colW, lg.pitch - 4*u}
		k++
	}
}

// panelTitles are the panels' titles.
var panelTitles = map[int]string{
	dialogClients: "clients — timeouts and retries: each change applies at the next cycle",
	dialogHealth:  "health — checks, ejection, warm-up: each change applies at the next cycle",
	dialogMore:    "more — the other settings a run may change: each applies at the next cycle",
}

func (s *Session) drawPanel(f *Frame, l Layout) {
	title, ok := panelTitles[s.dialog]
	if !ok {
		return
	}
	u := l.T
	d := panelDialog(l, len(s.controls()))
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
	short, _, _ := strings.Cut(title, ":")
	if s.Comparing() {
		lane := "lane " + s.set.Lanes[min(s.lane, len(s.set.Lanes)-1)].Label + " · "
		title, short = lane+title, lane+short
	}
	f.box("dialog", d)
	f.text(DialogLayer, f.fitFirst(17*u, true, d.W-32*u, title, short), d.X+16*u, d.Y+14*u, 17*u, true, AlignStart, TextColor)
}
