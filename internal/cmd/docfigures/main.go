// Command docfigures rewrites the figures the docs quote that are measured
// from the tree (the default run's snapshot and link, the e2e suite's
// tests) with what they measure now (internal/docfigures); make
// docs-figures runs it from the repository's root, then render/e2e's
// tests with -update-figures for the page's sizes and start-up times.
// -check only reports, exiting 1 when a figure differs.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lbsim/lbsim/internal/docfigures"
)

func main() {
	check := flag.Bool("check", false, "only report the figures, exit 1 if one differs from its measure")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if *check {
		findings, err := docfigures.Check(*root, docfigures.Measures{})
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
	changed, err := docfigures.Update(*root, docfigures.Measures{})
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
