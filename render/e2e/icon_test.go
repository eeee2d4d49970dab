//go:build !js

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestPageNamesItsIcon: index.html gives its icon inline, so a browser
// does not ask the server for /favicon.ico (a 404 on every static host).
func TestPageNamesItsIcon(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`<link rel="icon" href="data:[^"]*">`).Match(b) {
		t.Error(`index.html has no inline icon (<link rel="icon" href="data:…">): browsers then fetch /favicon.ico`)
	}
}
