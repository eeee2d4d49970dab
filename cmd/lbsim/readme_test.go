package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMEChartsAreMadeByMake checks that `make docs-pictures` runs the
// lbsim commands the README shows for its sweep and charts, so the
// pictures and the table are what those commands make.
func TestREADMEChartsAreMadeByMake(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	_, section, ok := strings.Cut(readme, "## Sweeps, intervals and charts")
	section, _, _ = strings.Cut(section, "\n## ")
	if !ok {
		t.Fatal("the README has no sweeps section")
	}
	shown := commandLines(section, "$ ")
	mk := string(readFile(t, "../../Makefile"))
	_, recipe, ok := strings.Cut(mk, "\ndocs-pictures:")
	recipe, _, _ = strings.Cut(recipe, "\n\n")
	if !ok {
		t.Fatal("the Makefile has no docs-pictures target")
	}
	var made []string
	for _, c := range commandLines(recipe, "\t") {
		c = strings.ReplaceAll(c, "$(BIN)/", "")
		c, _, _ = strings.Cut(c, " | scripts/readme-block.sh")
		if strings.HasPrefix(c, "lbsim ") {
			made = append(made, c)
		}
	}
	slices.Sort(shown)
	slices.Sort(made)
	if len(shown) != 4 || !slices.Equal(shown, made) {
		t.Errorf("the README shows\n  %s\nbut make docs-pictures runs\n  %s", strings.Join(shown, "\n  "), strings.Join(made, "\n  "))
	}
}

// commandLines returns the command lines that start with prefix, continuation
// lines joined and spaces collapsed.
func commandLines(text, prefix string) []string {
	text = regexp.MustCompile(`\\\n\s*`).ReplaceAllString(text, " ")
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if c, ok := strings.CutPrefix(line, prefix); ok {
			out = append(out, strings.Join(strings.Fields(c), " "))
		}
	}
	return out
}
