package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

const settingsHelp = `Usage: lbsim settings [--json FILE|-] [--markdown]

Prints the table of settings: every run flag's name, default, range, unit,
whether --set may change it during a run, what it needs on to be read, and
its meaning. The same table gives the flags of run, compare, sweep, size and
the window, the page's query parameters, and the checks of every value.

Example:
  lbsim settings
  lbsim settings --json - | jq '.settings[] | select(.changeable) | .name'

Flags:
`

// settingJSON is one row of the settings table as lbsim settings --json
// writes it.
type settingJSON struct {
	Name       string   `json:"name"`
	Flag       string   `json:"flag"`
	Default    string   `json:"default"`
	Range      string   `json:"range"`
	Unit       string   `json:"unit"`
	Changeable bool     `json:"changeable"`
	Needs      []string `json:"needs"`
	Help       string   `json:"help"`
}

// settingsTable is the settings table for people and tools.
func settingsTable() []settingJSON {
	var out []settingJSON
	for _, r := range sim.Rows() {
		out = append(out, settingJSON{Name: r.Name, Flag: "--" + r.Name, Default: r.Default(), Range: r.Range,
			Unit: r.Unit, Changeable: r.Changeable, Needs: append([]string{}, r.Needs...), Help: r.Help})
	}
	return out
}

// settingsOptions is everything lbsim settings was asked to do.
type settingsOptions struct {
	jsonPath string
	markdown bool
}

// settingsCommand is lbsim settings: its options, flags and run
// (settingsRun).
var settingsCommand = subcommand[settingsOptions]{
	commandSpec: commandSpec{name: "settings", help: settingsHelp},
	flags: func(_ *cli, o *settingsOptions) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("settings", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(&o.jsonPath, "json", "", "write the table as JSON to `file` ('-' = stdout, then nothing else goes there)")
		fs.BoolVar(&o.markdown, "markdown", false, "print the table as Markdown (the docs' settings table)")
		return fs, nil
	},
	run: (*cli).settingsRun,
}

func (c *cli) settings(args []string) int { return runCommand(c, settingsCommand, args) }

// settingsRun writes the settings table: for people, as Markdown, or as
// JSON.
func (c *cli) settingsRun(o *settingsOptions, _ commandLine) error {
	outs := outputs{stdout: c.stdout} // --json may be "-"
	defer outs.abort()
	var out *atomicFile
	if err := outs.wantAll(planned{"--json", o.jsonPath, &out}); err != nil {
		return usageErr("%v", err)
	}
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	table := settingsTable()
	human := c.humanOut(&outs)
	if o.markdown {
		fmt.Fprint(human, settingsMarkdown(table))
	} else if !outs.toStdout() {
		writeSettings(human, table)
	}
	if out != nil {
		c.writeJSON(map[string]any{"settings": table}, out)
	}
	return exited(c.commit(&outs, "settings"))
}

// writeSettings prints the table for people: a line of facts and a line
// of meaning for each setting.
func writeSettings(w io.Writer, table []settingJSON) {
	for _, s := range table {
		var facts []string
		if s.Default != "" {
			facts = append(facts, "default "+s.Default)
		}
		r := s.Range
		if s.Unit != "" {
			r += " " + s.Unit
		}
		facts = append(facts, r)
		if s.Changeable {
			facts = append(facts, "--set")
		}
		if len(s.Needs) > 0 {
			facts = append(facts, "needs "+strings.Join(s.Needs, " "))
		}
		fmt.Fprintf(w, "%s  (%s)\n    %s\n", s.Flag, strings.Join(facts, "; "), s.Help)
	}
}

// settingsMarkdown writes the table as the docs show it.
func settingsMarkdown(table []settingJSON) string {
	var b strings.Builder
	b.WriteString("| flag | meaning | default | allowed | `--set` | needs |\n|---|---|---|---|---|---|\n")
	for _, s := range table {
		set := ""
		if s.Changeable {
			set = "yes"
		}
		needs := ""
		if len(s.Needs) > 0 {
			needs = "`" + strings.Join(s.Needs, " ") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", s.Flag, strings.ReplaceAll(s.Help, "|", "\\|"), s.Default, s.Range, set, needs)
	}
	return b.String()
}
