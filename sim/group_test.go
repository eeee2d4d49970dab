package sim

import "testing"

// TestEveryRowHasAGroup holds every row of the settings table to a help
// group of its own declaring, one of Groups.
func TestEveryRowHasAGroup(t *testing.T) {
	known := map[Group]bool{}
	for _, g := range Groups() {
		if g.Title() == "" {
			t.Errorf("group %d has no title", g)
		}
		known[g] = true
	}
	for _, r := range Rows() {
		if !known[r.Group] {
			t.Errorf("setting %s has no help group (group %d): declare one with .group(GroupX) on its row", r.Name, r.Group)
		}
	}
}

// TestGroupCheckCatches shows the check above can fail: a row without
// a group is no known group, and a title outside the list is empty.
func TestGroupCheckCatches(t *testing.T) {
	var r Row
	if r.Group != GroupNone || r.Group.Title() != "" || Group(numGroups).Title() != "" || Group(-1).Title() != "" {
		t.Fatalf("a row without a group reads as group %d titled %q", r.Group, r.Group.Title())
	}
	for _, g := range Groups() {
		if g == GroupNone {
			t.Fatal("Groups lists GroupNone")
		}
	}
}
