package main

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestREADMEChartsAreMadeByMake checks that `make docs-pictures` runs the
// lbsim commands the README shows for its sweep and charts, so the
// pictures and the table are what those commands make.
func TestREADMEChartsAreMadeByMake(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	section := between(t, "README.md", readme, "## Sweeps, intervals and charts", "\n## ")
	shown := commandLines(section, "$ ")
	mk := string(readFile(t, "../../Makefile"))
	recipe := between(t, "the Makefile", mk, "\ndocs-pictures:", "\n\n")
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

// TestREADMESizeIsMadeByMake: the README's "How many servers?" tables
// are what `make docs-size` prints, from the commands the README shows.
func TestREADMESizeIsMadeByMake(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	section := between(t, "README.md", readme, "## How many servers?", "\n## ")
	shown := commandLines(section, "$ ")
	mk := string(readFile(t, "../../Makefile"))
	recipe := between(t, "the Makefile", mk, "\ndocs-size:", "\n\n")
	var made []string
	for _, c := range commandLines(recipe, "\t") {
		c = strings.ReplaceAll(c, "$(BIN)/", "")
		c, block, _ := strings.Cut(c, " | scripts/readme-block.sh README.md ")
		if strings.HasPrefix(c, "lbsim ") {
			made = append(made, c)
			if !strings.Contains(section, "<!-- "+block+":") {
				t.Errorf("make docs-size writes the block %s, which the section lacks", block)
			}
		}
	}
	if len(shown) != 2 || !slices.Equal(shown, made) {
		t.Errorf("the README shows\n  %s\nbut make docs-size runs\n  %s", strings.Join(shown, "\n  "), strings.Join(made, "\n  "))
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

// TestDocsNameEveryListedThing: README.md, docs/cli.md and `lbsim run
// --help` each mention every policy, every --set name and every summary
// key, all read from the tables they come from, so a policy, setting or
// key added to a table without its documentation fails here.
func TestDocsNameEveryListedThing(t *testing.T) {
	help, _, code := runCLI(t, "", "run", "--help")
	if code != 0 {
		t.Fatalf("run --help: exit %d", code)
	}
	docs := map[string]string{
		"README.md":   string(readFile(t, "../../README.md")),
		"docs/cli.md": string(readFile(t, "../../docs/cli.md")),
		"run --help":  help,
	}
	keys := summaryKeys(t)
	for name, text := range docs {
		for _, list := range []struct {
			what  string
			names []string
		}{{"policy", sim.PolicyNames()}, {"--set name", sim.SettingNames()}, {"summary key", keys}} {
			if name == "run --help" && list.what == "summary key" {
				continue // the help points to the docs for the summary's keys
			}
			for _, n := range list.names {
				if !strings.Contains(text, "`"+n+"`") && !regexp.MustCompile(`\b`+regexp.QuoteMeta(n)+`\b`).MatchString(text) {
					t.Errorf("%s does not mention the %s %q", name, list.what, n)
				}
			}
		}
	}
}

// summaryKeys returns the JSON keys of a run's summary (a switch's, whose
// P and S objects hold the single balancer's keys).
func summaryKeys(t *testing.T) []string {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Cycles, cfg.Seed = 10, 1
	m, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	data, err := json.Marshal(m.Summary())
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(obj))
	if len(keys) < 20 {
		t.Fatalf("only %d summary keys: %v", len(keys), keys)
	}
	return keys
}

// TestREADMEListsEveryJSONKey: the README's paragraph on the summary's
// JSON form ("Its JSON form (`--json`) has the keys …") lists every key a
// run's summary has, each in backquotes (it had fallen 21 keys behind).
func TestREADMEListsEveryJSONKey(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	para := between(t, "README.md", readme, "Its JSON form (`--json`) has the keys", "\n\n")
	for _, k := range summaryKeys(t) {
		if !strings.Contains(para, "`"+k+"`") {
			t.Errorf("the README's list of JSON keys lacks `%s`", k)
		}
	}
}

// TestREADMEOutputsAreMadeByMake: the README's compare tables are what
// `make docs-outputs` writes: each of its commands is shown in the README
// and its output is, exactly, the block it names (run here in-process),
// so a change of the table's rows or numbers cannot leave them stale.
func TestREADMEOutputsAreMadeByMake(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	shown := strings.Join(strings.Fields(regexp.MustCompile(`\\\n\s*`).ReplaceAllString(readme, " ")), " ")
	mk := string(readFile(t, "../../Makefile"))
	recipe := between(t, "the Makefile", mk, "\ndocs-outputs:", "\n\n")
	n := 0
	for _, c := range commandLines(recipe, "\t") {
		c = strings.ReplaceAll(c, "$(BIN)/", "")
		cmd, block, ok := strings.Cut(c, " | scripts/readme-block.sh README.md ")
		if !ok || !strings.HasPrefix(cmd, "lbsim ") {
			continue
		}
		n++
		if !strings.Contains(shown, cmd) {
			t.Errorf("the README does not show the command make docs-outputs runs:\n  %s", cmd)
		}
		_, after, ok := strings.Cut(readme, "<!-- "+block+":")
		want, _, ok2 := strings.Cut(after, "<!-- /"+block+" -->")
		if !ok || !ok2 {
			t.Errorf("the README has no block %s", block)
			continue
		}
		_, want, _ = strings.Cut(want, "```\n")
		want, _, _ = strings.Cut(want, "```\n")
		got, stderr, code := runCLI(t, "", shellWords(t, cmd)[1:]...)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", cmd, code, stderr)
		} else if got != want {
			t.Errorf("the README's block %s is not what its command prints now: run make docs-outputs\n--- README\n%s--- now\n%s", block, want, got)
		}
	}
	if n < 4 {
		t.Errorf("make docs-outputs runs %d lbsim commands, want the README's 4 compare tables", n)
	}
}

// shellWords splits a command line as sh would for the simple lines the
// docs use: words separated by spaces, "…" and '…' quoting.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// between is the part of text (named name in a failure) after start, up to
// end or the end of text; the test stops when text has no start.
func between(t *testing.T, name, text, start, end string) string {
	t.Helper()
	_, part, ok := strings.Cut(text, start)
	if !ok {
		t.Fatalf("%s has no %q", name, start)
	}
	part, _, _ = strings.Cut(part, end)
	return part
}
