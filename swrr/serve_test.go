package swrr

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// run serves input with the given line limit and returns the answers and
// the trace.
func run(t *testing.T, input string, maxLine int) (out, trace string) {
	t.Helper()
	var o, e bytes.Buffer
	if err := serve(strings.NewReader(input), &o, &e, maxLine); err != nil {
		t.Fatalf("serve(%q): %v", input, err)
	}
	return o.String(), e.String()
}

func TestServe(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"lesson 3:1", "POOL a=3 b=1\nPICKN 4\n", "OK\na,a,b,a\n"},
		{"5:1:1", "POOL a=5 b=1 c=1\nPICKN 7\n", "OK\na,a,b,a,c,a,a\n"},
		{"addresses with colons", "POOL 10.0.0.11:8080=5 10.0.0.12:8080\nPICKN 6\n",
			"OK\n10.0.0.11:8080,10.0.0.11:8080,10.0.0.11:8080,10.0.0.12:8080,10.0.0.11:8080,10.0.0.11:8080\n"},
		{"split at the last =", "POOL a=b=3 c\nPICKN 4\n", "OK\na=b,a=b,c,a=b\n"},
		{"no = means weight 1", "POOL x y z\nPICKN 4\n", "OK\nx,y,z,x\n"},
		{"empty POOL", "POOL a\nPOOL\nPICK\nPICKN 3\n", "OK\nOK\nEMPTY\nEMPTY\n"},
		{"empty before the first POOL", "PICK\nPICKN 5\n", "EMPTY\nEMPTY\n"},
		{"all weights zero", "POOL a=0 b=0\nPICK\nPICKN 2\n", "OK\nEMPTY\nEMPTY\n"},
		{"zero weight never wins", "POOL z=0 a=1\nPICKN 3\n", "OK\na,a,a\n"},
		{"huge n on an empty pool", "PICKN 1000000000000\n", "EMPTY\n"},
		{"PICKN carries on after PICK", "POOL a=3 b=1\nPICK\nPICKN 3\nPICKN 2\n", "OK\na\na,b,a\na,a\n"},
		{"POOL resets the scores", "POOL a=3 b=1\nPICK\nPICK\nPOOL a=3 b=1\nPICKN 4\n", "OK\na\na\nOK\na,a,b,a\n"},
		{"blank lines, tabs, CRLF", "\n \t \r\nPOOL  a=3\t b=1 \r\n\r\n\tPICK \r\n", "OK\na\n"},
		{"last line without newline", "POOL a\nPICK", "OK\na\n"},
		{"signs and leading zeros", "POOL a=+2 b=01 c=-0\nPICKN 3\n", "OK\na,b,a\n"},
		{"largest weight", "POOL a=1000000000 b=1\nPICK\n", "OK\na\n"},
		{"empty input", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := run(t, tt.input, MaxLine); got != tt.want {
				t.Errorf("input %q:\ngot  %q\nwant %q", tt.input, got, tt.want)
			}
		})
	}
}

// TestServeErrors puts each bad line between a PICK and a PICKN on a 3:1
// pool: the answers on either side show that neither the pool nor its
// scores changed.
func TestServeErrors(t *testing.T) {
	tests := []struct {
		line string
		says string // part of the ERR line: what is wrong or allowed
	}{
		{"FOO", `unknown command "FOO"`},
		{"pick", "allowed are POOL <entry> …, PICK and PICKN <n>"},
		{"POOL a=", "empty weight"},
		{"POOL c=2 a=", "empty weight"},
		{"POOL a=-1", "weight -1 is negative: allowed is a whole number from 0 to 1000000000"},
		{"POOL c=2 d=x", `weight "x" is not an integer`},
		{"POOL a=1.5", "not an integer"},
		{"POOL a=0x10", "not an integer"},
		{"POOL a=1000000001", "too large: allowed is a whole number from 0 to 1000000000"},
		{"POOL a=99999999999999999999", "too large"},
		{"POOL =3", "empty address"},
		{"POOL a,b=1", `contains ","`},
		{"PICKN", "exactly one argument"},
		{"PICKN 3 4", "exactly one argument"},
		{"PICKN 0", `bad n "0" for PICKN: allowed is a whole number from 1`},
		{"PICKN -1", "bad n"},
		{"PICKN x", "bad n"},
		{"PICKN 1.5", "bad n"},
		{"PICKN 99999999999999999999", "bad n"},
		{"PICK 2", "PICK takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, trace := run(t, "POOL a=3 b=1\nPICK\n"+tt.line+"\nPICKN 3\n", MaxLine)
			lines := strings.Split(got, "\n")
			if len(lines) != 5 || lines[0] != "OK" || lines[1] != "a" || lines[3] != "a,b,a" || lines[4] != "" {
				t.Fatalf("got %q, want OK, a, an ERR line, a,b,a", got)
			}
			if !strings.HasPrefix(lines[2], "ERR ") || !strings.Contains(lines[2], tt.says) {
				t.Errorf("got %q, want an ERR line saying %q", lines[2], tt.says)
			}
			if strings.Contains(trace, "ERR") {
				t.Errorf("the trace mentions the error: %q", trace)
			}
		})
	}
}

func TestServeLongLine(t *testing.T) {
	const limit = 16
	tests := []struct {
		name, input, want string
	}{
		{"at the limit", "POOL a=3 bbbbbbb\nPICK\n", "OK\na\n"},
		{"at the limit with CRLF", "POOL a=3 bbbbbbb\r\nPICK\n", "OK\na\n"},
		{"one over", "POOL a=3 b=1\nPOOL a=3 bbbbbbbb\nPICKN 2\n", "OK\nERR line is longer than 16 bytes: each command must fit in 16 bytes\na,a\n"},
		{"far over, last line", "POOL a\n" + strings.Repeat("x", 100000), "OK\nERR line is longer than 16 bytes: each command must fit in 16 bytes\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := run(t, tt.input, limit); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// The real limit, across many reads of the 64 KiB buffer.
	got, _ := run(t, "POOL "+strings.Repeat("a", 3*MaxLine)+"\nPOOL b\nPICK\n", MaxLine)
	if want := "ERR line is longer than 1048576 bytes: each command must fit in 1048576 bytes\nOK\nb\n"; got != want {
		t.Errorf("3 MiB line: got %q, want %q", got, want)
	}
}

func TestServeExplain(t *testing.T) {
	out, trace := run(t, "POOL a=3 b=1\nPICK\nPICKN 3\n", MaxLine)
	if want := "OK\na\na,b,a\n"; out != want {
		t.Errorf("answers %q, want %q", out, want)
	}
	want := `POOL: 2 backends, total weight 4, scores reset to [0, 0]
pick 1: add weights → [3, 1]; a wins; subtract 4 → [-1, 1]
pick 2: add weights → [2, 2]; a wins (tie: earliest listed); subtract 4 → [-2, 2]
pick 3: add weights → [1, 3]; b wins; subtract 4 → [1, -1]
pick 4: add weights → [4, 0]; a wins; subtract 4 → [0, 0]
`
	if trace != want {
		t.Errorf("trace:\n%s\nwant:\n%s", trace, want)
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

var errFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errFull
	}
	w.limit -= len(p)
	return len(p), nil
}

// pickCounter is a trace that counts the picks explained (a line each)
// and fails the test, from within Serve, once they pass most.
type pickCounter struct {
	t     *testing.T
	picks int
	most  int
}

func (c *pickCounter) Write(p []byte) (int, error) {
	c.picks += bytes.Count(p, []byte("\n"))
	if c.picks > c.most {
		c.t.Fatalf("PICKN ran on: %d picks explained after its output failed at 1 MiB", c.picks)
	}
	return len(p), nil
}

// TestServeHugePICKNStops checks that PICKN streams (bounded memory) and
// stops soon after its output fails instead of running on: 1 MiB of
// answers holds about 524,000 picks, and with the trace on it may explain
// no more than twice that (without the trace, the same loop stops at the
// same check).
func TestServeHugePICKNStops(t *testing.T) {
	for _, explain := range []bool{true, false} { // the trace first: it fails where the other would hang
		var trace io.Writer
		if explain {
			trace = &pickCounter{t: t, most: 1 << 20}
		}
		err := Serve(strings.NewReader("POOL a=3 b=1\nPICKN 1000000000000\n"), &failingWriter{limit: 1 << 20}, trace)
		if !errors.Is(err, errFull) {
			t.Errorf("explain=%v: got %v, want the write error", explain, err)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errFull }

func TestServeReadError(t *testing.T) {
	err := Serve(io.MultiReader(strings.NewReader("POOL a\n"), failingReader{}), io.Discard, nil)
	if !errors.Is(err, errFull) {
		t.Errorf("got %v, want the read error", err)
	}
}
