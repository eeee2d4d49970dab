// Package cli defines lbsim-desktop's flags without the window, so that
// their help can be printed (and generated into the C text the command
// prints before the window library starts: see cmd/lbsim-desktop) on a
// machine without a display.
package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/scenario"
	"github.com/lbsim/lbsim/sim/snapshot"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/sim"
)

// DefaultBase is the page `make serve` serves; the K key's links open it.
const DefaultBase = "http://127.0.0.1:8080/"

// Options are the window's own flags.
type Options struct {
	ExitAfter     int64
	ExitAtEnd     bool
	Screenshot    string
	Width, Height int
	Replay        string
	JSONPath      string
	SaveDir       string
	Base          string
	Config        string // --config: a scenario file
	// Params are the run's settings and the view's, in order, as the page
	// takes them from its query.
	Params []preset.Param
}

// header is the first part of the help.
const header = `Usage: lbsim-desktop [flags] [FILE.lbsnap]

Shows an lbsim run in a native window, the same view as the web page. The
settings are the flags of lbsim run; a bad value is reported and the window
runs without it. The window needs a display (X11); without one, run it
under xvfb-run -a, or use the page (make serve).

Flags:
`

// settingHelp says what a settings flag does.
func settingHelp(name string) string {
	switch name {
	case "speed":
		return fmt.Sprintf("the view's speed: cycles per second (1 … %d) or max (default %d)", 6_000_000, preset.DefaultSpeed)
	case "pause-at":
		return "pause when the run reaches this `cycle`"
	case "set":
		return "change a setting during the run, as lbsim run --set: `CYCLE:NAME=VALUE` (repeatable)"
	case "fault":
		return "a fault at a cycle, as lbsim run --fault: `KIND:ID@CYCLE`, KIND down, up, fail, hang, heal, or slow:IDxF@CYCLE (repeatable)"
	case "present":
		return "open in presentation mode (larger text for a projector); a switch, as the page's present=1"
	case "theory":
		return "open with the theory panel (Erlang C) shown; a switch, as the page's theory=1"
	case "compare":
		return "open the compare view: two to four lanes on the same requests, `VARIANTS` like 'rr:policy=round-robin;p2c:policy=p2c' (each the run of the other flags plus its settings)"
	case "comparison":
		return "open a ready-made comparison: `NAME` is one of " + strings.Join(comparisonNames(), ", ")
	case "lesson":
		return "open a lesson, a ready scenario with a caption: `NAME` is one of " + strings.Join(lesson.Names(), ", ")
	case "quiz":
		return "ask the lesson's question before its run (the default); --quiz=false opens it without, as the page's quiz=0"
	case "try":
		return "open the lesson's \"now try\" run: its settings with the question's change, a caption saying what to look for"
	case "caption":
		return fmt.Sprintf("a line of `text` shown under the view (at most %d characters), as a lesson's caption", snapshot.MaxCaption)
	}
	return "the run's setting, as lbsim run --" + name
}

// NewFlagSet returns the flag set of lbsim-desktop writing to out, and the
// options it fills.
func NewFlagSet(out io.Writer) (*flag.FlagSet, *Options) {
	fs := flag.NewFlagSet("lbsim-desktop", flag.ContinueOnError)
	fs.SetOutput(out)
	o := &Options{}
	for _, name := range append(sim.ConfigNames(), preset.ViewNames()...) {
		fs.Var(param{o, name, isSwitch(name)}, name, settingHelp(name))
	}
	fs.Int64Var(&o.ExitAfter, "exit-after", 0, "close the window after this many frames (0 = never)")
	fs.StringVar(&o.Screenshot, "screenshot", "", "write the last frame to this PNG `file` on exit")
	fs.BoolVar(&o.ExitAtEnd, "exit-at-end", false, "close the window when the run or the replay reaches its last cycle")
	fs.StringVar(&o.Config, "config", "", "read the run's settings from a scenario `file` (TOML, as lbsim run --config); a flag given here replaces the file's value")
	fs.StringVar(&o.Replay, "replay", "", "replay the snapshot `file` (.lbsnap)")
	fs.StringVar(&o.JSONPath, "json", "", "on exit, write the JSON summary to `file` ('-' = stdout)")
	fs.StringVar(&o.SaveDir, "save-dir", ".", "the S key saves snapshots into this `directory` (the window prints each file's full path)")
	fs.StringVar(&o.Base, "base", DefaultBase, "the K key prints share links to the page at this `address` (make serve's)")
	fs.IntVar(&o.Width, "width", 1280, "window width in pixels")
	fs.IntVar(&o.Height, "height", 720, "window height in pixels")
	fs.Usage = func() { io.WriteString(fs.Output(), Usage()) }
	return fs, o
}

// ReadConfig reads the scenario file of --config, if any, and puts its
// settings before the parameters given as flags (a flag replaces the
// file's value, lists included); left names the keys the window does not
// take (preset.FromScenario).
func (o *Options) ReadConfig() (left []string, err error) {
	if o.Config == "" {
		return nil, nil
	}
	data, err := scenario.ReadFile(o.Config) // bounded: Parse refuses a larger file
	if err != nil {
		return nil, fmt.Errorf("--config: %v", err)
	}
	s, err := scenario.Parse(o.Config, data)
	if err != nil {
		return nil, fmt.Errorf("--config %v", err)
	}
	params, left := preset.FromScenario(s, func(name string) bool {
		return slices.ContainsFunc(o.Params, func(p preset.Param) bool { return p.Name == name })
	})
	o.Params = append(params, o.Params...)
	return left, nil
}

// DropForReplay takes out of the options what a replay (--replay, or a
// FILE.lbsnap) does not use, and names it: the run's settings, given as
// flags or in a --config file, since a snapshot replays its own; the
// view's own settings (speed, pause-at, present, theory) stay and apply.
func (o *Options) DropForReplay() (ignored []string) {
	var kept []preset.Param
	for _, p := range o.Params {
		switch {
		case slices.Contains(preset.ViewOnlyNames(), p.Name):
			kept = append(kept, p)
		case !slices.Contains(ignored, "--"+p.Name):
			ignored = append(ignored, "--"+p.Name)
		}
	}
	if o.Config != "" {
		ignored = append(ignored, "--config")
	}
	o.Params, o.Config = kept, ""
	return ignored
}

// Usage is the whole help text.
func Usage() string {
	var b bytes.Buffer
	fs, _ := NewFlagSet(&b)
	b.WriteString(header)
	var flags bytes.Buffer
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	// The flags as lbsim's help and the docs spell them: --name.
	b.Write(regexp.MustCompile(`(?m)^  -`).ReplaceAll(flags.Bytes(), []byte("  --")))
	return b.String()
}

// CHeader writes the help as the C header the command's display check
// includes (help_text.h).
func CHeader() string {
	var b strings.Builder
	b.WriteString("// Code generated by go run ./internal/cli/genhelp; DO NOT EDIT.\n\n")
	b.WriteString("static const char lbsim_help_text[] =\n")
	for _, line := range strings.SplitAfter(Usage(), "\n") {
		if line == "" {
			continue
		}
		b.WriteString("\t\"")
		for _, c := range []byte(line) {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&b, `\%03o`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	b.WriteString(";\n")
	return b.String()
}

func comparisonNames() []string {
	var ns []string
	for _, c := range lesson.Comparisons {
		ns = append(ns, c.Name)
	}
	return ns
}
