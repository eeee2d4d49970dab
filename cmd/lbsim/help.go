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
