package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal writes entries as a scenario file that Parse reads back to the
// same keys and values: header (each line a comment, may be empty) first,
// then one key = value line per entry, in the order given. A value is
// written bare when TOML reads it back to the same text (20, 0.6, true),
// quoted otherwise; a repeatable key's values as an array. It fails on a
// key Parse would refuse or a value TOML cannot hold (text that is not
// UTF-8).
func Marshal(header string, entries []Entry) ([]byte, error) {
	var b strings.Builder
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
		b.WriteString("\n")
	}
	for _, e := range entries {
		if !isKey(e.Key) {
			return nil, fmt.Errorf("%s is not a key of a scenario file", strconv.Quote(e.Key))
		}
		if len(e.Values) == 0 || (!Repeatable(e.Key) && len(e.Values) > 1) {
			return nil, fmt.Errorf("%s: %d values", e.Key, len(e.Values))
		}
		b.WriteString(e.Key + " = ")
		if Repeatable(e.Key) {
			b.WriteString("[")
			for i, v := range e.Values {
				if i > 0 {
					b.WriteString(", ")
				}
				q, err := quote(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", e.Key, err)
				}
				b.WriteString(q)
			}
			b.WriteString("]\n")
			continue
		}
		v, err := value(e.Values[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.Key, err)
		}
		b.WriteString(v + "\n")
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

// value writes one value bare when TOML reads it back as the same text
// (text reads a TOML integer, float or boolean back with strconv), quoted
// otherwise.
func value(s string) (string, error) {
	switch {
	case s == "true" || s == "false":
		return s, nil
	case isInt(s):
		return s, nil
	case isFloat(s):
		return s, nil
	}
	return quote(s)
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

// quote writes s as a TOML basic string.
func quote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%s is not UTF-8 text, which a TOML file cannot hold", strconv.Quote(s))
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}
