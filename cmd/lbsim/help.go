package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// printFlags writes the flags of fs the way the documentation spells
// them (--name VALUE), each with its help and its default, leaving out
// the flags in hide: those the subcommand refuses although it defines
// them (compare's --timeline, size's --servers).
func printFlags(w io.Writer, fs *flag.FlagSet, hide []string) {
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(hide, f.Name) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		b, isBool := f.Value.(interface{ IsBoolFlag() bool })
		isBool = isBool && b.IsBoolFlag()
		if isBool {
			name = "" // a switch: --verbose, or --wave=false
		}
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		if f.DefValue != "" && !(isBool && f.DefValue == "false") {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// flagError describes an error of the flag package in the "--name"
// spelling the documentation uses; an unknown flag gets the nearest flag
// name fs defines, when one is near. Every subcommand reports a bad flag
// through it and adds where the help is.
func flagError(fs *flag.FlagSet, err error) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if given, name, ok := pflagUnknown(err.Error()); ok {
		return "unknown flag " + given + didYouMean(name, names, "--")
	}
	const unknown = "flag provided but not defined: "
	if name, ok := strings.CutPrefix(err.Error(), unknown); ok {
		name = strings.TrimLeft(name, "-")
		return "unknown flag --" + name + didYouMean(name, names, "--")
	}
	s := strings.Replace(err.Error(), "flag -", "flag --", 1)
	if !strings.Contains(s, "needs an argument: --") { // pflag's has both dashes already
		s = strings.Replace(s, "needs an argument: -", "needs an argument: --", 1)
	}
	return strings.Replace(s, " for -", " for --", 1)
}

// didYouMean returns ": did you mean SPELL+NAME?" for the name among names
// nearest to the one given by edit distance ("" when none is within a
// third of its length, at least 2, or when it abbreviates none), so a typo
// gets its flag or command and a word from elsewhere gets nothing. Flags
// and subcommands are suggested through it.
func didYouMean(given string, names []string, spell string) string {
	best, bestDist := "", max(2, len(given)/3)+1
	prefixOf := 0
	for _, n := range names {
		if strings.HasPrefix(n, given) {
			prefixOf++
		}
	}
	for _, n := range names {
		d := editDistance(given, n)
		if len(given) >= 3 && prefixOf == 1 && strings.HasPrefix(n, given) {
			d = min(d, 1) // an abbreviation of one name: --repl for --replications
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return ": did you mean " + spell + best + "?"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
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
