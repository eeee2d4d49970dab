package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lbsim/lbsim/sim"
)

const completionHelp = `Usage: lbsim completion [--no-descriptions] bash|zsh|fish|powershell

Prints a script that completes lbsim's subcommands, flags and the values of
the flags that name a choice (--policy, --queues, --discipline, true/false
settings …) or take a form (--concurrency-limit off, fixed:L or aimd;
--load-info exact, local or periodic:T) in that shell. The flags are those each subcommand's --help lists.

Example:
  lbsim completion bash > lbsim.bash

To load it in every session:
  bash        lbsim completion bash > ~/.local/share/bash-completion/completions/lbsim
  zsh         lbsim completion zsh > "${fpath[1]}/_lbsim"
  fish        lbsim completion fish > ~/.config/fish/completions/lbsim.fish
  powershell  lbsim completion powershell | Out-String | Invoke-Expression

Flags:
`

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// The completion command joins commands here, before help: its tree is
// read from commands (an initialization cycle otherwise).
func init() {
	i := slices.IndexFunc(commands, func(cmd command) bool { return cmd.name == "help" })
	commands = slices.Insert(commands, i, command{"completion", "completion SHELL", "a completion script for bash, zsh, fish or powershell", (*cli).completion})
}

// completionCommand is lbsim completion: its option (--no-descriptions),
// flags and run (completionRun, which takes the shell).
var completionCommand = subcommand[bool]{
	commandSpec: commandSpec{name: "completion", help: completionHelp, positional: true},
	flags: func(_ *cli, noDesc *bool) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("completion", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.BoolVar(noDesc, "no-descriptions", false, "complete names only, without each flag's and subcommand's description")
		return fs, nil
	},
	run: (*cli).completionRun,
}

func (c *cli) completion(args []string) int { return runCommand(c, completionCommand, args) }

// completionRun writes the completion script of the shell cl names.
func (c *cli) completionRun(noDesc *bool, cl commandLine) error {
	if len(cl.args) != 1 {
		return usageErr("name one shell: %s", strings.Join(completionShells, ", "))
	}
	root := c.commandTree(new(int), true)
	desc := !*noDesc
	var b bytes.Buffer
	var err error
	switch shell := cl.args[0]; shell {
	case "bash":
		err = root.GenBashCompletionV2(&b, desc)
	case "zsh":
		if desc {
			err = root.GenZshCompletion(&b)
		} else {
			err = root.GenZshCompletionNoDesc(&b)
		}
	case "fish":
		err = root.GenFishCompletion(&b, desc)
	case "powershell":
		if desc {
			err = root.GenPowerShellCompletionWithDesc(&b)
		} else {
			err = root.GenPowerShellCompletion(&b)
		}
	default:
		return usageErr("unknown shell %s%s; the shells: %s", quoteCut(shell), didYouMean(shell, completionShells, ""), strings.Join(completionShells, ", "))
	}
	if err == nil {
		_, err = c.stdout.Write(b.Bytes())
	}
	if err != nil {
		return failErr(exitFailed, "%v", err)
	}
	return nil
}

// answerCompletion answers a completion script's request (cobra's hidden
// __complete command: lbsim __complete run --po ⇒ --policy, …), from the
// command tree with every subcommand's flags.
func (c *cli) answerCompletion(args []string) int {
	root := c.commandTree(new(int), true)
	root.SetArgs(args)
	root.SetOut(c.stdout)
	root.SetErr(io.Discard)
	if err := root.Execute(); err != nil {
		return exitFailed
	}
	return exitOK
}

// addFlags gives cmd the flags of fs, and the values of those that name a
// choice.
func addFlags(cmd *cobra.Command, fs *flag.FlagSet) {
	if fs == nil {
		return
	}
	cmd.Flags().AddGoFlagSet(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if values := flagChoices(f.Name); values != nil {
			cmd.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		} else if r := sim.RowNamed(f.Name); r != nil && r.Forms() != nil {
			cmd.RegisterFlagCompletionFunc(f.Name, formCompletions(r.Forms()))
		}
	})
}

// formCompletions completes a value of the forms given (off, fixed:,
// aimd): those that start with what was typed; a prefix that a number
// follows ("fixed:") is completed without a space after it, and once it is
// typed nothing more is offered (the number is the user's).
func formCompletions(forms []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, f := range forms {
			if strings.HasPrefix(f, typed) {
				out = append(out, f)
			} else if strings.HasSuffix(f, ":") && strings.HasPrefix(typed, f) {
				return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
			}
		}
		if len(out) > 0 && !slices.ContainsFunc(out, func(f string) bool { return !strings.HasSuffix(f, ":") }) {
			return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// flagChoices are the values of a settings flag that names a choice, or
// nil.
func flagChoices(name string) []string {
	switch name {
	case "policy":
		return sim.PolicyNames()
	case "queues":
		return sim.QueueModeNames()
	case "service":
		return sim.ServiceNames()
	}
	r := sim.RowNamed(name)
	switch {
	case r == nil:
		return nil
	case r.IsBool():
		return []string{"true", "false"}
	}
	return r.Choices()
}

// commandFlags returns the flags `lbsim WORDS… --help` lists (nil for a
// subcommand without flags), read from the subcommand itself, so that
// completions and the help cannot disagree.
func commandFlags(words ...string) *flag.FlagSet {
	var got *flag.FlagSet
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		helpFlags: func(fs *flag.FlagSet, hide []string) {
			got = flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
			fs.VisitAll(func(f *flag.Flag) {
				if !slices.Contains(hide, f.Name) {
					got.Var(f.Value, f.Name, f.Usage)
				}
			})
		}}
	for _, cmd := range commands {
		if cmd.name == words[0] && cmd.run != nil {
			cmd.run(c, append(slices.Clone(words[1:]), "--help"))
		}
	}
	return got
}

// oldSpelling matches a single-dash long flag: -seed, -seed=7.
var oldSpelling = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// modernize rewrites the single-dash long flags of a subcommand's
// arguments (-seed 7, the spelling of lbsim's first command line) as
// --seed 7, with a one-line notice on w; the flags keep working, written
// as the help and the docs write them. A value after a flag that takes
// one is left as it is, and so is everything after "--".
func modernize(w io.Writer, name string, args []string) []string {
	if !slices.ContainsFunc(args, oldSpelling.MatchString) {
		return args
	}
	words := []string{name}
	if name == "plot" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		words = append(words, args[0])
	}
	fs := commandFlags(words...)
	if fs == nil {
		return args
	}
	out := slices.Clone(args)
	var old []string
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		m := oldSpelling.FindStringSubmatch(a)
		if m == nil {
			if strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && takesValue(fs, strings.TrimPrefix(a, "--")) {
				i++ // its value
			}
			continue
		}
		if fs.Lookup(m[1]) == nil {
			continue
		}
		out[i] = "-" + a
		old = append(old, "-"+m[1])
		if m[2] == "" && takesValue(fs, m[1]) {
			i++
		}
	}
	if len(old) > 0 {
		fmt.Fprintf(w, "lbsim %s: read %s as %s: long flags take two dashes (the single dash is an old spelling)\n",
			name, strings.Join(old, ", "), "-"+strings.Join(old, ", -"))
	}
	return out
}

// takesValue reports whether fs's flag name takes a value (is no switch).
func takesValue(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
