package sim

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// maxQuoted is how many bytes of an input QuoteInput keeps.
const maxQuoted = 64

// QuoteInput quotes text that came from a file, a link or the command line
// for a message: control characters and terminal escapes are escaped, and
// a long text is cut to its first bytes with its length noted, so a 10 MB
// field does not come back whole in an error.
func QuoteInput(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := s[:maxQuoted]
	for len(cut) > maxQuoted-utf8.UTFMax && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return strconv.Quote(cut) + fmt.Sprintf("… (%d bytes)", len(s))
}

// quoted is input text in a message: any verb prints QuoteInput of it.
type quoted string

// Format writes QuoteInput(q).
func (q quoted) Format(f fmt.State, _ rune) { io.WriteString(f, QuoteInput(string(q))) }
