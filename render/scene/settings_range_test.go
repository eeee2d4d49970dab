package scene

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestSlidersStayInTheTable: a slider of a model setting (its id is the
// setting's name) never offers a value its row of the settings table
// refuses, so a value changed on the page is one a flag could give.
func TestSlidersStayInTheTable(t *testing.T) {
	checked := 0
	for _, w := range slices.Concat(widgets, clientWidgets, healthWidgets, moreWidgets) {
		r := sim.RowNamed(w.id)
		if r == nil || w.kind != kSlider {
			continue
		}
		lo, hi, ok := r.Bounds()
		if !ok {
			continue
		}
		checked++
		if w.min < lo || w.max > hi {
			t.Errorf("slider %s offers %d..%d; the setting allows %d..%d (%s)", w.id, w.min, w.max, lo, hi, r.Range)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d sliders against the table, want the page's setting sliders (≥ 10)", checked)
	}
}
