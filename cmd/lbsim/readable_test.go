package main

import (
	"encoding/json"
	"path/filepath"
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

// TestCompareShowsWhatIsOn: a comparison's table has the client side's
// rows only when a run had the client side act, overload control's when a
// run shed, limited or throttled, errors only when a run
// had one, and cost only with a price; its intervals have the digits the interval supports.
func TestCompareShowsWhatIsOn(t *testing.T) {
	base := []string{"compare", "--cycles", "3000", "--seed", "1", "--variant", "policy=random", "--variant", "queues=per-server,policy=random"}
	rowsOf := func(args ...string) map[string]bool {
		code, stdout, stderr := runArgs(t, append(base, args...)...)
		if code != exitOK {
			t.Fatalf("compare %v: exit %d: %s", args, code, stderr)
		}
		rows := map[string]bool{}
		for _, m := range metrics {
			if regexp.MustCompile(`(?m)^` + m.Name + `  `).MatchString(stdout) {
				rows[m.Key] = true
			}
		}
		return rows
	}
	client := []string{"goodput", "retries", "timed_out", "gave_up_budget"}
	overload := []string{"shed", "limited", "throttled", "limit_final", "limit_final_min", "limit_final_max"}
	off := rowsOf()
	for _, k := range append(append(client, overload...), "errors", "max_share", "cost") {
		if off[k] {
			t.Errorf("the client side, fleets and prices off: the table shows %s", k)
		}
	}
	if !off["avg_wait"] || !off["peak_queue"] || len(off) != len(metrics)-13 {
		t.Errorf("the client side and fleets off: rows %v, want every other metric", off)
	}
	if priced := rowsOf("--server-cost", "0.5"); !priced["cost"] {
		t.Errorf("with --server-cost the table lacks cost: %v", priced)
	}
	if fleet := rowsOf("--variant", "queues=per-server,policy=p2c,balancers=4"); !fleet["max_share"] {
		t.Errorf("with a fleet the table lacks max_share: %v", fleet)
	}
	on := rowsOf("--timeout", "300", "--retries", "2")
	for _, k := range append(client, "errors") {
		if !on[k] {
			t.Errorf("with --timeout and --retries the table lacks %s", k)
		}
	}
	if errs := rowsOf("--fault", "fail:2@100"); !errs["errors"] || errs["retries"] || errs["shed"] {
		t.Errorf("a fail fault: rows %v, want errors and no client or overload rows", errs)
	}
	if shed := rowsOf("--codel-target", "5"); !shed["shed"] || !shed["throttled"] || !shed["goodput"] || !shed["errors"] || shed["retries"] {
		t.Errorf("shedding on: rows %v, want errors, goodput, shed, limited and throttled, and no client rows", shed)
	}
	if shed := rowsOf("--codel-target", "5"); shed["limit_final"] || shed["limit_final_min"] || shed["limit_final_max"] {
		t.Errorf("shedding on, no limit: rows %v, want no limit rows", shed)
	}
	// A limit that refuses nothing still shows: the limited row (0) and where the limits ended.
	limit := rowsOf("--variant", "queues=per-server,policy=random,concurrency-limit=aimd")
	for _, k := range overload {
		if !limit[k] {
			t.Errorf("an AIMD limit on: the table lacks %s (rows %v)", k, limit)
		}
	}
	_, stdout, _ := runArgs(t, append(base, "--replications", "3")...)
	cell := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)? ± [0-9]+(\.[0-9]+)?$`)
	for line := range strings.SplitSeq(stdout, "\n") {
		if !strings.Contains(line, " ± ") {
			continue
		}
		for _, c := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)[1:] {
			if !cell.MatchString(c) {
				t.Errorf("cell %q of %q is not MEAN ± HALF in plain digits", c, line)
			}
		}
	}
}

// TestSweepExamplesVaryWhatMatters: the sweeps the help and
// docs/scale-out.md show as first experiments vary the policy where it
// matters: at some rate, one policy's mean wait_p99 is more than 25% above
// another's (with the pooled queue every policy waited the same, and the
// example showed nothing).
func TestSweepExamplesVaryWhatMatters(t *testing.T) {
	help, _, _ := runCLI(t, "", "sweep", "--help")
	doc := string(readFile(t, "../../docs/scale-out.md"))
	sweepVar := regexp.MustCompile(`SWEEP="([^"]*)"`).FindStringSubmatch(doc)
	if sweepVar == nil {
		t.Fatal("docs/scale-out.md has no SWEEP=… recipe")
	}
	for name, cmd := range map[string]string{
		"sweep --help":      helpExamples(help)[0],
		"docs/scale-out.md": "lbsim sweep " + sweepVar[1],
	} {
		out := filepath.Join(t.TempDir(), "s.jsonl")
		args := strings.Fields(cmd)[1:] // as shown: a short run hides the difference under the initial queue
		args = append(args, "--no-progress", "--replications", "2", "--out", out)
		if code, _, stderr := runArgs(t, args...); code != exitOK {
			t.Fatalf("%s: %v: exit %d: %s", name, args, code, stderr)
		}
		_, js, _ := runArgs(t, "aggregate", out, "--metric", "wait_p99", "--json", "-")
		var rep struct {
			Points []struct {
				Point   map[string]any
				Metrics map[string]struct{ Mean float64 }
			}
		}
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatal(err)
		}
		lo, hi := map[any]float64{}, map[any]float64{}
		for _, p := range rep.Points {
			r, w := p.Point["rate"], p.Metrics["wait_p99"].Mean
			if _, ok := lo[r]; !ok {
				lo[r], hi[r] = w, w
			}
			lo[r], hi[r] = min(lo[r], w), max(hi[r], w)
		}
		differ := false
		for r := range lo {
			differ = differ || hi[r] > 1.25*lo[r]
		}
		if !differ {
			t.Errorf("%s: %s: the policies' wait_p99 are within 25%% of each other at every rate; vary something that matters", name, cmd)
		}
	}
}
