//go:build display

package render

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
)

// textRect is the rectangle a text run covers: its advance, and its line
// box 1.1 times its size.
func textRect(t scene.Text) scene.Rect {
	w := scene.TextWidth(t.S, t.Size, t.Bold)
	x := t.X
	switch t.Align {
	case scene.AlignCenter:
		x -= w / 2
	case scene.AlignEnd:
		x -= w
	}
	return scene.Rect{X: x, Y: t.Y, W: w, H: t.Size * 1.1}
}

// inkPixels counts the pixels of r in px (w pixels a row) that have the
// colour c, within a little anti-aliasing.
func inkPixels(px []byte, w, h int, r scene.Rect, c color.RGBA) int {
	n := 0
	for y := max(int(r.Y), 0); y < min(int(r.Y+r.H+1), h); y++ {
		for x := max(int(r.X), 0); x < min(int(r.X+r.W+1), w); x++ {
			i := 4 * (y*w + x)
			d := absDiff(px[i], c.R) + absDiff(px[i+1], c.G) + absDiff(px[i+2], c.B)
			if d < 60 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestPanelEntriesAreDrawn paints the control bar and each dialog (share,
// lessons, the firewall's block list, the server menu) at three sizes, in both modes, and
// checks on the painted pixels that every entry's text is visible: each
// control has text, and each text inside a control's rectangle (and each
// of the dialog's own texts) has pixels of its colour in its rectangle,
// so nothing is drawn under a panel.
func TestPanelEntriesAreDrawn(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	dialogs := []struct {
		name string
		in   scene.Intent
		open bool
	}{{"control bar", 0, false}, {"share", scene.OpenShare, true}, {"lessons", scene.OpenLessons, true}, {"firewall", scene.OpenFirewall, true},
		{"clients", scene.OpenClients, true}, {"health", scene.OpenHealth, true},
		{"server menu", scene.OpenServerMenu, true}}
	for _, size := range [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}} {
		for _, present := range []bool{false, true} {
			for _, d := range dialogs {
				name := fmt.Sprintf("%dx%d present=%v %s", size[0], size[1], present, d.name)
				g, err := NewGame(preset.Preset{Config: cfg, Speed: 30, PauseAt: 0, Present: present})
				if err != nil {
					t.Fatal(err)
				}
				if d.open {
					g.sess.Apply(d.in)
				}
				w, h := size[0], size[1]
				onScreen(func(*ebiten.Image) {
					img := ebiten.NewImage(w, h)
					defer img.Deallocate()
					f := g.sess.Draw(w, h)
					g.painter.paint(img, f)
					px := make([]byte, 4*w*h)
					img.ReadPixels(px)
					// The control bar's texts, or the open dialog's (not
					// what lies under the dialog, nor a message over it).
					texts := f.Layers[scene.OverlayLayer].Texts
					if d.open {
						texts = f.Layers[scene.DialogLayer].Texts
					}
					check := func(what string, tx scene.Text) {
						r := textRect(tx)
						need := max(4, int(r.W*r.H/50))
						if n := inkPixels(px, w, h, r, tx.C); n < need {
							t.Errorf("%s: %s %q at %v has %d pixels of its colour, want %d at least", name, what, tx.S, r, n, need)
						}
					}
					controls := g.sess.State().Controls
					if len(controls) == 0 {
						t.Fatalf("%s: no controls", name)
					}
					for _, c := range controls {
						found := 0
						for _, tx := range texts {
							if tx.S != "" && tx.X >= c.R.X && tx.X <= c.R.X+c.R.W && tx.Y >= c.R.Y && tx.Y < c.R.Y+c.R.H {
								found++
								check("entry "+c.ID, tx)
							}
						}
						if found == 0 {
							t.Errorf("%s: entry %s at %v has no text", name, c.ID, c.R)
						}
					}
					if d.open {
						for _, tx := range f.Layers[scene.DialogLayer].Texts {
							check("dialog text", tx)
						}
					}
				})
			}
		}
	}
}

// TestGrayServersAreDrawn paints four servers slow, failing, hanging and
// down at three sizes, in both modes, and checks on the painted pixels
// that each state's word and the HUD's errors are visible.
func TestGrayServersAreDrawn(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	for _, kv := range [][2]string{{"servers", "4"}, {"min-servers", "4"}, {"max-servers", "4"}, {"queues", "per-server"},
		{"policy", "least-connections"}, {"rate", "0.2"}, {"wave", "false"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var changes []sim.Change
	for _, v := range []string{"1:slow=1x4", "1:fail=2", "1:hang=3", "1:down=4"} {
		c, err := sim.ParseChange(v)
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	for _, size := range [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}} {
		for _, present := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d present=%v", size[0], size[1], present)
			g, err := NewGame(preset.Preset{Config: cfg, Changes: changes, Speed: 30, PauseAt: 0, Present: present})
			if err != nil {
				t.Fatal(err)
			}
			for range 60 {
				g.sess.Apply(scene.StepOne)
			}
			w, h := size[0], size[1]
			onScreen(func(*ebiten.Image) {
				img := ebiten.NewImage(w, h)
				defer img.Deallocate()
				f := g.sess.Draw(w, h)
				g.painter.paint(img, f)
				px := make([]byte, 4*w*h)
				img.ReadPixels(px)
				want := map[string]bool{"slow ×4": false, "failing": false, "hanging": false, "down": false}
				for _, tx := range f.Layers[scene.SceneLayer].Texts {
					_, word := want[tx.S]
					if !word && !strings.HasPrefix(tx.S, "errors ") {
						continue
					}
					want[tx.S] = true
					r := textRect(tx)
					need := max(4, int(r.W*r.H/50))
					if n := inkPixels(px, w, h, r, tx.C); n < need {
						t.Errorf("%s: %q at %v has %d pixels of its colour, want %d at least", name, tx.S, r, n, need)
					}
				}
				for word, seen := range want {
					if !seen {
						t.Errorf("%s: no %q drawn", name, word)
					}
				}
			})
		}
	}
}

// TestPaintsOnlyChanges: a paused run is painted once, then drawn without
// painting (the screen keeps its picture); a step paints again.
func TestPaintsOnlyChanges(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	g, err := NewGame(preset.Preset{Config: cfg, Speed: 30, PauseAt: 0})
	if err != nil {
		t.Fatal(err)
	}
	onScreen(func(*ebiten.Image) {
		img := ebiten.NewImage(1280, 720)
		defer img.Deallocate()
		for range 5 {
			g.Draw(img)
		}
		if st := g.State(); st.Frames != 5 || st.Painted != 1 {
			t.Errorf("a paused run drawn 5 times: %d frames, %d painted; want 5 and 1", st.Frames, st.Painted)
		}
		px := make([]byte, 4*1280*720)
		img.ReadPixels(px)
		bg := scene.Background
		other := 0
		for i := 0; i < len(px); i += 4 {
			if px[i] != bg.R || px[i+1] != bg.G || px[i+2] != bg.B {
				other++
			}
		}
		if other < len(px)/4/10 {
			t.Errorf("after frames drawn without painting only %d pixels differ from the background: the picture was lost", other)
		}
		g.sess.Apply(scene.StepOne)
		g.Draw(img)
		if st := g.State(); st.Painted != 2 {
			t.Errorf("after a step: %d painted, want 2", st.Painted)
		}
	})
}
