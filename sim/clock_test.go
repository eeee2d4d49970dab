package sim

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rows repeats a row n times.
func rows(n int, r TraceRow) []TraceRow {
	var rs []TraceRow
	for range n {
		rs = append(rs, r)
	}
	return rs
}

func cat(parts ...[]TraceRow) []TraceRow { return slices.Concat(parts...) }

// TestClock checks each rule of the clock (the package doc) on a small trace, by
// the exact event log of the run: which request, which server, which cycle.
func TestClock(t *testing.T) {
	tests := []struct {
		name    string
		servers int
		cycles  int64
		trace   []TraceRow
		setup   func(*Config)
		want    []string
		pools   map[int64]Pool // Pool() at the end of these cycles
		check   func(t *testing.T, m *Model)
	}{
		{
			name: "a request of time 1 dispatched at 0 completes at 1", servers: 1, cycles: 2,
			trace: []TraceRow{row(0, 1)},
			want:  []string{"0 arrive #1", "0 dispatch #1 s1 w0", "1 complete #1 s1"},
		},
		{
			name: "time T dispatched at t completes at t+T and waits t-arrival", servers: 1, cycles: 6,
			trace: []TraceRow{row(0, 3), row(1, 2)},
			want: []string{"0 arrive #1", "0 dispatch #1 s1 w0", "1 arrive #2",
				"3 complete #1 s1", "3 dispatch #2 s1 w2", "5 complete #2 s1"},
		},
		{
			name: "scale-up needs Q > U·S; Q = U·S does nothing", servers: 1, cycles: 3,
			trace: cat(rows(3, row(0, 10)), []TraceRow{row(2, 10)}),
			setup: func(c *Config) { c.MaxServers, c.ScaleUp = 3, 2*FactorScale },
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3", "0 dispatch #1 s1 w0",
				"2 arrive #4", "2 scale-up s2", "2 dispatch #2 s2 w2"},
		},
		{
			name: "scaling only at multiples of K and never at cycle 0", servers: 1, cycles: 10,
			trace: rows(5, row(0, 20)),
			setup: func(c *Config) { c.MaxServers, c.ScaleUp, c.Cooldown = 5, 1*FactorScale, 3 },
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3", "0 arrive #4", "0 arrive #5", "0 dispatch #1 s1 w0",
				"3 scale-up s2", "3 dispatch #2 s2 w3", "6 scale-up s3", "6 dispatch #3 s3 w6"},
		},
		{
			name: "at max servers nothing is added", servers: 2, cycles: 3,
			trace: rows(5, row(0, 5)),
			setup: func(c *Config) { c.ScaleUp = 1 * FactorScale },
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3", "0 arrive #4", "0 arrive #5",
				"0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0"},
			check: func(t *testing.T, m *Model) {
				if got := m.Totals().ScaleUps; got != 0 {
					t.Errorf("ScaleUps = %d, want 0", got)
				}
			},
		},
		{
			name: "scale-down removes the highest-id idle server, down to min", servers: 3, cycles: 9,
			trace: []TraceRow{row(0, 5)},
			setup: func(c *Config) { c.ScaleUp, c.ScaleDown, c.Cooldown = 2*FactorScale, 1*FactorScale, 2 },
			want:  []string{"0 arrive #1", "0 dispatch #1 s1 w0", "2 scale-down s3", "4 scale-down s2", "5 complete #1 s1"},
			pools: map[int64]Pool{
				2: {Live: 2, Active: 2, Busy: 1, Idle: 1},
				9: {Live: 1, Active: 1, Busy: 0, Idle: 1},
			},
		},
		{
			name: "min servers is kept", servers: 3, cycles: 3,
			setup: func(c *Config) { c.ScaleUp, c.ScaleDown, c.MinServers = 2*FactorScale, 1*FactorScale, 2 },
			want:  []string{"1 scale-down s3"},
		},
		{
			name: "scale-down prefers an idle server to a busy one of higher id", servers: 2, cycles: 3,
			trace: []TraceRow{row(0, 1), row(0, 10)},
			setup: func(c *Config) { c.ScaleUp, c.ScaleDown, c.Cooldown = 2*FactorScale, 1*FactorScale, 2 },
			want: []string{"0 arrive #1", "0 arrive #2", "0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0",
				"1 complete #1 s1", "2 scale-down s1"},
		},
		{
			name: "with none idle the highest busy server retires, leaves after its request, gets no work", servers: 2, cycles: 11,
			trace: []TraceRow{row(0, 10), row(0, 3), row(2, 1)},
			setup: func(c *Config) { c.ScaleUp, c.ScaleDown, c.Cooldown = 10*FactorScale, 2*FactorScale, 2 },
			want: []string{"0 arrive #1", "0 arrive #2", "0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0",
				"2 arrive #3", "2 retire s2", "3 complete #2 s2", "3 leave s2",
				"10 complete #1 s1", "10 dispatch #3 s1 w8", "11 complete #3 s1"},
			pools: map[int64]Pool{
				1: {Live: 2, Active: 2, Busy: 2},
				2: {Live: 2, Active: 1, Busy: 2, Retiring: 1}, // a retiring server is live and busy
				3: {Live: 1, Active: 1, Busy: 1},
			},
			check: func(t *testing.T, m *Model) {
				tot := m.Totals()
				if tot.ScaleDowns != 1 || tot.ServersMin != 1 || tot.ServersPeak != 2 {
					t.Errorf("ScaleDowns, ServersMin, ServersPeak = %d, %d, %d, want 1, 1, 2", tot.ScaleDowns, tot.ServersMin, tot.ServersPeak)
				}
				// Live at the ends of cycles 0..11: 2, 2, 2, then 1 from cycle 3
				// (server 2 left); busy: 2, 2, 2, then 1 through cycle 10 (#3
				// follows #1 at once), 0 at 11.
				if tot.ServerCycles != 3*2+9*1 || tot.BusyCycles != 3*2+8*1 {
					t.Errorf("server-cycles %d, busy %d, want 15 and 14", tot.ServerCycles, tot.BusyCycles)
				}
			},
		},
		{
			name: "server ids are never reused", servers: 2, cycles: 3,
			trace: rows(3, row(2, 5)),
			setup: func(c *Config) { c.ScaleUp, c.ScaleDown = 1*FactorScale, FactorScale/2 },
			want: []string{"1 scale-down s2", "2 arrive #1", "2 arrive #2", "2 arrive #3", "2 scale-up s3",
				"2 dispatch #1 s1 w0", "2 dispatch #2 s3 w0"},
		},
		{
			name: "no draining at the end", servers: 1, cycles: 3,
			trace: cat(rows(2, row(0, 5)), []TraceRow{row(4, 1)}),
			want:  []string{"0 arrive #1", "0 arrive #2", "0 dispatch #1 s1 w0"},
			check: func(t *testing.T, m *Model) {
				got := m.Summary()
				want := Summary{Seed: 1, Cycles: 3, InitialQueue: 2, FinalQueue: 1, Generated: 2, Admitted: 2,
					InService: 1, InFlight: 2, Attempts: 2, Dispatched: 1, ServiceCycles: 5, ServiceCount: 1, AvgService: 5, PeakQueue: 1, ServersFinal: 1, ServersBusy: 1, ServersMin: 1,
					ServersPeak: 1, ServerCycles: 4, BusyServerCycles: 4, Utilisation: 1, Balancers: 1, LoadInfo: "exact", Fleet: []FleetShare{}, Consistent: true,
					Fanout: 1, Parts: 2} // one part a request: the two admitted
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Summary() = %+v\nwant %+v", got, want)
				}
				if m.Step() || m.Cycle() != 3 || !m.Done() {
					t.Errorf("Step after the last cycle ran; Cycle() = %d", m.Cycle())
				}
			},
		},
		{
			name: "queue capacity discards at the cap and counts only queued requests", servers: 1, cycles: 1,
			trace: cat(rows(3, row(0, 5)), rows(3, row(1, 5))),
			setup: func(c *Config) { c.QueueCap = 2 },
			want: []string{"0 arrive #1", "0 arrive #2", "0 discard #3", "0 dispatch #1 s1 w0",
				"1 arrive #4", "1 discard #5", "1 discard #6"},
		},
		{
			name: "firewall rejects use no queue space; request ids count them", servers: 1, cycles: 1,
			trace: []TraceRow{row(0, 3), blockedRow(0, 3), blockedRow(1, 3), row(1, 3), row(1, 3)},
			setup: func(c *Config) { c.QueueCap, c.Blocked = 1, blocked10() },
			want: []string{"0 arrive #1", "0 reject #2", "0 dispatch #1 s1 w0",
				"1 reject #3", "1 arrive #4", "1 discard #5"},
			check: func(t *testing.T, m *Model) {
				tot := m.Totals()
				if tot.Generated != 5 || tot.Rejected != 2 || tot.Discarded != 1 || tot.Admitted != 2 || tot.InitialQueue != 1 {
					t.Errorf("Totals() = %+v, want generated 5 rejected 2 discarded 1 admitted 2 initial queue 1", tot)
				}
			},
		},
		{
			name: "first-idle gives the lowest idle id", servers: 3, cycles: 3,
			trace: []TraceRow{row(0, 2), row(0, 5), row(2, 1)},
			want: []string{"0 arrive #1", "0 arrive #2", "0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0",
				"2 complete #1 s1", "2 arrive #3", "2 dispatch #3 s1 w0", "3 complete #3 s1"},
		},
		{
			name: "round-robin starts at the lowest id and wraps", servers: 3, cycles: 3,
			trace: []TraceRow{row(0, 1), row(0, 1), row(1, 1), row(2, 1), row(2, 1)},
			setup: func(c *Config) { c.Policy = RoundRobin },
			want: []string{"0 arrive #1", "0 arrive #2", "0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0",
				"1 complete #1 s1", "1 complete #2 s2", "1 arrive #3", "1 dispatch #3 s3 w0",
				"2 complete #3 s3", "2 arrive #4", "2 arrive #5", "2 dispatch #4 s1 w0", "2 dispatch #5 s2 w0",
				"3 complete #4 s1", "3 complete #5 s2"},
		},
		{
			name: "round-robin continues after the last server given work even when it left", servers: 3, cycles: 3,
			trace: cat([]TraceRow{row(0, 3), row(0, 3), row(0, 1)}, rows(3, row(3, 5))),
			setup: func(c *Config) {
				c.Policy, c.MinServers, c.MaxServers = RoundRobin, 2, 4
				c.ScaleUp, c.ScaleDown = 1*FactorScale, FactorScale/2
			},
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3",
				"0 dispatch #1 s1 w0", "0 dispatch #2 s2 w0", "0 dispatch #3 s3 w0",
				"1 complete #3 s3", "1 scale-down s3",
				"3 complete #1 s1", "3 complete #2 s2", "3 arrive #4", "3 arrive #5", "3 arrive #6", "3 scale-up s4",
				"3 dispatch #4 s4 w0", "3 dispatch #5 s1 w0", "3 dispatch #6 s2 w0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := traceConfig(tt.servers, tt.cycles, tt.trace...)
			if tt.setup != nil {
				tt.setup(&cfg)
			}
			h := newHarness(t, cfg)
			for h.step() {
				if want, ok := tt.pools[h.m.Cycle()]; ok {
					if got := h.m.Pool(); got != want {
						t.Errorf("cycle %d: Pool() = %+v, want %+v", h.m.Cycle(), got, want)
					}
				}
			}
			if !slices.Equal(h.log, tt.want) {
				t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(h.log, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if tt.check != nil {
				tt.check(t, h.m)
			}
		})
	}
}

// TestRetiringServerView checks that a retiring server shows as retiring,
// with its request, until it leaves.
func TestRetiringServerView(t *testing.T) {
	cfg := traceConfig(2, 4, row(0, 10), row(0, 3))
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 10*FactorScale, 2*FactorScale, 2
	h := newHarness(t, cfg)
	h.stepTo(2)
	v, ok := h.m.Balancers()[0].Server(2)
	if !ok || v.State != Retiring || v.Request.ID != 2 || v.Start != 0 || v.Done != 3 || v.Remaining(2) != 1 {
		t.Fatalf("Server(2) at cycle 2 = %+v, %v; want retiring with request #2 from 0 to 3", v, ok)
	}
	h.stepTo(3)
	if v, ok := h.m.Balancers()[0].Server(2); ok {
		t.Fatalf("Server(2) at cycle 3 = %+v, want gone", v)
	}
}

// TestRandomPolicy checks that the random policy picks only idle active
// servers, spreads its picks, and is reproducible by seed.
func TestRandomPolicy(t *testing.T) {
	// Request #1 keeps its server busy the whole run; the other four
	// servers share one request of time 1 each cycle.
	trace := []TraceRow{row(0, 1000)}
	for c := int64(1); c <= 400; c++ {
		trace = append(trace, row(c, 1))
	}
	runLog := func(seed uint64) ([]string, map[int]int, int) {
		cfg := traceConfig(5, 400, trace...)
		cfg.Policy, cfg.Seed = Random, seed
		h := newHarness(t, cfg) // the shadow checks every pick is an idle active server
		h.run()
		picks := map[int]int{}
		long := 0
		for _, l := range h.log {
			var c, id, s, w int
			if n, _ := fmt.Sscanf(l, "%d dispatch #%d s%d w%d", &c, &id, &s, &w); n == 4 {
				picks[s]++
				if id == 1 {
					long = s
				}
			}
		}
		return h.log, picks, long
	}
	a, picks, long := runLog(1)
	b, _, _ := runLog(1)
	c, _, _ := runLog(2)
	if !slices.Equal(a, b) {
		t.Errorf("two runs with seed 1 differ")
	}
	if slices.Equal(a, c) {
		t.Errorf("runs with seeds 1 and 2 made the same picks")
	}
	if picks[long] != 1 {
		t.Errorf("server %d got %d requests, want 1 (it is busy the whole run)", long, picks[long])
	}
	for s := 1; s <= 5; s++ {
		if s != long && picks[s] < 60 {
			t.Errorf("server %d got %d of 400 requests, want about 100: %v", s, picks[s], picks)
		}
	}
}
