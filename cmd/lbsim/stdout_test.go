package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEveryOutputTakesStdout: every output flag takes '-' for standard
// output, and then nothing else goes there (docs/cli.md): the whole of
// stdout is that output, the rest goes to stderr; two outputs may not
// both claim it; aggregate's old switches still work, with a notice.
func TestEveryOutputTakesStdout(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "run.lbsnap")
	if code, _, stderr := runArgs(t, "run", "--cycles", "300", "--seed", "1", "--snapshot", snap); code != exitOK {
		t.Fatalf("run --snapshot: exit %d: %s", code, stderr)
	}
	results := filepath.Join(dir, "s.jsonl")
	sweepTo(t, results)
	isCSV := func(header string) func(string) bool {
		return func(out string) bool {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			return err == nil && len(rows) > 1 && strings.Join(rows[0], ",") == header
		}
	}
	csvPrefix := func(prefix string) func(string) bool {
		return func(out string) bool {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			return err == nil && len(rows) > 1 && strings.HasPrefix(out, prefix)
		}
	}
	isJSON := func(out string) bool { return json.Valid([]byte(out)) && strings.HasPrefix(out, "{") }
	jsonLines := func(out string) bool {
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				return false
			}
		}
		return len(lines) == 12
	}
	isSVG := func(out string) bool {
		return strings.HasPrefix(out, "<?xml") && strings.HasSuffix(strings.TrimSpace(out), "</svg>")
	}
	compareCSV := "variant,metric,mean,low,high,difference,difference_low,difference_high"
	for _, tt := range []struct {
		args []string
		ok   func(stdout string) bool
	}{
		{[]string{"run", "--cycles", "50", "--seed", "1", "--timeline", "-"}, csvPrefix("cycle,queue,servers,")},
		{[]string{"run", "--cycles", "50", "--seed", "1", "--json", "-"}, isJSON},
		{[]string{"replay", snap, "--timeline", "-"}, csvPrefix("cycle,queue,servers,")},
		{[]string{"replay", snap, "--json", "-"}, isJSON},
		{append(append([]string{"sweep"}, smallSweep...), "--out", "-"), jsonLines},
		{[]string{"plot", "run", "--cycles", "300", "--seed", "1", "--out", "-"}, isSVG},
		{[]string{"plot", "sweep", results, "--metric", "avg_wait", "--out", "-"}, isSVG},
		{[]string{"aggregate", results, "--json", "-"}, isJSON},
		{[]string{"aggregate", results, "--csv", "-", "--metric", "avg_wait"}, csvPrefix("rate,policy,runs,avg_wait_mean")},
		{[]string{"compare", "--cycles", "300", "--seed", "1", "--variant", "policy=random", "--variant", "policy=first-idle", "--csv", "-"}, isCSV(compareCSV)},
		{[]string{"compare", "--cycles", "300", "--seed", "1", "--replications", "2", "--variant", "policy=random", "--variant", "policy=first-idle", "--csv", "-"}, isCSV(compareCSV)},
		{[]string{"size", "--cycles", "300", "--seed", "1", "--rate", "0.2", "--replications", "2", "--slo", "avg_wait<=50", "--csv", "-"},
			isCSV("variant,servers,not_met_up_to,objective,value,mean,upper,holds,mean_below,upper_below,runs")},
	} {
		code, stdout, stderr := runArgs(t, tt.args...)
		if code != exitOK || !tt.ok(stdout) {
			t.Errorf("lbsim %s: exit %d; stdout is not that output alone:\n%.600s\nstderr: %.600s", strings.Join(tt.args, " "), code, stdout, stderr)
		}
	}
	// Old spellings: aggregate's --json and --csv were switches.
	for _, args := range [][]string{{"aggregate", results, "--json"}, {"aggregate", "--json", results}} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitOK || !isJSON(stdout) || !strings.Contains(stderr, "old spelling") {
			t.Errorf("lbsim %s: exit %d, stdout %.200q, stderr %q; want JSON and a notice", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// A file output still gets the table on stdout.
	out := filepath.Join(dir, "c.csv")
	code, stdout, _ := runArgs(t, "compare", "--cycles", "300", "--seed", "1", "--variant", "policy=random", "--csv", out)
	if code != exitOK || !strings.Contains(stdout, "avg wait") || !isCSV(compareCSV)(string(readFile(t, out))) {
		t.Errorf("compare --csv FILE: exit %d, table %q, file %q", code, stdout, readFile(t, out))
	}
	// Two outputs on standard output are refused before any work.
	for _, args := range [][]string{
		{"run", "--cycles", "50", "--json", "-", "--timeline", "-"},
		{"compare", "--cycles", "50", "--variant", "policy=random", "--json", "-", "--csv", "-"},
		{"aggregate", results, "--json", "-", "--csv", "-"},
	} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "both name standard output") {
			t.Errorf("lbsim %s: exit %d, stdout %q, stderr %q; want exit 2", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// fullWriter is standard output on a full disk (/dev/full).
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutOutputWriteFails: an output written to standard output that
// cannot take it fails the command (exit 1), as a file would; mmc --json -
// wrote past the error and exited 0.
func TestStdoutOutputWriteFails(t *testing.T) {
	for _, args := range [][]string{
		{"mmc", "--cycles", "20000", "--seed", "1", "--json", "-"},
		{"version", "--json", "-"},
		{"settings", "--json", "-"},
		{"run", "--cycles", "300", "--seed", "1", "--json", "-"},
	} {
		var errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: fullWriter{}, stderr: &errb, noColor: true}
		if code := c.main(args); code != exitFailed || !strings.Contains(errb.String(), "standard output") {
			t.Errorf("%s to a full standard output: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestFlagNeedsArgumentSpelling: a flag given without its value is named
// as it is written, --json, not -json.
func TestFlagNeedsArgumentSpelling(t *testing.T) {
	if code, _, stderr := runArgs(t, "version", "--json"); code != exitUsage || !strings.Contains(stderr, "needs an argument: --json") {
		t.Errorf("version --json: exit %d, stderr %q", code, stderr)
	}
}

// TestOutputIsRedirectedStdout: an output that is the file standard output
// is redirected to (lbsim run --json - --timeline f > f) is refused: the
// output, put in place by a rename, would replace that file, and what went
// to standard output (the JSON) would be lost with exit 0.
func TestOutputIsRedirectedStdout(t *testing.T) {
	for _, args := range []func(path string) []string{
		func(path string) []string {
			return []string{"run", "--cycles", "5", "--seed", "1", "--json", "-", "--timeline", path}
		},
		func(path string) []string {
			return []string{"sweep", "--cycles", "5", "--vary", "servers=1,2", "--out", path}
		},
	} {
		path := filepath.Join(t.TempDir(), "out.txt")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		args := args(path)
		var errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: f, stderr: &errb, noColor: true}
		if code := c.main(args); code != exitUsage || !strings.Contains(errb.String(), "standard output") {
			t.Errorf("%s > %s: exit %d, stderr %q", strings.Join(args, " "), path, code, errb.String())
		}
	}
}

// TestDashAndStdoutByName: with one output "-", another that names the
// same pipe (/dev/stdout) is refused in either order, as two "-" are; the
// two were written into each other.
func TestDashAndStdoutByName(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	go io.Copy(io.Discard, r)
	byName := "/dev/fd/" + strconv.Itoa(int(w.Fd()))
	if _, err := os.Stat(byName); err != nil {
		t.Skip("no /dev/fd here")
	}
	for _, args := range [][]string{
		{"run", "--cycles", "5", "--seed", "1", "--json", "-", "--timeline", byName},
		{"run", "--cycles", "5", "--seed", "1", "--json", byName, "--timeline", "-"},
	} {
		var errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: w, stderr: &errb, noColor: true}
		if code := c.main(args); code != exitUsage || !strings.Contains(errb.String(), "both name standard output") {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
}
