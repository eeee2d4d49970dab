package main

import (
	"io"

	"github.com/spf13/cobra"
)

// commandTree is lbsim's one command tree, built with spf13/cobra from
// commands: cobra finds the subcommand (dispatch), runs `lbsim help
// [COMMAND]` and answers completions and writes their scripts. A
// subcommand reads its own flags (parseFlags, with its --config file read
// in between), so in the tree that runs commands cobra leaves them alone;
// the tree for completions (forCompletion) carries every subcommand's
// flags as its --help lists them (commandFlags), plot's charts as
// subcommands of their own, and the choices of the settings that name
// one. A subcommand run through the tree leaves its exit code in code.
func (c *cli) commandTree(code *int, forCompletion bool) *cobra.Command {
	root := &cobra.Command{Use: "lbsim", Short: "a load-balancer simulator", SilenceErrors: true, SilenceUsage: true,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { *code = c.root(cmd, args); return nil }}
	root.CompletionOptions.DisableDefaultCmd = true
	root.Flags().Bool("version", false, "the version and VCS revision lbsim was built from")
	root.SetOut(c.stdout)
	root.SetErr(io.Discard)
	root.SetHelpFunc(func(*cobra.Command, []string) { // lbsim --help, -h
		io.WriteString(c.stdout, usage())
	})
	for _, cmd := range commands {
		sub := &cobra.Command{Use: cmd.name, Short: cmd.help, DisableFlagParsing: !forCompletion, SilenceErrors: true, SilenceUsage: true}
		if forCompletion {
			sub.Run = func(*cobra.Command, []string) {}
		} else {
			sub.RunE = func(_ *cobra.Command, args []string) error {
				if cmd.run == nil {
					*code = c.help(args)
				} else {
					*code = cmd.run(c, modernize(c.stderr, cmd.name, args))
				}
				return nil
			}
		}
		switch {
		case cmd.name == "help":
			root.SetHelpCommand(sub) // cobra's own would say other things
			continue
		case !forCompletion:
		case cmd.name == "plot":
			for _, chart := range plotKinds {
				ch := &cobra.Command{Use: chart, Short: "draw a " + chart + "'s chart", Run: func(*cobra.Command, []string) {}}
				addFlags(ch, commandFlags("plot", chart))
				sub.AddCommand(ch)
			}
		case cmd.name == "completion":
			sub.ValidArgs = completionShells
			fallthrough
		default:
			addFlags(sub, commandFlags(cmd.name))
		}
		root.AddCommand(sub)
	}
	return root
}
