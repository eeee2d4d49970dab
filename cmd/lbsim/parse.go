package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// parseFlags parses args for fs as POSIX long flags, with spf13/pflag:
// --name VALUE, --name=VALUE, a switch alone (--verbose) or with
// =true/false, -h and --help (or --help=true) for the help, "--" ending
// the flags. Flags may come before, between or after the positional
// arguments (lbsim completion bash --help). The flags are then handed, in
// the order given, to fs (as --name=VALUE, each through its own Value's
// Set, which checks it), so fs.Visit, NArg and Arg read as they always
// did, and a bad value gets its setting's message. A flag's value that is
// itself one of fs's flags (--json --cycles=100) is refused naming both.
func parseFlags(fs *flag.FlagSet, args []string) error {
	pf := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	pf.SetOutput(io.Discard)
	pf.Usage = func() {}
	var given []string
	fs.VisitAll(func(f *flag.Flag) {
		r := &recordedArg{name: f.Name, given: &given, isBool: isSwitch(f.Value)}
		pv := pf.VarPF(r, f.Name, "", f.Usage)
		if r.isBool {
			pv.NoOptDefVal = "true"
		}
	})
	help := false // --help, --help=true; -h and -help are pflag's own
	if fs.Lookup("help") == nil {
		pf.BoolVar(&help, "help", false, "")
	}
	if err := pf.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return flag.ErrHelp
		}
		return err
	}
	if err := flagAsValue(fs, args); err != nil {
		return err
	}
	if help {
		return flag.ErrHelp
	}
	return fs.Parse(append(append(given, "--"), pf.Args()...))
}

// isSwitch reports whether a flag's value is a true/false switch.
func isSwitch(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// recordedArg is a flag as pflag sees it: it notes each value given, in
// order, for fs to set.
type recordedArg struct {
	name   string
	given  *[]string
	isBool bool
}

func (r *recordedArg) String() string { return "" }

func (r *recordedArg) Set(s string) error {
	*r.given = append(*r.given, "--"+r.name+"="+s)
	return nil
}

// flagAsValue refuses a flag that takes a value written alone (--json)
// and followed by one of fs's flags (--cycles=100, --seed), which would
// be read as its value: run --json --cycles=100 wrote a file named
// --cycles=100. A value given with '=' (--json=--x) is the value asked for.
func flagAsValue(fs *flag.FlagSet, args []string) error {
	for i := 0; i+1 < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if args[i] == "--" {
			return nil
		}
		if !ok || strings.Contains(name, "=") || !takesValue(fs, name) {
			continue
		}
		if other := flagNamed(fs, args[i+1]); other != "" {
			return fmt.Errorf("--%s needs a value, but the word after it is the flag %s: give --%s its value first", name, quoteCut(other), name)
		}
		i++ // the value
	}
	return nil
}

// flagNamed returns s when it is spelled as one of fs's flags (--seed,
// --cycles=100, -h), or "".
func flagNamed(fs *flag.FlagSet, s string) string {
	name, ok := strings.CutPrefix(s, "--")
	if !ok {
		if s == "-h" {
			return s
		}
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	if fs.Lookup(name) != nil || name == "help" {
		return s
	}
	return ""
}

func (r *recordedArg) Type() string {
	if r.isBool {
		return "bool"
	}
	return "string"
}

// pflagUnknown reads pflag's message for an unknown flag: the flag as
// given (--bogus, or -bogus for a single dash) and its name.
func pflagUnknown(msg string) (given, name string, ok bool) {
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		return "--" + n, n, true
	}
	if _, rest, ok := strings.Cut(msg, "' in -"); ok && strings.HasPrefix(msg, "unknown shorthand flag: '") {
		return "-" + rest, rest, true
	}
	return "", "", false
}
