package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"
)

// TestExitCode holds the skeleton's one mapping from how a subcommand's
// run ended to its exit code and message: a usage error blames the
// --config file and points at the help (with the subcommand's own hint),
// one as is does not blame, a failure says its message with its code, a
// run that said why already says nothing more, and any other error is bad
// input.
func TestExitCode(t *testing.T) {
	cf := &configured{path: "s.toml", origin: map[string]string{"servers": "s.toml:3"}}
	cases := []struct {
		name string
		err  error
		hint string
		code int
		want string
	}{
		{"ok", nil, "", exitOK, ""},
		{"exited ok", exited(exitOK), "", exitOK, ""},
		{"usage blamed", usageErr("--servers 0: must be ≥ 1"), "", exitUsage,
			"lbsim x: --servers 0: must be ≥ 1 (servers comes from s.toml:3)\nRun 'lbsim x --help' for the flags and what they allow.\n"},
		{"usage hint", usageErr("name the snapshot"), "the flags and an example", exitUsage,
			"lbsim x: name the snapshot\nRun 'lbsim x --help' for the flags and an example.\n"},
		{"usage as is", usageErrAsIs("--servers 0"), "", exitUsage,
			"lbsim x: --servers 0\nRun 'lbsim x --help' for the flags and what they allow.\n"},
		{"failure", failErr(exitFailed, "stopped at cycle 5"), "", exitFailed, "lbsim x: stopped at cycle 5\n"},
		{"said already", exited(130), "", 130, ""},
		{"wrapped", errors.Join(failErr(exitFailed, "boom")), "", exitFailed, "lbsim x: boom\n"},
		{"plain", errors.New("bad"), "", exitUsage, "lbsim x: bad\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			c := &cli{stderr: &stderr}
			cl := commandLine{cf: cf, fail: c.usageFailHint("x", cf, tc.hint)}
			if code := c.exitCode("x", cl, tc.err); code != tc.code || stderr.String() != tc.want {
				t.Errorf("exit %d with %q, want %d with %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// TestRunCommandFreshOptions checks that the skeleton hands run the
// options its flags filled, fresh each time the flags are defined (a
// --config file defines them twice), and its positional arguments.
func TestRunCommandFreshOptions(t *testing.T) {
	type opts struct {
		n    int
		list []string
	}
	var got opts
	var args []string
	s := subcommand[opts]{
		commandSpec: commandSpec{name: "x", positional: true},
		flags: func(_ *cli, o *opts) (*flag.FlagSet, *string) {
			if o.n != 0 || o.list != nil {
				t.Errorf("options not fresh: %+v", *o)
			}
			o.n = 7
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.IntVar(&o.n, "n", o.n, "")
			fs.Func("item", "", func(s string) error { o.list = append(o.list, s); return nil })
			return fs, nil
		},
		run: func(_ *cli, o *opts, cl commandLine) error { got, args = *o, cl.args; return nil },
	}
	var stderr bytes.Buffer
	c := &cli{stderr: &stderr}
	if code := runCommand(c, s, []string{"a", "--item", "p", "b", "--item=q"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got.n != 7 || len(got.list) != 2 || got.list[1] != "q" || len(args) != 2 || args[1] != "b" {
		t.Errorf("run got %+v and %q", got, args)
	}
	s.positional = false
	if code := runCommand(c, s, []string{"a"}); code != exitUsage || !bytes.Contains(stderr.Bytes(), []byte("lbsim x: ")) {
		t.Errorf("a positional argument to a command without: exit %d, %q", code, stderr.String())
	}
}

// TestFlagErrorsByType checks that a flag error is worded from its type,
// not its text: pflag's unknown-flag error names the flag as given, a
// value refused by its Value's Set is worded by setError, and a plain
// error that merely reads like pflag's is passed on as it is.
func TestFlagErrorsByType(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.Bool("verbose", false, "")
		fs.Uint64("seed", 0, "")
		return fs
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--verbos"}, "unknown flag --verbos: did you mean --verbose?"},
		{[]string{"-sed", "1"}, "unknown flag -sed: did you mean --seed?"},
		{[]string{"--seed"}, "flag needs an argument: --seed"},
		{[]string{"--verbose=maybe"}, `invalid boolean value "maybe" for --verbose: want true or false`},
		{[]string{"--seed=x"}, `invalid value "x" for flag --seed: want a whole number from 0 to 18446744073709551615`},
	}
	for _, tc := range cases {
		fs := newFS()
		err := parseFlags(fs, tc.args)
		if err == nil {
			t.Errorf("%q: parsed", tc.args)
			continue
		}
		if got := flagError(fs, err); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := flagError(newFS(), errors.New("unknown flag: --verbos")); got != "unknown flag: --verbos" {
		t.Errorf("a plain error reworded: %q", got)
	}
}
