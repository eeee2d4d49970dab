// Command docfigures rewrites the figures the docs quote (the page's
// sizes, the default run's snapshot and link) with what they measure now
// (internal/docfigures); make docs-figures runs it from the repository's
// root after make web. -check only reports, exiting 1 when a figure is
// beyond its tolerance.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lbsim/lbsim/internal/docfigures"
)

func main() {
	check := flag.Bool("check", false, "only report the figures, exit 1 if one is beyond its tolerance")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if *check {
		findings, err := docfigures.Check(*root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "docfigures:", err)
			os.Exit(2)
		}
		code := 0
		for _, f := range findings {
			fmt.Println(f)
			if f.Off {
				code = 1
			}
		}
		os.Exit(code)
	}
	changed, err := docfigures.Update(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docfigures:", err)
		os.Exit(2)
	}
	for _, f := range changed {
		if f.File == "" {
			fmt.Printf("docfigures: %s: not measured: %s\n", f.Figure, f.Note)
			continue
		}
		fmt.Printf("docfigures: %s: %s: %s → %s\n", f.File, f.Figure, f.Quoted, f.Measured)
	}
}
