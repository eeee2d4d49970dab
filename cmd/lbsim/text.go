package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/lbsim/lbsim/internal/sweep"
)

// printable returns text that came from a file, a link or the command line
// as it is when it is printable, else quoted with its control characters
// and stray bytes escaped, so that no escape sequence reaches the terminal.
// Unlike quoteCut it keeps the whole text (a table's label, bounded where
// it is read).
func printable(s string) string {
	if sweep.Printable(s) {
		return s
	}
	return strconv.Quote(s)
}

// counted writes n and the noun, plural unless n is 1: "1 line", "6 points".
func counted[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// maxInputLine bounds one line of a text file lbsim reads whole (a trace):
// a longer line is refused rather than read into memory.
const maxInputLine = 1 << 20

// boundedLines passes r through and fails at the first line longer than
// maxInputLine bytes, so that a file of one endless line (/dev/zero) is
// refused at once.
type boundedLines struct {
	r    io.Reader
	cur  int // bytes of the current line so far
	line int // the current line's number, from 1
}

func (b *boundedLines) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			b.cur = 0
			b.line++
			continue
		}
		if b.cur++; b.cur > maxInputLine {
			return i, fmt.Errorf("line %d is longer than %d bytes", b.line+1, maxInputLine)
		}
	}
	return n, err
}
