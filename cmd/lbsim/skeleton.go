package main

import "flag"

// commandLine is a subcommand's command line as the skeleton (parseCommand)
// read it: the flags, the scenario file read in (--config), the flags
// given (the file's keys included) and the subcommand's usage error.
type commandLine struct {
	fs   *flag.FlagSet
	cf   *configured
	seen map[string]bool
	fail func(format string, a ...any) int
}

// commandSpec is what the skeleton needs of a subcommand that takes flags:
// its name and help, the flag set define makes (with the --config flag it
// points at; nil when the subcommand has none), the scenario keys it
// leaves out and why (skip, nil for none), and the flags it defines but
// refuses (hide: its help leaves them out).
type commandSpec struct {
	name, help string
	define     func() (*flag.FlagSet, *string)
	skip       func(key string) string
	hide       []string
}

// parseCommand is the skeleton every subcommand that takes run flags
// starts with, written once: it parses args (the --config file read in
// between), prints the help for -h or --help, refuses a bad flag or a
// positional argument with the usage error, and returns the command line;
// done says the subcommand ends here with code.
func (c *cli) parseCommand(spec commandSpec, args []string) (cl commandLine, code int, done bool) {
	skip := spec.skip
	if skip == nil {
		skip = func(string) string { return "" }
	}
	fs, cf, err := parseConfigured(args, spec.define, skip)
	cl = commandLine{fs: fs, cf: cf, fail: c.usageFail(spec.name, cf)}
	if err != nil {
		if c.printedHelp(fs, err, spec.help, spec.hide...) {
			return cl, exitOK, true
		}
		return cl, cl.fail("%s", flagError(fs, err)), true
	}
	if fs.NArg() > 0 {
		return cl, cl.fail("%s", unexpectedArg(fs, cf.args)), true
	}
	cl.seen = visited(fs)
	return cl, exitOK, false
}
