package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// parseFlags parses args for fs as POSIX long flags, with spf13/pflag:
// --name VALUE, --name=VALUE, a switch alone (--verbose) or with
// =true/false, -h and --help for the help, "--" ending the flags. The
// flags are then handed, in the order given, to fs (as --name=VALUE, each
// through its own Value's Set, which checks it), so fs.Visit, NArg and Arg
// read as they always did, and a bad value gets its setting's message.
// Flags end at the first argument that is not one, as with Go's flag
// package; replay and aggregate take flags between their files by calling
// it again on the rest (parseInterspersed).
func parseFlags(fs *flag.FlagSet, args []string) error {
	pf := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	pf.SetOutput(io.Discard)
	pf.Usage = func() {}
	pf.SetInterspersed(false)
	var given []string
	fs.VisitAll(func(f *flag.Flag) {
		r := &recordedArg{name: f.Name, given: &given, isBool: isSwitch(f.Value)}
		pv := pf.VarPF(r, f.Name, "", f.Usage)
		if r.isBool {
			pv.NoOptDefVal = "true"
		}
	})
	if err := pf.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return flag.ErrHelp
		}
		return err
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
