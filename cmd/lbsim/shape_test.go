package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestShapeFlagsBadInput: every service-shape flag, in lbsim run and lbsim
// mmc, refuses a bad value with exit 2, naming the flag and what it allows.
func TestShapeFlagsBadInput(t *testing.T) {
	dir := t.TempDir()
	badFile := writeFile(t, "bad.txt", "5\n0\n")
	tests := []struct {
		args []string
		want []string
		only string // the one command the case is for (mmc's mean-service defaults to 100)
	}{
		{[]string{"--service", "weibull"}, []string{"--service", "lognormal, pareto, bimodal, empirical"}, ""},
		{[]string{"--service", "lognormal"}, []string{"--service lognormal needs --mean-service", "from 1 to 50000"}, "run"},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--service-cv", "0"}, []string{"--service-cv", "above 0 and at most 10"}, ""},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--service-cv", "10.5"}, []string{"--service-cv", "above 0 and at most 10"}, ""},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--service-cv", "two"}, []string{"--service-cv", "decimal"}, ""},
		{[]string{"--service", "pareto", "--mean-service", "10", "--service-shape", "1"}, []string{"--service-shape", "above 1 and at most 100"}, ""},
		{[]string{"--service", "pareto", "--mean-service", "10", "--service-shape", "100.5"}, []string{"--service-shape", "above 1 and at most 100"}, ""},
		{[]string{"--service", "pareto", "--mean-service", "10", "--service-max", "9"}, []string{"--service-max 9", "from mean-service (10) to 1000000"}, ""},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--service-max", "1000001"}, []string{"--service-max 1000001", "1000000"}, ""},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--service-max", "-1"}, []string{"--service-max -1", "1000000"}, ""},
		{[]string{"--service", "bimodal", "--long-share", "1.5"}, []string{"--long-share 1.5", "from 0 to 1"}, ""},
		{[]string{"--service", "bimodal", "--long-share", "-0.1"}, []string{"--long-share", "non-negative decimal"}, ""},
		{[]string{"--service", "empirical"}, []string{"--service-file", "1 to 10000 service times"}, ""},
		{[]string{"--service", "empirical", "--service-file", filepath.Join(dir, "missing.txt")}, []string{"--service-file", "missing.txt"}, ""},
		{[]string{"--service", "empirical", "--service-file", badFile}, []string{"--service-file", "line 2", "from 1 to 1000000"}, ""},
		{[]string{"--service-cv", "2"}, []string{"--service-cv", "applies to --service lognormal"}, ""},
		{[]string{"--service", "lognormal", "--mean-service", "10", "--long-share", "0.5"}, []string{"--long-share", "applies to --service bimodal"}, ""},
		{[]string{"--service", "bimodal", "--service-file", writeFile(t, "ok.txt", "3\n")}, []string{"--service-file", "applies to --service empirical"}, ""},
	}
	for _, cmd := range []string{"run", "mmc"} {
		for _, tt := range tests {
			if tt.only != "" && tt.only != cmd {
				continue
			}
			args := append([]string{cmd, "--cycles", "1000"}, tt.args...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, _, stderr := runArgs(t, args...)
				if code != exitUsage {
					t.Fatalf("exit %d, want 2: %s", code, stderr)
				}
				for _, w := range tt.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr %q lacks %q", stderr, w)
					}
				}
			})
		}
	}
}

// TestShapeRun: a run of each shape reports avg_service, and an empirical
// run whose values are all 7 serves every request in 7 cycles.
func TestShapeRun(t *testing.T) {
	file := writeFile(t, "sevens.txt", "7\n7\n# comment\n7\n")
	for _, args := range [][]string{
		{"--service", "lognormal", "--mean-service", "20", "--service-cv", "3"},
		{"--service", "pareto", "--mean-service", "20", "--service-shape", "2.5", "--service-max", "400"},
		{"--service", "bimodal", "--task-min", "2", "--task-max", "50", "--long-share", "0.25"},
		{"--service", "empirical", "--service-file", file},
	} {
		all := append([]string{"run", "--cycles", "3000", "--seed", "5", "--json", "-"}, args...)
		stdout, stderr, code := runCLI(t, "", all...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		avg, ok := s["avg_service"].(float64)
		if !ok || avg < 1 {
			t.Errorf("%v: avg_service = %v", args, s["avg_service"])
		}
		if args[1] == "empirical" && math.Abs(avg-7) > 1e-12 {
			t.Errorf("empirical of sevens: avg_service = %v, want 7", avg)
		}
	}
}
