package main

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestSettingsNeedsAccepted: what `lbsim settings` says a setting needs is
// accepted by the command line as written, and with it the setting's
// example value runs, as a flag and (for a changeable setting) as a
// --set; without it, the flag and the --set are both refused, naming
// the setting (the unread rule, one for both).
func TestSettingsNeedsAccepted(t *testing.T) {
	base := []string{"run", "--cycles", "60", "--seed", "1", "--servers", "3"}
	for _, r := range sim.Rows() {
		if len(r.Needs) == 0 || r.File {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			flag := []string{"--" + r.Name + "=" + r.Example}
			with := append(append(append([]string{}, base...), r.Needs...), flag...)
			if _, stderr, code := runQuiet(t, with...); code != 0 {
				t.Errorf("lbsim %s: exit %d, want 0:\n%s", strings.Join(with, " "), code, stderr)
			}
			def := sim.DefaultConfig()
			_, unread := sim.Unread(&def, nil)[r.Name] // else read by default (task-min, the wave's)
			if _, stderr, code := runQuiet(t, append(append([]string{}, base...), flag...)...); unread && (code != 2 || !strings.Contains(stderr, "--"+r.Name)) {
				t.Errorf("--%s without %v: exit %d, want 2 naming it:\n%s", r.Name, r.Needs, code, stderr)
			}
			if !r.Changeable || r.Name == "load-info" { // a change sets only a board's period
				return
			}
			set := []string{"--set", "30:" + r.Name + "=" + r.Example}
			with = append(append(append([]string{}, base...), r.Needs...), set...)
			if _, stderr, code := runQuiet(t, with...); code != 0 {
				t.Errorf("lbsim %s: exit %d, want 0:\n%s", strings.Join(with, " "), code, stderr)
			}
			without := append(append([]string{}, base...), set...)
			if _, stderr, code := runQuiet(t, without...); unread && (code != 2 || !strings.Contains(stderr, "--set 30:"+r.Name)) {
				t.Errorf("lbsim %s: exit %d, want 2 naming the --set:\n%s", strings.Join(without, " "), code, stderr)
			}
		})
	}
}
