// Package suggest finds the name a mistyped word most likely meant, for the
// "did you mean …?" of the command line's flags and subcommands and of a
// scenario file's keys: one rule, so a typo gets the same answer wherever it
// is made.
package suggest

import "strings"

// Nearest returns the name among names nearest to given by edit distance,
// when it is within a third of given's length (at least 2 edits), or the one
// name given abbreviates (3 letters or more, the start of exactly one name:
// "repl" for "replications"); "" when there is none, so a word from
// elsewhere gets no suggestion. On a tie the first of names wins.
func Nearest(given string, names []string) string {
	best, bestDist := "", max(2, len(given)/3)+1
	prefixOf := 0
	for _, n := range names {
		if strings.HasPrefix(n, given) {
			prefixOf++
		}
	}
	for _, n := range names {
		d := Distance(given, n)
		if len(given) >= 3 && prefixOf == 1 && strings.HasPrefix(n, given) {
			d = min(d, 1) // an abbreviation of one name
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes. A word
// of more than 64 bytes is no typo of a name: its distance is its length,
// so a hostile argument costs no quadratic work.
func Distance(a, b string) int {
	if len(a) > 64 {
		return len(a)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
