package sim

import (
	"slices"
	"testing"
)

// dispatchedServers runs cfg and returns the server of every dispatch.
func dispatchedServers(t *testing.T, cfg Config) []int {
	t.Helper()
	m := mustNewEvents(t, cfg)
	var got []int
	collect := func() {
		for _, e := range m.Events() {
			if e.Kind == Dispatch {
				got = append(got, e.Server)
			}
		}
	}
	collect()
	for m.Step() {
		collect()
	}
	return got
}

func TestSWRRPolicy(t *testing.T) {
	oneEachCycle := func(n int64, time uint32) []TraceRow {
		var rows []TraceRow
		for c := int64(1); c <= n; c++ {
			rows = append(rows, TraceRow{Cycle: c, Time: time})
		}
		return rows
	}
	tests := []struct {
		name    string
		weights []int
		rows    []TraceRow
		want    []int
	}{
		// Every server idle at every pick: nginx's sequence a a b a c a a.
		{"5:1:1 all idle", []int{5, 1, 1}, oneEachCycle(14, 1), []int{1, 1, 2, 1, 3, 1, 1, 1, 1, 2, 1, 3, 1, 1}},
		// Server 2 weighs 0 and never gets work; an unlisted server weighs 1.
		{"zero weight", []int{1, 0}, oneEachCycle(6, 1), []int{1, 3, 1, 3, 1, 3}},
		// Only idle servers take part: with time 2 the winner is busy at the
		// next cycle, so the others are picked among themselves.
		{"busy servers skipped", []int{5, 1, 1}, oneEachCycle(6, 2), []int{1, 2, 1, 3, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := faultConfig(3, int64(len(tt.rows)), tt.rows...)
			cfg.MinServers = 3
			cfg.Policy, cfg.Weights = SWRR, tt.weights
			if got := dispatchedServers(t, cfg); !slices.Equal(got, tt.want) {
				t.Errorf("servers %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSWRROnlyZeroWeightIdleLeavesTheQueueWaiting(t *testing.T) {
	cfg := faultConfig(2, 5, TraceRow{Cycle: 0, Time: 10}, TraceRow{Cycle: 0, Time: 10})
	cfg.MinServers = 2
	cfg.Policy, cfg.Weights = SWRR, []int{1, 0}
	m, _ := runWithFaults(t, cfg)
	if s := m.Summary(); s.Dispatched != 1 || s.FinalQueue != 1 || s.ServersIdle != 1 {
		t.Errorf("summary %+v: want one dispatched, one queued beside an idle weight-0 server", s)
	}
}
