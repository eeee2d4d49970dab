package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptsRefuseBadArguments: the README's table and chart scripts,
// given a program that is not lbsim or more than one argument, exit 2
// with a usage line naming what was wrong, before any run and without a
// traceback. Before, tail-table.sh exited 127 or 126 saying nothing,
// autoscale-table.sh ended in Python's ZeroDivisionError, and an extra
// argument was ignored.
func TestScriptsRefuseBadArguments(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for _, script := range []string{"tail-table.sh", "autoscale-table.sh", "autoscale-frontier.sh", "overload-table.sh"} {
		path, err := filepath.Abs(filepath.Join("..", "..", "scripts", script))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{filepath.Join(dir, "no-such-lbsim")}, "does not run"},
			{[]string{"/etc/passwd"}, "does not run"},
			{[]string{"/bin/true"}, "is not lbsim"},
			{[]string{"bin/lbsim", "extra"}, "one argument at most"},
		} {
			cmd := exec.Command(bash, append([]string{path}, c.args...)...)
			cmd.Dir = dir // nothing the chart script writes lands in the tree
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
				t.Fatalf("%s: %v", path, err)
			}
			code := cmd.ProcessState.ExitCode()
			msg := errb.String()
			if code != 2 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "Usage: scripts/"+script) || strings.Contains(msg, "Traceback") {
				t.Errorf("%s %q: exit %d, stderr %q; want exit 2 saying %q and the usage", script, c.args, code, msg, c.want)
			}
		}
	}
}
