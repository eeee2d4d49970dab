package main

import (
	"errors"
	"flag"
	"fmt"
)

// commandLine is a subcommand's command line as the skeleton (parseCommand)
// read it: the flags, the scenario file read in (--config), the flags
// given (the file's keys included), the positional arguments (for a
// subcommand that takes them) and the subcommand's usage error.
type commandLine struct {
	fs   *flag.FlagSet
	cf   *configured
	seen map[string]bool
	args []string
	fail func(format string, a ...any) int
}

// commandSpec is what the skeleton needs of a subcommand that takes flags:
// its name and help, the flag set define makes (with the --config flag it
// points at; nil when the subcommand has none), the scenario keys it
// leaves out and why (skip, nil for none), the flags it defines but
// refuses (hide: its help leaves them out), whether it takes positional
// arguments (then it has no --config), and what its usage error's pointer
// to --help says it holds (hint; "" for the flags and what they allow).
type commandSpec struct {
	name, help string
	define     func() (*flag.FlagSet, *string)
	skip       func(key string) string
	hide       []string
	positional bool
	hint       string
}

// parseCommand is the parse every subcommand starts with (runCommand),
// written once: it parses args (the --config file read in between, or the
// positional arguments taken), prints the help for -h or --help, refuses a
// bad flag or an unwanted positional argument with the usage error, and
// returns the command line; done says the subcommand ends here with code.
func (c *cli) parseCommand(spec commandSpec, args []string) (cl commandLine, code int, done bool) {
	skip := spec.skip
	if skip == nil {
		skip = func(string) string { return "" }
	}
	var fs *flag.FlagSet
	var cf *configured
	var err error
	if spec.positional {
		fs, _ = spec.define()
		cf = &configured{args: args}
		cl.args, err = parseInterspersed(fs, args)
	} else {
		fs, cf, err = parseConfigured(args, spec.define, skip)
	}
	cl.fs, cl.cf, cl.fail = fs, cf, c.usageFailHint(spec.name, cf, spec.hint)
	if err != nil {
		if c.printedHelp(fs, err, spec.help, spec.hide...) {
			return cl, exitOK, true
		}
		return cl, cl.fail("%s", flagError(fs, err)), true
	}
	if fs.NArg() > 0 && !spec.positional {
		return cl, cl.fail("%s", unexpectedArg(fs, cf.args)), true
	}
	cl.seen = visited(fs)
	return cl, exitOK, false
}

// subcommand is a subcommand written as gh writes them: its options O,
// the flags that fill them (flags sets their defaults in the zero O it is
// handed and defines the flags, returning them with --config's path, nil
// for none), and run, which does the work and says how it ended as an
// error (nil, or a *cmdError). The skeleton around them (runCommand) is
// written once.
type subcommand[O any] struct {
	commandSpec
	flags func(c *cli, o *O) (*flag.FlagSet, *string)
	run   func(c *cli, o *O, cl commandLine) error
}

// runCommand runs subcommand s with args: parse (parseCommand, with fresh
// options each time the flags are defined), then run, then the exit code
// and message of how it ended (exitCode).
func runCommand[O any](c *cli, s subcommand[O], args []string) int {
	var o O
	spec := s.commandSpec
	spec.define = func() (*flag.FlagSet, *string) {
		var zero O
		o = zero
		return s.flags(c, &o)
	}
	cl, code, done := c.parseCommand(spec, args)
	if done {
		return code
	}
	return c.exitCode(spec.name, cl, s.run(c, &o, cl))
}

// cmdError is how a subcommand's run failed: its exit code, its message
// ("" when it was said already), whether it is bad usage (then the
// message is the usage error: a setting that came from the --config file
// is blamed on the file's line, unless asIs, and where the help is
// follows).
type cmdError struct {
	code        int
	usage, asIs bool
	msg         string
}

func (e *cmdError) Error() string { return e.msg }

// usageErr is a usage error (exit 2) with its message.
func usageErr(format string, a ...any) error {
	return &cmdError{code: exitUsage, usage: true, msg: fmt.Sprintf(format, a...)}
}

// usageErrAsIs is a usage error whose message is written as it is: it
// blamed the --config file already, or the file is not to be blamed.
func usageErrAsIs(format string, a ...any) error {
	return &cmdError{code: exitUsage, usage: true, asIs: true, msg: fmt.Sprintf(format, a...)}
}

// failErr is a failure with its exit code and message.
func failErr(code int, format string, a ...any) error {
	return &cmdError{code: code, msg: fmt.Sprintf(format, a...)}
}

// exited is the end with code of a run that has said why already (nil
// for exitOK).
func exited(code int) error {
	if code == exitOK {
		return nil
	}
	return &cmdError{code: code}
}

// exitCode writes how subcommand name's run ended (err) and returns its
// exit code: nil is exitOK, a *cmdError says its code and message, and
// any other error is bad input (exit 2).
func (c *cli) exitCode(name string, cl commandLine, err error) int {
	if err == nil {
		return exitOK
	}
	var ce *cmdError
	if !errors.As(err, &ce) {
		fmt.Fprintf(c.stderr, "lbsim %s: %v\n", name, err)
		return exitUsage
	}
	switch {
	case ce.usage && ce.asIs:
		return c.usageFailHint(name, nil, "")("%s", ce.msg)
	case ce.usage:
		return cl.fail("%s", ce.msg)
	case ce.msg != "":
		fmt.Fprintf(c.stderr, "lbsim %s: %s\n", name, ce.msg)
	}
	return ce.code
}
