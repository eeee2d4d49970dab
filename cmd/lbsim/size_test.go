package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/sweep"
	"github.com/lbsim/lbsim/queueing"
)

// sizeJSON runs lbsim size with --json - and decodes its output.
func sizeJSON(t *testing.T, wantCode int, args ...string) (sizing, string) {
	t.Helper()
	out, errs, code := runCLI(t, "", append([]string{"size", "--json", "-", "--no-progress"}, args...)...)
	if code != wantCode {
		t.Fatalf("size %v: exit %d, want %d: %s", args, code, wantCode, errs)
	}
	var s sizing
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("size --json: %v\n%s", err, out)
	}
	return s, errs
}

// TestSizeAgainstErlangC: a pooled queue with geometric service at a
// constant rate is M/M/c, so the fewest servers for avg_wait ≤ W is Erlang
// C's answer c, or c + 1 where the upper bound of the simulation's interval
// is still above W. The cases keep Erlang C's wait at c − 1 well above W,
// so the whole-cycle clock (which waits a little less) cannot tip it.
func TestSizeAgainstErlangC(t *testing.T) {
	for _, tc := range []struct {
		rate, m, w string
	}{
		{"0.05", "20", "5"},   // a = 1
		{"0.1", "20", "2"},    // a = 2
		{"0.2", "20", "1"},    // a = 4
		{"0.3", "30", "3"},    // a = 9
		{"0.04", "100", "20"}, // a = 4
	} {
		t.Run(tc.rate+"/"+tc.m+"/"+tc.w, func(t *testing.T) {
			lambda, _ := strconv.ParseFloat(tc.rate, 64)
			m, _ := strconv.ParseFloat(tc.m, 64)
			w, _ := strconv.ParseFloat(tc.w, 64)
			want, err := queueing.MinServersForWait(lambda, m, w)
			if err != nil {
				t.Fatal(err)
			}
			if below, err := (queueing.MMC{Servers: want - 1, Lambda: lambda, MeanService: m}).Metrics(); err == nil && below.Wq < 1.3*w {
				t.Fatalf("the case is too close to call: Erlang C's Wq at %d servers is %g, W = %g", want-1, below.Wq, w)
			}
			s, _ := sizeJSON(t, exitOK, "--rate", tc.rate, "--service", "geometric", "--mean-service", tc.m, "--wave=false", "--block", "none",
				"--cycles", "40000", "--seed", "1", "--slo", "avg_wait<="+tc.w)
			v := s.Variants[0]
			if v.Servers != want && v.Servers != want+1 {
				t.Errorf("size says %d servers; Erlang C %d (at: %+v, below: %+v)", v.Servers, want, v.At, v.Below)
			}
			if v.Theory == nil || v.Theory.ErlangC != want {
				t.Errorf("the theory printed beside it is %+v, want Erlang C %d", v.Theory, want)
			}
		})
	}
}

// TestSizeSearch: on a monotone metric the search finds exactly the
// boundary, evaluating each pool once and about 2·log₂ c of them; above
// --max it says so; a pool where an objective holds while a larger pool
// tried fails it is reported.
func TestSizeSearch(t *testing.T) {
	for _, tc := range []struct{ boundary, max int }{
		{1, 10000}, {2, 10000}, {3, 10000}, {7, 10000}, {100, 10000}, {1000, 10000}, {4097, 10000},
		{9999, 10000}, {10000, 10000}, {5, 5}, {37, 100},
	} {
		calls := map[int]int{}
		res, err := searchPool(tc.max, func(c int) ([]bool, error) {
			calls[c]++
			return []bool{c >= tc.boundary}, nil
		})
		if err != nil || res.Servers != tc.boundary {
			t.Errorf("boundary %d: found %d (%v)", tc.boundary, res.Servers, err)
		}
		limit := 2*int(math.Ceil(math.Log2(float64(tc.boundary)))) + 2
		if len(res.Order) > limit {
			t.Errorf("boundary %d: %d evaluations %v, want at most %d", tc.boundary, len(res.Order), res.Order, limit)
		}
		for c, n := range calls {
			if n > 1 {
				t.Errorf("boundary %d: %d evaluated %d times", tc.boundary, c, n)
			}
		}
		if tc.boundary > 1 && calls[tc.boundary-1] != 1 {
			t.Errorf("boundary %d: c − 1 was not evaluated: %v", tc.boundary, res.Order)
		}
		if len(res.NonMonotone) > 0 {
			t.Errorf("boundary %d: a monotone metric reported non-monotone at %v", tc.boundary, res.NonMonotone)
		}
	}

	res, err := searchPool(300, func(c int) ([]bool, error) { return []bool{c >= 301}, nil })
	if err != nil || res.Servers != 0 || res.Order[len(res.Order)-1] != 300 {
		t.Errorf("never met up to 300: %+v %v", res, err)
	}

	// Objective A holds at 2, fails at 4 and 6, holds from 8; B holds from 5.
	res, err = searchPool(1000, func(c int) ([]bool, error) {
		return []bool{c == 2 || c >= 8, c >= 5}, nil
	})
	if err != nil || res.Servers != 8 || !slices.Equal(res.NonMonotone, []int{2}) {
		t.Errorf("non-monotone: %+v %v, want 8 servers and non-monotone at [2]", res, err)
	}

	// An error stops the search and is returned.
	if _, err := searchPool(100, func(c int) ([]bool, error) { return nil, fmt.Errorf("boom at %d", c) }); err == nil || err.Error() != "boom at 1" {
		t.Errorf("error: %v", err)
	}
}

// TestSizeNotMet: when the objectives fail up to --max, size says "not
// met up to N" and exits 1, its table and JSON written.
func TestSizeNotMet(t *testing.T) {
	s, stderr := sizeJSON(t, exitFailed, "--rate", "0.5", "--service", "geometric", "--mean-service", "20", "--wave=false",
		"--cycles", "2000", "--seed", "1", "--replications", "2", "--max", "6", "--slo", "avg_wait<=0.5")
	if v := s.Variants[0]; v.Servers != 0 || v.NotMetUpTo != 6 || v.Tried[len(v.Tried)-1] != 6 {
		t.Errorf("variant %+v: want not met up to 6", v)
	}
	if !strings.Contains(stderr, "not met up to 6") {
		t.Errorf("the table does not say it: %s", stderr)
	}
}

// TestSizeConfidenceRule: at the answer every objective's upper bound is at
// most its value, at c − 1 one is not, the table prints both, and the bound
// is the mean plus the one-sided t quantile times the standard error.
func TestSizeConfidenceRule(t *testing.T) {
	s, table := sizeJSON(t, exitOK, "--rate", "0.3", "--service", "geometric", "--mean-service", "20", "--wave=false",
		"--cycles", "5000", "--seed", "3", "--replications", "5", "--confidence", "0.9",
		"--slo", "wait_p95<=40", "--slo", "avg_wait<=5",
		"--variant", "pooled:queues=pooled", "--variant", "rr:queues=per-server,policy=round-robin")
	for _, v := range s.Variants {
		if v.Servers < 2 || len(v.At) != 2 || len(v.Below) != 2 {
			t.Fatalf("variant %s: %+v", v.Label, v)
		}
		failing := false
		for i := range v.At {
			if !(v.At[i].Upper <= v.At[i].Value) || !v.At[i].Holds {
				t.Errorf("variant %s: at %d, %s has upper bound %g > %g", v.Label, v.Servers, v.At[i].Key, v.At[i].Upper, v.At[i].Value)
			}
			failing = failing || v.Below[i].Upper > v.Below[i].Value
		}
		if !failing {
			t.Errorf("variant %s: at %d − 1 every objective holds already: %+v", v.Label, v.Servers, v.Below)
		}
		for _, b := range slices.Concat(v.At, v.Below) {
			cell := readable(b.Upper)
			if !strings.Contains(table, cell) {
				t.Errorf("the table lacks the upper bound %s: %s", cell, table)
			}
		}
		if want := (len(v.Tried)) * 5; v.Runs != want {
			t.Errorf("variant %s: %d runs for %d pools tried × 5 replications", v.Label, v.Runs, len(v.Tried))
		}
	}
	if !strings.Contains(table, "one-sided 90% t-interval") {
		t.Errorf("the rule is not printed: %s", table)
	}
	// t(0.95, 2 degrees of freedom) = 2.919986.
	mean, upper := upperBound([]float64{1, 2, 3}, 0.95)
	if mean != 2 || math.Abs(upper-(2+2.919986/math.Sqrt(3))) > 1e-5 {
		t.Errorf("upperBound(1, 2, 3) = %g, %g", mean, upper)
	}
}

// TestSizeRefusesFirst: bad objectives, a fixed pool, bounds out of range:
// exit 2 with a message that names the fault, before any run (each
// command would run for hours).
func TestSizeRefusesFirst(t *testing.T) {
	long := []string{"size", "--cycles", "1000000000", "--seed", "1"}
	slo := "--slo=avg_wait<=5"
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slo", "avg_wiat<=5"}, "avg_wiat is not a number of the run's summary; allowed: "},
		{[]string{"--slo", "consistent<=1"}, "consistent is not a number"},
		{[]string{"--slo", "wait-p99<=5"}, "is not a summary key"},
		{[]string{"--slo", "avg_wait<5"}, "want KEY<=VALUE"},
		{[]string{"--slo", "avg_wait<=fast"}, `the value "fast" is not a number`},
		{[]string{"--slo", "avg_wait<=NaN"}, "is not a number"},
		{[]string{"--slo", "avg_wait<=+Inf"}, "is not a number"},
		{[]string{"--slo", "avg_wait<=0x10"}, "is not a number"},
		{[]string{"--slo", "\x1b[2J<=5"}, "is not a summary key"},
		{[]string{}, "no --slo"},
		{[]string{slo, "--servers", "5"}, "--servers: size chooses the pool itself"},
		{[]string{slo, "--min-servers", "5"}, "--min-servers: size chooses the pool itself"},
		{[]string{slo, "--max-servers", "5"}, "--max-servers: size chooses the pool itself"},
		{[]string{slo, "--variant", "a:servers=5"}, "is not a setting a variant can change"},
		{[]string{slo, "--initial-per-server", "5"}, "--initial-per-server 5: size starts every run with an empty queue"},
		{[]string{slo, "--max", "0"}, "--max 0: want 1 to 100000"},
		{[]string{slo, "--max", "100001"}, "--max 100001: want 1 to 100000"},
		{[]string{slo, "--max", "9223372036854775807"}, "--max 9223372036854775807: want 1 to 100000"},
		{[]string{slo, "--max", "99999999999999999999"}, "--max"},
		{[]string{slo, "--replications", "1"}, "--replications 1: want 2 to 1000"},
		{[]string{slo, "--confidence", "1"}, "--confidence 1: want 0.5 to 0.9999"},
		{[]string{slo, "--confidence", "NaN"}, "--confidence NaN"},
		{[]string{slo, "--jobs", "0"}, "--jobs 0: want 1 to 1024"},
		{[]string{slo, "--timeline", filepath.Join(dir, "t.csv")}, "unknown flag --timeline"},
		{[]string{slo, "--json", dir}, "is a directory"},
		{[]string{slo, "--variant", "a:policy=nonesuch"}, "nonesuch"},
		{[]string{slo, "extra"}, "extra"},
		{[]string{slo, "--fault", "down:3@100"}, "a --fault or --set must name a server every pool has"},
	} {
		code, _, stderr := within(t, 30e9, append(slices.Clone(long), tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "lbsim size --help") {
			t.Errorf("size %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSizeHelp: --help explains the rule and the search in the project's
// words, and the subcommand is listed.
func TestSizeHelp(t *testing.T) {
	out, _, code := runCLI(t, "", "size", "--help")
	for _, want := range []string{"--slo", "one-sided", "not met up to N", "non-monotone", "Erlang C", "--replications"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("size --help (exit %d) lacks %q", code, want)
		}
	}
	if out, _, _ := runCLI(t, "", "help"); !strings.Contains(out, "lbsim size") {
		t.Error("lbsim help does not list size")
	}
}

// FuzzParseObjective: any text is refused with a message or read into a
// key of summary characters and a finite value, which prints back to the
// same objective.
func FuzzParseObjective(f *testing.F) {
	for _, s := range []string{"wait_p99<=200", "P.avg_wait<=0.5", "avg_wait<=1e3", "<=", "a<=b<=c", "x<=-0", "avg_wait <= 7 ", "\xff<=1", "a..b<=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ob, err := parseObjective(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--slo ") {
				t.Fatalf("%q: message %q does not name the flag", s, err)
			}
			return
		}
		if math.IsInf(ob.Value, 0) || math.IsNaN(ob.Value) || ob.Key == "" || !sweep.Printable(ob.Key) {
			t.Fatalf("%q: read %+v", s, ob)
		}
		again, err := parseObjective(ob.Key + "<=" + strconv.FormatFloat(ob.Value, 'g', -1, 64))
		if err != nil || again != ob {
			t.Fatalf("%q: %+v prints back as %+v (%v)", s, ob, again, err)
		}
	})
}

// TestSizeOverloaded: a pool so small that a run stops at --max-queued
// fails its objectives (shown as overloaded, null in the JSON) and the
// search goes on to the answer. With the queue bounded, the loose
// objective holds exactly where no run overloads, so c − 1 is overloaded.
func TestSizeOverloaded(t *testing.T) {
	out, stderr, code := runCLI(t, "", "size", "--json", "-", "--no-progress", "--rate", "0.5", "--service", "geometric", "--mean-service", "20",
		"--wave=false", "--block", "none", "--cycles", "4000", "--seed", "2", "--replications", "3", "--max-queued", "60",
		"--slo", "avg_wait<=1000", "--max", "16")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var raw struct {
		Variants []struct {
			Servers int
			Below   []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if v := raw.Variants[0]; v.Servers < 10 || v.Servers > 13 || v.Below[0]["overloaded"] != true || v.Below[0]["upper"] != nil {
		t.Errorf("got %+v; want 10 to 13 servers (a = 10) with c − 1 overloaded", raw.Variants)
	}
	if !strings.Contains(stderr, "overloaded") {
		t.Errorf("the table does not say overloaded: %s", stderr)
	}
}

// TestSizeIsTheRunsItStandsFor: the mean at the answer is the mean of what
// lbsim run prints for the variant's flags with a fixed pool of that size,
// an empty initial queue and the replications' seeds.
func TestSizeIsTheRunsItStandsFor(t *testing.T) {
	s, _ := sizeJSON(t, exitOK, "--rate", "0.2", "--cycles", "3000", "--seed", "7", "--replications", "2",
		"--slo", "wait_p95<=30", "--variant", "lc:queues=per-server,policy=least-connections")
	v := s.Variants[0]
	n := strconv.Itoa(v.Servers)
	sum := 0.0
	for _, seed := range []string{"7", "8"} {
		got := runJSON(t, append(slices.Clone(v.Flags), "--servers", n, "--min-servers", n, "--max-servers", n, "--seed", seed)...)
		sum += got["wait_p95"].(float64)
	}
	if mean := sum / 2; mean != v.At[0].Mean {
		t.Errorf("size's mean wait_p95 at %d servers is %g; lbsim run gives %g", v.Servers, v.At[0].Mean, mean)
	}
	if !slices.Contains(v.Flags, "--queues=per-server") || !slices.Contains(v.Flags, "--initial-per-server=0") {
		t.Errorf("flags %v", v.Flags)
	}
}
