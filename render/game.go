package render

import (
	"errors"
	"fmt"
	"image/color"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/lbsim/lbsim/assets"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
)

// Game shows one run; it implements ebiten.Game.
type Game struct {
	sess  *scene.Session
	start time.Time
	now   func() time.Duration

	in       scene.Input
	keys     []ebiten.Key
	scale    float64
	platform Platform
	onLesson func(query string)

	painter painter
	shown   uint64 // the Sum of the frame on screen; 0 before the first
	state   atomic.Pointer[scene.State]
	quit    atomic.Bool
}

// Platform carries out what the page and the window do differently.
type Platform interface {
	// Save stores an encoded snapshot: the page downloads it, the window
	// writes a file. It returns what to tell the viewer.
	Save(data []byte, name string) (string, error)
	// Load asks for a snapshot: the page opens its file picker; the
	// window explains how to give it one.
	Load() string
	// Share shows the share link of an encoded snapshot (the page puts it
	// in its address and the clipboard); keepView keeps the view's speed
	// and pause-at in the link's query.
	Share(data []byte, keepView bool) (string, error)
}

// NewGame builds the model of p and the view of it.
func NewGame(p preset.Preset) (*Game, error) {
	pt, err := newPainter()
	if err != nil {
		return nil, err
	}
	g := &Game{start: time.Now(), painter: pt, scale: 1}
	sess, err := scene.New(g.options(p))
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	g.sess = sess
	g.now = func() time.Duration { return time.Since(g.start) }
	ebiten.SetScreenClearedEveryFrame(false) // Draw paints only a changed frame
	g.publish()
	return g, nil
}

// options are the scene's options for preset p; the lessons menu reads
// a lesson's preset the way ?lesson=NAME does, and tells OnLesson.
func (g *Game) options(p preset.Preset) scene.Options {
	return scene.Options{Config: p.Config, Speed: p.Speed, PauseAt: p.PauseAt, Problems: p.Problems,
		RandomSeed: preset.RandomSeed, Changes: p.Changes, Present: p.Present, Theory: p.Theory, Caption: p.Caption, Note: p.Note, Lanes: p.Lanes, Measure: p.Measure,
		Lesson: g.opener("lesson"), Comparison: g.opener("comparison"), Quiz: p.Quiz, Title: p.Title, Try: g.tryOpener(p)}
}

// tryOpener returns what opens the "now try" run of p's lesson
// (?lesson=NAME&try=1, told to OnLesson), or nil when it has none.
func (g *Game) tryOpener(p preset.Preset) func() (scene.Options, error) {
	if p.Quiz == nil || p.Quiz.Try == "" {
		return nil
	}
	name := p.Lesson
	return func() (scene.Options, error) {
		lp := preset.Read([]preset.Param{{Name: "lesson", Value: name}, {Name: "try", Value: "1"}}, preset.RandomSeed)
		if len(lp.Problems) > 0 {
			return scene.Options{}, errors.New(strings.Join(lp.Problems, "; "))
		}
		if g.onLesson != nil {
			g.onLesson("lesson=" + url.QueryEscape(name) + "&try=1")
		}
		return g.options(lp), nil
	}
}

// opener returns what opens a lesson or a ready-made comparison from the
// menu: the preset of ?param=NAME, and OnLesson told "param=NAME".
func (g *Game) opener(param string) func(name string) (scene.Options, error) {
	return func(name string) (scene.Options, error) {
		lp := preset.Read([]preset.Param{{Name: param, Value: name}}, preset.RandomSeed)
		if len(lp.Problems) > 0 {
			return scene.Options{}, errors.New(strings.Join(lp.Problems, "; "))
		}
		if g.onLesson != nil {
			g.onLesson(param + "=" + url.QueryEscape(name))
		}
		return g.options(lp), nil
	}
}

// OnLesson sets what to do when the viewer opens a lesson or a ready-made
// comparison from the menu; f is given its query, "lesson=NAME" or
// "comparison=NAME" (the page puts it in its address, so the link can be
// copied).
func (g *Game) OnLesson(f func(query string)) { g.onLesson = f }

// Update reads the keyboard and advances the session by one tick.
func (g *Game) Update() error {
	if g.quit.Load() {
		return ebiten.Termination
	}
	g.keys = readInput(&g.in, g.keys, g.scale)
	g.sess.HandleInput(g.in)
	for _, r := range g.sess.TakeRequests() {
		g.carryOut(r)
	}
	g.sess.Update(g.now)
	g.publish()
	return nil
}

// Draw paints the session's frame on screen when it differs from the one
// shown: ebiten keeps the screen between frames (NewGame turns its
// clearing off), so a paused or ended run costs no painting, which a
// laptop on battery in front of a class notices.
func (g *Game) Draw(screen *ebiten.Image) {
	b := screen.Bounds()
	f := g.sess.Draw(b.Dx(), b.Dy())
	if sum := f.Sum(); sum != g.shown || g.shown == 0 {
		g.painter.paint(screen, f)
		g.shown = sum
		g.sess.FramePainted()
	}
	g.sess.FrameDrawn()
	g.publish()
}

// Layout renders at the device's pixel size, so the view is sharp on HiDPI
// screens; the scene scales its design to any size.
func (g *Game) Layout(outsideWidth, outsideHeight int) (int, int) {
	s := ebiten.Monitor().DeviceScaleFactor()
	g.scale = s
	return max(int(float64(outsideWidth)*s), 1), max(int(float64(outsideHeight)*s), 1)
}

// SetPlatform sets what Save, Load and Share do.
func (g *Game) SetPlatform(p Platform) { g.platform = p }

// Do runs f on the session between ticks: the page's hook and the
// window's flags use it to load, save and share.
func (g *Game) Do(f func(s *scene.Session)) {
	f(g.sess)
	g.publish()
}

func (g *Game) carryOut(r scene.Intent) {
	if r == scene.Fullscreen {
		ebiten.SetFullscreen(!ebiten.IsFullscreen())
		return
	}
	if g.platform == nil {
		g.sess.Say("saving, loading and sharing are not available here", true)
		return
	}
	switch r {
	case scene.Save:
		data, err := g.sess.Snapshot()
		if err == nil {
			var msg string
			if msg, err = g.platform.Save(data, g.sess.SnapshotName()); err == nil {
				g.sess.Say(msg, false)
			}
		}
		if err != nil {
			g.sess.Say(err.Error(), true)
		}
	case scene.Load:
		if msg := g.platform.Load(); msg != "" {
			g.sess.Say(msg, false)
		}
	case scene.Share:
		data, err := g.sess.ShareSnapshot()
		if err == nil {
			var msg string
			if msg, err = g.platform.Share(data, g.sess.ShareKeepView()); err == nil {
				g.sess.Say(msg, false)
			}
		}
		if err != nil {
			g.sess.Say(err.Error(), true)
		}
	}
}

// publish stores the state for State; the browser hook may read it at any
// moment between ticks.
func (g *Game) publish() {
	st := g.sess.State()
	g.state.Store(&st)
}

// State returns the state as of the last Update or Draw. It is safe to call
// from any goroutine.
func (g *Game) State() scene.State { return *g.state.Load() }

// Quit makes the next Update end the game with ebiten.Termination.
func (g *Game) Quit() { g.quit.Store(true) }

// painter draws scene frames with ebiten.
type painter struct {
	white   *ebiten.Image
	regular *opentype.Font
	bold    *opentype.Font
	faces   map[faceKey]font.Face
	verts   []ebiten.Vertex
	idx     []uint16
}

type faceKey struct {
	size int // in quarter pixels
	bold bool
}

func newPainter() (painter, error) {
	reg, err := opentype.Parse(assets.GoRegular)
	if err != nil {
		return painter{}, fmt.Errorf("render: font: %w", err)
	}
	bold, err := opentype.Parse(assets.GoBold)
	if err != nil {
		return painter{}, fmt.Errorf("render: font: %w", err)
	}
	white := ebiten.NewImage(3, 3)
	white.Fill(color.White)
	return painter{white: white.SubImage(white.Bounds().Inset(1)).(*ebiten.Image), regular: reg, bold: bold, faces: map[faceKey]font.Face{}}, nil
}

// maxQuads keeps every DrawTriangles call within 16-bit indices.
const maxQuads = 16000

func (p *painter) paint(dst *ebiten.Image, f *scene.Frame) {
	dst.Fill(scene.Background)
	for i := range f.Layers {
		l := &f.Layers[i]
		for q := 0; q < len(l.Quads); q += maxQuads {
			p.quads(dst, l.Quads[q:min(q+maxQuads, len(l.Quads))])
		}
		for k := range l.Texts {
			p.text(dst, &l.Texts[k])
		}
	}
}

func (p *painter) quads(dst *ebiten.Image, qs []scene.Quad) {
	p.verts, p.idx = p.verts[:0], p.idx[:0]
	for _, q := range qs {
		n := uint16(len(p.verts))
		r, g, b, a := float32(q.C.R)/255, float32(q.C.G)/255, float32(q.C.B)/255, float32(q.C.A)/255
		for _, pt := range q.P {
			p.verts = append(p.verts, ebiten.Vertex{DstX: pt.X, DstY: pt.Y, SrcX: 1, SrcY: 1, ColorR: r, ColorG: g, ColorB: b, ColorA: a})
		}
		p.idx = append(p.idx, n, n+1, n+2, n, n+2, n+3)
	}
	op := &ebiten.DrawTrianglesOptions{ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha, AntiAlias: false}
	dst.DrawTriangles(p.verts, p.idx, p.white, op)
}

func (p *painter) text(dst *ebiten.Image, t *scene.Text) {
	if t.S == "" || t.Size < 1 {
		return
	}
	k := faceKey{int(t.Size*4 + 0.5), t.Bold}
	face, ok := p.faces[k]
	if !ok {
		src := p.regular
		if t.Bold {
			src = p.bold
		}
		xf, err := opentype.NewFace(src, &opentype.FaceOptions{Size: float64(k.size) / 4, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return // the embedded fonts parse; sizes are positive
		}
		face = xf
		p.faces[k] = face
	}
	// ebiten's first text package, which it marks deprecated for text/v2,
	// on purpose: text/v2 links the HarfBuzz shaper, x/text's language
	// tables and three image decoders even when only GoXFace is used, 0.8
	// MB of the page's module (docs/render.md, "Measured"). The text's
	// (X, Y) is the top of its line at its start, centre or end; this
	// package draws from the baseline at the start.
	x := float64(t.X)
	switch t.Align {
	case scene.AlignCenter:
		x -= fixedFloat(font.MeasureString(face, t.S)) / 2
	case scene.AlignEnd:
		x -= fixedFloat(font.MeasureString(face, t.S))
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(x, float64(t.Y)+fixedFloat(face.Metrics().Ascent))
	op.ColorScale.ScaleWithColor(t.C)
	text.DrawWithOptions(dst, t.S, face, op)
}

// fixedFloat converts a 26.6 fixed-point length to pixels.
func fixedFloat(x fixed.Int26_6) float64 { return float64(x) / 64 }
