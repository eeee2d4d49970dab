package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestSummaryColumnsApart: every row of a switch run's summary has its
// label and one cell per balancer and the total, at least two spaces
// apart, however wide a cell is (make switch's quantiles ran together).
func TestSummaryColumnsApart(t *testing.T) {
	code, stdout, stderr := runArgs(t, "run", "--switch", "--servers", "20", "--cycles", "20000", "--stream-share", "35", "--seed", "1", "--status-every", "0")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, table, _ := strings.Cut(stdout, "\nRequests\n")
	table, _, _ = strings.Cut(table, "Accounting")
	apart := regexp.MustCompile(`\s{2,}`)
	rows := 0
	for line := range strings.SplitSeq(table, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue // a heading
		}
		rows++
		if cells := apart.Split(strings.TrimSpace(line), -1); len(cells) != 4 {
			t.Errorf("%q: %d cells %q, want a label and 3 values two spaces apart", line, len(cells), cells)
		}
	}
	if rows < 20 {
		t.Errorf("only %d rows:\n%s", rows, stdout)
	}
}
