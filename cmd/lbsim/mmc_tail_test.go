package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestMMCFanout: lbsim mmc --fanout K implies per-server queues, sets the
// tail theory beside the requests' measured response (20 geometric parts
// of mean 100 at low load: a request's p99 756 cycles, 20 attempts) and
// says "no closed form" where the theory does not hold; a pooled queue is
// refused with the reason.
func TestMMCFanout(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "mmc", "--servers", "200", "--rate", "0.002", "--fanout", "20", "--policy", "least-connections",
		"--cycles", "400000", "--seed", "1", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Queues string `json:"queues"`
		Tail   struct {
			Fanout  int `json:"fanout"`
			LowLoad *struct {
				RequestP99 int     `json:"request_p99"`
				PartP99    int     `json:"part_p99"`
				Attempts   float64 `json:"attempts_per_request"`
			} `json:"low_load"`
			ForkJoinWhy string `json:"fork_join_why"`
		} `json:"tail"`
		Measured struct {
			Response *struct {
				Completed int64   `json:"completed"`
				P50       int64   `json:"response_p50"`
				Attempts  float64 `json:"attempts_per_request"`
			} `json:"response"`
		} `json:"measured"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	lt, ms := r.Tail.LowLoad, r.Measured.Response
	switch {
	case r.Queues != "per-server" || r.Tail.Fanout != 20:
		t.Errorf("queues %q, fan-out %d: want per-server, 20", r.Queues, r.Tail.Fanout)
	case lt == nil || lt.RequestP99 != 756 || lt.PartP99 != 459 || lt.Attempts != 20:
		t.Errorf("low-load theory %+v: want request p99 756, part p99 459, 20 attempts", lt)
	case ms == nil || ms.Completed < 500 || ms.Attempts != 20 || ms.P50 < 300 || ms.P50 > 380:
		t.Errorf("measured %+v: want 20 attempts a request and a p50 near 337", ms)
	case !strings.Contains(r.Tail.ForkJoinWhy, "no closed form"):
		t.Errorf("fork-join: %q", r.Tail.ForkJoinWhy)
	}
	text, _, code := runCLI(t, "", "mmc", "--servers", "50", "--rate", "0.002", "--fanout", "5", "--policy", "random",
		"--cycles", "100000", "--seed", "1")
	if code != 0 || !strings.Contains(text, "Low load: no closed form: random routing") || !strings.Contains(text, "request p99 (cycles)") {
		t.Errorf("random routing: exit %d\n%s", code, text)
	}
	fork, _, code := runCLI(t, "", "mmc", "--servers", "2", "--rate", "0.005", "--fanout", "2", "--policy", "least-connections",
		"--cycles", "100000", "--seed", "1")
	if code != 0 || !strings.Contains(fork, "Every server: fork-join, Flatto–Hahn (exact)") || !strings.Contains(fork, "avg response, fork-join (cycles)          287.5") {
		t.Errorf("fork-join of 2 at ρ = 0.5: exit %d\n%s", code, fork)
	}
	if _, stderr, code := runCLI(t, "", "mmc", "--fanout", "3", "--queues", "pooled"); code != exitUsage || !strings.Contains(stderr, "--fanout") || !strings.Contains(stderr, "per-server") {
		t.Errorf("pooled fan-out: exit %d %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "mmc", "--fanout", "65"); code != exitUsage || !strings.Contains(stderr, "--fanout") {
		t.Errorf("fan-out 65: exit %d %s", code, stderr)
	}
}

// TestREADMETailTable: the README's tail-at-scale tables are
// scripts/tail-table.sh's (its header lines), and every theory figure in
// the low-load table is what lbsim mmc computes for that row with the
// script's flags.
func TestREADMETailTable(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	script := string(readFile(t, "../../scripts/tail-table.sh"))
	table := between(t, "README.md", readme, "<!-- tail-table", "<!-- /tail-table -->")
	for _, m := range regexp.MustCompile(`(?m)^echo "(\|.*\|)"$`).FindAllStringSubmatch(script, -1) {
		if !strings.Contains(table, "\n"+m[1]+"\n") {
			t.Errorf("the README's table lacks the script's header line %s", m[1])
		}
	}
	base := regexp.MustCompile(`(?m)^base=\((.*)\)$`).FindStringSubmatch(script)
	rate := regexp.MustCompile(`flags=\(--rate ([0-9.]+) --fanout "\$k"`).FindStringSubmatch(script)
	if base == nil || rate == nil {
		t.Fatal("scripts/tail-table.sh: no base=(…) line or low-load --rate")
	}
	row := regexp.MustCompile(`(?m)^\| (\d+) \| (none|after (\d+)) \| \d+ \((\d+)\) \| \d+ \((\d+)\) \| [0-9.]+ \(([0-9.]+)\) \| ([0-9.]+) \|$`)
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) < 4 {
		t.Fatalf("the README's low-load table has %d rows, want at least 4:\n%s", len(rows), table)
	}
	for _, r := range rows {
		args := append([]string{"mmc"}, strings.Fields(base[1])...)
		args = append(args, "--rate", rate[1], "--fanout", r[1], "--cycles", "100000", "--seed", "1", "--json", "-")
		if r[3] != "" {
			args = append(args, "--hedge-after", r[3])
		}
		stdout, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		var rep struct {
			Tail struct {
				LowLoad *struct {
					P50      int     `json:"request_p50"`
					P99      int     `json:"request_p99"`
					Attempts float64 `json:"attempts_per_request"`
					Within   float64 `json:"within_part_p99"`
				} `json:"low_load"`
			} `json:"tail"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Tail.LowLoad == nil {
			t.Fatalf("%v: %v, no low-load theory:\n%s", args, err, stdout)
		}
		lt := rep.Tail.LowLoad
		got := fmt.Sprintf("%d %d %.3f %.3f", lt.P50, lt.P99, lt.Attempts, lt.Within)
		if want := strings.Join(r[4:8], " "); got != want {
			t.Errorf("K = %s, hedging %s: the README says theory %s, lbsim mmc %s", r[1], r[2], want, got)
		}
	}
}

// TestMMCHedge: lbsim mmc --hedge-after implies per-server queues, runs
// the hedges and prints the hedged theory beside them: at fan-out 20 and
// low load, hedging after a part's p95 (299) puts the request p99 near
// the hedged 528 (756 unhedged) for about 1.05 attempts a part.
func TestMMCHedge(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "mmc", "--servers", "200", "--rate", "0.002", "--fanout", "20", "--hedge-after", "299",
		"--policy", "least-connections", "--cycles", "400000", "--seed", "1", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Queues string `json:"queues"`
		Tail   struct {
			HedgeAfter int `json:"hedge_after"`
			LowLoad    *struct {
				RequestP99 int     `json:"request_p99"`
				Attempts   float64 `json:"attempts_per_request"`
			} `json:"low_load"`
		} `json:"tail"`
		Measured struct {
			Response *struct {
				Completed int64   `json:"completed"`
				P99       int64   `json:"response_p99"`
				Attempts  float64 `json:"attempts_per_request"`
			} `json:"response"`
		} `json:"measured"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	lt, ms := r.Tail.LowLoad, r.Measured.Response
	switch {
	case r.Queues != "per-server" || r.Tail.HedgeAfter != 299:
		t.Errorf("queues %q, hedge-after %d: want per-server, 299", r.Queues, r.Tail.HedgeAfter)
	case lt == nil || lt.RequestP99 != 528 || lt.Attempts < 20.9 || lt.Attempts > 21.1:
		t.Errorf("hedged low-load theory %+v: want request p99 528, about 21 attempts", lt)
	case ms == nil || ms.Completed < 500 || ms.Attempts <= 20 || ms.Attempts > 21.5 || ms.P99 < 450 || ms.P99 > 650:
		t.Errorf("measured %+v: want about 21 attempts a request (hedges counted) and a p99 near 528, far below 756", ms)
	}
	_, stderr, code = runCLI(t, "", "mmc", "--queues", "pooled", "--hedge-after", "50", "--cycles", "1000")
	if code == 0 || !strings.Contains(stderr, "per-server") {
		t.Errorf("pooled hedging: exit %d, %s; want a refusal naming per-server queues", code, stderr)
	}
}
