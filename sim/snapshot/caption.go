package snapshot

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxCaption is the most characters a snapshot's caption holds: a
// teacher's few words shown over the run (the page's caption parameter).
const MaxCaption = 280

// CheckCaption reports whether s may be a caption: valid UTF-8, at most
// MaxCaption characters, each printable (spaces included, no control or
// line-breaking characters).
func CheckCaption(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("caption: not valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(s); n > MaxCaption {
		return fmt.Errorf("caption of %d characters: at most %d allowed", n, MaxCaption)
	}
	for i, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return fmt.Errorf("caption: character %U at byte %d is not printable: only printable characters and spaces are allowed", r, i)
		}
	}
	return nil
}
