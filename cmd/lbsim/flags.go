package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
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
	if errors.As(err, &fe) && !strings.HasPrefix(fe.Value, `"`) {
		// A number out of its range (fanout 0), not a syntax error: worded
		// as the range check after parsing words one (fanout 65).
		return notAllowed{fe.Allowed}
	}
	if errors.As(err, &fe) {
		return errors.New(fe.Allowed)
	}
	return err
}

// notAllowed is a value that reads well but is out of its range.
type notAllowed struct{ allowed string }

func (e notAllowed) Error() string { return e.allowed }

// boolSetting is a setting that may be given without a value (--wave).
type boolSetting struct{ setting }

func (boolSetting) IsBoolFlag() bool { return true }

// blockList collects --block values, each one range or several
// comma-separated, repeated or not; the first replaces the
// default list and "none" blocks nothing.
type blockList struct {
	cfg  *sim.Config
	list []string
	none bool // "none" was given
}

func (v *blockList) String() string { return strings.Join(v.list, ",") }

func (v *blockList) Set(s string) error {
	isNone := strings.TrimSpace(s) == "none"
	if strings.TrimSpace(s) == "" {
		_, err := sim.ParseRange(s)
		return err // an empty range
	}
	if _, err := sim.ParseBlock(s); err != nil { // ranges, comma-separated, or none
		var fe *sim.FieldError
		if errors.As(err, &fe) {
			return errors.New(fe.Allowed)
		}
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

// intFlag is a whole-number flag a subcommand takes itself (--jobs,
// --max-queued): spaces around the value are ignored, as around every
// setting's, and a bad value says what is wanted.
type intFlag struct{ p *int }

func (v intFlag) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v intFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want a whole number")
	}
	*v.p = n
	return nil
}

func (intFlag) typeName() string { return "int" }

// intVar defines an intFlag with its default.
func intVar(fs *flag.FlagSet, p *int, name string, def int, usage string) {
	*p = def
	fs.Var(intFlag{p}, name, usage)
}

// floatFlag is intFlag's counterpart for a number with a fraction
// (--confidence, --precision).
type floatFlag struct{ p *float64 }

func (v floatFlag) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v floatFlag) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return errors.New("want a number, like 0.95")
	}
	*v.p = f
	return nil
}

func (floatFlag) typeName() string { return "float" }

// floatVar defines a floatFlag with its default.
func floatVar(fs *flag.FlagSet, p *float64, name string, def float64, usage string) {
	*p = def
	fs.Var(floatFlag{p}, name, usage)
}

// changeList collects --set values into changes, and into set those given
// with --set (so that a message spells a fault as it was given); named
// gets the faults that name a balancer (P: or S:), which only a switch has.
type changeList struct {
	changes, set *[]sim.Change
	named        *[]string
}

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
	if _, value, _ := strings.Cut(s, "="); c.IsFault() && strings.Contains(value, ":") && v.named != nil {
		*v.named = append(*v.named, fmt.Sprintf("--set %s names a balancer (P: or S:), which only a run with --switch has: give the server id alone, like %v", quoteCut(s), withoutBalancer(c)))
	}
	return nil
}

// printedHelp prints text and the flags on stdout when err is a request for
// help (-h, --help), and reports whether it was. The flags in hide are
// defined but refused by the subcommand, so its help leaves them out.
func (c *cli) printedHelp(fs *flag.FlagSet, err error, text string, hide ...string) bool {
	if !errors.Is(err, flag.ErrHelp) {
		return false
	}
	if c.helpFlags != nil {
		c.helpFlags(fs, hide)
		return true
	}
	fmt.Fprint(c.stdout, text)
	printFlags(c.stdout, fs, hide)
	return true
}

// writeJSON writes v as indented JSON to file, the --json output opened
// before the run ("-" is an output like any other: see outputs), if any,
// and returns it.
func (c *cli) writeJSON(v any, file *atomicFile) []byte {
	js, _ := json.MarshalIndent(v, "", "  ")
	js = append(js, '\n')
	if file != nil {
		file.w.Write(js)
	}
	return js
}

// unexpectedArg describes the first positional argument of a command that
// takes none; after a true/false flag it suggests the --flag=value form
// (the flag package reads "--wave false" as --wave and an argument).
func unexpectedArg(fs *flag.FlagSet, args []string) string {
	arg := fs.Arg(0)
	i := slices.Index(args, arg)
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

// settingFlags defines a flag for every row of the settings table that
// only accepts (all when only is nil): its help, range and default come
// from the row, and its value goes through Config.Set, as the page's query
// parameters do. blocks takes the repeatable --block; servicePath
// receives --service-file's path, which in records as an input.
func settingFlags(fs *flag.FlagSet, cfg *sim.Config, blocks *blockList, servicePath *string, in *inputFiles, only func(r *sim.Row) bool) {
	for i := range sim.Rows() {
		r := &sim.Rows()[i]
		if only != nil && !only(r) {
			continue
		}
		usage := r.Help
		if r.Range != "" {
			usage += " (" + r.Range + ")"
		}
		var get func() string
		if def := r.Default(); def != "" {
			get = func() string { return def }
		}
		switch {
		case r.File:
			fs.Var(serviceFile{cfg, inputPath{r.Name, servicePath, in}}, r.Name, "`file`: "+usage)
		case r.Name == "block":
			if blocks == nil {
				blocks = &blockList{cfg: cfg}
			}
			fs.Var(blocks, r.Name, "blocked source ranges: CIDR, a-b range or address, comma-separated (--block A,B)\nor repeated (--block A --block B); 'none' blocks nothing\n(default: "+r.Default()+";\nnone with --trace)")
		case r.Name == "policy":
			fs.Var(setting{cfg, r.Name, nil}, r.Name, policyUsage())
		case r.IsBool():
			fs.Var(boolSetting{setting{cfg, r.Name, get}}, r.Name, usage)
		default:
			fs.Var(setting{cfg, r.Name, get}, r.Name, usage)
		}
	}
}

// isShape reports whether a row is the service shape or one of its
// parameters (the flags lbsim mmc takes of the run flags).
func isShape(r *sim.Row) bool {
	return r.Name == "service" || (len(r.Needs) > 0 && r.Needs[0] == "--service" && r.Needs[1] != "uniform")
}

// inputFiles are the files a command's flags name for reading, by flag
// (--trace, --service-file): a file-reading flag (inputPath) records its
// path here as it is set, and the output layer refuses an output that
// would overwrite one (outputs.addInputs), with no list to keep by hand.
type inputFiles map[string]string

// inputPath is a flag that names a file to read: its path goes to path
// and, under the flag's name, to in.
type inputPath struct {
	name string
	path *string
	in   *inputFiles
}

func (v inputPath) String() string {
	if v.path == nil {
		return ""
	}
	return *v.path
}

func (v inputPath) Set(s string) error {
	*v.path = s
	if v.in != nil {
		if *v.in == nil {
			*v.in = inputFiles{}
		}
		(*v.in)["--"+v.name] = s
	}
	return nil
}

// readsFile marks a flag that names a file to read (fileFlagNames).
func (inputPath) readsFile() {}

// serviceFile reads --service-file, the empirical shape's times.
type serviceFile struct {
	cfg *sim.Config
	inputPath
}

func (v serviceFile) Set(s string) error {
	f, err := os.Open(s)
	if err != nil {
		return openError(s, err)
	}
	defer f.Close()
	vs, err := sim.ReadServiceValues(f)
	if err != nil {
		return fmt.Errorf("%s: %v", quoteCut(s), err)
	}
	v.cfg.ServiceValues = vs
	return v.inputPath.Set(s)
}

// openError describes a file that could not be opened, its path quoted
// and cut (a path may hold anything, escape sequences included).
func openError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", quoteCut(path), err)
}

// readError is openError for a file read by its package's reader
// (scenario.ReadFile): failing to open or read it (an *fs.PathError) is
// named with the path quoted, the reader's own refusal (a directory) is
// given as it is.
func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return openError(path, err)
	}
	return err
}
