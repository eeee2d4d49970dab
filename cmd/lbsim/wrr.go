package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/lbsim/lbsim/swrr"
)

const wrrUsage = `usage: lbsim wrr [--explain]

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

// runWRR runs `lbsim wrr` with the arguments after the subcommand's name.
// It returns the exit code: 0 at the end of input, 1 if reading or writing
// failed, 2 for bad usage.
func runWRR(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wrr", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are printed below
	explain := fs.Bool("explain", false, "write a worked trace of the scores after each pick to standard error")
	usage := func(w io.Writer) {
		fmt.Fprint(w, wrrUsage)
		printFlags(w, fs, nil)
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "lbsim wrr: %s\n\n", flagError(fs, err))
		usage(stderr)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbsim wrr: unexpected argument %q: commands come on standard input\n\n", fs.Arg(0))
		usage(stderr)
		return 2
	}
	var trace io.Writer
	if *explain {
		trace = stderr
	}
	if err := swrr.Serve(stdin, stdout, trace); err != nil {
		fmt.Fprintf(stderr, "lbsim wrr: %v\n", err)
		return 1
	}
	return 0
}
