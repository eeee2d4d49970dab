package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestREADMEAutoscaleTableIsMeasured: the README's autoscaler table is
// what scripts/autoscale-table.sh prints: the same header, one row per
// line of the script's list in its order, and every row's figures as the
// runs it names give them now (the mean over seeds 1, 2 and 3).
func TestREADMEAutoscaleTableIsMeasured(t *testing.T) {
	script := string(readFile(t, "../../scripts/autoscale-table.sh"))
	readme := string(readFile(t, "../../README.md"))
	section := between(t, "README.md", readme, "## Autoscalers", "\n## ")
	if !strings.Contains(section, "`scripts/autoscale-table.sh`") {
		t.Error("the README's autoscaler section does not name scripts/autoscale-table.sh")
	}
	table := strings.Split(strings.TrimSpace(between(t, "the autoscaler section", section, "<!-- autoscale-table -->\n", "<!-- /autoscale-table -->")), "\n")
	var header []string
	for line := range strings.SplitSeq(script, "\n") {
		if h, ok := strings.CutPrefix(line, `echo "`); ok {
			header = append(header, strings.TrimSuffix(h, `"`))
		}
	}
	rows := strings.Split(strings.TrimSpace(between(t, "the script", script, "<<'ROWS'\n", "ROWS")), "\n")
	if len(header) != 2 || len(table) != len(header)+len(rows) {
		t.Fatalf("the script prints %d header lines and %d rows; the README's table has %d lines", len(header), len(rows), len(table))
	}
	for i, h := range header {
		if table[i] != h {
			t.Errorf("header line %d: README %q, script %q", i+1, table[i], h)
		}
	}
	base := []string{"run", "--servers", "40", "--rate", "2", "--timeout", "400", "--server-cost", "0.01", "--quiet", "--json", "-"}
	for i, row := range rows {
		rule, settings, _ := strings.Cut(row, " ")
		args := append(append([]string{}, base...), "--autoscaler", rule)
		for kv := range strings.FieldsSeq(settings) {
			k, v, _ := strings.Cut(kv, "=")
			args = append(args, "--"+k, v)
		}
		var servers, lo, hi, cost, events, wait, resp, goodput float64
		for _, seed := range []string{"1", "2", "3"} {
			out, errs, code := runCLI(t, "", append(args, "--seed", seed)...)
			r, err := numbers(out)
			if code != 0 || err != nil {
				t.Fatalf("lbsim %s --seed %s: exit %d, %v: %s", strings.Join(args, " "), seed, code, err, errs)
			}
			servers += r["server_cycles"] / r["cycles"]
			lo, hi, cost = lo+r["servers_min"], hi+r["servers_peak"], cost+r["cost"]
			events += r["scale_ups"] + r["scale_downs"]
			wait, resp, goodput = wait+r["wait_p95"], resp+r["response_p95"], goodput+r["goodput"]
		}
		want := fmt.Sprintf("| %s | %s | %.1f | %.0f–%.0f | %.0f | %.0f | %.0f | %.0f | %.3f |", rule, strings.ReplaceAll(settings, "=", " "),
			servers/3, lo/3, hi/3, cost/3, events/3, wait/3, resp/3, goodput/3)
		if got := table[len(header)+i]; got != want {
			t.Errorf("row %d:\n README   %s\n measured %s", i+1, got, want)
		}
	}
}

// numbers returns a JSON summary's numeric top-level keys.
func numbers(out string) (map[string]float64, error) {
	var all map[string]any
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		return nil, err
	}
	r := map[string]float64{}
	for k, v := range all {
		if f, ok := v.(float64); ok {
			r[k] = f
		}
	}
	return r, nil
}
