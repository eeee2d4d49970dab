package scenario_test

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/scenario"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // Args
	}{
		{"bare values", "servers = 10\nrate = 0.6\nwave = false\npolicy = \"p2c\"\n",
			[]string{"--servers=10", "--rate=0.6", "--wave=false", "--policy=p2c"}},
		{"quoted values read the same", "servers = \"10\"\nrate = \"0.6\"\n",
			[]string{"--servers=10", "--rate=0.6"}},
		{"table order, whatever the file's", "policy = \"p2c\"\nservers = 3\n",
			[]string{"--servers=3", "--policy=p2c"}},
		{"a whole number for a decimal", "rate = 1\n", []string{"--rate=1"}},
		{"a list setting as an array", "speeds = [2, 1, 0.5]\n", []string{"--speeds=2,1,0.5"}},
		{"a list setting as text", "speeds = \"2,1,0.5\"\n", []string{"--speeds=2,1,0.5"}},
		{"repeatable keys", "block = [\"10.0.0.0/8\", \"1.2.3.4\"]\nset = [\"500:rate=0.9\"]\nfault = [\"down:2@20\"]\n",
			[]string{"--block=10.0.0.0/8", "--block=1.2.3.4", "--set=500:rate=0.9", "--fault=down:2@20"}},
		{"one value of a repeatable key", "block = \"none\"\n", []string{"--block=none"}},
		{"a seed above 2⁶³ as text", "seed = \"18446744073709551615\"\n", []string{"--seed=18446744073709551615"}},
		{"quoted keys and comments", "# c\n\"servers\" = 4 # four\n", []string{"--servers=4"}},
		{"run keys", "trace = \"r.csv\"\nmax-queued = 1000\n", []string{"--trace=r.csv", "--max-queued=1000"}},
		{"empty", "", nil},
		{"block comma-separated, as --block takes it", "block = \"10.0.0.0/8,192.0.2.1\"\n", []string{"--block=10.0.0.0/8", "--block=192.0.2.1"}},
		{"block comma-separated in an array", "block = [\"10.0.0.0/8, 1.2.3.4\", \"5.6.7.8\"]\n", []string{"--block=10.0.0.0/8", "--block= 1.2.3.4", "--block=5.6.7.8"}},
		{"brackets in strings and comments count for nothing", "# [[[{{{\npolicy = \"p2c\" # ]]]{{{\nset = [\"500:policy=random\"] # [[[[\ntrace = '[[[['\n",
			[]string{"--policy=p2c", "--set=500:policy=random", "--trace=[[[["}},
		{"a multi-line string", "trace = \"\"\"\n[[[\n{{{\\\"\"\"\"\n", []string{"--trace=[[[\n{{{\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := scenario.Parse("s.toml", []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Args(); !slices.Equal(got, tt.want) {
				t.Errorf("Args() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // in the message, in order
	}{
		{"unknown key with a suggestion", "servers = 2\nsevrers = 10\n", []string{"s.toml:2: ", `unknown key "sevrers": did you mean servers?`, "'lbsim settings'"}},
		{"unknown key without one", "colour = \"red\"\n", []string{"s.toml:1: ", `unknown key "colour".`, "set, fault, trace, max-queued"}},
		{"the row's range", "\n\nservers = 0\n", []string{"s.toml:3: servers: 0 is not allowed: must be a whole number from 1 to 100000"}},
		{"the row's syntax", "rate = \"fast\"\n", []string{"s.toml:1: rate: ", "want arrivals per cycle"}},
		{"a choice", "policy = \"p2\"\n", []string{"policy: ", "want one of first-idle"}},
		{"zero standing for a default", "mean-service = 0\n", []string{"mean-service: 0 is not allowed"}},
		{"a bad change", "set = [\"500:rat=0.9\"]\n", []string{"set: ", `unknown setting "rat"`}},
		{"a bad fault", "fault = [\"down:2\"]\n", []string{"fault: ", "KIND:ID@CYCLE"}},
		{"none among ranges", "block = [\"none\", \"1.2.3.4\"]\n", []string{"block: 'none' blocks nothing"}},
		{"an array for one value", "servers = [1, 2]\n", []string{"servers: an array, and servers takes one value"}},
		{"an empty array", "set = []\n", []string{"set: an empty array"}},
		{"a table", "[run]\nservers = 3\n", []string{"s.toml:1: ", `"run" is a table`, "flat"}},
		{"an inline table", "servers = {a = 1}\n", []string{"s.toml:1: an inline table ({…})"}},
		{"an inline table in an array", "\nset = [{a = 1}]\n", []string{"s.toml:2: an inline table ({…})"}},
		{"a date", "cycles = 1979-05-27\n", []string{"cycles: is a date"}},
		{"infinity", "rate = inf\n", []string{"rate: is +Inf: want a finite number"}},
		{"not TOML", "servers = \n", []string{"s.toml:1: not TOML: "}},
		{"a duplicate key", "servers = 1\nservers = 2\n", []string{"s.toml:2: not TOML: ", "already been defined"}},
		{"max-queued out of range", "max-queued = 0\n", []string{"max-queued: \"0\" is not allowed: must be a whole number from 1 to 200000000"}},
		{"an empty path", "trace = \"\"\n", []string{"trace: want a file's path"}},
		{"not UTF-8", "servers = \"\xff\"\n", []string{"not UTF-8 text"}},
		{"a dotted key", "rate = 0.5\nservers.count = 3\n", []string{"s.toml:2: ", `"servers.count" is a key inside a table`, "flat"}},
		{"a dotted key of a scalar's name", "wave.amplitude = 5\n", []string{"s.toml:1: ", `"wave.amplitude" is a key inside a table`}},
		{"a quoted dotted key", "\"wave\" . 'x' = 5\n", []string{"s.toml:1: ", `"wave.x" is a key inside a table`}},
		{"an empty table", "servers = 3\n\n[run.x]\n", []string{"s.toml:3: ", `"run.x" is a key inside a table`}},
		{"a table's key", "[run]\n", []string{"s.toml:1: ", `"run" is a table`}},
		{"an array of tables", "servers = 3\n[[servers]]\n", []string{"s.toml:2: not TOML"}},
		{"an array of tables alone", "\n[[servers]]\n", []string{"s.toml:2: ", `"servers" is an array of tables ([[servers]])`}},
		{"a path as an array", "trace = [\"a.csv\", \"b.csv\"]\n", []string{"s.toml:1: trace: an array, and trace takes one value"}},
		{"a file setting as an array", "service-file = [\"a.csv\"]\n", []string{"service-file: an array, and service-file takes one value"}},
		{"max-queued as an array", "max-queued = [5]\n", []string{"max-queued: an array"}},
		{"a long value cut", "policy = \"" + strings.Repeat("x", 5000) + "\"\n", []string{"policy: ", `"` + strings.Repeat("x", 64) + `"… (5000 bytes) is not allowed`}},
		{"a period of 0 with its range", "load-info = \"periodic:0\"\n", []string{"load-info: ", "from 1 to 1000000"}},
		{"nested inline tables", "set = {a={a={a=1}}}\n", []string{"s.toml:1: an inline table ({…})"}},
		{"nested arrays", "\n\nspeeds = [[[1]]]\n", []string{"s.toml:3: brackets nested more than 2 deep"}},
		{"a line-ending backslash ends a one-line string", "trace = \"a\\\n[[[\n", []string{"s.toml:2: brackets nested more than 2 deep"}},
		{"an empty block", "block = \"\"\n", []string{"block: empty range"}},
		{"an empty range among block's", "block = \"10.0.0.0/8,\"\n", []string{"block: empty range"}},
		{"a bad range among block's", "block = \"10.0.0.0/8,nonsense\"\n", []string{"block: ", `"nonsense"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.Parse("s.toml", []byte(tt.file))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tt.file)
			}
			msg, at := err.Error(), 0
			for _, w := range tt.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (after byte %d)", msg, w, at)
				}
				at += i + len(w)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	data := []byte("# " + strings.Repeat("x", scenario.MaxSize) + "\n")
	if _, err := scenario.Parse("big.toml", data); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("Parse of %d bytes: %v, want a refusal", len(data), err)
	}
}

// A file that Marshal writes reads back to the same entries.
func TestMarshalRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/scale-out.toml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse("scale-out.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := scenario.Marshal("saved by a test\n", s.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "# saved by a test\n\nservers = 10\n") {
		t.Errorf("Marshal wrote\n%s", out)
	}
	back, err := scenario.Parse("again.toml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !slices.Equal(back.Args(), s.Args()) {
		t.Errorf("read back %q, want %q", back.Args(), s.Args())
	}
}

func TestMarshalValues(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		{"servers", "20", "servers = 20\n"},
		{"rate", "0.6", "rate = 0.6\n"},
		{"wave", "false", "wave = false\n"},
		{"policy", "p2c", "policy = \"p2c\"\n"},
		{"seed", "18446744073709551615", "seed = \"18446744073709551615\"\n"}, // beyond TOML's integers
		{"rate", "007", "rate = \"007\"\n"},                                   // TOML refuses leading zeros
		{"trace", "a \"b\"\\c\n\x7f", "trace = \"a \\\"b\\\"\\\\c\\n\\u007f\"\n"},
		{"speeds", "2,1,0.5", "speeds = [2, 1, 0.5]\n"}, // a list setting as an array
		{"weights", "3,1", "weights = [3, 1]\n"},
		{"speeds", "2.50,1", "speeds = [\"2.50\", 1]\n"}, // as written: 2.5 would read back as 2.5
	}
	for _, tt := range tests {
		out, err := scenario.Marshal("", []scenario.Entry{{Key: tt.key, Values: []string{tt.value}}})
		if err != nil || string(out) != tt.want {
			t.Errorf("Marshal(%s = %q) = %q, %v; want %q", tt.key, tt.value, out, err, tt.want)
		}
	}
	for _, bad := range []scenario.Entry{
		{Key: "bogus", Values: []string{"1"}},
		{Key: "servers", Values: []string{"1", "2"}},
		{Key: "servers"},
		{Key: "trace", Values: []string{"\xff"}},
	} {
		if out, err := scenario.Marshal("", []scenario.Entry{bad}); err == nil {
			t.Errorf("Marshal(%+v) = %q, want an error", bad, out)
		}
	}
}

func TestLines(t *testing.T) {
	s, err := scenario.Parse("s.toml", []byte("# head\n\nrate = 0.5\n  servers=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Lookup("servers"); e == nil || e.Line != 4 {
		t.Errorf("servers: %+v, want line 4", e)
	}
	if e := s.Lookup("rate"); e == nil || e.Line != 3 {
		t.Errorf("rate: %+v, want line 3", e)
	}
	if e := s.Lookup("cycles"); e != nil {
		t.Errorf("cycles: %+v, want none", e)
	}
}

// TestDeepFileRefusedCheaply: a file of nested inline tables (which the
// TOML decoder reads at a cost that grows with the depth: 11 s and 4 GB
// for 40 KB), one of nested arrays and one of many inline tables side by
// side are refused before decoding, spending little memory on a file of
// the largest size.
func TestDeepFileRefusedCheaply(t *testing.T) {
	n := scenario.MaxSize / 8
	for name, file := range map[string]string{
		"inline tables":      "set = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n",
		"arrays":             "speeds = " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n",
		"wide inline tables": "set = [" + strings.Repeat("{a=1},", n/3) + "]\n",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := scenario.Parse("deep.toml", []byte(file))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "deep.toml:1: ") ||
			!strings.Contains(err.Error(), "brackets nested more than 2 deep") && !strings.Contains(err.Error(), "an inline table") {
			t.Errorf("%s: Parse = %v, want refused before decoding", name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*uint64(len(file)) {
			t.Errorf("%s: Parse of %d bytes allocated %d bytes, want at most 4 times the file", name, len(file), grew)
		}
	}
}
