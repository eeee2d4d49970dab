package main

import (
	"flag"
	"io"

	"github.com/lbsim/lbsim/swrr"
)

const wrrHelp = `Usage: lbsim wrr [--explain]

Reads smooth weighted round-robin commands on standard input, one a line, and
answers each on standard output (the protocol: docs/cli.md in the source):

  POOL <entry> …   replace the pool (all scores 0); answers OK.
                   An entry is ADDRESS or ADDRESS=WEIGHT (split at the last
                   "="; no "=" means weight 1); weights 0 to 1000000000.
  PICK             answers one address, or EMPTY.
  PICKN <n>        answers n ≥ 1 picks joined by ",", or EMPTY.

A bad command answers a line starting "ERR " and changes nothing.
End of input ends the program.

Example session (> is what you type):

  > POOL 10.0.0.11:8080=3 10.0.0.12:8080
  OK
  > PICK
  10.0.0.11:8080
  > PICKN 3
  10.0.0.11:8080,10.0.0.12:8080,10.0.0.11:8080

Flags:
`

// wrrCommand is lbsim wrr: its option (--explain), flags and run
// (wrrRun). It takes no positional argument: the commands come on
// standard input.
var wrrCommand = subcommand[bool]{
	commandSpec: commandSpec{name: "wrr", help: wrrHelp, positional: true, hint: "the commands it reads and an example"},
	flags: func(_ *cli, explain *bool) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("wrr", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.BoolVar(explain, "explain", false, "write a worked trace of the scores after each pick to standard error")
		return fs, nil
	},
	run: (*cli).wrrRun,
}

func (c *cli) wrr(args []string) int { return runCommand(c, wrrCommand, args) }

// wrrRun answers the commands on standard input (swrr.Serve) until its
// end (exit 0); reading or writing failing is exit 1.
func (c *cli) wrrRun(explain *bool, cl commandLine) error {
	if len(cl.args) > 0 {
		return usageErr("unexpected argument %s: commands come on standard input", quoteCut(cl.args[0]))
	}
	var trace io.Writer
	if *explain {
		trace = c.stderr
	}
	if err := swrr.Serve(c.stdin, c.stdout, trace); err != nil {
		return failErr(exitFailed, "%v", err)
	}
	return nil
}
