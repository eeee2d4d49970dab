package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunWRR runs lbsim wrr: a session, --explain's trace, the help, and
// bad usage (exit 2, pointing at the help).
func TestRunWRR(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		stdout     string // exact, unless empty
		stdoutHas  string
		stderrHas  string
		stderrNone bool
	}{
		{name: "session", stdin: "POOL a=3 b=1\nPICK\nPICKN 3\n", stdout: "OK\na\na,b,a\n", stderrNone: true},
		{name: "bad command is not bad usage", stdin: "NOPE\n", stdoutHas: "ERR unknown command", stderrNone: true},
		{name: "explain", args: []string{"--explain"}, stdin: "POOL a=3 b=1\nPICKN 2\n", stdout: "OK\na,a\n",
			stderrHas: "pick 2: add weights → [2, 2]; a wins (tie: earliest listed); subtract 4 → [-2, 2]"},
		{name: "help", args: []string{"--help"}, stdoutHas: "> PICKN 3\n  10.0.0.11:8080,10.0.0.12:8080,10.0.0.11:8080", stderrNone: true},
		{name: "help lists flags", args: []string{"-h"}, stdoutHas: "-explain"},
		{name: "unknown flag", args: []string{"--verbose"}, code: 2, stderrHas: "unknown flag --verbose"},
		{name: "stray argument", args: []string{"pool.txt"}, code: 2, stderrHas: `unexpected argument "pool.txt": commands come on standard input`},
		{name: "stray argument after the flags' end", args: []string{"--", "--explain"}, code: 2, stderrHas: `unexpected argument "--explain"`},
		{name: "usage error points at the help", args: []string{"--explain=maybe"}, code: 2,
			stderrHas: "lbsim wrr: invalid boolean value \"maybe\" for --explain: want true or false\nRun 'lbsim wrr --help' for the commands it reads and an example.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.stdin, append([]string{"wrr"}, tt.args...)...)
			out, errOut := bytes.NewBufferString(stdout), bytes.NewBufferString(stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errOut.String())
			}
			if tt.stdout != "" && out.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
			}
			if !strings.Contains(out.String(), tt.stdoutHas) {
				t.Errorf("stdout %q does not contain %q", out.String(), tt.stdoutHas)
			}
			if !strings.Contains(errOut.String(), tt.stderrHas) {
				t.Errorf("stderr %q does not contain %q", errOut.String(), tt.stderrHas)
			}
			if tt.stderrNone && errOut.Len() != 0 {
				t.Errorf("stderr %q, want nothing", errOut.String())
			}
		})
	}
}
