package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/lbsim/lbsim/version"
)

const versionHelp = `Usage: lbsim version [--json FILE|-]
       lbsim --version

Prints the version lbsim was built from: the module version ("devel" for a
build from source), the VCS revision and its time when the build recorded
them (go build records them in a git checkout unless -buildvcs=false), and
the Go toolchain. Snapshots store the same version (as "recorded by" in
lbsim replay), and the JSON of lbsim size and lbsim aggregate carry it as
lbsim_version.

Example:
  lbsim version
  lbsim version --json -

Flags:
`

// version prints the build's version (package version).
// versionCommand is lbsim version: its option (--json), flags and run
// (versionRun).
var versionCommand = subcommand[string]{
	commandSpec: commandSpec{name: "version", help: versionHelp},
	flags: func(_ *cli, jsonPath *string) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("version", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(jsonPath, "json", "", "write the version as JSON to `file` ('-' = stdout, then nothing else goes there)")
		return fs, nil
	},
	run: (*cli).versionRun,
}

func (c *cli) version(args []string) int { return runCommand(c, versionCommand, args) }

// versionRun prints the version and revision lbsim was built from, and
// writes them as JSON to jsonPath when given.
func (c *cli) versionRun(jsonPath *string, _ commandLine) error {
	in := version.Read()
	outs := outputs{stdout: c.stdout}
	var out *atomicFile
	if *jsonPath != "" {
		if err := outs.want("--json", *jsonPath, &out); err != nil {
			return usageErr("%v", err)
		}
	}
	defer outs.abort()
	if err := outs.open(); err != nil {
		return usageErr("%v", err)
	}
	if !outs.toStdout() {
		fmt.Fprintln(c.stdout, in)
	}
	if out != nil {
		c.writeJSON(struct {
			version.Info
			Short string `json:"short"`
		}{in, in.Short()}, out)
	}
	return exited(c.commit(&outs, "version"))
}

// lbsimVersion is the version the JSON reports carry as lbsim_version.
func lbsimVersion() string { return version.Short() }
