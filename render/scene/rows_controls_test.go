package scene

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// noControlYet are the changeable settings the page offers no control of
// yet, each with why; a link's set= and a loaded snapshot still change
// them. A new changeable row needs a control (its id the row's name) or a
// line here.
var noControlYet = map[string]string{}

// TestEveryChangeableRowHasAControl walks the settings table: every row
// --set may change has a control on the page (a slider, a choice or a
// panel's control whose id is the setting's name), or says in noControlYet
// why not. A control of a name the table does not hold, or one no longer
// missing, fails too.
func TestEveryChangeableRowHasAControl(t *testing.T) {
	ids := map[string]bool{}
	for _, w := range slices.Concat(widgets, clientWidgets, healthWidgets, moreWidgets) {
		ids[w.id] = true
	}
	for _, r := range sim.Rows() {
		if !r.Changeable {
			continue
		}
		why, excused := noControlYet[r.Name]
		switch {
		case !ids[r.Name] && !excused:
			t.Errorf("changeable setting %s has no control on the page: add one (its id %q) or say why in noControlYet", r.Name, r.Name)
		case ids[r.Name] && excused:
			t.Errorf("setting %s has a control now: drop it from noControlYet (%s)", r.Name, why)
		}
	}
	for name := range noControlYet {
		if r := sim.RowNamed(name); r == nil || !r.Changeable {
			t.Errorf("noControlYet names %s, no changeable setting", name)
		}
	}
}
