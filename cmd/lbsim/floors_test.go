package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFloors: the model and the libraries under it (sim and its packages,
// queueing, swrr, detmath, version) never import internal/, which holds only tools
// that drive the model (sweeps, reference models, test kits, charts), so
// no import runs back up a floor.
func TestFloors(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/lbsim/lbsim/"
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		low := pkg == "sim" || strings.HasPrefix(pkg, "sim/") || pkg == "queueing" || pkg == "swrr" || pkg == "detmath" || pkg == "version"
		if !low {
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, mod+"internal/") {
				t.Errorf("%s imports %s: internal/ is for tools above the model", pkg, imp)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked %d packages of the model's floor, want sim, its packages, queueing, swrr and detmath", checked)
	}
}
