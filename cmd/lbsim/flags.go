package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// setting is a flag that sets one field of a sim.Config through
// Config.Set, so the command line and the web page's query parameters read
// values the same way. Range checks happen later, in Config.Validate.
type setting struct {
	cfg  *sim.Config
	name string
	get  func() string
}

func (v setting) String() string {
	if v.get == nil {
		return ""
	}
	return v.get()
}

func (v setting) Set(s string) error {
	err := v.cfg.Set(v.name, s)
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return errors.New(fe.Allowed)
	}
	return err
}

// boolSetting is a setting that may be given without a value (--wave).
type boolSetting struct{ setting }

func (boolSetting) IsBoolFlag() bool { return true }

// blockList collects repeated --block values; the first replaces the
// default list and "none" blocks nothing.
type blockList struct {
	cfg  *sim.Config
	list []string
	none bool // "none" was given
}

func (v *blockList) String() string { return strings.Join(v.list, ",") }

func (v *blockList) Set(s string) error {
	isNone := strings.TrimSpace(s) == "none"
	if _, err := sim.ParseRange(s); err != nil && !isNone {
		return err
	}
	if v.none || (isNone && len(v.list) > 0) {
		return errors.New("'none' blocks nothing and cannot be combined with ranges: give either ranges or none")
	}
	if isNone {
		v.none = true
	} else {
		v.list = append(v.list, s)
	}
	return v.cfg.Set("block", strings.Join(v.list, ","))
}

// int64Flag is a plain whole-number flag with a clear message.
type int64Flag struct{ p *int64 }

// String is "" for a negative value, which stands for a default the
// flag's usage describes ("cycles/10"), so help does not print it.
func (v int64Flag) String() string {
	if v.p == nil || *v.p < 0 {
		return ""
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v int64Flag) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("want a whole number")
	}
	*v.p = n
	return nil
}

// changeList collects --set values into changes, and into set those given
// with --set (so that a message spells a fault as it was given).
type changeList struct{ changes, set *[]sim.Change }

func (v changeList) String() string { return "" }

func (v changeList) Set(s string) error {
	c, err := sim.ParseChange(s)
	if err != nil {
		return err
	}
	*v.changes = append(*v.changes, c)
	if v.set != nil {
		*v.set = append(*v.set, c)
	}
	return nil
}

// printedHelp prints text and the flags on stdout when err is a request for
// help (-h, --help), and reports whether it was.
func (c *cli) printedHelp(fs *flag.FlagSet, err error, text string) bool {
	if !errors.Is(err, flag.ErrHelp) {
		return false
	}
	fmt.Fprint(c.stdout, text)
	fs.SetOutput(c.stdout)
	fs.PrintDefaults()
	return true
}

// writeJSON writes v as indented JSON to stdout when path is "-", else to
// file (the --json output opened before the run), if any, and returns it.
func (c *cli) writeJSON(v any, path string, file *atomicFile) []byte {
	js, _ := json.MarshalIndent(v, "", "  ")
	js = append(js, '\n')
	if path == "-" {
		c.stdout.Write(js)
	} else if file != nil {
		file.w.Write(js)
	}
	return js
}

// flagError rewrites the flag package's "-name" into the "--name" spelling
// the documentation uses.
func flagError(err error) string {
	s := strings.Replace(err.Error(), "flag -", "flag --", 1)
	return strings.Replace(s, " for -", " for --", 1)
}

// unexpectedArg describes the first positional argument of a command that
// takes none; after a true/false flag it suggests the --flag=value form
// (the flag package reads "--wave false" as --wave and an argument).
func unexpectedArg(fs *flag.FlagSet, args []string) string {
	arg := fs.Arg(0)
	i := len(args) - fs.NArg()
	if _, err := strconv.ParseBool(arg); err == nil && i > 0 {
		name := strings.TrimLeft(args[i-1], "-")
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				return fmt.Sprintf("unexpected argument %s after --%s: a true/false flag takes its value with '=': --%s=%s", quoteCut(arg), name, name, arg)
			}
		}
	}
	return fmt.Sprintf("unexpected argument %s: every setting is a flag, like --servers 20", quoteCut(arg))
}

// visited returns the names of the flags given on the command line.
func visited(fs *flag.FlagSet) map[string]bool {
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	return seen
}

// quoteCut quotes text that came from a file, a link or the command line
// for a message: escaped and cut (sim.QuoteInput).
func quoteCut(s string) string { return sim.QuoteInput(s) }

// shapeFlags defines the service-shape flags, shared by lbsim run (and the
// commands that take its flags) and lbsim mmc; path receives
// --service-file's path.
func shapeFlags(fs *flag.FlagSet, cfg *sim.Config, path *string) {
	add := func(name, usage string, get func() string) {
		fs.Var(setting{cfg, name, get}, name, usage)
	}
	add("service", "processing-time distribution: "+strings.Join(sim.ServiceNames(), ", ")+";\n"+
		"uniform runs from task-min to task-max, bimodal takes task-min or (with --long-share) task-max", func() string { return cfg.Service.String() })
	add("mean-service", "mean processing time in cycles (geometric, lognormal, pareto), or the fixed one (constant); 1..50000", nil)
	add("service-cv", "lognormal: coefficient of variation (above 0, at most 10)", sim.DefaultServiceCV.String)
	add("service-shape", "pareto: shape α (above 1, at most 100); the tail is heavier as α nears 1", sim.DefaultServiceShape.String)
	add("service-max", "lognormal and pareto: the longest time a request may take (mean-service..1000000;\ndefault 1000 × mean-service, at most 1000000)", nil)
	add("long-share", "bimodal: the share of requests that take task-max (0..1)", sim.DefaultLongShare.String)
	fs.Var(serviceFile{cfg, path}, "service-file", fmt.Sprintf("empirical: a `file` of service times, one whole number of cycles (1..%d) a line,\n1..%d lines; each request takes one of them at random", sim.MaxTaskTime, sim.MaxServiceValues))
}

// serviceFile reads --service-file, the empirical shape's times.
type serviceFile struct {
	cfg  *sim.Config
	path *string
}

func (v serviceFile) String() string {
	if v.path == nil {
		return ""
	}
	return *v.path
}

func (v serviceFile) Set(s string) error {
	f, err := os.Open(s)
	if err != nil {
		return err
	}
	defer f.Close()
	vs, err := sim.ReadServiceValues(f)
	if err != nil {
		return fmt.Errorf("%s: %v", quoteCut(s), err)
	}
	v.cfg.ServiceValues, *v.path = vs, s
	return nil
}
