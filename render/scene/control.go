package scene

import (
	"strconv"
)

// Key is a key as the scene sees it: a named key, or a letter or digit
// (RuneKey). Package render maps the platform's keys to these, so all
// keyboard handling is tested without a GPU.
type Key uint16

// The named keys.
const (
	KeyNone Key = iota
	KeyTab
	KeyEnter
	KeyEscape
	KeyBackspace
	KeyDelete
	KeyLeft
	KeyRight
	KeyUp
	KeyDown
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeySpace
	KeyPlus
	KeyMinus
	runeBase Key = 0x100
)

// RuneKey returns the Key of a letter (lower case) or digit.
func RuneKey(r rune) Key { return runeBase + Key(r) }

// Rune returns the letter or digit of k, or 0 for a named key.
func (k Key) Rune() rune {
	if k < runeBase {
		return 0
	}
	return rune(k - runeBase)
}

// Input is what the viewer did during one tick: the pointer (in screen
// pixels), the primary button, and the keys pressed since the last tick.
type Input struct {
	X, Y     float32
	Down     bool // the button is held
	Pressed  bool // the button went down this tick
	Released bool // the button went up this tick
	Keys     []Key
	Shift    bool
}

// widgetKind is what a control is.
type widgetKind uint8

const (
	kSlider widgetKind = iota // a value between Min and Max in steps; drag or ←/→
	kChoice                   // one of a few names; click or ←/→ for the next
	kField                    // the seed: digits, Backspace, Enter
	kButton                   // click, Enter or Space
)

// Widget ids, also the names the browser hook reports rectangles under.
const (
	WRate      = "rate"
	WScaleUp   = "scale-up"
	WScaleDown = "scale-down"
	WCooldown  = "cooldown"
	WTaskMin   = "task-min"
	WTaskMax   = "task-max"
	WSpeed     = "speed"
	WPolicy    = "policy"
	WSeed      = "seed"
	WDice      = "dice"
	WPlay      = "play"
	WStep      = "step"
	WRestart   = "restart"
	WSave      = "save"
	WLoad      = "load"
	WShare     = "share"
	WTheory    = "theory"
	WPresent   = "present"
	WHelp      = "help"
	WScrub     = "scrub" // only during a replay
)

// widget is one control: its kind, its id and, for a slider, its range in
// the setting's integer unit.
type widget struct {
	id             string
	kind           widgetKind
	label          string
	min, max, step int64
}

// sliders, then the second row, in Tab order.
var widgets = []widget{
	{id: WRate, kind: kSlider, label: "arrival rate", min: 50_000, max: 3_000_000, step: 50_000},
	{id: WScaleUp, kind: kSlider, label: "scale-up U", min: 1_000, max: 200_000, step: 1_000},
	{id: WScaleDown, kind: kSlider, label: "scale-down D", min: 0, max: 199_000, step: 1_000},
	{id: WCooldown, kind: kSlider, label: "cooldown K", min: 1, max: 200, step: 1},
	{id: WTaskMin, kind: kSlider, label: "task min", min: 1, max: 200, step: 1},
	{id: WTaskMax, kind: kSlider, label: "task max", min: 1, max: 400, step: 1},
	{id: WSpeed, kind: kSlider, label: "speed", min: 0, max: int64(len(ladder) - 1), step: 1},
	{id: WPolicy, kind: kChoice, label: "policy"},
	{id: WSeed, kind: kField, label: "seed"},
	{id: WDice, kind: kButton, label: "dice"},
	{id: WPlay, kind: kButton, label: "play"},
	{id: WStep, kind: kButton, label: "step"},
	{id: WRestart, kind: kButton, label: "restart"},
	{id: WSave, kind: kButton, label: "save"},
	{id: WLoad, kind: kButton, label: "load"},
	{id: WShare, kind: kButton, label: "share"},
	{id: WTheory, kind: kButton, label: "theory"},
	{id: WPresent, kind: kButton, label: "present"},
	{id: WHelp, kind: kButton, label: "help"},
}

var scrubWidget = widget{id: WScrub, kind: kSlider, label: "replay cycle"}

// numSliders is the number of sliders in the first row.
const numSliders = 7

// sliderValueAt maps a pointer x over a track to a value of w: the
// nearest step, clamped to the range.
func sliderValueAt(w widget, track Rect, x float32) int64 {
	if track.W <= 0 || w.max <= w.min {
		return w.min
	}
	f := float64((x - track.X) / track.W)
	f = min(max(f, 0), 1)
	steps := (w.max - w.min) / w.step
	k := int64(f*float64(steps) + 0.5)
	return w.min + k*w.step
}

// sliderFrac is the knob's position of v on w's track, 0 … 1.
func sliderFrac(w widget, v int64) float32 {
	if w.max <= w.min {
		return 0
	}
	return min(max(float32(v-w.min)/float32(w.max-w.min), 0), 1)
}

// sliderKey returns the value after key k on a slider at v, and whether
// the key is one a slider takes.
func sliderKey(w widget, v int64, k Key) (int64, bool) {
	big := max(w.step, (w.max-w.min)/10/w.step*w.step)
	switch k {
	case KeyLeft, KeyDown:
		v -= w.step
	case KeyRight, KeyUp:
		v += w.step
	case KeyPageDown:
		v -= big
	case KeyPageUp:
		v += big
	case KeyHome:
		v = w.min
	case KeyEnd:
		v = w.max
	default:
		return v, false
	}
	return min(max(v, w.min), w.max), true
}

// seedField is the text of the seed field while it is being edited.
type seedField struct {
	text    string
	editing bool
}

// maxSeedDigits bounds the field: every 19-digit number fits a uint64.
const maxSeedDigits = 19

// key edits the field. It returns done and the seed when Enter was pressed
// on a valid number; consumed reports whether the field took the key.
func (f *seedField) key(k Key) (seed uint64, done, consumed bool) {
	switch {
	case k.Rune() >= '0' && k.Rune() <= '9':
		if !f.editing {
			f.text, f.editing = "", true
		}
		if len(f.text) < maxSeedDigits {
			f.text += string(k.Rune())
		}
		return 0, false, true
	case k == KeyBackspace || k == KeyDelete:
		if !f.editing {
			f.text, f.editing = "", true
		}
		if f.text != "" {
			f.text = f.text[:len(f.text)-1]
		}
		return 0, false, true
	case k == KeyEnter:
		n, err := strconv.ParseUint(f.text, 10, 64)
		if !f.editing || err != nil {
			f.editing = false
			return 0, false, true
		}
		f.editing = false
		return n, true, true
	case k == KeyEscape:
		f.editing = false
		return 0, false, true
	}
	return 0, false, false
}

// nextFocus moves the focus one control forward (or back) in Tab order
// over n controls; -1 is no focus.
func nextFocus(cur, n int, back bool) int {
	if n == 0 {
		return -1
	}
	if cur < 0 {
		if back {
			return n - 1
		}
		return 0
	}
	if back {
		return (cur - 1 + n) % n
	}
	return (cur + 1) % n
}
