package main

import (
	"os"
	"testing"
)

// TestMain lets a test run this test binary as the lbsim command: with
// LBSIM_AS_COMMAND=1 in its environment it runs the arguments after "--" as
// lbsim would and exits, so a test can kill a real process.
func TestMain(m *testing.M) {
	if os.Getenv("LBSIM_AS_COMMAND") == "1" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
		os.Exit(c.main(args))
	}
	os.Exit(m.Run())
}
