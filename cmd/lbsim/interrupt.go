package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// exitInterrupted is the exit code of a run stopped by SIGINT or SIGTERM,
// as shells report a process killed by SIGINT (128 + 2).
const exitInterrupted = 130

// watchInterrupts turns SIGINT and SIGTERM into a request to stop that the
// run's loop sees (interrupted), so it returns and its deferred abort
// removes the temporary files. A second signal, or a command that has not
// returned within a grace period (mmc's run does not look), removes them at
// once and exits. The returned function stops watching. Tests set c.signals
// to send their own (and get no grace period, which would end the test).
func (c *cli) watchInterrupts(outs *outputs) (stop func()) {
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
			select {
			case <-ch:
			case <-done:
				return
			}
			c.stopFlag.Store(true)
			quit := func() {
				outs.abort()
				os.Exit(exitInterrupted)
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

// interrupted reports whether a signal asked the run to stop.
func (c *cli) interrupted() bool { return c.stopFlag.Load() }
