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
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func main() {
	c := &cli{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	c.noColor, c.forceColor, c.dumbTerm = colorEnv(os.Getenv)
	os.Exit(c.main(os.Args[1:]))
}

// cli holds the process's streams and what is known about them, so that
// tests can run every subcommand in-process.
type cli struct {
	stdin                          io.Reader
	stdout, stderr                 io.Writer
	stdinTTY, stdoutTTY, stderrTTY bool
	// noColor, forceColor and dumbTerm are the environment's say on
	// colour (colorEnv): NO_COLOR, CLICOLOR_FORCE or FORCE_COLOR, TERM=dumb.
	noColor, forceColor, dumbTerm bool
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

// commands is the one list of subcommands: the command tree cobra
// dispatches and completes with (commandTree), the usage text and the
// error for an unknown command all read it.
var commands = []command{
	{"run", "run [flags]", "run a simulation and print its summary", (*cli).run},
	{"compare", "compare [flags]", "the same requests under several balancers (--variant), side by side", (*cli).compare},
	{"mmc", "mmc [flags]", "queueing theory (Erlang C, c × M/M/1, supermarket) beside a simulated fixed pool", (*cli).mmc},
	{"replay", "replay FILE", "re-run a snapshot (--snapshot) and check it reproduces", (*cli).replay},
	{"sweep", "sweep [flags]", "many runs over a grid of settings (--vary), one JSON line per run", (*cli).sweep},
	{"size", "size [flags]", "the fewest servers that meet an objective (--slo wait_p99<=200), per balancer", (*cli).size},
	{"aggregate", "aggregate FILE…", "merge sweep results: mean and 95% interval per grid point", (*cli).aggregate},
	{"plot", "plot " + strings.Join(plotKinds, "|"), "draw a run's timeline, a sweep's metric or two metrics' frontier as SVG or PNG", (*cli).plot},
	{"settings", "settings [--json FILE|-]", "the table of settings: each flag's default, range, unit, and whether --set changes it", (*cli).settings},
	{"share", "share FILE", "print a snapshot's share link (#r=…)", (*cli).share},
	{"wrr", "wrr [--explain]", "smooth weighted round-robin: POOL/PICK/PICKN on stdin", (*cli).wrr},
	{"version", "version", "the version and VCS revision lbsim was built from (also --version)", (*cli).version},
	{"help", "help [COMMAND]", "this overview, or a command's flags and examples (as COMMAND --help)", nil}, // the tree's help command (c.help)
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

// rootFlags are the flags lbsim takes before a subcommand.
var rootFlags = []string{"help", "version"}

func (c *cli) main(args []string) int {
	if _, ok := c.stdout.(*checkedWriter); !ok {
		c.stdout = &checkedWriter{w: c.stdout}
	}
	name := "help"
	switch {
	case len(args) > 0 && slices.Contains([]string{"-version", "--version", "--version=true"}, args[0]):
		name = "version"
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name = args[0]
	}
	return c.checkStdoutWritten(name, c.dispatch(args))
}

// dispatch runs the subcommand args name, or the help, through the
// command tree (commandTree).
func (c *cli) dispatch(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "__complete", "__completeNoDesc": // a completion script asks
			return c.answerCompletion(args)
		case "-help": // the single-dash spellings of lbsim's first command line
			args = append([]string{"--help"}, args[1:]...)
		case "-version":
			args = append([]string{"--version"}, args[1:]...)
		}
	}
	code := exitOK
	root := c.commandTree(&code, false)
	root.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	if err := root.Execute(); err != nil {    // a flag before the command cobra could not read
		given, name, ok := unknownFlag(err)
		if !ok {
			given, name = err.Error(), ""
		}
		fmt.Fprintf(c.stderr, "lbsim: unknown flag %s%s\nThe flags before a command: --help, --version; a command's own flags come after it.\n\n%s",
			quoteCut(given), didYouMean(name, rootFlags, "--"), usage())
		return exitUsage
	}
	return code
}

// root is lbsim with no command, or with a word that names none: the
// interactive run or the overview, --version, or the unknown command.
func (c *cli) root(cmd *cobra.Command, args []string) int {
	if v, _ := cmd.Flags().GetBool("version"); v {
		return c.version(nil)
	}
	if len(args) == 0 {
		if c.stdinTTY && c.stdoutTTY {
			return c.run(nil)
		}
		fmt.Fprint(c.stdout, usage()) // a script or a pipe: the overview
		return exitOK
	}
	fmt.Fprintf(c.stderr, "lbsim: unknown command %s%s\nThe commands: %s.\n\n%s", quoteCut(args[0]), didYouMean(args[0], commandNames(), ""), strings.Join(commandNames(), ", "), usage())
	return exitUsage
}

// help is `lbsim help [COMMAND [CHART]]`: the overview, or a command's
// own help (as COMMAND --help prints it).
func (c *cli) help(args []string) int {
	if len(args) == 0 || slices.Contains([]string{"help", "-h", "-help", "--help", "--help=true"}, args[0]) {
		fmt.Fprint(c.stdout, usage())
		return exitOK
	}
	cmd := commandNamed(args[0])
	if cmd == nil {
		fmt.Fprintf(c.stderr, "lbsim help: unknown command %s%s\nThe commands: %s.\n", quoteCut(args[0]), didYouMean(args[0], commandNames(), ""), strings.Join(commandNames(), ", "))
		return exitUsage
	}
	words := args[1:]
	chart := cmd.name == "plot" && len(words) == 1 && slices.Contains(plotKinds, words[0]) // help plot run
	if len(words) > 0 && !chart {
		fmt.Fprintf(c.stderr, "lbsim help: %s has no help topic %s: run 'lbsim help %s'\n", cmd.name, quoteCut(words[0]), cmd.name)
		return exitUsage
	}
	return cmd.run(c, append(words, "--help"))
}

// commandNamed returns the subcommand called name (help excluded), or nil.
func commandNamed(name string) *command {
	for i := range commands {
		if commands[i].name == name && commands[i].run != nil {
			return &commands[i]
		}
	}
	return nil
}

// commandNames lists every subcommand's name, help included.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, cmd := range commands {
		names[i] = cmd.name
	}
	return names
}
