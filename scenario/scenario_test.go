package scenario_test

import (
	"os"
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
		{"an inline table", "servers = {a = 1}\n", []string{`"servers" is a table`}},
		{"a date", "cycles = 1979-05-27\n", []string{"cycles: is a date"}},
		{"infinity", "rate = inf\n", []string{"rate: is +Inf: want a finite number"}},
		{"not TOML", "servers = \n", []string{"s.toml:1: not TOML: "}},
		{"a duplicate key", "servers = 1\nservers = 2\n", []string{"s.toml:2: not TOML: ", "already been defined"}},
		{"max-queued out of range", "max-queued = 0\n", []string{"max-queued: \"0\" is not allowed: must be a whole number from 1 to 200000000"}},
		{"an empty path", "trace = \"\"\n", []string{"trace: want a file's path"}},
		{"not UTF-8", "servers = \"\xff\"\n", []string{"not UTF-8 text"}},
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
		{"trace", "a \"b\"\\c\n", "trace = \"a \\\"b\\\"\\\\c\\u000A\"\n"},
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
