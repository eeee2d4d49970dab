package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lbsim/lbsim/sim"
)

// Exit codes of a command stopped by a signal, as shells report a process
// killed by it (128 + the signal's number): SIGINT and SIGTERM.
const (
	exitInterrupted = 130
	exitTerminated  = 143
)

// watchInterrupts turns SIGINT and SIGTERM into a request to stop that the
// command's loop sees (interrupted), so it returns and its deferred abort
// removes the temporary files; onStop, when not nil, is called at the first
// signal (a sweep cancels its runs with it). A second signal, or a command
// that has not returned within a grace period, removes them at once and
// exits. The returned function stops watching. Tests set c.signals to send
// their own (and get no grace period, which would end the test).
//
// Every subcommand that runs simulations or writes files goes through it,
// with the outputs it opened through outputs.
func (c *cli) watchInterrupts(outs *outputs, onStop func()) (stop func()) {
	ch := c.signals
	grace := time.Duration(0)
	if ch == nil {
		grace = 2 * time.Second
		sys := make(chan os.Signal, 2)
		signal.Notify(sys, os.Interrupt, syscall.SIGTERM)
		defer func() {
			inner := stop
			stop = func() { signal.Stop(sys); inner() }
		}()
		ch = sys
	}
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			var sig os.Signal
			select {
			case sig = <-ch:
			case <-done:
				return
			}
			code := int32(exitInterrupted)
			if sig == syscall.SIGTERM {
				code = exitTerminated
			}
			c.stopCode.CompareAndSwap(0, code)
			if n == 0 && onStop != nil {
				onStop()
			}
			quit := func() {
				if outs != nil {
					outs.abort()
				}
				os.Exit(int(c.stopCode.Load()))
			}
			if n > 0 {
				quit()
			}
			if grace > 0 {
				time.AfterFunc(grace, quit)
			}
		}
	}()
	return func() { close(done) }
}

// interrupted reports whether a signal asked the command to stop.
func (c *cli) interrupted() bool { return c.stopCode.Load() != 0 }

// interruptCode is the exit code of the signal that stopped the command:
// 130 for SIGINT, 143 for SIGTERM.
func (c *cli) interruptCode() int {
	if code := c.stopCode.Load(); code != 0 {
		return int(code)
	}
	return exitInterrupted
}

// commit puts the outputs in place, unless a signal asked the command to
// stop, and returns the exit code; it says on stderr what went wrong.
func (c *cli) commit(outs *outputs, cmd string) int {
	if c.interrupted() {
		outs.abort()
		fmt.Fprintf(c.stderr, "lbsim %s: interrupted; no output was written\n", cmd)
		return c.interruptCode()
	}
	if err := outs.commit(); err != nil {
		fmt.Fprintf(c.stderr, "lbsim %s: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
}

// runToEnd runs m to its last cycle, or until a signal asks to stop, in
// steps of 4096 cycles; it reports whether the run reached its end.
func (c *cli) runToEnd(m *sim.Model) bool {
	for !m.Done() && !c.interrupted() {
		m.RunTo((m.Cycle() | 4095) + 1)
	}
	return m.Done()
}
