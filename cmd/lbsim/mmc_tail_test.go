package main

import (
	"encoding/json"
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
