package main

import (
	"fmt"
	"io"
)

// runWRR is replaced by the smooth weighted round-robin protocol.
func runWRR(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "lbsim wrr: not built yet")
	return exitFailed
}
