package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// limitRun runs cfg with changes for its cycles and returns the refusals
// by the limit, as "cycle:server:id" from the Error events not counted
// otherwise, and balancer 0's limits at the end of every cycle.
func limitRun(t *testing.T, cfg Config, changes ...Change) (refusals []string, limits [][]int) {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	var before int64
	for {
		n, ls := m.LimitState(0)
		limits = append(limits, ls)
		if n > before {
			for _, e := range m.Events() {
				if e.Kind == Error {
					refusals = append(refusals, fmt.Sprintf("%d:%d:%d", e.Cycle, e.Server, e.Request.ID))
				}
			}
			if int64(len(refusals)) != n {
				t.Fatalf("cycle %d: %d refusals counted, %d error events", m.Cycle(), n, len(refusals))
			}
		}
		before = n
		if !m.Step() {
			break
		}
	}
	if s := m.Summary(); !s.Consistent {
		t.Errorf("the books do not hold: %+v", s)
	}
	return refusals, limits
}

// TestFixedLimitHandTrace: requests of 5 cycles. Pooled, one server,
// fixed:2: at cycle 0 #1 and #2 are queued (in flight 0, then 1) and #3
// is refused (2 queued); #1 is dispatched; at 1, #4 finds #2 queued and
// #1 in service: refused; at 5 #1 has completed (step a comes first) and
// #5 is taken. Per-server, two servers, round-robin, fixed:1: #1 → 1 and
// #2 → 2 are queued, #3 → 1 and #4 → 2 find one queued each; after
// dispatch #5 → 1 finds one in service; at 5 both have completed and #6
// → 2 is taken. The round-robin pointer moves on past a refusal (the
// policy picked before the limit refused).
func TestFixedLimitHandTrace(t *testing.T) {
	tests := []struct {
		name    string
		queues  QueueMode
		servers int
		limit   int
		rows    []TraceRow
		want    []string
	}{
		{"pooled", Pooled, 1, 2, []TraceRow{row(0, 5), row(0, 5), row(0, 5), row(1, 5), row(5, 5)}, []string{"0:0:3", "1:0:4"}},
		{"per-server", PerServer, 2, 1, []TraceRow{row(0, 5), row(0, 5), row(0, 5), row(0, 5), row(1, 5), row(5, 5)}, []string{"0:1:3", "0:2:4", "1:1:5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := traceConfig(tc.servers, 20, tc.rows...)
			cfg.Queues, cfg.ConcurrencyLimit = tc.queues, tc.limit
			if tc.queues == PerServer {
				cfg.Policy = RoundRobin
			}
			got, _ := limitRun(t, cfg)
			if !slices.Equal(got, tc.want) {
				t.Errorf("refusals %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAIMDHandTrace follows an adaptive limit cycle by cycle (the limits
// at the end of cycles 0, 1, 2, …). One server, requests of 2 cycles,
// four at cycle 0, so endings at 2, 4, 6, 8 with 3, 2, 1, 0 queued
// behind: in flight just before each ends 4, 3, 2, 1.
//   - from 4: 4 ≥ ⌈4/2⌉ → 5; 3 ≥ ⌈5/2⌉ → 6; 2 < 3 and 1 < 3 stay.
//   - the same capped at 5: 5, then 5.
//   - latency bound 3 (each joined at 0): #1 took 2 → 5; #2 took 4 →
//     ⌊9·5/10⌋ = 4; #3 took 6 → 3; #4 took 8 → 2.
//   - the same with a floor of 3: the last decrease stops at 3.
//
// Two servers and three requests, from 5: at 2 server 1's ending sees
// 1 queued + 2 in service = 3 ≥ 3 → 6; server 2's, after it, sees 2 < 3
// (the ending already processed no longer counts) → 6. Requests of one
// cycle, a fail fault on the server at 1: #1 completes at 1 with 2 in
// flight < ⌈5/2⌉ (it was dispatched healthy), #2 is dispatched failing
// and ends in error at 2 (fail-time 1): 5 → ⌊45/10⌋ = 4.
func TestAIMDHandTrace(t *testing.T) {
	four := []TraceRow{row(0, 2), row(0, 2), row(0, 2), row(0, 2)}
	fail := []Change{{Cycle: 1, Setting: SetFail, Value: int64(MakeServerRef(0, 1))}}
	tests := []struct {
		name            string
		servers         int
		rows            []TraceRow
		initial, lo, hi int
		latency         int64
		changes         []Change
		want            []int // the limit at the end of cycles 0, 1, …
		wantRefused     []string
	}{
		{"increase", 1, four, 4, 1, 6, 0, nil, []int{4, 4, 5, 5, 6, 6, 6, 6, 6, 6}, nil},
		{"increase capped", 1, four, 4, 1, 5, 0, nil, []int{4, 4, 5, 5, 5, 5, 5, 5, 5, 5}, nil},
		{"decrease by latency", 1, four, 4, 1, 6, 3, nil, []int{4, 4, 5, 5, 4, 4, 3, 3, 2, 2}, nil},
		{"decrease floored", 1, four, 4, 3, 6, 3, nil, []int{4, 4, 5, 5, 4, 4, 3, 3, 3, 3}, nil},
		{"same cycle, id order", 2, []TraceRow{row(0, 2), row(0, 2), row(0, 2)}, 5, 1, 10, 0, nil, []int{5, 5, 6, 6, 6, 6}, nil},
		{"decrease by error", 1, []TraceRow{row(0, 1), row(0, 1)}, 5, 1, 10, 0, fail, []int{5, 5, 4, 4}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := traceConfig(tc.servers, int64(len(tc.want)-1), tc.rows...)
			cfg.ConcurrencyLimit, cfg.LimitInitial, cfg.LimitMin, cfg.LimitMax, cfg.LimitLatency = LimitAIMD, tc.initial, tc.lo, tc.hi, tc.latency
			refused, limits := limitRun(t, cfg, tc.changes...)
			var got []int
			for _, ls := range limits {
				got = append(got, ls[0])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("limits %v, want %v", got, tc.want)
			}
			if !slices.Equal(refused, tc.wantRefused) {
				t.Errorf("refusals %v, want %v", refused, tc.wantRefused)
			}
		})
	}
}

// TestAIMDPerServerHandTrace: each server keeps its own limit. Two
// servers, round-robin, from 2: #1, #3 → 1 and #2 → 2 at cycle 0 (#3
// finds 1 in flight < 2); #4 → 2 at 0 finds 1 < 2 too; #5 → 1 finds 2:
// refused. Requests of 3 cycles: at 3 server 1 ends #1 with 2 in flight
// (≥ ⌈2/2⌉) → 3, server 2 ends #2 with 2 → 3; at 6 each ends its last
// with 1 in flight, 1 < 2: both stay 3. A server added later would start
// at 2 (TestAIMDNewServerStartsAtInitial).
func TestAIMDPerServerHandTrace(t *testing.T) {
	cfg := traceConfig(2, 7, row(0, 3), row(0, 3), row(0, 3), row(0, 3), row(0, 3))
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	cfg.ConcurrencyLimit, cfg.LimitInitial = LimitAIMD, 2
	refused, limits := limitRun(t, cfg)
	if want := []string{"0:1:5"}; !slices.Equal(refused, want) {
		t.Errorf("refusals %v, want %v", refused, want)
	}
	want := [][]int{{2, 2}, {2, 2}, {2, 2}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}}
	if !slices.EqualFunc(limits, want, slices.Equal) {
		t.Errorf("limits %v, want %v", limits, want)
	}
}

// TestAIMDNewServerStartsAtInitial: a server added by scaling starts at
// limit-initial whatever the others' limits have become, and keeps its
// own from then on.
func TestAIMDNewServerStartsAtInitial(t *testing.T) {
	var rows []TraceRow
	for c := range int64(40) {
		rows = append(rows, row(c, 3), row(c, 3))
	}
	cfg := traceConfig(1, 40, rows...)
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	cfg.ConcurrencyLimit, cfg.LimitInitial, cfg.LimitMax = LimitAIMD, 2, 50
	cfg.MaxServers, cfg.ScaleUp, cfg.Cooldown = 2, 1, 20
	_, limits := limitRun(t, cfg)
	at20, end := limits[20], limits[len(limits)-1]
	if len(at20) != 2 || at20[1] != 2 || at20[0] <= 2 {
		t.Errorf("limits at 20 %v: want server 1 grown above 2 and the new server 2 at 2", at20)
	}
	if end[1] <= 2 {
		t.Errorf("limits at the end %v: server 2 should have grown on its own", end)
	}
}

// TestLimitSummary: limit_final is the pool's limit, or the mean, least
// and most of the live servers' limits; all 0 with no limit.
func TestLimitSummary(t *testing.T) {
	cfg := traceConfig(2, 7, row(0, 3), row(0, 3), row(0, 3), row(0, 3), row(0, 3))
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	s := limitSummary(t, cfg)
	if s != [3]float64{0, 0, 0} {
		t.Errorf("no limit: %v, want zeros", s)
	}
	cfg.ConcurrencyLimit = 7
	if s := limitSummary(t, cfg); s != [3]float64{7, 7, 7} {
		t.Errorf("fixed:7: %v", s)
	}
	cfg.ConcurrencyLimit, cfg.LimitInitial, cfg.Trace = LimitAIMD, 2, []TraceRow{row(0, 3), row(0, 3), row(0, 3)}
	// Server 1 ends #1 with 2 in flight → 3; server 2 ends #2 with 1 < 1? no: 1 ≥ ⌈2/2⌉ → 3; #3 at 6 with 1 < 2: 3.
	if s := limitSummary(t, cfg); s != [3]float64{3, 3, 3} {
		t.Errorf("aimd: %v", s)
	}
	cfg.Trace = []TraceRow{row(0, 3), row(0, 3), row(0, 3), row(1, 3)}
	cfg.LimitInitial = 4
	// Server 1: #1 ends at 3 with 2 in flight ≥ 2 → 5; #3 at 6 with 1 < 3: 5. Server 2: #2 at 3
	// with #4 queued, 2 ≥ 2 → 5; #4 at 6 with 1: 5. Then only server 1 grows in the case below.
	if s := limitSummary(t, cfg); s != [3]float64{5, 5, 5} {
		t.Errorf("aimd: %v", s)
	}
	cfg.Trace = []TraceRow{row(0, 3), row(0, 3), row(0, 3)}
	if s := limitSummary(t, cfg); s != [3]float64{4.5, 4, 5} {
		t.Errorf("aimd, server 1 grown once: %v, want mean 4.5 of 4 and 5", s)
	}
}

func limitSummary(t *testing.T, cfg Config) [3]float64 {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	s := m.Summary()
	return [3]float64{s.LimitFinal, float64(s.LimitFinalMin), float64(s.LimitFinalMax)}
}

// TestLimitRefusalRetries: a refused attempt ends in error and the retry
// rules apply to it (a retry is routed, and checked, again); the
// refusals move no server's run of errors, so eject-after 1 ejects
// nobody.
func TestLimitRefusalRetries(t *testing.T) {
	cfg := traceConfig(1, 30, row(0, 5), row(0, 5))
	cfg.ConcurrencyLimit, cfg.Retries, cfg.Backoff, cfg.EjectAfter = 1, 1, 10, 1
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	refused, _ := limitRun(t, cfg)
	if want := []string{"0:1:2"}; !slices.Equal(refused, want) {
		t.Errorf("refusals %v, want %v", refused, want)
	}
	m, _ := New(cfg)
	m.Run()
	s := m.Summary()
	if s.Completed != 2 || s.Retries != 1 || s.Errors != 1 || s.Limited != 1 || s.Ejections != 0 || !s.Consistent {
		t.Errorf("completed %d retries %d errors %d limited %d ejections %d consistent %v: want 2, 1, 1, 1, 0, true",
			s.Completed, s.Retries, s.Errors, s.Limited, s.Ejections, s.Consistent)
	}
}

// TestLimitTimelineColumns: the timeline's overload group is on with any
// concurrency limit, and its limited column counts the cycle's refusals.
func TestLimitTimelineColumns(t *testing.T) {
	cfg := traceConfig(1, 5, row(0, 5), row(0, 5), row(1, 5), row(1, 5))
	if TimelineColumns(&cfg, nil).Overload {
		t.Error("no limit: the overload columns are on")
	}
	cfg.ConcurrencyLimit = 1
	cols := TimelineColumns(&cfg, nil)
	if !cols.Overload {
		t.Fatal("fixed:1: the overload columns are off")
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Step()
	if got, want := string(m.Last().AppendRow(nil, cols)), "1,0,1,1,0,2,0,0,0,0,0,2,0,0,0,2,0"; got != want {
		t.Errorf("cycle 1's row %q, want %q (two refusals: errors 2, limited 2)", got, want)
	}
}

// TestLimitParse: the flag's values and its errors, which name the value
// and what is allowed.
func TestLimitParse(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{"off", 0, ""},
		{"aimd", LimitAIMD, ""},
		{"fixed:1", 1, ""},
		{"fixed:1000000", 1_000_000, ""},
		{"fixed:0", 0, `"0" must be a whole number from 1 to 1000000`},
		{"fixed:1000001", 0, "from 1 to 1000000"},
		{"fixed:-3", 0, "from 1 to 1000000"},
		{"fixed:", 0, "from 1 to 1000000"},
		{"fixed", 0, "is not off, fixed:L or aimd"},
		{"AIMD", 0, "is not off, fixed:L or aimd"},
		{"12", 0, "is not off, fixed:L or aimd"},
	}
	for _, tc := range tests {
		got, err := ParseConcurrencyLimit(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %d, %v; want %d", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
		case err == nil && FormatConcurrencyLimit(int64(got)) != tc.in:
			t.Errorf("%q formats back as %q", tc.in, FormatConcurrencyLimit(int64(got)))
		}
	}
	var c Config
	if err := c.Set("concurrency-limit", "fixed:0"); err == nil || !strings.Contains(err.Error(), "fixed:0") || !strings.Contains(err.Error(), "aimd") {
		t.Errorf("Set fixed:0: %v, want the value and what is allowed", err)
	}
}

// FuzzParseConcurrencyLimit: any text either parses to a value that
// formats back to the same text and passes the row's range, or fails
// with an error naming it; nothing panics.
func FuzzParseConcurrencyLimit(f *testing.F) {
	for _, s := range []string{"off", "aimd", "fixed:1", "fixed:1000000", "fixed:0", "fixed:+5", "fixed:05", "fixed:9999999999999999999", ""} {
		f.Add(s)
	}
	r := RowNamed("concurrency-limit")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseConcurrencyLimit(s)
		if err != nil {
			if !strings.Contains(err.Error(), "off") && !strings.Contains(err.Error(), "1 to 1000000") {
				t.Fatalf("%q: error %q says nothing of what is allowed", s, err)
			}
			return
		}
		if r.checkValue(int64(v), false) != nil {
			t.Fatalf("%q parsed to %d, outside the row's range", s, v)
		}
		if back, err := ParseConcurrencyLimit(FormatConcurrencyLimit(int64(v))); err != nil || back != v {
			t.Fatalf("%q → %d → %q → %d, %v", s, v, FormatConcurrencyLimit(int64(v)), back, err)
		}
	})
}

// genLimit draws a concurrency limit a sixth of the time: a fixed one
// from 1 to most, or an adaptive one (its start and bounds, then, from
// genRest's draws of their rows). Off the rest of the time, so the
// shortcuts, which the limit gates off, keep most runs.
func genLimit(t *rapid.T, cfg *Config, most int) {
	switch rapid.IntRange(0, 11).Draw(t, "concurrencyLimit") {
	case 0:
		cfg.ConcurrencyLimit = rapid.IntRange(1, most).Draw(t, "fixedLimit")
	case 1:
		cfg.ConcurrencyLimit = LimitAIMD
	}
}

// checkLimit checks a balancer's limit state every cycle: a fixed limit
// stays as given, an adaptive one within its bounds, one per slot
// (per-server), a joined cycle noted only for abandoned work in
// service; refusals are counted among the errors.
func checkLimit(fail func(string, ...any), b *Balancer) {
	l, c := b.lim, &b.m.cfg
	if l == nil {
		if c.ConcurrencyLimit != 0 || b.tot.Limited != 0 {
			fail("no limit state with concurrency-limit %d and %d refusals", c.ConcurrencyLimit, b.tot.Limited)
		}
		return
	}
	if b.tot.Limited > b.tot.Errors {
		fail("%d refusals by the limit, but %d errors", b.tot.Limited, b.tot.Errors)
	}
	if !l.aimd {
		if l.fixed != c.ConcurrencyLimit {
			fail("fixed limit %d, configured %d", l.fixed, c.ConcurrencyLimit)
		}
		return
	}
	in := func(v int) bool { return v >= c.limitMin() && v <= c.limitMax() }
	if !b.perServer && !in(l.pool) {
		fail("the pool's limit %d outside %d..%d", l.pool, c.limitMin(), c.limitMax())
	}
	if b.perServer && len(l.per) != len(b.srv) {
		fail("%d limits for %d slots", len(l.per), len(b.srv))
	}
	for i, v := range l.per {
		if !in(int(v)) {
			fail("server %d's limit %d outside %d..%d", b.ids[i], v, c.limitMin(), c.limitMax())
		}
	}
	for id := range l.abandonedJoined {
		if b.endsOf(id) != abandons {
			fail("server %d: an abandoned attempt's joined cycle noted, but it serves no abandoned work", b.ids[id-1])
		}
	}
}

// TestLimitLittlesLaw measures where an adaptive limit settles against
// Little's law, 20 servers fixed, no wave, at 0.35 and 0.67 arrivals a
// cycle (about 0.8× and 1.5× capacity), pooled and per-server, with no
// latency bound and with R = 100 and 200. Over the second half of each
// run it asserts the law itself (mean in flight = throughput × mean
// response, within 3%: the books of a limited run must keep it) and logs
// the mean limit (the pool's, or the servers' summed) beside it, which
// is reported, never asserted: go test ./sim -run TestLimitLittlesLaw -v.
func TestLimitLittlesLaw(t *testing.T) {
	for _, q := range []QueueMode{Pooled, PerServer} {
		for _, r := range []int64{0, 100, 200} {
			for _, rate := range []Rate{350_000, 670_000} {
				cfg := DefaultConfig()
				cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 50_000, 20, 20, 20
				cfg.Rate, cfg.Wave, cfg.InitialPerServer, cfg.Queues = rate, false, 0, q
				if q == PerServer {
					cfg.Policy = RoundRobin
				}
				cfg.ConcurrencyLimit, cfg.LimitLatency = LimitAIMD, r
				limit, inflight, thr, lat, limited := littleRun(t, cfg)
				t.Logf("%-10v R=%3d rate %v: mean limit %6.1f, mean in flight %6.1f (limit ÷ in flight %.2f), throughput %.4f × response %6.1f = %6.1f, throughput × R %6.1f, limited %5.3f a cycle",
					q, r, rate, limit, inflight, limit/inflight, thr, lat, thr*lat, thr*float64(r), limited)
				if d := inflight - thr*lat; d*d > (0.03*inflight+0.5)*(0.03*inflight+0.5) {
					t.Errorf("%v R=%d rate %v: in flight %.2f, throughput × response %.2f: Little's law fails", q, r, rate, inflight, thr*lat)
				}
			}
		}
	}
}

// littleRun runs cfg and returns, over the second half of its cycles,
// the mean limit (summed over the servers), the mean attempts in flight
// (queued + in service), completions a cycle, the mean response of those
// completed, and refusals a cycle.
func littleRun(t *testing.T, cfg Config) (limit, inflight, thr, lat, limited float64) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.RunTo(cfg.Cycles / 2)
	t0 := m.Totals()
	var limSum, inSum, n int64
	for m.Step() {
		_, ls := m.LimitState(0)
		for _, l := range ls {
			limSum += int64(l)
		}
		b := m.bal[0]
		inSum += int64(b.queueLen() + b.busy)
		n++
	}
	t1 := m.Totals()
	done := t1.Completed - t0.Completed
	return float64(limSum) / float64(n), float64(inSum) / float64(n), float64(done) / float64(n),
		float64(t1.TotalResponse-t0.TotalResponse) / float64(done), float64(t1.Limited-t0.Limited) / float64(n)
}

// TestLimitForgetsRejoinings: the cycles of rejoinings (a requeue, a
// re-route, a lobby drain) are forgotten when their attempt's ending is
// sampled or its request ends, so a long run keeps none of a request
// that is done.
func TestLimitForgetsRejoinings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Policy = 3, 20_000, PerServer, LeastConnections
	cfg.Timeout, cfg.Retries, cfg.MTBF, cfg.MTTR = 150, 1, 2_000, 300
	cfg.ConcurrencyLimit, cfg.LimitLatency = LimitAIMD, 100
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for m.Step() {
		most = max(most, len(m.bal[0].lim.rejoined))
	}
	b := m.bal[0]
	live := b.queueLen() + b.busy + int(b.totals().Waiting)
	if s := m.Summary(); s.Requeued == 0 || !s.Consistent {
		t.Fatalf("requeued %d, consistent %v: the run should requeue", s.Requeued, s.Consistent)
	}
	if n := len(b.lim.rejoined); n > live {
		t.Errorf("%d rejoinings kept at the end (at most %d during the run) for %d attempts still live", n, most, live)
	}
}
