package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/scenario"
	"github.com/lbsim/lbsim/sim"
)

// configUsage is --config's help, the same in every subcommand.
const configUsage = "read settings from a scenario `file` (TOML, key = value, keys named as these flags;\n" +
	"set, fault and block take arrays); a flag given here replaces the file's value"

// configured is a command line with its scenario file (--config) read in.
type configured struct {
	path string
	// args are the file's flags (--key=value) and then the command line's.
	args []string
	// origin maps a setting the file gives, and the command line does
	// not, to where: "FILE:LINE".
	origin map[string]string
	// left are the keys the subcommand leaves out, in the file's order,
	// and why.
	left []leftOut
}

type leftOut struct{ key, why string }

// parseConfigured parses args with a flag set that define makes, and
// returns it. When args name a scenario file (--config, whose value
// define's second result points at), the file is read and define makes a
// fresh flag set that parses the file's settings as flags before args, so
// that a flag given on the command line replaces the file's value (a list,
// block, set or fault, as a whole). skip says why the subcommand leaves a
// key out ("" to take it). A flag error comes back as the flag package
// gives it (flagError spells it), and the flag set with it (for help).
func parseConfigured(args []string, define func() (*flag.FlagSet, *string), skip func(key string) string) (*flag.FlagSet, *configured, error) {
	fs, path := define()
	if err := parseFlags(fs, args); err != nil || path == nil || *path == "" {
		return fs, &configured{args: args}, err
	}
	cf, err := readConfig(*path, args, visited(fs), fs, skip)
	if err != nil {
		return fs, cf, err
	}
	fs, _ = define()
	return fs, cf, parseFlags(fs, cf.args)
}

// readConfig reads the scenario file path and puts its keys as flags
// before args, leaving out those the command line gives.
func readConfig(path string, args []string, given map[string]bool, fs *flag.FlagSet, skip func(key string) string) (*configured, error) {
	cf := &configured{path: path, origin: map[string]string{}}
	data, err := scenario.ReadFile(path) // bounded: Parse refuses a larger file
	if err != nil {
		return cf, fmt.Errorf("--config: %v", readError(path, err))
	}
	sc, err := scenario.Parse(path, data)
	if err != nil {
		return cf, fmt.Errorf("--config %v", err)
	}
	dir := filepath.Dir(path)
	for _, e := range sc.Entries {
		at := scenario.At(path, e.Line)
		if given[e.Key] {
			continue
		}
		if why := skip(e.Key); why != "" {
			cf.left = append(cf.left, leftOut{e.Key, why})
			continue
		}
		if fs.Lookup(e.Key) == nil {
			return cf, fmt.Errorf("--config %s: %s: this subcommand does not take it", at, e.Key)
		}
		cf.origin[e.Key] = at
		for _, v := range e.Values {
			if scenario.IsPath(e.Key) && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v) // relative to the file
			}
			cf.args = append(cf.args, "--"+e.Key+"="+v)
		}
	}
	cf.args = append(cf.args, args...)
	return cf, nil
}

// notice writes one line on w naming the keys of the file the subcommand
// left out, if any.
func (cf *configured) notice(w io.Writer, cmd string) {
	var parts []string
	for i, l := range cf.left {
		if i+1 < len(cf.left) && cf.left[i+1].why == l.why {
			parts = append(parts, l.key) // the reason follows the last of a run
		} else {
			parts = append(parts, l.key+" ("+l.why+")")
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "lbsim %s: --config %s: left out %s\n", cmd, scenario.At(cf.path, 0), strings.Join(parts, ", "))
	}
}

var flagInMessage = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// blame adds to an error about a setting (its message names it as --NAME,
// the first flag it names) where in the scenario file that setting was
// given, when the file gave it.
func (cf *configured) blame(msg string) string {
	if m := flagInMessage.FindStringSubmatch(msg); m != nil {
		if at, ok := cf.origin[m[1]]; ok {
			return msg + " (" + m[1] + " comes from " + at + ")"
		}
	}
	return msg
}

// savedConfig writes the scenario file of a run (--save-config): the
// settings given (on the command line or in a --config file) with their
// values, the seed (the random one drawn when none was given), the changes
// and faults (all as set, in the order given), the trace and max-queued.
// The settings left out are at their defaults, which keeps the file short
// and each line one the run reads (the unread-flag rule applies to a
// file's keys as to flags).
func savedConfig(o *runOptions, savePath string) ([]byte, error) {
	dir := "."
	if savePath != "-" {
		dir = filepath.Dir(savePath)
	}
	var es []scenario.Entry
	for _, r := range sim.Rows() {
		if !o.given[r.Name] && r.Name != "seed" {
			continue
		}
		var values []string
		switch {
		case r.File:
			values = []string{relativeTo(dir, o.servicePath)}
		case r.Name == "block":
			values = strings.Split(r.Get(&o.cfg), ",")
		default:
			values = []string{r.Get(&o.cfg)}
		}
		es = append(es, scenario.Entry{Key: r.Name, Values: values})
	}
	if len(o.changes) > 0 {
		e := scenario.Entry{Key: scenario.KeySet}
		for _, c := range o.changes {
			e.Values = append(e.Values, c.String())
		}
		es = append(es, e)
	}
	if o.tracePath != "" {
		es = append(es, scenario.Entry{Key: scenario.KeyTrace, Values: []string{relativeTo(dir, o.tracePath)}})
	}
	if o.given[scenario.KeyMaxQueued] {
		es = append(es, scenario.Entry{Key: scenario.KeyMaxQueued, Values: []string{strconv.Itoa(o.maxQueued)}})
	}
	header := "An lbsim scenario, saved by lbsim run --save-config (" + lbsimVersion() + ").\n" +
		"'lbsim run --config FILE' repeats the run: it holds the settings given, the seed and the changes;\n" +
		"every other setting is at its default."
	data, err := scenario.Marshal(header, es)
	if err != nil {
		return nil, fmt.Errorf("--save-config: %v", err)
	}
	return data, nil
}

// relativeTo writes path relative to dir when it can (a scenario file's
// paths are relative to its directory), absolute otherwise.
func relativeTo(dir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(absDir, abs); err == nil {
		return rel
	}
	return abs
}
