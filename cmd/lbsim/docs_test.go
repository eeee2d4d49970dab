package main

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the docs' generated blocks (make docs-settings)")

// TestDocsSettingsTable: the settings table in docs/cli.md is what lbsim
// settings --markdown prints, so the docs cannot drift from the table.
func TestDocsSettingsTable(t *testing.T) {
	const path = "../../docs/cli.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	open := strings.Index(doc, "<!-- settings:")
	close := strings.Index(doc, "<!-- /settings -->")
	if open < 0 || close < open {
		t.Fatalf("%s has no <!-- settings: --> … <!-- /settings --> block", path)
	}
	start := open + strings.Index(doc[open:], "\n") + 1
	want := settingsMarkdown(settingsTable())
	if got := doc[start:close]; got != want {
		if *updateDocs {
			if err := os.WriteFile(path, []byte(doc[:start]+want+doc[close:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's settings table differs from lbsim settings --markdown: run make docs-settings\n--- docs\n%s\n--- table\n%s", path, got, want)
	}
}

// TestSettingsCommand: lbsim settings --json - lists every row with the
// documented keys; the human table names every flag; a bad flag is exit 2.
func TestSettingsCommand(t *testing.T) {
	code, stdout, stderr := runArgs(t, "settings", "--json", "-")
	if code != exitOK || stderr != "" {
		t.Fatalf("settings --json -: exit %d: %s", code, stderr)
	}
	var got struct {
		Settings []map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Settings) != len(sim.Rows()) {
		t.Fatalf("%d settings, want %d", len(got.Settings), len(sim.Rows()))
	}
	for i, s := range got.Settings {
		for _, key := range []string{"name", "flag", "default", "range", "unit", "changeable", "needs", "help"} {
			if _, ok := s[key]; !ok {
				t.Errorf("setting %d (%v) lacks %q", i, s["name"], key)
			}
		}
		if _, ok := s["needs"].([]any); !ok {
			t.Errorf("setting %v: needs %v, want a list", s["name"], s["needs"])
		}
	}
	_, human, _ := runArgs(t, "settings")
	for _, r := range sim.Rows() {
		if !strings.Contains(human, "--"+r.Name+"  (") {
			t.Errorf("lbsim settings does not list --%s", r.Name)
		}
	}
	if code, _, _ := runArgs(t, "settings", "--bogus"); code != exitUsage {
		t.Errorf("settings --bogus: exit %d, want 2", code)
	}
}
