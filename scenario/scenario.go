// Package scenario reads and writes lbsim's scenario files: TOML files of
// flat `key = value` lines whose keys are the names of the settings table
// (sim.Rows, as `lbsim settings` lists them, without dashes) plus four
// keys of a run that are not settings:
//
//	set        = ["500:rate=0.9", "2000:scale-up=60"]  # changes, as --set
//	fault      = ["down:2@20", "up:2@80"]               # faults, as --fault
//	trace      = "requests.csv"                         # as --trace
//	max-queued = 5000000                                # as --max-queued
//
// A value is written as TOML likes it (servers = 20, rate = 0.6,
// wave = false, policy = "p2c") or as the text a flag takes, in quotes
// (rate = "0.6"); both read the same. A list setting takes its flag's text
// or an array (speeds = [2, 1, 0.5], speeds = "2,1,0.5"), and block, set
// and fault take an array of their repeated flag's values.
//
// A file is read within MaxSize bytes (ReadFile); its brackets nest at most
// MaxDepth deep and it holds no inline table ({…}), both checked before
// the TOML decoder reads it; tables, [[arrays of tables]] and dotted keys
// are refused with their line.
//
// Parse checks every key against the table and every value on its own as
// the command line checks it (its syntax and its range, with the row's own
// message and the file's line); checks across settings, and whether a
// setting is read at all, are the caller's, as for flags. Marshal writes
// entries in a form Parse reads back to the same entries.
//
// The package imports sim only; the command line (cmd/lbsim), the window
// (cmd/lbsim-desktop) and the page (wasm) each turn a Scenario into their
// own flags or parameters (Args, Params).
package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/lbsim/lbsim/sim"

	"github.com/lbsim/lbsim/suggest"
)

// MaxSize is the largest scenario file Parse reads, in bytes.
const MaxSize = 1 << 20

// MaxDepth is how deeply a scenario file's brackets may nest outside
// strings and comments: an array of values is one level ([[name]], two, is
// refused later with its own words), and a file deeper is refused before
// the TOML decoder reads it (which spends time and memory on every level,
// and more on inline tables, which no scenario file holds).
const MaxDepth = 2

// The keys of a run that are not rows of the settings table.
const (
	KeySet       = "set"        // changes during the run, as --set CYCLE:NAME=VALUE
	KeyFault     = "fault"      // faults, as --fault KIND:ID@CYCLE
	KeyTrace     = "trace"      // a trace file's path, as --trace
	KeyMaxQueued = "max-queued" // the bound on queued requests, as --max-queued
)

var runKeys = []string{KeySet, KeyFault, KeyTrace, KeyMaxQueued}

// Keys returns every key a scenario file may hold: the settings table's
// names in its order, then set, fault, trace and max-queued.
func Keys() []string {
	var keys []string
	for _, r := range sim.Rows() {
		keys = append(keys, r.Name)
	}
	return append(keys, runKeys...)
}

// Repeatable reports whether key takes several values (an array), each as
// one repeated flag: block, set and fault.
func Repeatable(key string) bool { return key == "block" || key == KeySet || key == KeyFault }

// IsPath reports whether key's value is a file's path (trace,
// service-file), which a reader resolves against the scenario file's
// directory.
func IsPath(key string) bool {
	if key == KeyTrace {
		return true
	}
	r := sim.RowNamed(key)
	return r != nil && r.File
}

// An Entry is one key of a scenario with its values as the command line
// writes them: one value, or one per repeated flag for a repeatable key.
type Entry struct {
	Key    string
	Values []string
	Line   int // the key's line in the file, from 1; 0 when not known
}

// A Scenario is a parsed scenario file.
type Scenario struct {
	// Name is the file's name, as messages give it.
	Name string
	// Entries hold the file's keys in the order of Keys.
	Entries []Entry
}

// Error is a problem in a scenario file: where, which key, and what is
// wrong and allowed.
type Error struct {
	File string
	Line int    // from 1; 0 when not known
	Key  string // "" for a problem of the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(At(e.File, e.Line) + ": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// At writes a place in a file for a message, FILE:LINE (FILE alone when
// line is 0): the name bare when it is plain printable text without spaces
// or colons, quoted and cut otherwise.
func At(file string, line int) string {
	name := sim.QuoteInput(file)
	if name == `"`+file+`"` && !strings.ContainsAny(file, " :") && file != "" {
		name = file
	}
	if line > 0 {
		return name + ":" + strconv.Itoa(line)
	}
	return name
}

// ReadFile reads the scenario file at path for Parse: at most MaxSize
// bytes and one more (which Parse refuses as too large), so a device or a
// pipe without end (--config /dev/zero) costs no more than that.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: want a scenario file", At(path, 0))
	}
	return io.ReadAll(io.LimitReader(f, MaxSize+1))
}

// Parse reads a scenario file called name (for messages) holding data.
// Its size and the nesting of its brackets (MaxSize, MaxDepth) are
// checked before it is decoded.
func Parse(name string, data []byte) (*Scenario, error) {
	fail := func(line int, key, format string, a ...any) (*Scenario, error) {
		return nil, &Error{File: name, Line: line, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if len(data) > MaxSize {
		return fail(0, "", "%d bytes or more: a scenario file holds at most %d", len(data), MaxSize)
	}
	if !utf8.Valid(data) {
		return fail(0, "", "not UTF-8 text: a scenario file is TOML, key = value lines")
	}
	if line, brace := tooDeep(data); brace {
		return fail(line, "", "an inline table ({…}): a scenario file is flat key = value lines, without tables")
	} else if line > 0 {
		return fail(line, "", "brackets nested more than %d deep: a scenario file is flat key = value lines, a value at most an array", MaxDepth)
	}
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fail(pe.Position.Line, "", "not TOML: %s", printable(pe.Message))
		}
		return fail(0, "", "not TOML: %s", printable(err.Error()))
	}
	s := &Scenario{Name: name}
	for _, k := range md.Keys() {
		line := lineOf(data, k)
		if len(k) != 1 {
			// A key of a table ([name] or a dotted key): nothing reads it.
			return fail(line, "", "%s is a key inside a table (a [section] or a dotted key): a scenario file is flat key = value lines, without [sections] or dots",
				sim.QuoteInput(strings.Join(k, ".")))
		}
		key := k[0]
		switch raw[key].(type) {
		case map[string]any:
			return fail(line, "", "%s is a table: a scenario file is flat key = value lines, without [sections]", sim.QuoteInput(key))
		case []map[string]any:
			return fail(line, "", "%s is an array of tables ([[%s]]): a scenario file is flat key = value lines, without [sections]", sim.QuoteInput(key), printable(key))
		}
		if !slices.Contains(Keys(), key) {
			return fail(line, "", "unknown key %s%s The keys are the settings that 'lbsim settings' lists, and %s",
				sim.QuoteInput(key), didYouMean(key, Keys()), strings.Join(runKeys, ", "))
		}
		values, err := texts(key, raw[key])
		if err == nil {
			err = check(key, values)
		}
		if err != nil {
			return fail(line, key, "%v", err)
		}
		s.Entries = append(s.Entries, Entry{Key: key, Values: values, Line: line})
	}
	order := Keys()
	slices.SortStableFunc(s.Entries, func(a, b Entry) int {
		return slices.Index(order, a.Key) - slices.Index(order, b.Key)
	})
	return s, nil
}

// tooDeep returns the line where data's brackets, outside strings and
// comments, nest deeper than MaxDepth, or where a brace opens an inline
// table (brace true); 0 when neither does. It reads strings
// as TOML does (basic ones with escapes, literal ones without, both on one
// line; multi-line ones to their closing triple quote), so text in a
// string cannot hide a bracket from it, nor a bracket in one count.
func tooDeep(data []byte) (line int, brace bool) {
	depth := 0
	line = 1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			var lines int
			i, lines = skipString(data, i)
			line += lines
		case '{':
			return line, true
		case '[':
			if depth++; depth > MaxDepth {
				return line, false
			}
		case ']':
			depth = max(depth-1, 0)
		}
	}
	return 0, false
}

// skipString returns the index of the last byte of the string that opens
// at data[i] (a quote), and the newlines it holds.
func skipString(data []byte, i int) (end, lines int) {
	q := data[i]
	triple := bytes.HasPrefix(data[i:], []byte{q, q, q})
	j := i + 1
	if triple {
		j = i + 3
	}
	for ; j < len(data); j++ {
		switch c := data[j]; {
		case c == '\\' && q == '"' && (triple || j+1 < len(data) && data[j+1] != '\n'):
			if j+1 < len(data) && data[j+1] == '\n' {
				lines++ // a multi-line string's line-ending backslash
			}
			j++ // the escaped byte
		case c == '\n':
			if !triple {
				return j - 1, lines // an unclosed string ends with its line
			}
			lines++
		case c == q && !triple:
			return j, lines
		case c == q && bytes.HasPrefix(data[j:], []byte{q, q, q}):
			for j+3 < len(data) && data[j+3] == q { // up to two quotes end the text
				j++
			}
			return j + 2, lines
		}
	}
	return len(data) - 1, lines
}

// printable escapes the control characters of a message that quotes the
// file (the TOML parser's do, raw), so none reaches a terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, `\x%02x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// texts turns a TOML value into the values a flag would take.
func texts(key string, v any) ([]string, error) {
	if list, ok := v.([]any); ok {
		var out []string
		for _, x := range list {
			t, err := text(x)
			if err != nil {
				return nil, fmt.Errorf("an item of the array %v", err)
			}
			out = append(out, t)
		}
		switch {
		case Repeatable(key):
			if len(out) == 0 {
				return nil, errors.New("an empty array: give at least one value, or leave the key out")
			}
			return splitBlock(key, out), nil
		case !IsList(key):
			return nil, fmt.Errorf("an array, and %s takes one value", key)
		}
		return []string{strings.Join(out, ",")}, nil // a list setting: speeds = [2, 1]
	}
	t, err := text(v)
	if err != nil {
		return nil, err
	}
	return splitBlock(key, []string{t}), nil
}

// splitBlock gives block's values one range each: a value may list
// several, comma-separated, as --block takes them.
func splitBlock(key string, values []string) []string {
	if key != "block" {
		return values
	}
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// IsList reports whether key is a list setting, one value that lists
// several, comma-separated (speeds, weights): a file may give it as an
// array. A list setting is a row of the settings table that holds no
// single number, reads no file, is not repeated and whose example is a
// list.
func IsList(key string) bool {
	r := sim.RowNamed(key)
	if r == nil || r.File || Repeatable(key) {
		return false
	}
	_, scalar := r.Load(&sim.Config{})
	return !scalar && strings.Contains(r.Example, ",")
}

// text writes one TOML scalar as a flag's value.
func text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("is %v: want a finite number", x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case time.Time:
		return "", errors.New("is a date or time: want a number, true or false, or a string")
	case []any:
		return "", errors.New("is an array: want a number, true or false, or a string")
	case map[string]any:
		return "", errors.New("is a table: a scenario file is flat key = value lines, without [sections]")
	}
	return "", fmt.Errorf("is a %T: want a number, true or false, or a string", v)
}

// check checks key's values on their own, as the command line checks its
// flag's: the syntax and the range, with the setting's own words.
func check(key string, values []string) error {
	switch key {
	case KeySet, KeyFault:
		parse := sim.ParseChange
		if key == KeyFault {
			parse = sim.ParseFault
		}
		for _, v := range values {
			if _, err := parse(strings.TrimSpace(v)); err != nil {
				return err // it quotes the value
			}
		}
		return nil
	case KeyTrace:
		return checkPath(values)
	case KeyMaxQueued:
		n, err := strconv.ParseInt(strings.TrimSpace(values[0]), 10, 64)
		if err != nil || n < 1 || n > sim.MaxQueuedLimit {
			return fmt.Errorf("%s is not allowed: must be a whole number from 1 to %d", sim.QuoteInput(values[0]), sim.MaxQueuedLimit)
		}
		return nil
	}
	r := sim.RowNamed(key)
	if r.File {
		return checkPath(values)
	}
	value := values[0]
	if key == "block" {
		if slices.ContainsFunc(values, func(v string) bool { return strings.TrimSpace(v) == "" }) {
			_, err := sim.ParseRange("")
			return err // an empty range, as --block says
		}
		if len(values) > 1 && slices.ContainsFunc(values, func(v string) bool { return strings.TrimSpace(v) == "none" }) {
			return errors.New("'none' blocks nothing and cannot be combined with ranges: give either ranges or none")
		}
		value = strings.Join(values, ",")
	}
	cfg := sim.DefaultConfig()
	err := cfg.Set(key, value)
	if err == nil {
		err = r.Check(&cfg)
	}
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		given := fe.Value
		if u, err := strconv.Unquote(given); err == nil {
			given = sim.QuoteInput(u) // a long value is cut, as every message cuts input
		}
		return fmt.Errorf("%s is not allowed: %s", given, fe.Allowed)
	}
	return err
}

// checkPath checks a path's value: one non-empty string.
func checkPath(values []string) error {
	if len(values) != 1 || strings.TrimSpace(values[0]) == "" {
		return errors.New("want a file's path, like \"requests.csv\" (relative to the scenario file's directory)")
	}
	return nil
}

// lineOf finds the line of key (a top-level key, or one inside tables)
// in data: a key = value line whose key, dotted or not, bare or quoted,
// starts with the key's parts, or a [table] or [[table]] header that
// does; 0 when none does.
func lineOf(data []byte, key toml.Key) int {
	line := 0
	for rest := data; len(rest) > 0; {
		var text []byte
		text, rest, _ = bytes.Cut(rest, []byte("\n"))
		line++
		t := strings.TrimSpace(string(text))
		if h, ok := strings.CutPrefix(t, "["); ok {
			h, _, _ = strings.Cut(strings.TrimLeft(h, "["), "]")
			t = h + "="
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		parts := strings.Split(k, ".")
		if len(parts) < len(key) {
			continue
		}
		match := true
		for i, p := range key {
			p2 := strings.TrimSpace(parts[i])
			if p2 != p && p2 != `"`+p+`"` && p2 != "'"+p+"'" {
				match = false
				break
			}
		}
		if match {
			return line
		}
	}
	return 0
}

// Args returns the scenario as command-line flags, --key=value, one per
// value, in the order of its entries.
func (s *Scenario) Args() []string {
	var args []string
	for _, e := range s.Entries {
		for _, v := range e.Values {
			args = append(args, "--"+e.Key+"="+v)
		}
	}
	return args
}

// Lookup returns the entry of key, or nil.
func (s *Scenario) Lookup(key string) *Entry {
	for i := range s.Entries {
		if s.Entries[i].Key == key {
			return &s.Entries[i]
		}
	}
	return nil
}

// didYouMean returns ": did you mean NAME?" for the name among names that
// given most likely meant (suggest.Nearest, as the command line's flags), or
// ".".
func didYouMean(given string, names []string) string {
	best := suggest.Nearest(given, names)
	if best == "" {
		return "."
	}
	return ": did you mean " + best + "?"
}
