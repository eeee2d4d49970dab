// Command lbsim runs the load-balancer simulator from the command line.
//
//	lbsim run [flags]      one run (lbsim run --help lists the flags)
//	lbsim replay FILE      re-run a snapshot and check it reproduces
//	lbsim share FILE       print a snapshot's share link
//	lbsim wrr              smooth weighted round-robin, a line protocol on stdin
//	lbsim help             this overview
//
// With no arguments on a terminal, lbsim asks for the main settings.
package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/term"
)

func main() {
	c := &cli{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		noColor:   os.Getenv("NO_COLOR") != "",
	}
	os.Exit(c.main(os.Args[1:]))
}

// cli holds the process's streams and what is known about them, so that
// tests can run every subcommand in-process.
type cli struct {
	stdin                          io.Reader
	stdout, stderr                 io.Writer
	stdinTTY, stdoutTTY, stderrTTY bool
	noColor                        bool
	// signals, when set, replaces SIGINT and SIGTERM (tests send on it);
	// stopFlag is set when one arrives.
	signals  chan os.Signal
	stopFlag atomic.Bool
}

// Exit codes: 0 success, 1 the run failed or did not reproduce, 2 bad usage
// or bad input (docs/cli.md).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

const usage = `lbsim simulates a load balancer: requests pass a firewall, wait in a FIFO
queue and are served by a pool of servers that grows and shrinks with the queue.

Usage:
  lbsim run [flags]        run a simulation and print its summary
  lbsim mmc [flags]        M/M/c: Erlang C theory beside a simulated fixed pool
  lbsim replay FILE        re-run a snapshot (--snapshot) and check it reproduces
  lbsim share FILE         print a snapshot's share link (#r=…)
  lbsim wrr [--explain]    smooth weighted round-robin: POOL/PICK/PICKN on stdin
  lbsim help               show this text

Run 'lbsim <command> --help' for a command's flags and an example.
With no arguments on a terminal, lbsim asks for the main settings.

Example:
  lbsim run --servers 20 --cycles 100000 --seed 42 --json -
`

func (c *cli) main(args []string) int {
	if len(args) == 0 {
		if c.stdinTTY && c.stdoutTTY {
			return c.run(nil)
		}
		fmt.Fprint(c.stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return c.run(args[1:])
	case "mmc":
		return c.mmc(args[1:])
	case "replay":
		return c.replay(args[1:])
	case "share":
		return c.share(args[1:])
	case "wrr":
		return runWRR(args[1:], c.stdin, c.stdout, c.stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, usage)
		return exitOK
	}
	fmt.Fprintf(c.stderr, "lbsim: unknown command %q: allowed run, replay, share, mmc, wrr, help\n\n%s", args[0], usage)
	return exitUsage
}
