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
// arguments (lbsim completion bash --help). The flags are then set, in
// the order given, in fs (each through its own Value's Set, which checks
// it; a refusal is worded by setError), so fs.Visit, NArg and Arg read as
// they always did, and a bad value gets its setting's message. A flag's
// value that is itself one of fs's flags (--json --cycles=100) is refused
// naming both. pflag's own errors (an unknown flag, a missing value) come
// back as its typed errors, for flagError to word.
//
// fs stays a standard flag.FlagSet, set from pflag's parse, because every
// subcommand's flags are defined on one (mmc's among them) and help
// (printFlags), completion (addFlags), sweep's recorded values and
// --config's reading take one; defining them on a pflag.FlagSet instead
// is one mechanical step (pflag has the same methods) that also gives
// each flag.Value here a Type and each switch its NoOptDefVal.
func parseFlags(fs *flag.FlagSet, args []string) error {
	pf := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	pf.SetOutput(io.Discard)
	pf.Usage = func() {}
	var given []givenFlag
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
	for _, g := range given {
		want := plainWant(fs.Lookup(g.name).Value)
		if err := fs.Set(g.name, g.value); err != nil {
			if want != "" {
				err = errors.New(want)
			}
			return setError(fs, g, err)
		}
	}
	return fs.Parse(append([]string{"--"}, pf.Args()...))
}

// givenFlag is one flag as given: its name and value.
type givenFlag struct{ name, value string }

// setError words a value's refusal by fs's flag g (its Value's own
// message after what was given): `invalid boolean value "maybe" for
// --verbose: parse error` for a switch, `invalid value "x" for flag
// --seed: …` otherwise.
func setError(fs *flag.FlagSet, g givenFlag, err error) error {
	if na := (notAllowed{}); errors.As(err, &na) {
		return fmt.Errorf("--%s %s is not allowed: %s", g.name, strings.TrimSpace(g.value), na.allowed)
	}
	if isSwitch(fs.Lookup(g.name).Value) {
		return fmt.Errorf("invalid boolean value %q for --%s: %v", g.value, g.name, err)
	}
	return fmt.Errorf("invalid value %q for flag --%s: %v", g.value, g.name, err)
}

// plainWant says what a standard library flag (flag.IntVar, Float64Var,
// BoolVar …) takes, in the words a setting's refusal uses, or "" for a
// flag with a Value of its own (which words its own refusals). Go's flag
// package says only "parse error".
func plainWant(v flag.Value) string {
	g, ok := v.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case bool:
		return "want true or false"
	case int, int64:
		return "want a whole number"
	case uint, uint64:
		return "want a whole number from 0 to 18446744073709551615"
	case float64:
		return "want a number, like 0.95"
	}
	return ""
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
	given  *[]givenFlag
	isBool bool
}

func (r *recordedArg) String() string { return "" }

func (r *recordedArg) Set(s string) error {
	*r.given = append(*r.given, givenFlag{r.name, s})
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

// unknownFlag reads pflag's error for an unknown flag (a NotExistError):
// the flag as given (--bogus, or -bogus for a single dash, which pflag
// reads as shorthands) and its name.
func unknownFlag(err error) (given, name string, ok bool) {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return "", "", false
	}
	if shorts := ne.GetSpecifiedShortnames(); shorts != "" {
		return "-" + shorts, shorts, true
	}
	return "--" + ne.GetSpecifiedName(), ne.GetSpecifiedName(), true
}
