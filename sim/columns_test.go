package sim

import "testing"

// TestTimelineColumnsRow checks the overload group's header and row: the
// three counters after retries, and nothing added without the group.
func TestTimelineColumnsRow(t *testing.T) {
	c := CycleStats{Cycle: 7, Queue: 3, Errors: 9, Retries: 2, Shed: 4, Limited: 3, Throttled: 2}
	for _, tc := range []struct {
		cols         Columns
		header, want string
	}{
		{Columns{}, TimelineHeader, "7,3,0,0,0,0,0,0,0,0,0,9,0,2"},
		{Columns{Overload: true}, TimelineHeader + ",shed,limited,throttled", "7,3,0,0,0,0,0,0,0,0,0,9,0,2,4,3,2"},
	} {
		if got := tc.cols.Header(); got != tc.header {
			t.Errorf("%+v: header %q, want %q", tc.cols, got, tc.header)
		}
		if got := string(c.AppendRow(nil, tc.cols)); got != tc.want {
			t.Errorf("%+v: row %q, want %q", tc.cols, got, tc.want)
		}
	}
}

// TestTimelineColumnsFollowTheSettings: the overload group is present
// when shedding is on at cycle 0 or in a scheduled change, and only then.
func TestTimelineColumnsFollowTheSettings(t *testing.T) {
	on := DefaultConfig()
	on.CodelTarget = 5
	for _, tc := range []struct {
		name    string
		cfg     Config
		changes []Change
		want    bool
	}{
		{"defaults", DefaultConfig(), nil, false},
		{"another setting changes", DefaultConfig(), []Change{{Cycle: 5, Setting: SetQueueCap, Value: 10}}, false},
		{"shedding from cycle 0", on, nil, true},
		{"shedding turned on by a change", DefaultConfig(), []Change{{Cycle: 5, Setting: SetCodelTarget, Value: 5}}, true},
		{"shedding turned off by a change", on, []Change{{Cycle: 5, Setting: SetCodelTarget, Value: 0}}, true},
	} {
		if got := TimelineColumns(&tc.cfg, tc.changes).Overload; got != tc.want {
			t.Errorf("%s: overload group %v, want %v", tc.name, got, tc.want)
		}
	}
}
