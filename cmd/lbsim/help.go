package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/suggest"
)

// printFlags writes the flags of fs the way the documentation spells
// them (--name VALUE), each with its help and its default, leaving out
// the flags in hide: those the subcommand refuses although it defines
// them (compare's --timeline, size's --servers). A subcommand that takes
// the run flags gets them in groups (flagGroup): its own flags first,
// then the run's basics, queues and policies, shapes and faults, the
// client side, the fleet, and the outputs.
func printFlags(w io.Writer, fs *flag.FlagSet, hide []string) {
	groups := map[string][]*flag.Flag{}
	settings := false // the subcommand takes settings: its flags are grouped
	fs.VisitAll(func(f *flag.Flag) { settings = settings || sim.RowNamed(f.Name) != nil })
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(hide, f.Name) {
			return
		}
		g := ""
		if settings {
			g = flagGroup(f.Name)
		}
		groups[g] = append(groups[g], f)
	})
	headed := len(groups) > 1
	for _, g := range flagGroupOrder {
		if len(groups[g]) == 0 {
			continue
		}
		slices.SortStableFunc(groups[g], func(a, b *flag.Flag) int { return rowOrder(a.Name) - rowOrder(b.Name) })
		if headed && g != "" {
			fmt.Fprintf(w, "\n%s:\n", g)
		}
		for _, f := range groups[g] {
			printFlag(w, f)
		}
	}
}

// printFlag writes one flag with its help and its default.
func printFlag(w io.Writer, f *flag.Flag) {
	name, usage := flag.UnquoteUsage(f)
	if t, ok := f.Value.(interface{ typeName() string }); ok && name == "value" {
		name = t.typeName() // as Go's flag package names its int and float
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	isBool = isBool && b.IsBoolFlag()
	if isBool {
		name = "" // a switch: --verbose, or --wave=false
	}
	line := "  --" + f.Name
	if name != "" {
		line += " " + name
	}
	usage = strings.ReplaceAll(usage, "\n", "\n    \t")
	if f.DefValue != "" && !(isBool && f.DefValue == "false") {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
}

// groupOutputs is the help group of the run flags that show a run rather
// than decide it; the settings' groups are the table's (sim.Groups).
const groupOutputs = "Outputs"

// The settings' help groups by their titles, as the run flags that are no
// settings (flagGroup) and the tests name them.
var (
	groupRun    = sim.GroupRun.Title()
	groupQueues = sim.GroupQueues.Title()
	groupShapes = sim.GroupShapes.Title()
	groupFaults = sim.GroupFaults.Title()
	groupClient = sim.GroupClient.Title()
	groupFleet  = sim.GroupFleet.Title()
)

// flagGroupOrder is the groups of the run flags in help, in the order
// printed: a subcommand's own flags (""), the settings' groups, the
// outputs.
var flagGroupOrder = func() []string {
	order := []string{""}
	for _, g := range sim.Groups() {
		order = append(order, g.Title())
	}
	return append(order, groupOutputs)
}()

// rowOrder is a setting's place in the settings table (its rows come in
// the table's order within a group), len(rows) for a flag that is no
// setting.
func rowOrder(name string) int {
	for i, r := range sim.Rows() {
		if r.Name == name {
			return i
		}
	}
	return len(sim.Rows())
}

// flagGroup is the help group of flag name: a setting's is the one its
// row declares, a run flag's that is no setting follows from whether it
// decides the run (inputFlags: the run's basics, --fault with the
// faults) or shows it (the outputs), and "" is a subcommand's own.
func flagGroup(name string) string {
	if r := sim.RowNamed(name); r != nil {
		return r.Group.Title()
	}
	switch name {
	case "fault":
		return groupFaults
	case "trace", "set", "max-queued", "config", "save-config":
		return groupRun
	}
	o := &runOptions{}
	if f := (&cli{}).runFlags(o, &blockList{cfg: &o.cfg}).Lookup(name); f != nil {
		return groupOutputs
	}
	return ""
}

// flagError describes a flag error of parseFlags in the "--name"
// spelling the documentation uses; an unknown flag gets the nearest flag
// name fs defines, when one is near. Every subcommand reports a bad flag
// through it and adds where the help is.
func flagError(fs *flag.FlagSet, err error) string {
	if given, name, ok := unknownFlag(err); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return "unknown flag " + given + didYouMean(name, names, "--")
	}
	return err.Error()
}

// didYouMean returns ": did you mean SPELL+NAME?" for the name among names
// that given most likely meant (suggest.Nearest: a typo gets its flag or
// command, an abbreviation of one its name, a word from elsewhere nothing),
// or "". Flags and subcommands are suggested through it.
func didYouMean(given string, names []string, spell string) string {
	best := suggest.Nearest(given, names)
	if best == "" {
		return ""
	}
	return ": did you mean " + spell + best + "?"
}

// usageFail returns the usage error of subcommand name, the one every
// subcommand reports bad usage with: its message (a setting that came
// from the scenario file of cf, if any, named with the file's line), where
// the help is, exit 2.
func (c *cli) usageFail(name string, cf *configured) func(format string, a ...any) int {
	return c.usageFailHint(name, cf, "")
}

// usageFailHint is usageFail with what the pointer to --help says the
// help holds (hint; "" for the flags and what they allow).
func (c *cli) usageFailHint(name string, cf *configured, hint string) func(format string, a ...any) int {
	if hint == "" {
		hint = "the flags and what they allow"
	}
	return func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if cf != nil {
			msg = cf.blame(msg)
		}
		fmt.Fprintf(c.stderr, "lbsim %s: %s\nRun 'lbsim %s --help' for %s.\n", name, msg, name, hint)
		return exitUsage
	}
}
