// Command lbsim-desktop shows an lbsim run in a native window, the same view
// as the web page. It takes the `lbsim run` settings as flags (--seed,
// --servers, --rate, …) plus --speed (cycles per second, or max) and
// --pause-at, as the page takes them as query parameters; a bad value is
// reported on stderr and in the window, which runs without it.
//
// --replay FILE (or just the FILE.lbsnap) replays a snapshot (from `lbsim
// run --snapshot` or the S key), with its own settings: the run's settings
// given as flags or --config are named as ignored (the view's speed,
// pause-at, present and theory apply); a file dropped on the window is
// replayed too. S saves the run
// into --save-dir, K prints its share link on stderr.
//
// --compare 'LABEL:NAME=VALUE,…;…' opens the compare view: two to four
// lanes, each the run of the other flags plus its variant's settings, on
// the same requests (as the page's compare parameter).
//
// --config FILE reads the settings from a scenario file (lbsim run
// --config, --save-config), within 1 MB as lbsim does; a flag given
// replaces the file's value.
//
// --exit-after N closes the window after N frames, --exit-at-end when the
// run (or the replay) reaches its last cycle; --json FILE ('-' = stdout)
// then writes the summary, as `lbsim replay --json` does (a comparison's
// lanes in the shape of `lbsim replay --json` of a comparison). --screenshot FILE
// writes the last frame as a PNG, for smoke tests and documentation.
//
// The window library starts before main and needs a display; a check that
// runs before it (nodisplay.go) prints the help for -h/--help, and says how
// to get a display when there is none, instead of a panic. The flags live
// in package internal/cli; `go generate` writes their help into
// help_text.h for that check.
//
// It needs cgo and the X11/OpenGL development packages to build (see
// docs/render.md, `make deps`).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/cmd/lbsim-desktop/internal/cli"
	"github.com/lbsim/lbsim/render"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
	"github.com/lbsim/lbsim/version"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

//go:generate go run ./internal/cli/genhelp

func run(args []string, stdout, stderr io.Writer) int {
	fs, o := cli.NewFlagSet(stderr)
	params := &o.Params
	if err := fs.Parse(cli.JoinSwitchValues(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case fs.NArg() == 1 && strings.HasSuffix(fs.Arg(0), ".lbsnap") && o.Replay == "":
		o.Replay = fs.Arg(0) // lbsim-desktop run.lbsnap
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "lbsim-desktop: unexpected argument %q: every setting is a flag, like --servers 20 (a snapshot to replay ends in .lbsnap)\n", fs.Arg(0))
		return 2
	}
	if o.Replay != "" {
		if ignored := o.DropForReplay(); len(ignored) > 0 {
			fmt.Fprintf(stderr, "lbsim-desktop: --replay %s: ignoring %s: a snapshot replays its own settings (the view's speed, pause-at, present and theory apply)\n",
				o.Replay, strings.Join(ignored, ", "))
		}
	}
	left, err := o.ReadConfig()
	if err != nil {
		fmt.Fprintln(stderr, "lbsim-desktop:", err)
		return 2
	}
	if len(left) > 0 {
		fmt.Fprintf(stderr, "lbsim-desktop: --config: left out %s\n", strings.Join(left, ", "))
	}
	p := preset.Read(*params, preset.RandomSeed)
	for _, msg := range p.Problems {
		fmt.Fprintln(stderr, "lbsim-desktop:", msg)
	}
	if !p.SeedGiven && o.Replay == "" {
		fmt.Fprintf(stderr, "lbsim-desktop: seed %d (random; repeat with --seed %d)\n", p.Config.Seed, p.Config.Seed)
	}
	g, err := render.NewGame(p)
	if err != nil {
		fmt.Fprintln(stderr, "lbsim-desktop:", err)
		return 1
	}
	g.SetPlatform(desktop{dir: o.SaveDir, stderr: stderr, base: o.Base, view: viewQuery(*params)})
	if o.Replay != "" {
		data, err := snapshot.ReadFile(o.Replay)
		if err == nil {
			g.Do(func(s *scene.Session) { err = s.Load(data) })
		}
		if err != nil {
			fmt.Fprintf(stderr, "lbsim-desktop: --replay %s: %v\n", o.Replay, err)
			return 2
		}
	}
	w := &window{Game: g, opts: *o}
	ebiten.SetWindowTitle("lbsim — load balancer simulator")
	ebiten.SetWindowSize(o.Width, o.Height)
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
	if st.Message != "" {
		fmt.Fprintln(stderr, "lbsim-desktop:", st.Message)
	}
	if o.JSONPath != "" {
		js, _ := json.MarshalIndent(summaryJSON(st), "", "  ")
		js = append(js, '\n')
		if o.JSONPath == "-" {
			stdout.Write(js)
		} else if err := os.WriteFile(o.JSONPath, js, 0o644); err != nil {
			fmt.Fprintln(stderr, "lbsim-desktop: --json:", err)
			return 1
		}
	}
	return 0
}

// desktop saves into a directory and prints share links on stderr.
type desktop struct {
	dir    string
	stderr io.Writer
	base   string // the page's address
	view   string // the view settings given (speed, pause-at, …) as a query, or ""
}

// viewQuery writes the view-only settings among params as a query string.
func viewQuery(params []preset.Param) string {
	q := url.Values{}
	var names []string
	for _, p := range params {
		if slices.Contains(preset.ViewOnlyNames(), p.Name) {
			if !q.Has(p.Name) {
				names = append(names, p.Name)
			}
			q.Set(p.Name, p.Value)
		}
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, url.QueryEscape(n)+"="+url.QueryEscape(q.Get(n)))
	}
	return strings.Join(parts, "&")
}

func (d desktop) Save(data []byte, name string) (string, error) {
	path := filepath.Join(d.dir, name)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("save: %w", err)
	}
	fmt.Fprintln(d.stderr, "lbsim-desktop: saved", path)
	return fmt.Sprintf("saved %s (%d bytes)", path, len(data)), nil
}

func (d desktop) Load() string {
	return "drop a .lbsnap file on the window, or start it with --replay FILE"
}

// Share prints the whole link: the page's address (--base), the view
// settings when the dialog keeps them, and the #r= fragment.
func (d desktop) Share(data []byte, keepView bool) (string, error) {
	link := shareLink(d.base, d.view, keepView, snapshot.Fragment(data))
	fmt.Fprintln(d.stderr, "lbsim-desktop: share link:", link)
	return fmt.Sprintf("share link printed on the terminal (%d characters)", len(link)), nil
}

// shareLink joins the page's address, the view query (when kept) and the
// fragment; a query already in base is kept.
func shareLink(base, view string, keepView bool, frag string) string {
	base, _, _ = strings.Cut(base, "#")
	if keepView && view != "" {
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		base += sep + view
	}
	return base + frag
}

// window adds the smoke-test controls to the game.
type window struct {
	*render.Game
	opts cli.Options
	err  error
}

// Update loads a dropped file, then runs the game's tick.
func (w *window) Update() error {
	if files := ebiten.DroppedFiles(); files != nil {
		w.loadDropped(files)
	}
	return w.Game.Update()
}

func (w *window) loadDropped(files fs.FS) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil || len(entries) == 0 {
		return
	}
	data, err := readDropped(files, entries[0].Name())
	w.Game.Do(func(s *scene.Session) {
		if err != nil {
			s.Say("cannot read the dropped file: "+err.Error(), true)
			return
		}
		s.Load(data)
	})
}

// readDropped reads a dropped file, at most a snapshot's largest size
// (snapshot.MaxSize): a larger one is refused unread.
func readDropped(files fs.FS, name string) ([]byte, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, snapshot.MaxSize+1))
	if err == nil && len(data) > snapshot.MaxSize {
		err = fmt.Errorf("larger than %d bytes: not a snapshot", snapshot.MaxSize)
	}
	return data, err
}

// Draw paints the frame and, at the --exit-after frame or with
// --exit-at-end at the last cycle, saves it and asks the game to end.
func (w *window) Draw(screen *ebiten.Image) {
	w.Game.Draw(screen)
	st := w.Game.State()
	if (w.opts.ExitAfter > 0 && st.Frames == w.opts.ExitAfter) || (w.opts.ExitAtEnd && st.Done) {
		if w.opts.Screenshot != "" {
			w.err = savePNG(screen, w.opts.Screenshot)
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

// laneJSON is one lane in the compare view's JSON.
type laneJSON struct {
	Label   string       `json:"label"`
	Flags   []string     `json:"flags"`
	Summary *sim.Summary `json:"summary"`
}

// summaryJSON is what --json writes: the run's summary, or in the compare
// view every lane's, in the shape `lbsim replay --json` gives a comparison
// ({"seed", "variants": [{"label", "flags", "summary"}]}).
func summaryJSON(st scene.State) any {
	if len(st.Lanes) == 0 {
		return version.Stamp(&st.Summary) // as lbsim replay --json
	}
	var out struct {
		Seed     uint64     `json:"seed"`
		Variants []laneJSON `json:"variants"`
		Version  string     `json:"lbsim_version"`
	}
	out.Seed, out.Version = st.Seed, version.Short()
	for _, l := range st.Lanes {
		out.Variants = append(out.Variants, laneJSON{Label: l.Label, Summary: &l.Summary})
	}
	return out
}
