package main

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// isPrintable reports whether s is valid UTF-8 without control characters:
// text that may be echoed to a terminal as it is.
func isPrintable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// printable returns text that came from a file, a link or the command line
// as it is when it is printable, else quoted with its control characters
// and stray bytes escaped, so that no escape sequence reaches the terminal.
// Unlike quoteCut it keeps the whole text (a table's label, bounded where
// it is read).
func printable(s string) string {
	if isPrintable(s) {
		return s
	}
	return strconv.Quote(s)
}
