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

// TestTimelineColumnsOff: a default run, and one whose changes touch
// only other settings, have no overload group.
func TestTimelineColumnsOff(t *testing.T) {
	cfg := DefaultConfig()
	if got := TimelineColumns(&cfg, []Change{{Cycle: 5, Setting: SetQueueCap, Value: 10}}); got.Overload {
		t.Errorf("overload group present with shedding, limits and the throttle off")
	}
}
