package sim

import "testing"

// TestClientActed checks that each count of the client side and
// detection, alone, says it acted, in the totals and the summary alike.
func TestClientActed(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Totals)
		want bool
	}{
		{"nothing", func(*Totals) {}, false},
		{"errors alone (gray failures)", func(t *Totals) { t.Errors = 3 }, false},
		{"a retry", func(t *Totals) { t.Retries = 1 }, true},
		{"a retry the budget refused", func(t *Totals) { t.GaveUpBudget = 1 }, true},
		{"a timeout while queued", func(t *Totals) { t.TimedOutQueued = 1 }, true},
		{"a timeout in service", func(t *Totals) { t.TimedOutInService = 1 }, true},
		{"an ejection", func(t *Totals) { t.Ejections = 1 }, true},
		{"a replacement", func(t *Totals) { t.Replaced = 1 }, true},
	} {
		var tot Totals
		tc.set(&tot)
		if got := tot.ClientActed(); got != tc.want {
			t.Errorf("%s: Totals.ClientActed() = %v, want %v", tc.name, got, tc.want)
		}
		if got := tot.summary(1, 10, Pool{}, 0).ClientActed(); got != tc.want {
			t.Errorf("%s: Summary.ClientActed() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
