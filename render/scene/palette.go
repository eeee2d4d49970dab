package scene

import (
	"image/color"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// The palette: dark background, saturated state colours that stay apart on
// a washed-out classroom projector and for the common colour-vision
// deficiencies (each state also has its own shape, see ServerLook).
var (
	Background  = color.RGBA{0x10, 0x14, 0x1a, 0xff}
	Panel       = color.RGBA{0x1c, 0x23, 0x2c, 0xff}
	Grid        = color.RGBA{0x30, 0x3a, 0x46, 0xff}
	TextColor   = color.RGBA{0xe6, 0xed, 0xf3, 0xff}
	DimText     = color.RGBA{0x9d, 0xa7, 0xb3, 0xff}
	IdleColor   = color.RGBA{0x3f, 0xb9, 0x50, 0xff} // green outline, hollow box
	IdleBar     = color.RGBA{0x24, 0x5c, 0x2c, 0xff} // idle servers in the servers chart: dark green, under the busy blue
	BusyColor   = color.RGBA{0x2f, 0x81, 0xf7, 0xff} // blue, filled box
	Retiring    = color.RGBA{0xe3, 0x9b, 0x1d, 0xff} // amber, filled with a dark band
	ProgressBar = color.RGBA{0xd6, 0xea, 0xff, 0xff}
	PColor      = color.RGBA{0x39, 0xd0, 0xd8, 0xff} // P requests: cyan squares
	SColor      = color.RGBA{0xe8, 0x6a, 0xc8, 0xff} // S requests: pink diamonds
	RejectColor = color.RGBA{0xff, 0x4d, 0x4d, 0xff}
	DiscardCol  = color.RGBA{0xff, 0x8c, 0x1a, 0xff}
	DoneColor   = color.RGBA{0x7e, 0xe7, 0x87, 0xff}
	GateColor   = color.RGBA{0xc9, 0x4a, 0x4a, 0xff}
	UpMark      = color.RGBA{0x3f, 0xb9, 0x50, 0xff}
	DownMark    = color.RGBA{0xe3, 0x9b, 0x1d, 0xff}
	ErrorPanel  = color.RGBA{0x5c, 0x16, 0x16, 0xf0}
	Overlay     = color.RGBA{0x08, 0x0b, 0x10, 0xff} // the help overlay: opaque, nothing shows through
	DownColor   = color.RGBA{0x7a, 0x1c, 0x1c, 0xff} // a failed server: dark red with a cross
	RejectFlash = color.RGBA{0xff, 0xe0, 0x66, 0xff} // a rejected request bouncing off the firewall, and its counter
	UpLineCol   = color.RGBA{0x7e, 0xe7, 0x87, 0xff} // the chart's U·S line and the pool's max
	DownLineCol = color.RGBA{0xff, 0xb4, 0x4d, 0xff} // the chart's D·S line and the pool's min
	SlowColor   = color.RGBA{0xff, 0xe0, 0x66, 0xff} // a slow server's frame and word: yellow
	FailColor   = color.RGBA{0xff, 0x4d, 0x4d, 0xff} // a failing server's frame and word, and the errors: red
	HangColor   = color.RGBA{0xd2, 0x8c, 0xff, 0xff} // a hanging server's frame and word: violet
	DownWord    = color.RGBA{0xff, 0xa0, 0xa0, 0xff} // the word "down" on a failed server's box
	// The client side and detection. A retry is orange and drawn with a
	// dark core (so it reads by shape too); abandoned work (a timed-out
	// attempt a server finishes for nobody) is a hollow grey outline; an
	// ejected server is dimmed with a dashed white-grey frame; a warming one
	// has a dashed sky-blue frame and a bar filling up to its ready cycle.
	RetryColor = color.RGBA{0xf0, 0x6a, 0x2a, 0xff} // vermillion: apart from lane 2's orange, and with its dark core
	Abandoned  = color.RGBA{0x8b, 0x94, 0x9e, 0xff}
	EjectColor = color.RGBA{0xd0, 0xd7, 0xde, 0xff}
	WarmColor  = color.RGBA{0x7f, 0xd4, 0xff, 0xff}
	TimeoutCol = color.RGBA{0xb0, 0xb8, 0xc2, 0xff} // a timed-out attempt flying back to the gate
	ShareCol   = color.RGBA{0xf0, 0xe4, 0x42, 0xff} // a server's share of the requests, beside its queue: yellow
	MeasureCol = color.RGBA{0xff, 0xff, 0xff, 0xff} // a lesson's figure in a lane's title: the brightest text
	ChangeCol  = color.RGBA{0xc8, 0xb4, 0xff, 0xff} // a change's mark on the charts (dashed), a spike's window (shaded)
	LiveCol    = color.RGBA{0xf4, 0xf7, 0xfa, 0xff} // the live servers' line over their stack, drawn over the limits and scale marks
	// Target tracking on the live servers chart: the proposal (dotted),
	// the metric (solid) and its target (dashed), apart by their pattern.
	ProposalCol = color.RGBA{0xff, 0x8f, 0xd8, 0xff} // pink
	MetricCol   = color.RGBA{0xff, 0xd3, 0x3d, 0xff} // amber-yellow
	TargetCol   = color.RGBA{0xff, 0xff, 0xff, 0xff} // white, dashed
)

// grayLooks are the frame colours of the gray states (Healthy has none).
var grayLooks = [...]color.RGBA{sim.Slow: SlowColor, sim.Failing: FailColor, sim.Hanging: HangColor}

// StateWord returns the word a server box shows for v's state besides
// idle, busy and retiring — "down", "ejected", "warming", "slow ×F",
// "failing", "hanging" — and its colour; "" for a healthy server that is
// up and a candidate. A down server shows "down", an ejected one
// "ejected" (its gray state, kept for when it comes back, shows in its
// frame).
func StateWord(v sim.ServerView) (string, color.RGBA) {
	switch {
	case v.State == sim.Failed:
		return "down", DownWord
	case v.Ejected:
		return "ejected", EjectColor
	case v.Warming:
		return "warming", WarmColor
	case v.Gray == sim.Slow:
		return "slow ×" + v.Slow.String(), SlowColor
	case v.Gray == sim.Failing || v.Gray == sim.Hanging:
		return v.Gray.String(), grayLooks[v.Gray]
	}
	return "", TextColor
}

// stateForms are the forms of each state word of StateWord but "slow ×F"
// (whose forms are itself and "×F"), longest first: where the word does
// not fit a small box at the size a room reads (ValueUnits), a shorter
// form does; the server menu names the state in full.
var stateForms = map[string][]string{
	"down":    {"down", "D"},
	"ejected": {"ejected", "eject", "E"},
	"warming": {"warming", "warm", "W"},
	"failing": {"failing", "fail", "F"},
	"hanging": {"hanging", "hang", "H"},
}

// StateForms returns the forms of state word w (StateWord), longest
// first: see stateForms; a number is never shortened ("slow ×4", "×4").
func StateForms(w string) []string {
	if fs, ok := stateForms[w]; ok {
		return fs
	}
	if _, f, ok := strings.Cut(w, " "); ok {
		return []string{w, f}
	}
	return []string{w}
}

// GrayFrame returns the colour of the frame of a server in gray state g,
// and whether it has one.
func GrayFrame(g sim.Gray) (color.RGBA, bool) {
	if g == sim.Healthy || int(g) >= len(grayLooks) {
		return color.RGBA{}, false
	}
	return grayLooks[g], true
}

// LaneColors are the compare view's lanes' colours, in lane order: each
// lane's title and its line in every chart. They are Okabe and Ito's
// colours for every colour vision (sky blue, orange, bluish green) and a
// light grey: the four of them that stay furthest apart for protanopes
// and deuteranopes (TestLaneColoursApart); each lane has its marker too
// (LaneMarker), so that a lane never reads by colour alone.
var LaneColors = [...]color.RGBA{
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x00, 0xb0, 0x80, 0xff}, // bluish green (lifted for the dark background)
	{0xe0, 0xe0, 0xe0, 0xff}, // light grey
}

// LaneColor returns lane i's colour.
func LaneColor(i int) color.RGBA { return LaneColors[i%len(LaneColors)] }

// LaneMarker draws lane i's marker centred on p, r its half-size, in
// colour c: a square, a triangle, a diamond, an inverted triangle.
func LaneMarker(f *Frame, layer int, p Point, r float32, i int, c color.RGBA) {
	switch i % 4 {
	case 0:
		f.rect(layer, Rect{p.X - r*0.85, p.Y - r*0.85, r * 1.7, r * 1.7}, c)
	case 1:
		f.triangle(layer, Point{p.X, p.Y - r}, Point{p.X + r, p.Y + r*0.8}, Point{p.X - r, p.Y + r*0.8}, c)
	case 2:
		f.diamond(layer, p, r*1.1, c)
	default:
		f.triangle(layer, Point{p.X - r, p.Y - r*0.8}, Point{p.X + r, p.Y - r*0.8}, Point{p.X, p.Y + r}, c)
	}
}

// Shape is how a server box is drawn besides its colour.
type Shape uint8

// Server box shapes.
const (
	Hollow  Shape = iota // outline only: idle
	Filled               // solid with a progress bar: busy
	Striped              // solid with a dark diagonal band and a progress bar: retiring
	Crossed              // dark red with a light cross: down (fault)
)

// ServerLook returns the colour and shape of a server in state st.
func ServerLook(st sim.ServerState) (color.RGBA, Shape) {
	switch st {
	case sim.Busy:
		return BusyColor, Filled
	case sim.Retiring:
		return Retiring, Striped
	case sim.Failed:
		return DownColor, Crossed
	}
	return IdleColor, Hollow
}

// RequestColor returns the colour of a request of type t: P and S differ
// in colour and in shape (square and diamond).
func RequestColor(t sim.Type) color.RGBA {
	if t == sim.Streaming {
		return SColor
	}
	return PColor
}

// AttemptColor returns the colour of attempt r: a retry's colour, else
// its type's.
func AttemptColor(r sim.Request) color.RGBA {
	if r.Retry {
		return RetryColor
	}
	return RequestColor(r.Type)
}
