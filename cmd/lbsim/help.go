package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/suggest"
)

// printFlags writes the flags of fs the way the documentation spells
// them (--name VALUE), each with its help and its default, leaving out
// the flags in hide: those the subcommand refuses although it defines
// them (compare's --timeline, size's --servers).
func printFlags(w io.Writer, fs *flag.FlagSet, hide []string) {
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(hide, f.Name) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
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
	})
}

// flagError describes an error of the flag package in the "--name"
// spelling the documentation uses; an unknown flag gets the nearest flag
// name fs defines, when one is near. Every subcommand reports a bad flag
// through it and adds where the help is.
func flagError(fs *flag.FlagSet, err error) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if given, name, ok := pflagUnknown(err.Error()); ok {
		return "unknown flag " + given + didYouMean(name, names, "--")
	}
	const unknown = "flag provided but not defined: "
	if name, ok := strings.CutPrefix(err.Error(), unknown); ok {
		name = strings.TrimLeft(name, "-")
		return "unknown flag --" + name + didYouMean(name, names, "--")
	}
	s := strings.Replace(err.Error(), "flag -", "flag --", 1)
	if !strings.Contains(s, "needs an argument: --") { // pflag's has both dashes already
		s = strings.Replace(s, "needs an argument: -", "needs an argument: --", 1)
	}
	return strings.Replace(s, " for -", " for --", 1)
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
	return func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if cf != nil {
			msg = cf.blame(msg)
		}
		fmt.Fprintf(c.stderr, "lbsim %s: %s\nRun 'lbsim %s --help' for the flags and what they allow.\n", name, msg, name)
		return exitUsage
	}
}
