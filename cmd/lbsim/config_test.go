package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/scenario"
)

// TestSaveConfigRepeatsRun: a run from flags and a run from the scenario
// file it saved (--save-config) print the same JSON summary, byte for
// byte, and the file saved again from that run is the same file.
func TestSaveConfigRepeatsRun(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(trace, []byte(tinyTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	times := filepath.Join(dir, "times.txt")
	if err := os.WriteFile(times, []byte("5\n9\n30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := [][]string{
		{"--cycles", "3000", "--servers", "8", "--rate", "0.3", "--queues", "per-server", "--policy", "p2c",
			"--set", "500:rate=0.5", "--fault", "down:2@20", "--set", "900:scale-up=60", "--fault", "up:2@80", "--block", "10.0.0.0/8", "--block", "1.2.3.4"},
		{"--cycles", "2000"}, // a random seed: the file keeps the one drawn
		{"--cycles", "2000", "--seed", "18446744073709551615", "--block", "none", "--wave=false", "--speeds", "2,1,0.5"},
		{"--cycles", "2000", "--seed", "4", "--switch", "--fault", "down:S:2@100", "--retries", "2", "--backoff", "5", "--jitter"},
		{"--cycles", "500", "--seed", "5", "--service", "empirical", "--service-file", times, "--max-queued", "100000"},
		{"--cycles", "50", "--trace", trace},
		{"--cycles", "2000", "--seed", "6", "--service", "lognormal", "--mean-service", "20", "--service-cv", "2.5", "--rate", "0.7"},
	}
	for i, flags := range tests {
		saved := filepath.Join(dir, "saved", "s.toml")
		os.MkdirAll(filepath.Dir(saved), 0o755)
		code, fromFlags, stderr := runArgs(t, append([]string{"run", "--json", "-", "--save-config", saved}, flags...)...)
		if code != exitOK {
			t.Fatalf("case %d: exit %d: %s", i, code, stderr)
		}
		file := string(readFile(t, saved))
		code, fromFile, stderr := runArgs(t, "run", "--config", saved, "--json", "-", "--save-config", saved+"2")
		if code != exitOK {
			t.Fatalf("case %d: --config: exit %d: %s\n%s", i, code, stderr, file)
		}
		if fromFile != fromFlags {
			t.Errorf("case %d: the run from its saved file differs:\n%s\nfrom flags:\n%s\nfrom the file:\n%s", i, file, fromFlags, fromFile)
		}
		if again := string(readFile(t, saved+"2")); again != file {
			t.Errorf("case %d: saved again:\n%s\nwant\n%s", i, again, file)
		}
		if !regexp.MustCompile(`(?m)^seed = `).MatchString(file) {
			t.Errorf("case %d: the file has no seed:\n%s", i, file)
		}
	}
}

// TestConfigFlagsWin: a flag on the command line replaces the file's
// value, a list (block, set, fault) as a whole; the file's other keys
// stay. --save-config - shows what the run took.
func TestConfigFlagsWin(t *testing.T) {
	cfg := writeFile(t, "s.toml", "servers = 10\ncycles = 100\nseed = 3\nrate = 0.6\nfault = [\"down:2@20\"]\nset = [\"50:rate=0.9\"]\nblock = [\"10.0.0.0/8\"]\n")
	code, stdout, stderr := runArgs(t, "run", "--config", cfg, "--servers", "12", "--fault", "down:1@5", "--save-config", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"servers = 12\n", "cycles = 100\n", "seed = 3\n", "rate = 0.6\n", `block = ["10.0.0.0/8"]`, `set = ["50:rate=0.9", "5:down=1"]`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the saved file lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "20:down=2") {
		t.Errorf("the file's fault survived --fault on the command line:\n%s", stdout)
	}
	if !strings.Contains(stderr, "lbsim run: 12 servers, 100 cycles") {
		t.Errorf("the header (now on stderr) does not show the flags' servers: %s", stderr)
	}
}

// TestConfigRefusals: a bad file is refused before the run (exit 2),
// saying where and what is allowed.
func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	typo := file("typo.toml", "cycles = 100\nsevrers = 10\n")
	bad := file("bad.toml", "cycles = 100\n\nservers = 0\n")
	unread := file("unread.toml", "cycles = 100\nmean-service = 20\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--config", typo}, []string{"typo.toml:2: ", `unknown key "sevrers": did you mean servers?`, "'lbsim settings'"}},
		{[]string{"run", "--config", bad}, []string{"bad.toml:3: servers: 0 is not allowed: must be a whole number from 1 to 100000"}},
		{[]string{"run", "--config", unread}, []string{"--mean-service applies to --service geometric", "(mean-service comes from ", "unread.toml:2)"}},
		{[]string{"run", "--config", unread, "--service", "geometric", "--seed", "1", "--json", unread}, []string{"--json", "is the input --config"}},
		{[]string{"run", "--config", filepath.Join(dir, "none.toml")}, []string{"--config: ", "none.toml", "no such file"}},
		{[]string{"run", "--config", dir}, []string{"--config: ", "is a directory: want a scenario file"}},
		{[]string{"run", "--config", file("table.toml", "[run]\nservers = 2\n")}, []string{"table.toml:1: ", "is a table"}},
		{[]string{"compare", "--config", typo, "--variant", "policy=random"}, []string{"lbsim compare: --config ", "did you mean servers?"}},
		{[]string{"sweep", "--config", bad, "--vary", "rate=0.3,0.4", "--out", "-"}, []string{"lbsim sweep: --config ", "servers: 0 is not allowed"}},
		{[]string{"size", "--config", typo, "--slo", "avg_wait<=5"}, []string{"lbsim size: --config ", "did you mean servers?"}},
		{[]string{"mmc", "--config", bad}, []string{"lbsim mmc: --config ", "servers: 0 is not allowed"}},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(t, tt.args...)
		if code != exitUsage {
			t.Errorf("lbsim %s: exit %d, want 2: %s", strings.Join(tt.args, " "), code, stderr)
			continue
		}
		at := 0
		for _, w := range tt.want {
			i := strings.Index(stderr[at:], w)
			if i < 0 {
				t.Errorf("lbsim %s: stderr lacks %q (in order):\n%s", strings.Join(tt.args, " "), w, stderr)
				break
			}
			at += i + len(w)
		}
	}
}

// TestConfigAcrossSubcommands: the file a run saved is read by compare,
// sweep, size, mmc and plot run; size and mmc leave out, saying so, the keys they
// choose themselves or do not model; a trace's path is relative to the
// file.
func TestConfigAcrossSubcommands(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "s.toml")
	code, _, stderr := runArgs(t, "run", "--cycles", "1500", "--seed", "2", "--servers", "4", "--queues", "per-server", "--rate", "0.15", "--scale-up", "60", "--set", "500:rate=0.2", "--save-config", saved, "--status-every", "0")
	if code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args   []string
		notice string
	}{
		{[]string{"compare", "--variant", "policy=random", "--variant", "policy=p2c"}, ""},
		{[]string{"sweep", "--vary", "policy=random,p2c", "--out", filepath.Join(dir, "sw.jsonl"), "--no-progress"}, ""},
		{[]string{"size", "--slo", "avg_wait<=400", "--replications", "2", "--max", "12", "--no-progress"}, "lbsim size: --config " + saved + ": left out servers (size chooses the pool)"},
		{[]string{"mmc", "--cycles", "20000"}, "lbsim mmc: --config " + saved + ": left out scale-up, set (not part of the M/M/c check)"},
	}
	for _, tt := range tests {
		code, _, stderr := runArgs(t, append(tt.args[:1:1], append([]string{"--config", saved}, tt.args[1:]...)...)...)
		if code != exitOK {
			t.Errorf("lbsim %s --config: exit %d: %s", tt.args[0], code, stderr)
		}
		if tt.notice != "" && !strings.Contains(stderr, tt.notice) {
			t.Errorf("lbsim %s --config: stderr lacks %q:\n%s", tt.args[0], tt.notice, stderr)
		}
	}
	if code, _, stderr := runArgs(t, "plot", "run", "--config", saved, "--out", filepath.Join(dir, "t.svg")); code != exitOK {
		t.Errorf("lbsim plot run --config: exit %d: %s", code, stderr)
	}
	if lines := string(readFile(t, filepath.Join(dir, "sw.jsonl"))); !strings.Contains(lines, `"flags":["--cycles=1500","--queues=per-server","--rate=0.15","--scale-up=60","--servers=4","--set=500:rate=0.2"]`) {
		t.Errorf("the sweep's lines do not record the file's settings:\n%.400s", lines)
	}
	// A trace named in a file is found beside it, wherever lbsim runs.
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte(tinyTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	withTrace := filepath.Join(dir, "trace.toml")
	os.WriteFile(withTrace, []byte("trace = \"t.csv\"\ncycles = 50\n"), 0o644)
	if code, _, stderr := runArgs(t, "run", "--config", withTrace, "--json", "-"); code != exitOK {
		t.Errorf("a relative trace: exit %d: %s", code, stderr)
	}
}

// TestREADMEScenarioFile: the scenario file the README shows is what its
// first command saves (below the comment), so the example cannot go
// stale.
func TestREADMEScenarioFile(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	section := between(t, "README.md", readme, "## Scenario files", "\n## ")
	sh := between(t, "README.md's scenario section", section, "```sh\n", "\n")
	shown := between(t, "README.md's scenario section", section, "```toml\n", "```")
	saved := filepath.Join(t.TempDir(), "burst.toml")
	var args []string
	words := shellWords(t, sh)[1:] // without "lbsim"
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "--save-config":
			args = append(args, words[i], saved)
			i++
		case "--json":
			i++
		default:
			args = append(args, words[i])
		}
	}
	if code, _, stderr := runArgs(t, append(args, "--status-every", "0")...); code != exitOK {
		t.Fatalf("lbsim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	_, body, _ := strings.Cut(string(readFile(t, saved)), "\n\n")
	if body != shown {
		t.Errorf("README.md shows\n%s\nbut the command saves\n%s", shown, body)
	}
}

// FuzzConfigFile: any scenario file is refused (exit 2, nothing on
// standard output, no raw control characters) or runs; a run's saved file
// (--save-config) runs again to the same JSON summary. The short base
// flags come after the file, so they win and every run stays short.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"servers = 10\nrate = 0.6\n",
		"queues = \"per-server\"\npolicy = \"p2c\"\nset = [\"30:rate=0.9\"]\nfault = [\"down:2@20\", \"up:2@40\"]\n",
		"block = [\"none\"]\nspeeds = [2, 1, 0.5]\nwave = false\n",
		"switch = true\nfault = [\"down:S:1@10\"]\n",
		"retries = 2\nbackoff = 5\njitter = true\n",
		"mean-service = 20\n",
		"service = \"lognormal\"\nmean-service = 20\nservice-cv = 2.5\n",
		"trace = \"nothere.csv\"\n",
		"sevrers = 1\n",
		"servers = \"\\u001b[31m\"\n",
		"[x]\ny = 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse("f.toml", data)
		if err == nil {
			if o, err := (&cli{}).parseRun(append(sc.Args(), fuzzBase...)); err == nil && !short(o) {
				return // parsed and checked, too long to run here
			}
		}
		dir := t.TempDir()
		path, saved := filepath.Join(dir, "f.toml"), filepath.Join(dir, "saved.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"run", "--config", path}, fuzzBase...), "--json", "-", "--save-config", saved)
		stdout, stderr, code := runQuiet(t, args...)
		if !ranOrRefused(t, code, stdout, stderr) {
			return
		}
		again, stderr, code := runQuiet(t, "run", "--config", saved, "--json", "-")
		if code != exitOK || again != stdout {
			t.Fatalf("the saved file runs to exit %d (%s):\n%s\nwant\n%s\nthe file:\n%s", code, stderr, again, stdout, readFile(t, saved))
		}
	})
}

// TestBlockCommaSeparated: --block takes ranges comma-separated, as the
// settings table documents, on the command line, in a variant and in a
// scenario file, and each means the same run as the ranges repeated.
func TestBlockCommaSeparated(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "b.toml")
	if err := os.WriteFile(file, []byte("block = \"10.0.0.0/8, 192.0.2.0/24\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--cycles", "300", "--seed", "3", "--json", "-"}
	code, want, stderr := runArgs(t, append([]string{"run", "--block", "10.0.0.0/8", "--block", "192.0.2.0/24"}, base...)...)
	if code != exitOK {
		t.Fatalf("repeated --block: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"run", "--block", "10.0.0.0/8,192.0.2.0/24"},
		{"run", "--block=10.0.0.0/8, 192.0.2.0/24"},
		{"run", "--config", file},
	} {
		code, got, stderr := runArgs(t, append(args, base...)...)
		if code != exitOK || got != want {
			t.Errorf("%q: exit %d, %s\nsummary differs: %v", args, code, stderr, got != want)
		}
	}
	code, _, stderr = runArgs(t, "compare", "--cycles", "300", "--seed", "3", "--variant", "a:block=10.0.0.0/8,192.0.2.0/24", "--variant", "b:block=none")
	if code != exitOK {
		t.Errorf("a variant's block=A,B: exit %d: %s", code, stderr)
	}
	code, _, stderr = runArgs(t, "run", "--cycles", "10", "--block", "10.0.0.0/8,none")
	if code == exitOK || !strings.Contains(stderr, "'none' blocks nothing") {
		t.Errorf("--block 10.0.0.0/8,none: exit %d, %q; want refused naming none", code, stderr)
	}
	code, _, stderr = runArgs(t, "run", "--cycles", "10", "--block", "")
	if code == exitOK || !strings.Contains(stderr, "empty range") {
		t.Errorf("--block '': exit %d, %q; want refused as an empty range", code, stderr)
	}
	code, _, stderr = runArgs(t, "run", "--cycles", "10", "--block", "10.0.0.0/8,bogus")
	if code == exitOK || !strings.Contains(stderr, `"bogus"`) {
		t.Errorf("--block 10.0.0.0/8,bogus: exit %d, %q; want refused naming the range", code, stderr)
	}
}
