package main

import (
	"fmt"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// emptyVary refuses a --vary of a setting with no values (load-info=),
// suggesting values the setting accepts: its default and its example
// (load-info=exact,periodic:100), not numbers it would refuse. It returns
// nil for a --vary with values or of no setting (ParseVary says why).
func emptyVary(v string) error {
	name, list, ok := strings.Cut(v, "=")
	r := sim.RowNamed(strings.TrimSpace(name))
	if !ok || strings.TrimSpace(list) != "" || r == nil {
		return nil
	}
	return fmt.Errorf("--vary %s: no values: give at least one, like %s", quoteCut(v), varyExample(r))
}

// varyExample is a --vary of row r with values it accepts.
func varyExample(r *sim.Row) string {
	var vals []string
	for _, s := range []string{r.Default(), r.Example} {
		if s != "" && (len(vals) == 0 || vals[0] != s) {
			vals = append(vals, s)
		}
	}
	sep := ","
	if strings.Contains(strings.Join(vals, ""), ",") {
		sep = ";" // a value holds commas (speeds=2,1,0.5;1,1)
	}
	ex := r.Name + "=" + strings.Join(vals, sep)
	if sep == ";" && len(vals) == 1 {
		ex += ";" // one value with commas: the ';' says so
	}
	if lo, hi, ok := r.Bounds(); ok && r.Whole() && hi > lo {
		ex += fmt.Sprintf(" or %s=%d:%d:%d", r.Name, lo, min(hi, lo+4), 1)
	}
	return ex
}
