// Command lbsim runs the load-balancer simulator from the command line.
//
// `lbsim help` lists the subcommands (see commands); `lbsim run` runs one
// simulation, `lbsim compare` several balancers on the same requests,
// `lbsim sweep` a grid of settings, `lbsim size` the fewest servers that
// meet an objective.
//
// With no arguments on a terminal, lbsim asks for the main settings.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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
	// stopCode is set to the exit code of the first that arrives.
	signals  chan os.Signal
	stopCode atomic.Int32
	// ran, when set, is told the options of every run runVariant
	// finishes, from the goroutine that ran it (tests count a
	// comparison's runs with it).
	ran func(*runOptions)
	// runBound, when set, is told the bound on queued requests handed to
	// each run of compare, sweep and size as it starts, and the bounds of
	// the runs then under way added up (see queueShare).
	runBound func(bound, inFlight int)
	// helpFlags, when set, is handed the flags a subcommand's --help
	// would list (and those it hides) instead of the help being printed:
	// completions and the old-spelling notice read each subcommand's flags
	// through it (commandFlags).
	helpFlags func(fs *flag.FlagSet, hide []string)
}

// Exit codes: 0 success, 1 the run failed or did not reproduce, 2 bad usage
// or bad input (docs/cli.md).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// command is one subcommand: its name, its synopsis and one line of help.
type command struct {
	name, synopsis, help string
	run                  func(c *cli, args []string) int
}

// commands is the one list of subcommands: the usage text, the dispatch
// and the error for an unknown command all read it.
var commands = []command{
	{"run", "run [flags]", "run a simulation and print its summary", (*cli).run},
	{"compare", "compare [flags]", "the same requests under several balancers (--variant), side by side", (*cli).compare},
	{"mmc", "mmc [flags]", "queueing theory (Erlang C, c × M/M/1, supermarket) beside a simulated fixed pool", (*cli).mmc},
	{"replay", "replay FILE", "re-run a snapshot (--snapshot) and check it reproduces", (*cli).replay},
	{"sweep", "sweep [flags]", "many runs over a grid of settings (--vary), one JSON line per run", (*cli).sweep},
	{"size", "size [flags]", "the fewest servers that meet an objective (--slo wait_p99<=200), per balancer", (*cli).size},
	{"aggregate", "aggregate FILE…", "merge sweep results: mean and 95% interval per grid point", (*cli).aggregate},
	{"plot", "plot run|sweep", "draw a run's timeline or a sweep's metric as SVG or PNG", (*cli).plot},
	{"settings", "settings [--json FILE|-]", "the table of settings: each flag's default, range, unit, and whether --set changes it", (*cli).settings},
	{"share", "share FILE", "print a snapshot's share link (#r=…)", (*cli).share},
	{"wrr", "wrr [--explain]", "smooth weighted round-robin: POOL/PICK/PICKN on stdin",
		func(c *cli, args []string) int { return runWRR(args, c.stdin, c.stdout, c.stderr) }},
	{"version", "version", "the version and VCS revision lbsim was built from (also --version)", (*cli).version},
	{"help", "help", "show this text", nil}, // main prints usage (it reads this list)
}

// usage is the overview `lbsim help` prints.
func usage() string {
	var b strings.Builder
	b.WriteString(`lbsim simulates a load balancer: requests pass a firewall, wait in a FIFO
queue (or a queue per server) and are served by a pool of servers that grows and
shrinks with the queue.

Usage:
`)
	for _, cmd := range commands {
		fmt.Fprintf(&b, "  lbsim %-18s %s\n", cmd.synopsis, cmd.help)
	}
	b.WriteString(`
Run 'lbsim <command> --help' for a command's flags and an example, and
'lbsim --version' for the version and revision it was built from.
With no arguments on a terminal, lbsim asks for the main settings.

Example:
  lbsim run --servers 20 --cycles 100000 --seed 42 --json -
`)
	return b.String()
}

func (c *cli) main(args []string) int {
	if len(args) == 0 {
		if c.stdinTTY && c.stdoutTTY {
			return c.run(nil)
		}
		fmt.Fprint(c.stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		args[0] = "help"
	case "-version", "--version":
		args[0] = "version"
	case "__complete", "__completeNoDesc": // a completion script asks
		return c.answerCompletion(args)
	}
	names := make([]string, len(commands))
	for i, cmd := range commands {
		switch {
		case cmd.name == args[0] && cmd.run == nil:
			fmt.Fprint(c.stdout, usage())
			return exitOK
		case cmd.name == args[0]:
			return cmd.run(c, modernize(c.stderr, cmd.name, args[1:]))
		}
		names[i] = cmd.name
	}
	fmt.Fprintf(c.stderr, "lbsim: unknown command %s%s\nThe commands: %s.\n\n%s", quoteCut(args[0]), didYouMean(args[0], names, ""), strings.Join(names, ", "), usage())
	return exitUsage
}
