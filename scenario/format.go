package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// Marshal writes entries as a scenario file that Parse reads back to the
// same keys and values: header (each line a comment, may be empty) first,
// then one key = value line per entry, in the order given, each written by
// the TOML encoder. A value is written as a number or true/false when TOML
// reads it back to the same text (20, 0.6, true), as a string otherwise; a
// repeatable key's values, and a list setting's (IsList: speeds = [2, 1,
// 0.5]), as an array. It fails on a key Parse would refuse or a value TOML
// cannot hold (text that is not UTF-8).
func Marshal(header string, entries []Entry) ([]byte, error) {
	var b strings.Builder
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
		b.WriteString("\n")
	}
	enc := toml.NewEncoder(&b)
	for _, e := range entries {
		if !isKey(e.Key) {
			return nil, fmt.Errorf("%s is not a key of a scenario file", strconv.Quote(e.Key))
		}
		if len(e.Values) == 0 || (!Repeatable(e.Key) && len(e.Values) > 1) {
			return nil, fmt.Errorf("%s: %d values", e.Key, len(e.Values))
		}
		for _, v := range e.Values {
			if !utf8.ValidString(v) {
				return nil, fmt.Errorf("%s: %s is not UTF-8 text, which a TOML file cannot hold", e.Key, strconv.Quote(v))
			}
		}
		var v any
		switch {
		case Repeatable(e.Key):
			v = e.Values // strings, as their flag takes them
		case IsList(e.Key) && e.Values[0] != "":
			var items []any
			for _, item := range strings.Split(e.Values[0], ",") {
				items = append(items, value(item))
			}
			v = items
		default:
			v = value(e.Values[0])
		}
		if err := enc.Encode(map[string]any{e.Key: v}); err != nil {
			return nil, fmt.Errorf("%s: %v", e.Key, err)
		}
	}
	return []byte(b.String()), nil
}

// isKey reports whether key is one Parse accepts.
func isKey(key string) bool {
	for _, k := range Keys() {
		if k == key {
			return true
		}
	}
	return false
}

// value is s as the encoder should write it: a number or a boolean when
// Parse reads that back as the same text (text reads a TOML integer, float
// or boolean back with strconv), the string otherwise.
func value(s string) any {
	switch {
	case s == "true" || s == "false":
		return s == "true"
	case isInt(s):
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	case isFloat(s):
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	return s
}

// isInt reports whether s is an int64 as strconv.FormatInt writes it
// (TOML refuses leading zeros and reads "+1" as 1).
func isInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}

// isFloat reports whether s is a decimal with a point as
// strconv.FormatFloat(…, 'f', -1, 64) writes it.
func isFloat(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && strings.Contains(s, ".") && strconv.FormatFloat(f, 'f', -1, 64) == s
}
