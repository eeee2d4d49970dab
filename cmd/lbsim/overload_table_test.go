package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEOverloadTablesAreMeasured: the README's overload tables are
// what scripts/overload-table.sh prints: the same header lines, one row
// per line of the script's lists in its order, and every row's figures as
// the runs it names give them now (the mean over seeds 1, 2 and 3, with
// the script's flags and cycle counts, read from the script itself).
func TestREADMEOverloadTablesAreMeasured(t *testing.T) {
	script := string(readFile(t, "../../scripts/overload-table.sh"))
	readme := string(readFile(t, "../../README.md"))
	section := between(t, "README.md", readme, "## Overload", "\n## ")
	if !strings.Contains(section, "`scripts/overload-table.sh`") {
		t.Error("the README's overload section does not name scripts/overload-table.sh")
	}
	var got []string
	for _, name := range []string{"overload-table", "overload-mm1", "overload-throttle"} {
		block := between(t, "the overload section", section, "<!-- "+name+" -->\n", "<!-- /"+name+" -->")
		got = append(got, strings.Split(strings.TrimSpace(block), "\n")...)
	}
	s := parseOverloadScript(t, script)
	want := overloadRows(t, s)
	if len(got) != len(want) {
		t.Fatalf("the README's tables have %d lines, the script's %d:\n%s", len(got), len(want), strings.Join(want, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n README   %s\n measured %s", i+1, got[i], want[i])
		}
	}
}

// overloadScript is what the test reads from scripts/overload-table.sh.
type overloadScript struct {
	headers    [][]string          // each table's two header lines
	arrays     map[string][]string // base, client, mm1, failing
	cycles     map[string]string   // CYCLES, MM1_CYCLES, THROTTLE_CYCLES defaults
	loads      []string
	mechanisms []string // label, then NAME=VALUE words
	backends   []string // backend, throttle, then NAME=VALUE words
}

func parseOverloadScript(t *testing.T, script string) overloadScript {
	t.Helper()
	s := overloadScript{arrays: map[string][]string{}, cycles: map[string]string{}}
	for line := range strings.SplitSeq(script, "\n") {
		if h, ok := strings.CutPrefix(line, `echo "|`); ok {
			if strings.HasPrefix(h, "---") || strings.HasPrefix(h, "--|") {
				s.headers[len(s.headers)-1] = append(s.headers[len(s.headers)-1], "|"+strings.TrimSuffix(h, `"`))
			} else {
				s.headers = append(s.headers, []string{"|" + strings.TrimSuffix(h, `"`)})
			}
		}
		if m := regexp.MustCompile(`^(\w+)=\((.*)\)$`).FindStringSubmatch(line); m != nil {
			s.arrays[m[1]] = strings.Fields(m[2])
		}
		if m := regexp.MustCompile(`\$\{(\w*CYCLES):-(\d+)\}`).FindStringSubmatch(line); m != nil {
			s.cycles[m[1]] = m[2]
		}
		if l, ok := strings.CutPrefix(line, "for load in "); ok {
			s.loads = strings.Fields(strings.TrimSuffix(l, "; do"))
		}
	}
	s.mechanisms = strings.Split(strings.TrimSpace(between(t, "the script", script, "<<'MECHANISMS'\n", "MECHANISMS\n")), "\n")
	s.backends = strings.Split(strings.TrimSpace(between(t, "the script", script, "<<'BACKENDS'\n", "BACKENDS\n")), "\n")
	if len(s.headers) != 3 || len(s.loads) != 3 || len(s.cycles) != 3 || len(s.arrays) != 4 {
		t.Fatalf("the script's tables: headers %q, loads %q, cycles %v, arrays %v", s.headers, s.loads, s.cycles, s.arrays)
	}
	return s
}

// flagsOf turns NAME=VALUE words into flags.
func flagsOf(words []string) []string {
	var f []string
	for _, kv := range words {
		k, v, _ := strings.Cut(kv, "=")
		f = append(f, "--"+k, v)
	}
	return f
}

// overloadRuns returns the JSON summaries' numbers of lbsim run with args
// for seeds 1, 2 and 3.
func overloadRuns(t *testing.T, args ...string) []map[string]float64 {
	t.Helper()
	var rs []map[string]float64
	for _, seed := range []string{"1", "2", "3"} {
		all := append(append([]string{"run"}, args...), "--seed", seed, "--quiet", "--json", "-")
		out, errs, code := runCLI(t, "", all...)
		r, err := numbers(out)
		if code != 0 || err != nil {
			t.Fatalf("lbsim %s: exit %d, %v: %s", strings.Join(all, " "), code, err, errs)
		}
		rs = append(rs, r)
	}
	return rs
}

// meanOf is the mean of key over runs, summed in order.
func meanOf(rs []map[string]float64, key string) float64 {
	sum := 0.0
	for _, r := range rs {
		sum += r[key]
	}
	return sum / float64(len(rs))
}

// overloadRows measures the three tables as the script does.
func overloadRows(t *testing.T, s overloadScript) []string {
	t.Helper()
	a := s.arrays
	lines := append([]string{}, s.headers[0]...)
	for _, load := range s.loads {
		l, err := strconv.ParseFloat(load, 64)
		if err != nil {
			t.Fatal(err)
		}
		rate := strconv.FormatFloat(math.Round(l*0.1*1e6)/1e6, 'g', -1, 64)
		for _, m := range s.mechanisms {
			words := strings.Fields(m)
			args := append(append(append([]string{}, a["base"]...), a["client"]...), "--cycles", s.cycles["CYCLES"], "--rate", rate)
			rs := overloadRuns(t, append(args, flagsOf(words[1:])...)...)
			lines = append(lines, fmt.Sprintf("| %s× | %s | %s | %.4f | %.0f | %.0f | %.0f | %.0f |", load, words[0], strings.Join(flagsOf(words[1:]), " "),
				meanOf(rs, "goodput"), meanOf(rs, "response_p99"), meanOf(rs, "shed"), meanOf(rs, "limited"), meanOf(rs, "throttled")))
		}
	}
	lines = append(lines, s.headers[1]...)
	for _, d := range []string{"fifo", "lifo"} {
		rs := overloadRuns(t, append(append([]string{}, a["mm1"]...), "--cycles", s.cycles["MM1_CYCLES"], "--discipline", d)...)
		lines = append(lines, fmt.Sprintf("| %s | %.2f | %.0f | %.0f |", d, meanOf(rs, "avg_wait"), meanOf(rs, "wait_p50"), meanOf(rs, "wait_p99")))
	}
	lines = append(lines, s.headers[2]...)
	half, err := strconv.Atoi(s.cycles["THROTTLE_CYCLES"])
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range s.backends {
		words := strings.Fields(b)
		args := append(append(append(flagsOf(words[2:]), a["base"]...), a["client"]...), a["failing"]...)
		args = append(args, "--throttle", words[1])
		first := overloadRuns(t, append(args, "--cycles", strconv.Itoa(half))...)
		whole := overloadRuns(t, append(args, "--cycles", strconv.Itoa(2*half))...)
		diff := func(f func(map[string]float64) float64) float64 {
			return sumOf(whole, f) - sumOf(first, f)
		}
		sent := diff(func(r map[string]float64) float64 { return r["attempts"] - r["throttled"] })
		acc := diff(func(r map[string]float64) float64 { return r["attempts_completed"] })
		thr := diff(func(r map[string]float64) float64 { return r["throttled"] })
		done := diff(func(r map[string]float64) float64 { return r["completed"] })
		lines = append(lines, fmt.Sprintf("| %s | %s | %.0f | %.0f | %.2f | %.0f | %.4f |", words[0], words[1], sent/3, acc/3, sent/max(acc, 1), thr/3, done/3/float64(half)))
	}
	return lines
}

// sumOf sums f over runs in order.
func sumOf(rs []map[string]float64, f func(map[string]float64) float64) float64 {
	sum := 0.0
	for _, r := range rs {
		sum += f(r)
	}
	return sum
}
