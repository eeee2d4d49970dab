// Command lbsim-desktop shows an lbsim run in a native window, the same view
// as the web page. It takes the `lbsim run` settings as flags (--seed,
// --servers, --rate, …) plus --speed (cycles per second, or max) and
// --pause-at, as the page takes them as query parameters; a bad value is
// reported on stderr and in the window, which runs without it.
//
// --exit-after N closes the window after N frames and --screenshot FILE
// writes the last frame as a PNG, for smoke tests and documentation.
//
// It needs cgo and the X11/OpenGL development packages to build (see
// docs/render.md, `make deps`).
package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/render"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/sim"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

// options are the window's own flags.
type options struct {
	exitAfter     int64
	screenshot    string
	width, height int
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("lbsim-desktop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var params []preset.Param
	for _, name := range append(sim.ConfigNames(), preset.ViewNames()...) {
		fs.Func(name, "as `lbsim run --"+name+"` (speed: cycles per second or max; pause-at: a cycle)", func(v string) error {
			params = append(params, preset.Param{Name: name, Value: v})
			return nil
		})
	}
	var o options
	fs.Int64Var(&o.exitAfter, "exit-after", 0, "close the window after this many frames (0 = never)")
	fs.StringVar(&o.screenshot, "screenshot", "", "write the last frame to this PNG `file` on exit")
	fs.IntVar(&o.width, "width", 1280, "window width in pixels")
	fs.IntVar(&o.height, "height", 720, "window height in pixels")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbsim-desktop: unexpected argument %q: every setting is a flag, like --servers 20\n", fs.Arg(0))
		return 2
	}
	p := preset.Read(params, preset.RandomSeed)
	for _, msg := range p.Problems {
		fmt.Fprintln(stderr, "lbsim-desktop:", msg)
	}
	if !p.SeedGiven {
		fmt.Fprintf(stderr, "lbsim-desktop: seed %d (random; repeat with --seed %d)\n", p.Config.Seed, p.Config.Seed)
	}
	g, err := render.NewGame(p)
	if err != nil {
		fmt.Fprintln(stderr, "lbsim-desktop:", err)
		return 1
	}
	w := &window{Game: g, opts: o}
	ebiten.SetWindowTitle("lbsim — load balancer simulator")
	ebiten.SetWindowSize(o.width, o.height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	if err := ebiten.RunGame(w); err != nil {
		fmt.Fprintln(stderr, "lbsim-desktop:", err)
		return 1
	}
	if w.err != nil {
		fmt.Fprintln(stderr, "lbsim-desktop:", w.err)
		return 1
	}
	st := g.State()
	fmt.Fprintf(stderr, "lbsim-desktop: closed at cycle %d after %d frames\n", st.Cycle, st.Frames)
	return 0
}

// window adds the smoke-test controls to the game.
type window struct {
	*render.Game
	opts options
	err  error
}

// Draw paints the frame and, at the --exit-after frame, saves it and asks
// the game to end.
func (w *window) Draw(screen *ebiten.Image) {
	w.Game.Draw(screen)
	if w.opts.exitAfter > 0 && w.Game.State().Frames == w.opts.exitAfter {
		if w.opts.screenshot != "" {
			w.err = savePNG(screen, w.opts.screenshot)
		}
		w.Game.Quit()
	}
}

func savePNG(screen *ebiten.Image, path string) error {
	b := screen.Bounds()
	img := image.NewRGBA(b)
	screen.ReadPixels(img.Pix)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("--screenshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--screenshot: %w", err)
	}
	return nil
}
