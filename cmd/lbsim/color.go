package main

import "errors"

// colorMode is --color: when the verbose log is coloured.
type colorMode string

func (m *colorMode) String() string {
	if *m == "" {
		return "auto"
	}
	return string(*m)
}

func (m *colorMode) Set(s string) error {
	switch s {
	case "auto", "always", "never":
		*m = colorMode(s)
		return nil
	}
	return errors.New("want auto, always or never")
}

// colorEnv reads the environment's say on colour: NO_COLOR (set and not
// empty) turns it off, CLICOLOR_FORCE or FORCE_COLOR (set, not empty and
// not 0) force it, TERM=dumb turns it off.
func colorEnv(getenv func(string) string) (noColor, force, dumb bool) {
	on := func(name string) bool { v := getenv(name); return v != "" && v != "0" }
	return getenv("NO_COLOR") != "", on("CLICOLOR_FORCE") || on("FORCE_COLOR"), getenv("TERM") == "dumb"
}

// colored reports whether output to a stream (a terminal or not) is
// coloured under mode: always and never decide; auto colours a terminal
// unless NO_COLOR or TERM=dumb says not to, and CLICOLOR_FORCE or
// FORCE_COLOR colour any stream (NO_COLOR wins over them).
func (c *cli) colored(mode colorMode, tty bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	switch {
	case c.noColor:
		return false
	case c.forceColor:
		return true
	case c.dumbTerm:
		return false
	}
	return tty
}
