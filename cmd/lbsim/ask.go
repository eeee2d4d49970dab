package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// ask fills the main settings from answers on a terminal, showing the
// defaults; an empty answer (Enter) accepts the default. Settings given as
// flags are not asked again.
func (c *cli) ask(o *runOptions, seen map[string]bool) error {
	in := bufio.NewReader(c.stdin)
	fmt.Fprintln(c.stdout, "lbsim: answer each question or press Enter for the default in brackets.")
	prompt := func(question, def string, accept func(string) error) error {
		for {
			fmt.Fprintf(c.stdout, "%s [%s]: ", question, def)
			line, err := in.ReadString('\n')
			if err != nil && !(errors.Is(err, io.EOF) && line != "") {
				if errors.Is(err, io.EOF) {
					return errors.New("input ended before every question was answered")
				}
				return err
			}
			line = strings.TrimSpace(line)
			if line == "" {
				line = def
			}
			if err := accept(line); err != nil {
				fmt.Fprintf(c.stdout, "  %v\n", err)
				continue
			}
			return nil
		}
	}
	cfg := &o.cfg
	wholeIn := func(p *int, lo, hi int) func(string) error {
		return func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("want a whole number from %d to %d", lo, hi)
			}
			*p = n
			return nil
		}
	}
	if err := prompt("Servers at the start", strconv.Itoa(cfg.Servers), wholeIn(&cfg.Servers, 1, sim.MaxServersLimit)); err != nil {
		return err
	}
	if err := prompt("Cycles to run", strconv.FormatInt(cfg.Cycles, 10), func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 || n > sim.MaxCycles {
			return fmt.Errorf("want a whole number from 1 to %d", sim.MaxCycles)
		}
		cfg.Cycles = n
		return nil
	}); err != nil {
		return err
	}
	if err := prompt("Shortest task time (cycles)", strconv.Itoa(cfg.TaskMin), wholeIn(&cfg.TaskMin, 1, sim.MaxTaskTime)); err != nil {
		return err
	}
	if err := prompt("Longest task time (cycles)", strconv.Itoa(max(cfg.TaskMax, cfg.TaskMin)), wholeIn(&cfg.TaskMax, cfg.TaskMin, sim.MaxTaskTime)); err != nil {
		return err
	}
	if err := prompt("Seed (Enter for a random one)", "random", func(s string) error {
		if s == "random" {
			return nil
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return errors.New("want a whole number ≥ 0, or Enter for a random seed")
		}
		cfg.Seed = n
		seen["seed"] = true
		return nil
	}); err != nil {
		return err
	}
	return prompt("Mode: quiet, verbose or switch (P/S switch, quiet)", "quiet", func(s string) error {
		switch s {
		case "quiet", "q": // no event log: status lines and the summary
		case "verbose", "v":
			o.verbose = true
		case "switch", "s":
			cfg.Switch = true
		default:
			return errors.New("want quiet, verbose or switch")
		}
		return nil
	})
}
